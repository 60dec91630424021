// The window in Japanese (ui/translations/llm-workbench_ja.ts): with the Japanese
// translator installed, the main window (with a model and a paused load), its dialogs
// and the remote window look up no text of their own that has no translation, show no
// English sentence (words on a short allowlist excepted: knob and metric names, units,
// model and device names), and every one-line label's, button's and tab's text fits its
// widget at the default size. The .ts itself has no unfinished message. Saves the
// Japanese window as window-ja.png (tools/update-screenshots.sh copies it to docs/images/).
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QMutex>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTranslator>
#include <QXmlStreamReader>
#include <QtTest>

#include "common/random_model.h"
#include "common/widget_texts.h"
#include "engine/config/knobs.h"
#include "engine/exec/sim/hardware_profile.h"
#include "engine/model/model.h"
#include "lessons/lessons.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/language.h"
#include "ui/main_window.h"
#include "ui/panels/load_panel.h"
#include "ui/panels/serve_dialog.h"
#include "ui/panels/simulate_dialog.h"
#include "ui/remote/remote_window.h"
#include "ui/theme.h"

using namespace lwb;
using namespace lwb::ui;
using namespace lwb::test;

namespace {
constexpr int kTimeoutMs = 60000;

// The window's translator, wrapped: remembers each lookup of the window's own texts that
// found no translation. Qt's own contexts (QDialogButtonBox, ...) are qtbase_ja's.
class RecordingTranslator : public QTranslator {
 public:
  explicit RecordingTranslator(QTranslator* inner) : inner_(inner) {}
  QString translate(const char* context, const char* source, const char* disambiguation, int n) const override {
    QString t = inner_->translate(context, source, disambiguation, n);
    if (t.isEmpty() && source && *source && ownContext(context)) {
      QMutexLocker lock(&mutex_);
      misses_.insert(QStringLiteral("%1: \"%2\"").arg(QString::fromUtf8(context), QString::fromUtf8(source)));
    }
    return t;
  }
  bool isEmpty() const override { return false; }
  void clear() {
    QMutexLocker lock(&mutex_);
    misses_.clear();
  }
  QStringList misses() const {
    QMutexLocker lock(&mutex_);
    QStringList out(misses_.begin(), misses_.end());
    out.sort();
    return out;
  }

 private:
  static bool ownContext(const char* c) {
    const QString s = QString::fromUtf8(c);
    return s.startsWith(QLatin1String("lwb::")) ||
           QStringList{"QObject", "Knobs", "PrefixMiss", "ModelLoad", "RemoteSession", "Lessons"}.contains(s);
  }
  QTranslator* inner_;
  mutable QMutex mutex_;
  mutable QSet<QString> misses_;
};

// Words that stay as they are in Japanese (docs/translation.md): vLLM's metric and unit
// abbreviations, formats, product names, vLLM's finish reasons and sampling parameters,
// bench's option names, key names, and each language's own name. Identifiers (with an
// underscore, a digit, a dot or a colon: knob names, vllm:metric names, file names) are
// never words here; the knob table's names and choices are added at run time, and so are
// the model's and the device's names and the simulator's hardware descriptions.
QSet<QString> baseAllowlist() {
  return {"TTFT", "ITL", "TPOT", "e2e", "KV", "ms", "tok", "MiB", "GiB", "req", "vLLM", "LLM", "GPU", "GPUs", "CPU",
          "CUDA", "JSON", "CSV", "PNG", "GGUF", "SLO", "SLOs", "API", "HTTP", "URL", "ID", "id", "EOS", "SGLang",
          "llama", "cpp", "Qwen", "Llama", "Hugging", "Face", "Perfetto", "Chrome", "NVIDIA", "AMD", "Intel", "PCIe",
          "SXM", "NVLink", "stop", "length", "abort", "temperature", "seed", "tokenizer", "English", "Workbench",
          "QCustomPlot", "GPL", "load", "chat", "on", "off", "inf", "Ctrl", "Shift", "Enter", "Esc", "Space",
          "Pause", "fp", "min", "max", "tokens", "BlockStored"};
}

void saveShot(QWidget* w, const QString& name) {
  const QString dir = qEnvironmentVariable("LWB_TEST_ARTIFACTS", QDir::tempPath() + "/lwb-test-artifacts");
  QDir().mkpath(dir);
  QVERIFY(w->grab().save(dir + "/" + name + ".png", "PNG"));
}
}  // namespace

