#include "ui/bridge/sweep_export.h"

#include <QFile>

#include "engine/common/json.h"
#include "ui/bridge/run_export.h"

namespace lwb::ui {

QString saveSweepJson(const Sweep& sweep, const QString& path) {
  try {
    return writeFileAtomically(path, QByteArray::fromStdString(sweepJson(sweep).dump(1) + "\n"));
  } catch (const std::exception& e) {
    return QObject::tr("%1: %2").arg(path, QString::fromUtf8(e.what()));
  }
}

QString openSweepJson(const QString& path, Sweep* sweep) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return QObject::tr("Cannot open %1: %2").arg(path, f.errorString());
  try {
    *sweep = sweepFromJson(parseJson(f.readAll().toStdString()));
  } catch (const std::exception& e) {
    return QObject::tr("%1: %2").arg(path, QString::fromUtf8(e.what()));
  }
  return {};
}

bool isSweepFile(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return false;
  const nlohmann::json j = parseJsonOrDiscarded(f.readAll().toStdString());
  return j.is_object() && j.contains("sweep") && j.contains("rows");
}

}  // namespace lwb::ui
