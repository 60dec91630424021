#pragma once
// The models opened last — Hugging Face folders and .gguf files alike — newest first,
// kept in QSettings ("models/recent") so File ▸ Open recent lists them across sessions.
// A path enters the list when its model has loaded, so a file that failed to open never
// shows up; one that has since disappeared is dropped when picked.
#include <QStringList>

namespace lwb::ui {

class RecentModels {
 public:
  static constexpr int kMaxEntries = 10;

  static QStringList paths();             // newest first, at most kMaxEntries
  static void add(const QString& path);   // made absolute; moved to the front if present
  static void remove(const QString& path);
  static void clear();
};

}  // namespace lwb::ui
