// The .deb end to end: cpack builds it from this build tree, dpkg-deb unpacks it into a
// scratch root, and the checks look at what a user would get: the file list, the control
// fields, the man page against the program's --help, the desktop entry and metainfo
// (validated when desktop-file-validate / appstreamcli are installed), and the unpacked
// program running `generate` on the bundled model it finds relative to itself.
#include <QtTest>

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QXmlStreamReader>

#ifndef LWB_CPACK_COMMAND
#error "LWB_CPACK_COMMAND, LWB_APP_ID and LWB_PROJECT_VERSION are defined by packaging/CMakeLists.txt"
#endif

namespace {

const QString kAppId = QStringLiteral(LWB_APP_ID);
const QString kModelName = QStringLiteral("austen-chat-11m");
const QString kDraftName = QStringLiteral("austen-chat-draft");  // the default model's speculative draft

struct Run {
  int exitCode = -1;
  QByteArray out, err;
  QString describe() const { return QString("exit %1; stderr: %2; stdout: %3").arg(exitCode).arg(err, out.left(2000)); }
};

Run run(const QString& program, const QStringList& args, int timeoutMs = 120000,
        const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(), const QString& cwd = {}) {
  QProcess p;
  p.setProcessEnvironment(env);
  if (!cwd.isEmpty()) p.setWorkingDirectory(cwd);
  p.start(program, args);
  Run r;
  if (!p.waitForStarted(30000)) {
    r.err = (program + ": " + p.errorString()).toUtf8();
    return r;
  }
  p.closeWriteChannel();
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    r.err = (program + ": timed out").toUtf8();
  }
  if (p.exitStatus() == QProcess::NormalExit) r.exitCode = p.exitCode();
  r.out = p.readAllStandardOutput();
  r.err += p.readAllStandardError();
  return r;
}

QString findTool(const QString& name) { return QStandardPaths::findExecutable(name); }

// dpkg-deb -f output "Key: value" (continuation lines ignored) as a map.
QMap<QString, QString> controlFields(const QByteArray& text) {
  QMap<QString, QString> fields;
  for (const QByteArray& line : text.split('\n')) {
    const int colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith(' ')) fields[line.left(colon)] = QString(line.mid(colon + 1)).trimmed();
  }
  return fields;
}

// Every regular file below `dir`, relative to it.
QStringList filesBelow(const QString& dir) {
  QStringList files;
  QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
  while (it.hasNext()) files << QDir(dir).relativeFilePath(it.next());
  files.sort();
  return files;
}

// Key=value lines of the [Desktop Entry] group (not of the action groups after it).
QMap<QString, QString> desktopEntry(const QString& path) {
  QFile file(path);
  QMap<QString, QString> keys;
  if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) return keys;
  bool inMainGroup = false;
  for (const QByteArray& raw : file.readAll().split('\n')) {
    const QString line = QString::fromUtf8(raw).trimmed();
    if (line.startsWith('[')) inMainGroup = line == "[Desktop Entry]";
    else if (inMainGroup && line.contains('=')) keys[line.section('=', 0, 0)] = line.section('=', 1);
  }
  return keys;
}

// The long options a --help text names (--model, --max-num-seqs, ...).
QSet<QString> longOptions(const QByteArray& help) {
  QSet<QString> options;
  static const QRegularExpression re("--[a-z][a-z0-9-]*");
  for (auto it = re.globalMatch(QString::fromUtf8(help)); it.hasNext();) options << it.next().captured();
  return options;
}

}  // namespace

class TestPackage : public QObject {
  Q_OBJECT
  QTemporaryDir scratch_;
  QString root_, deb_, cudaDeb_;
  bool haveModel_ = false;

  QString rootPath(const QString& rel) const { return root_ + "/" + rel; }
  QString installedProgram() const { return rootPath("usr/bin/llm-workbench"); }