class TestUiTranslation : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void cleanupTestCase();
  void tsFileIsComplete();
  void languageChoiceResolves();
  void windowWithLoad();
  void everyLookupIsTranslated();
  void noEnglishSentenceShows();
  void textsFitTheirWidgets();
  void screenshot();
  void dialogsAreTranslated();
  void remoteWindowIsTranslated();

 private:
  QStringList englishTexts(QWidget* root) const;
  QTemporaryDir tmp_;
  RecordingTranslator* recorder_ = nullptr;
  QSet<QString> allow_;
  std::unique_ptr<MainWindow> window_;
};

void TestUiTranslation::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName("llm-workbench-test");
  QTranslator* ja = loadWindowTranslator(QStringLiteral("ja"), this);
  QVERIFY2(ja, "the Japanese .qm is not in the program's resources");
  recorder_ = new RecordingTranslator(ja);
  QCoreApplication::installTranslator(recorder_);
  // The recorder catches a text the .ts lacks (so an empty list below means something).
  QCOMPARE(QCoreApplication::translate("lwb::ui::MainWindow", "No such text"), QString("No such text"));
  QCOMPARE(recorder_->misses(), QStringList{"lwb::ui::MainWindow: \"No such text\""});
  recorder_->clear();
  allow_ = baseAllowlist();
  for (const Knob& k : knobTable()) {
    allow_ << QString::fromUtf8(k.name.data(), int(k.name.size()));
    for (std::string_view c : k.choices) allow_ << QString::fromUtf8(c.data(), int(c.size()));
  }
  // The simulator's hardware presets are named and described by their files (data).
  for (const std::string& name : sim::hardwarePresetNames())
    for (const QString& w : QString::fromStdString(sim::loadHardwareProfile(name).description)
                                .split(QRegularExpression("[^A-Za-z0-9_]+"), Qt::SkipEmptyParts))
      allow_ << w;
  // A lesson's name is what `llm-workbench lesson NAME` takes: it stays as it is.
  for (const Lesson& l : lessons()) allow_ << QString::fromStdString(l.name);
}

void TestUiTranslation::cleanupTestCase() {
  window_.reset();
  QCoreApplication::removeTranslator(recorder_);
  delete recorder_;
}

// Every message of the .ts has its translation: nothing unfinished, vanished or empty.
void TestUiTranslation::tsFileIsComplete() {
  QFile f(QStringLiteral(LWB_SOURCE_DIR "/ui/translations/llm-workbench_ja.ts"));
  QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
  QXmlStreamReader xml(&f);
  QString language, source, element, type, text;
  int numMessages = 0;
  QStringList bad;
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement()) {
      element = xml.name().toString();
      text.clear();
      if (element == QLatin1String("TS")) language = xml.attributes().value("language").toString();
      if (element == QLatin1String("message")) ++numMessages;
      if (element == QLatin1String("translation")) type = xml.attributes().value("type").toString();
    } else if (xml.isCharacters()) {
      text += xml.text();
    } else if (xml.isEndElement()) {
      const bool numerus = xml.name() == QLatin1String("translation") && source.contains(QLatin1String("%n"));
      if (xml.name() == QLatin1String("source")) source = text;
      if ((xml.name() == QLatin1String("translation") && !numerus) || xml.name() == QLatin1String("numerusform"))
        if (!type.isEmpty() || text.trimmed().isEmpty())
          bad << QStringLiteral("\"%1\" (%2)").arg(source, type.isEmpty() ? QStringLiteral("empty") : type);
      text.clear();
    }
  }
  QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
  QCOMPARE(language, QString("ja_JP"));
  QVERIFY(numMessages > 400);
  QVERIFY2(bad.isEmpty(), qPrintable(bad.join('\n')));
}

