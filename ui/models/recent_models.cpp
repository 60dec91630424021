#include "ui/models/recent_models.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace lwb::ui {
namespace {

const QString kKey = QStringLiteral("models/recent");

// The same spelling for a path however it was typed (relative, "..", trailing slash), so
// one model never takes two entries.
QString normalized(const QString& path) { return QDir::cleanPath(QFileInfo(path).absoluteFilePath()); }

void store(const QStringList& list) { QSettings().setValue(kKey, list); }

}  // namespace

QStringList RecentModels::paths() {
  QStringList list = QSettings().value(kKey).toStringList();
  list.removeAll(QString());
  if (list.size() > kMaxEntries) list.resize(kMaxEntries);
  return list;
}

void RecentModels::add(const QString& path) {
  if (path.isEmpty()) return;
  const QString p = normalized(path);
  QStringList list = paths();
  list.removeAll(p);
  list.prepend(p);
  if (list.size() > kMaxEntries) list.resize(kMaxEntries);
  store(list);
}

void RecentModels::remove(const QString& path) {
  QStringList list = paths();
  list.removeAll(normalized(path));
  store(list);
}

void RecentModels::clear() { store({}); }

}  // namespace lwb::ui
