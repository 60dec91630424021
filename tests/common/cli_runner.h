#pragma once
// Runs the built llm-workbench executable for command-line tests.
#include <QProcess>
#include <QString>
#include <QStringList>

namespace lwb::test {

struct CliResult {
  int exitCode = -1;
  bool crashed = false;  // killed by a signal or did not finish
  QByteArray out, err;
};

QString workbenchExecutable();  // <build>/bin/llm-workbench
CliResult runWorkbench(const QStringList& args, int timeoutMs = 300000,
                       const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment());
// The default model folder in the build tree, or "" when it has not been trained yet.
QString defaultModelInBuildTree();

}  // namespace lwb::test
