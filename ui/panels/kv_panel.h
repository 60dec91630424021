#pragma once
// KV block map dock: a usage bar (used / cached-free / free), the block grid and a legend.
#include <QWidget>

#include "ui/bridge/frame.h"
#include "ui/bridge/throttle.h"

class QLabel;

namespace lwb::ui {

class KvBlockMap;

// Stacked bar: blocks in use, cached but free (evictable), free.
class KvUsageBar : public QWidget {
  Q_OBJECT
 public:
  using QWidget::QWidget;
  void setCounts(int used, int cachedFree, int free);
  QSize sizeHint() const override { return {300, 14}; }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  int used_ = 0, cached_ = 0, free_ = 0;
};

class KvPanel : public QWidget {
  Q_OBJECT
 public:
  explicit KvPanel(QWidget* parent = nullptr);
  void onFrame(const Frame& frame);
  KvBlockMap* map() const { return map_; }
  void clear();
  QString caption() const;  // the summary line, with the map's note on hidden blocks
  void setSimulatedNote(const QString& text);  // "SIMULATED · …" above the map; empty: none

 private:
  void showCaption();

  KvUsageBar* bar_;
  QLabel* summary_;
  KvBlockMap* map_;
  QString summaryText_;
  QLabel* simulated_;
  Throttle captionRefresh_{250, [this] { showCaption(); }};  // ~4 Hz; the map itself every frame
};

}  // namespace lwb::ui