void TestUiTranslation::languageChoiceResolves() {
  QCOMPARE(resolveLanguage("ja"), QString("ja"));
  QCOMPARE(resolveLanguage("en"), QString("en"));
  QVERIFY(QStringList({"en", "ja"}).contains(resolveLanguage("system")));
  try {
    resolveLanguage("fr");
    QFAIL("fr was accepted");
  } catch (const std::exception& e) {
    QVERIFY2(QString(e.what()).contains("'fr'") && QString(e.what()).contains("system, en, ja"), e.what());
  }
  saveLanguage("ja");
  QCOMPARE(savedLanguage(), QString("ja"));
  saveLanguage("klingon");  // an unknown saved value reads as the default
  QCOMPARE(savedLanguage(), QString("system"));
  QSettings().remove("ui/language");
  QCOMPARE(QCoreApplication::translate("Knobs", "off"), QString("オフ"));  // the recorder passes the .qm through
}

// The main window on a model, with a load paused while requests hold KV blocks, so the
// charts, the KV map, the tables and the status bar all show their texts.
void TestUiTranslation::windowWithLoad() {
  QString modelDir;
  try {
    modelDir = QString::fromStdString(defaultModelDir());
  } catch (const std::exception&) {
    modelDir = QString::fromStdString(writeRandomLlamaModel(tmp_.filePath("random").toStdString()));
  }
  WindowOptions options;
  options.modelDir = modelDir;
  options.knobs.executor.backend = "cpu";
  options.knobs.executor.numThreads = 1;
  options.restoreLayout = false;
  theme::apply(*qApp);
  window_ = std::make_unique<MainWindow>(options);
  window_->resize(1400, 900);
  window_->show();
  QTRY_VERIFY_WITH_TIMEOUT(window_->bridge()->attached(), kTimeoutMs);
  allow_ << QFileInfo(modelDir).fileName();
  LoadPanel* load = window_->load();
  WorkloadOptions first;  // finishes: the latency charts, the prefix cache and the table fill
  first.numPrompts = 12;
  first.requestRate = 40;
  first.inputLen = 40;
  first.outputLen = 12;
  first.sharedPrefixLen = 48;
  first.numPrefixGroups = 2;
  first.ignoreEos = true;
  load->setOptions(first);
  QVERIFY(load->start());
  QTRY_COMPARE_WITH_TIMEOUT(load->numFinished(), 12, kTimeoutMs);
  WorkloadOptions w;  // still running when paused: the batch chart and the KV map show it
  w.numPrompts = 8;
  w.requestRate = std::numeric_limits<double>::infinity();
  w.inputLen = 64;
  w.outputLen = 400;
  w.sharedPrefixLen = 32;
  w.ignoreEos = true;
  load->setOptions(w);
  QVERIFY(load->start());
  EngineBridge* bridge = window_->bridge();
  QTRY_VERIFY_WITH_TIMEOUT(bridge->lastSnapshot() && bridge->lastSnapshot()->numRunning > 0 &&
                               bridge->lastSnapshot()->totals.generatedTokens > 12 * 12 + 40,
                           kTimeoutMs);
  bridge->setPaused(true);
  bridge->poll();
  for (const QString& word : QString::fromStdString(bridge->lastSnapshot()->device.name).split(' ', Qt::SkipEmptyParts))
    allow_ << word;
  QTest::qWait(400);  // the status bar's refresh and queued replots
}

void TestUiTranslation::everyLookupIsTranslated() {
  // Texts are looked up as views are built and refreshed: open every dock once.
  for (QDockWidget* d : window_->docks()) {
    d->show();
    d->raise();
    QCoreApplication::processEvents();
  }
  for (QMenu* m : window_->menuBar()->findChildren<QMenu*>()) emit m->aboutToShow();
  window_->resetLayout();
  QCoreApplication::processEvents();
  const QStringList misses = recorder_->misses();
  QVERIFY2(misses.isEmpty(), qPrintable("no Japanese for:\n" + misses.join('\n')));
}

