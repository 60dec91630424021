#include "ui/bridge/run_export.h"

#include <QFile>
#include <QSaveFile>

#include "engine/common/json.h"

namespace lwb::ui {

QString writeFileAtomically(const QString& path, const QByteArray& bytes) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
  f.write(bytes);
  if (!f.commit()) return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
  return {};
}

QString saveRunJson(const RunData& run, const QString& path) {
  return writeFileAtomically(path, QByteArray::fromStdString(runToJson(run).dump(1)));
}

QString openRunJson(const QString& path, RunData* run) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return QObject::tr("Cannot open %1: %2").arg(path, f.errorString());
  try {
    *run = runFromJson(parseJson(f.readAll().toStdString()));
  } catch (const std::exception& e) {
    return QObject::tr("%1: %2").arg(path, QString::fromUtf8(e.what()));
  }
  return {};
}

}  // namespace lwb::ui
