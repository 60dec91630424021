// tools/install-deps.sh on a machine already set up (the test command ran it before this
// test): a second run must call no package manager. apt-get, apt, npm and sudo are
// shadowed on PATH by stubs that record each call, so a package name that dpkg does not
// know as installed (a virtual name, a typo) shows up as a recorded `apt-get install`.
#include <QtTest>

#include <QTemporaryDir>

namespace {

const QStringList kPackageManagers = {"apt-get", "apt", "npm", "sudo"};

struct Run {
  int exitCode = -1;
  QString err;
};

class TestInstallDeps : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void secondRunCallsNoPackageManager();
  void stubsRecordCalls();

 private:
  Run runInstallDeps();
  QStringList recordedCalls() const;
  QTemporaryDir dir_;
  QString log_;
};

void TestInstallDeps::initTestCase() {
  QVERIFY(dir_.isValid());
  log_ = dir_.filePath("calls.log");
  QDir().mkpath(dir_.filePath("bin"));
  for (const QString& name : kPackageManagers) {
    const QString path = dir_.filePath("bin/" + name);
    QFile stub(path);
    QVERIFY(stub.open(QIODevice::WriteOnly));
    stub.write(QString("#!/bin/sh\necho \"%1 $*\" >> '%2'\n").arg(name, log_).toUtf8());
    stub.close();
    QVERIFY(stub.setPermissions(stub.permissions() | QFileDevice::ExeOwner | QFileDevice::ExeUser));
  }
}

Run TestInstallDeps::runInstallDeps() {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("PATH", dir_.filePath("bin") + ":" + env.value("PATH"));
  QProcess p;
  p.setProcessEnvironment(env);
  p.start("bash", {QStringLiteral(LWB_SOURCE_DIR "/tools/install-deps.sh")});
  Run r;
  if (!p.waitForFinished(120000)) {
    r.err = "install-deps.sh did not finish: " + p.errorString();
    return r;
  }
  r.exitCode = p.exitCode();
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

QStringList TestInstallDeps::recordedCalls() const {
  QFile f(log_);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
}

void TestInstallDeps::secondRunCallsNoPackageManager() {
  const Run first = runInstallDeps();
  QVERIFY2(first.exitCode == 0, qPrintable(first.err));
  const QStringList firstCalls = recordedCalls();
  QFile::remove(log_);
  const Run second = runInstallDeps();
  QVERIFY2(second.exitCode == 0, qPrintable(second.err));
  const QStringList calls = recordedCalls();
  QVERIFY2(calls.isEmpty(), qPrintable("the second run called: " + calls.join("; ") +
                                       "\nthe first run called: " + firstCalls.join("; ") +
                                       "\nits stderr: " + second.err));
  QVERIFY2(!second.err.contains("installing"), qPrintable(second.err));
}

// The stubs themselves record: otherwise the test above could not fail.
void TestInstallDeps::stubsRecordCalls() {
  QFile::remove(log_);
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("PATH", dir_.filePath("bin") + ":" + env.value("PATH"));
  QProcess p;
  p.setProcessEnvironment(env);
  p.start("sh", {"-c", "apt-get update -qq && npm install x"});
  QVERIFY(p.waitForFinished(30000));
  QCOMPARE(recordedCalls(), QStringList({"apt-get update -qq", "npm install x"}));
}

}  // namespace

QTEST_GUILESS_MAIN(TestInstallDeps)
#include "tst_install_deps.moc"