QStringList TestUiTranslation::englishTexts(QWidget* root) const {
  QStringList bad;
  QSet<QString> seen;
  // Qt's own texts (standard buttons, a tab's close button): qtbase_ja's when installed.
  static const QStringList qtTexts = {"OK", "Cancel", "Close Tab", "Close"};
  for (const Shown& s : collectAll(root)) {
    if (readsJapanese(s.text) || seen.contains(s.text) || qtTexts.contains(s.text)) continue;
    seen.insert(s.text);
    if (const QStringList words = untranslatedWords(s.text, allow_); !words.isEmpty())
      bad << QStringLiteral("%1: \"%2\" (%3)").arg(s.where, s.text.left(160), words.join(' '));
  }
  return bad;
}

void TestUiTranslation::noEnglishSentenceShows() {
  QVERIFY(collectAll(window_.get()).size() > 500);  // the walk reaches the docks, menus and charts
  {  // the check itself: an English sentence is caught, a Japanese one with knob names is not
    QWidget probe;
    new QLabel(QStringLiteral("Stop the engine first"), &probe);
    new QLabel(QStringLiteral("max_num_seqs を大きくする（TTFT、KV）"), &probe);
    QCOMPARE(englishTexts(&probe).size(), 1);
  }
  const QStringList bad = englishTexts(window_.get());
  QVERIFY2(bad.isEmpty(), qPrintable("English in the Japanese window:\n" + bad.join('\n')));
}

// At the default size, dock by dock (a tabbed dock lays out when raised).
void TestUiTranslation::textsFitTheirWidgets() {
  QStringList bad;
  for (QDockWidget* d : window_->docks()) {
    d->raise();
    QTest::qWait(20);
    bad << fitProblems(d);
  }
  window_->resetLayout();
  QTest::qWait(50);
  bad << fitProblems(window_->statusBar()) << fitProblems(window_->menuBar());
  bad.removeDuplicates();
  QVERIFY2(bad.isEmpty(), qPrintable("cut off in Japanese:\n" + bad.join('\n')));
}

void TestUiTranslation::screenshot() {
  window_->resetLayout();
  QTest::qWait(300);  // queued replots
  saveShot(window_.get(), "window-ja");
  window_->bridge()->setPaused(false);
  window_->load()->stop();
}

void TestUiTranslation::dialogsAreTranslated() {
  QStringList bad;
  {
    SimulateDialog dialog(EngineConfig{}, window_.get());
    dialog.show();
    QTest::qWait(50);
    bad << englishTexts(&dialog) << fitProblems(&dialog);
    dialog.reject();
  }
  {
    ServeDialog dialog(ServeSettings{}, window_.get());
    dialog.show();
    QTest::qWait(20);
    bad << englishTexts(&dialog) << fitProblems(&dialog);
    dialog.reject();
  }
  const QStringList misses = recorder_->misses();
  QVERIFY2(misses.isEmpty(), qPrintable("no Japanese for:\n" + misses.join('\n')));
  QVERIFY2(bad.isEmpty(), qPrintable(bad.join('\n')));
}

// The remote window on a server that is not there: every view is built, and the status
// says so (its cause, from the connection, may stay English inside the Japanese frame).
void TestUiTranslation::remoteWindowIsTranslated() {
  RemoteWindow w({"http://127.0.0.1:1", "", "", 0.1});
  w.resize(1400, 900);
  w.show();
  QTRY_VERIFY_WITH_TIMEOUT(!w.statusText().isEmpty(), kTimeoutMs);
  QTest::qWait(200);
  for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
    d->show();
    d->raise();
    QCoreApplication::processEvents();
  }
  const QStringList misses = recorder_->misses();
  QVERIFY2(misses.isEmpty(), qPrintable("no Japanese for:\n" + misses.join('\n')));
  const QStringList bad = englishTexts(&w);
  QVERIFY2(bad.isEmpty(), qPrintable("English in the Japanese remote window:\n" + bad.join('\n')));
  saveShot(&w, "remote-window-ja");
}

QTEST_MAIN(TestUiTranslation)
#include "tst_ui_translation.moc"