 private slots:
  void initTestCase() {
    const QString built = QStringLiteral(LWB_BINARY_DIR "/bin/llm-workbench");
    const Run version = run(built, {"--version"}, 30000);
    if (version.exitCode != 0 || !version.out.startsWith("llm-workbench "))
      QSKIP(qPrintable("`llm-workbench --version` does not work in this build tree yet (" + version.describe() +
                       "); build the program first"));
    if (findTool("dpkg-deb").isEmpty()) QSKIP("dpkg-deb is not installed (package dpkg)");
    if (findTool("dpkg-shlibdeps").isEmpty()) QSKIP("dpkg-shlibdeps is not installed (package dpkg-dev)");
    haveModel_ = QFileInfo::exists(LWB_SOURCE_DIR "/resources/models/austen-chat-11m/config.json");
    QVERIFY(scratch_.isValid());

    // -B keeps cpack's staging tree and the packages out of the build directory.
    const QString out = scratch_.filePath("out");
    const Run cpack = run(LWB_CPACK_COMMAND, {"-G", "DEB", "--config", LWB_BINARY_DIR "/CPackConfig.cmake", "-B", out},
                          300000, QProcessEnvironment::systemEnvironment(), LWB_BINARY_DIR);
    QVERIFY2(cpack.exitCode == 0, qPrintable("cpack failed: " + cpack.describe()));
    const QStringList debs = QDir(out).entryList({"*.deb"}, QDir::Files);
    for (const QString& name : debs) {
      if (name.startsWith("llm-workbench_")) deb_ = out + "/" + name;
      if (name.startsWith("llm-workbench-cuda_")) cudaDeb_ = out + "/" + name;
    }
    QVERIFY2(!deb_.isEmpty(), qPrintable("no llm-workbench_*.deb among: " + debs.join(", ")));
    root_ = scratch_.filePath("root");
    const Run unpack = run("dpkg-deb", {"-x", deb_, root_});
    QVERIFY2(unpack.exitCode == 0, qPrintable(unpack.describe()));
  }

  void fileListIsTheInstalledLayout() {
    const QStringList files = filesBelow(root_);
    QStringList expected = {"usr/bin/llm-workbench",
                            "usr/share/applications/" + kAppId + ".desktop",
                            "usr/share/metainfo/" + kAppId + ".metainfo.xml",
                            "usr/share/icons/hicolor/scalable/apps/" + kAppId + ".svg",
                            "usr/share/man/man1/llm-workbench.1.gz",
                            "usr/share/doc/llm-workbench/copyright",
                            "usr/share/doc/llm-workbench/changelog.gz"};
    for (int size : {16, 22, 24, 32, 48, 64, 128, 256})
      expected << QString("usr/share/icons/hicolor/%1x%1/apps/%2.png").arg(size).arg(kAppId);
    // Every file of the source tree's resources/models/, whatever the model folder holds.
    for (const QString& f : filesBelow(LWB_SOURCE_DIR "/resources/models"))
      expected << "usr/share/llm-workbench/models/" + f;
    // The simulator's hardware presets (--sim-hardware NAME).
    for (const QString& f : filesBelow(LWB_SOURCE_DIR "/resources/hardware"))
      expected << "usr/share/llm-workbench/hardware/" + f;
    // Its model shapes (--backend sim --model, File > Simulate...).
    for (const QString& f : filesBelow(LWB_SOURCE_DIR "/resources/sim-models"))
      expected << "usr/share/llm-workbench/sim-models/" + f;
    if (haveModel_)
      for (const char* f : {"config.json", "model.safetensors", "tokenizer.model"})
        expected << "usr/share/llm-workbench/models/" + kModelName + "/" + f;
    for (const char* f : {"config.json", "model.safetensors", "tokenizer.model", "tokenizer_config.json",
                          "generation_config.json", "README.md"})
      expected << "usr/share/llm-workbench/models/" + kDraftName + "/" + f;
    for (const QString& e : expected) QVERIFY2(files.contains(e), qPrintable("missing from the package: " + e));
    QVERIFY(QFileInfo(installedProgram()).isExecutable());

    // Nothing but the program, its data and its plugin folder: no tests, static
    // libraries, headers or build-tree paths; the CUDA plugin only in its own package.
    static const QRegularExpression allowed("^usr/(bin/llm-workbench|share/|lib/llm-workbench/)");
    for (const QString& f : files) {
      QVERIFY2(allowed.match(f).hasMatch(), qPrintable("unexpected file in the package: " + f));
      QVERIFY2(!f.contains("liblwb_cuda"), qPrintable("the CUDA plugin belongs in llm-workbench-cuda: " + f));
    }
  }

