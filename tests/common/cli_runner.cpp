#include "common/cli_runner.h"

#include <QDir>
#include <QFileInfo>

namespace lwb::test {

QString workbenchExecutable() { return QStringLiteral(LWB_BINARY_DIR "/bin/llm-workbench"); }

CliResult runWorkbench(const QStringList& args, int timeoutMs, const QProcessEnvironment& env) {
  QProcess p;
  p.setProcessEnvironment(env);
  p.start(workbenchExecutable(), args);
  CliResult r;
  if (!p.waitForStarted(30000)) {
    r.crashed = true;
    r.err = p.errorString().toUtf8();
    return r;
  }
  p.closeWriteChannel();
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    r.crashed = true;
  }
  r.crashed = r.crashed || p.exitStatus() != QProcess::NormalExit;
  r.exitCode = p.exitCode();
  r.out = p.readAllStandardOutput();
  r.err = p.readAllStandardError();
  return r;
}

QString defaultModelInBuildTree() {
  const QString dir = QStringLiteral(LWB_BINARY_DIR "/share/llm-workbench/models/austen-chat-11m");
  return QFileInfo::exists(dir + "/model.safetensors") ? dir : QString();
}

}  // namespace lwb::test