  void controlFieldsAndShlibDepends() {
    const Run r = run("dpkg-deb", {"-f", deb_});
    QCOMPARE(r.exitCode, 0);
    const auto f = controlFields(r.out);
    QCOMPARE(f.value("Package"), QString("llm-workbench"));
    QCOMPARE(f.value("Version"), QStringLiteral(LWB_PROJECT_VERSION));
    QCOMPARE(f.value("Section"), QString("science"));
    QCOMPARE(f.value("Priority"), QString("optional"));
    QVERIFY(f.value("Maintainer").contains('@'));
    QVERIFY(f.value("Homepage").startsWith("https://"));
    QVERIFY2(!f.value("Description").isEmpty() && !f.value("Description").contains("CMake"),
             qPrintable(f.value("Description")));
    // Filled in by dpkg-shlibdeps from the program's shared libraries (the engine's
    // tokenizer is SentencePiece, always linked).
    const QString depends = f.value("Depends");
    QVERIFY2(depends.contains("libc6 (>="), qPrintable(depends));
    QVERIFY2(depends.contains("libsentencepiece"), qPrintable(depends));
    QVERIFY2(!depends.contains("cuda") && !depends.contains("cublas"), qPrintable(depends));
  }

  void programRunsFromTheUnpackedRoot() {
    const Run r = run(installedProgram(), {"--version"}, 30000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    QCOMPARE(r.out.trimmed(), QByteArray("llm-workbench " LWB_PROJECT_VERSION));
  }

  // The bundled model is found relative to the executable (<root>/usr/bin/../share/...),
  // not through LWB_MODEL_DIR, the build tree or an installed /usr.
  void generateUsesTheBundledModel() {
    if (!haveModel_) QSKIP("resources/models/austen-chat-11m does not exist yet (the default model is being trained)");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("LWB_MODEL_DIR");
    const Run r = run(installedProgram(),
                      {"generate", "--prompt", "Hello", "--max-tokens", "8", "--temperature", "0", "--json"}, 120000,
                      env, scratch_.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    QJsonParseError error;
    const QJsonObject j = QJsonDocument::fromJson(r.out, &error).object();
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString() + ": " + r.out));
    const QString modelDir = rootPath("usr/share/llm-workbench/models/" + kModelName);
    QCOMPARE(QFileInfo(j["model"].toString()).canonicalFilePath(), QFileInfo(modelDir).canonicalFilePath());
    QVERIFY(!j["prompt_token_ids"].toArray().isEmpty());
    const QJsonArray output = j["output_token_ids"].toArray();
    QVERIFY2(output.size() >= 1 && output.size() <= 8, qPrintable(r.out));
    QCOMPARE(int(output.size()), j["metrics"]["output_tokens"].toInt());
    for (const auto& id : output) QVERIFY(id.isDouble() && id.toInt() >= 0);
    QVERIFY(j["text"].isString());
    QVERIFY2(j["finish_reason"] == "length" || j["finish_reason"] == "stop", qPrintable(r.out));
  }

  // The draft ships beside the default model, and the unpacked program runs it.
  void generateRunsTheBundledDraft() {
    const QString draftDir = rootPath("usr/share/llm-workbench/models/" + kDraftName);
    const Run r = run(installedProgram(),
                      {"generate", "--model", draftDir, "--prompt", "Hello", "--max-tokens", "8", "--temperature", "0",
                       "--ignore-eos", "--json"},
                      120000, QProcessEnvironment::systemEnvironment(), scratch_.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(QFileInfo(j["model"].toString()).canonicalFilePath(), QFileInfo(draftDir).canonicalFilePath());
    QCOMPARE(int(j["output_token_ids"].toArray().size()), 8);
  }

  // Every long option the program's --help texts name is documented in the man page.
  void manPageDocumentsEveryOption() {
    const Run gz = run("gzip", {"-dc", rootPath("usr/share/man/man1/llm-workbench.1.gz")});
    QCOMPARE(gz.exitCode, 0);
    const QString man = QString::fromUtf8(gz.out).replace("\\-", "-");
    QVERIFY(man.contains(".TH LLM-WORKBENCH 1"));
    for (const QStringList& args : {QStringList{"--help"}, QStringList{"generate", "--help"}, QStringList{"bench", "--help"},
                                  QStringList{"serve", "--help"}}) {
      const Run help = run(installedProgram(), args, 30000);
      QVERIFY2(help.exitCode == 0, qPrintable(args.join(' ') + ": " + help.describe()));
      for (const QString& option : longOptions(help.out))
        QVERIFY2(man.contains(option), qPrintable("the man page does not mention " + option + " (from " +
                                                  args.join(' ') + ")"));
    }
    if (findTool("groff").isEmpty()) return;
    const Run groff = run("groff", {"-man", "-ww", "-z", LWB_SOURCE_DIR "/packaging/llm-workbench.1"});
    QVERIFY2(groff.exitCode == 0 && groff.err.isEmpty(), qPrintable(groff.describe()));
  }

  void desktopEntryIsValidAndPointsIntoThePackage() {
    const QString path = rootPath("usr/share/applications/" + kAppId + ".desktop");
    const auto entry = desktopEntry(path);
    QCOMPARE(entry.value("Icon"), kAppId);
    QCOMPARE(entry.value("Exec").section(' ', 0, 0), QString("llm-workbench"));
    const QString validator = findTool("desktop-file-validate");
    if (validator.isEmpty()) QSKIP("desktop-file-validate is not installed (package desktop-file-utils)");
    const Run r = run(validator, {path});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
  }

  void metainfoIsValidAndMatchesTheProject() {
    const QString path = rootPath("usr/share/metainfo/" + kAppId + ".metainfo.xml");
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&file);
    QString id, launchable, license, firstRelease;
    while (!xml.atEnd()) {
      if (xml.readNext() != QXmlStreamReader::StartElement) continue;
      const auto name = xml.name();
      if (name == QLatin1String("release") && firstRelease.isEmpty())
        firstRelease = xml.attributes().value("version").toString();
      else if (name == QLatin1String("id")) id = xml.readElementText();
      else if (name == QLatin1String("launchable")) launchable = xml.readElementText();
      else if (name == QLatin1String("project_license")) license = xml.readElementText();
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QCOMPARE(id, kAppId);
    QCOMPARE(launchable, kAppId + ".desktop");
    QCOMPARE(license, QString("GPL-3.0-or-later"));
    // A version bump needs a <release> entry (newest first) in the metainfo.
    QCOMPARE(firstRelease, QStringLiteral(LWB_PROJECT_VERSION));
    const QString validator = findTool("appstreamcli");
    if (validator.isEmpty()) QSKIP("appstreamcli is not installed (package appstream)");
    const Run r = run(validator, {"validate", "--no-net", path});
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
  }

  void cudaPackageDependsOnTheMainOne() {
    if (cudaDeb_.isEmpty()) QSKIP("the CUDA plugin is not built in this build tree (no llm-workbench-cuda package)");
    const Run fields = run("dpkg-deb", {"-f", cudaDeb_});
    QCOMPARE(fields.exitCode, 0);
    const auto f = controlFields(fields.out);
    QCOMPARE(f.value("Package"), QString("llm-workbench-cuda"));
    QVERIFY2(f.value("Description").startsWith("CUDA backend"), qPrintable(f.value("Description")));
    QVERIFY2(f.value("Depends").startsWith("llm-workbench (= " + f.value("Version") + ")"), qPrintable(f.value("Depends")));
    QVERIFY2(f.value("Depends").contains("cublas"), qPrintable(f.value("Depends")));
    // The plugin lands where the program looks for it: <bin>/../lib*/llm-workbench/.
    const Run list = run("dpkg-deb", {"-c", cudaDeb_});
    static const QRegularExpression plugin(R"(\./usr/lib[^ ]*/llm-workbench/liblwb_cuda\.so\b)");
    QVERIFY2(plugin.match(QString::fromUtf8(list.out)).hasMatch(), qPrintable(list.out));
  }
};

QTEST_GUILESS_MAIN(TestPackage)
#include "tst_package.moc"
