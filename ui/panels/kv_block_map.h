#pragma once
// The KV cache as a grid: one cell per block, coloured by owning request (stable hue per
// id); free blocks are empty outlines, cached-but-free blocks (evictable, hash kept) are
// grey and hatched, shared blocks (ref count > 1) carry a white corner badge. Blocks freed
// by a preemption flash red for a moment. Repaints only when the snapshot changed.
#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>
#include <vector>

#include "engine/engine.h"

namespace lwb::ui {

class KvBlockMap : public QWidget {
  Q_OBJECT
 public:
  enum class CellState { Free, CachedFree, Owned, Shared };

  explicit KvBlockMap(QWidget* parent = nullptr);

  // `preemptionsSinceLast` > 0 makes blocks that just left an owner flash.
  void setBlocks(std::vector<KvBlockInfo> blocks, int64_t totalPreemptions);
  void setSelectedRequest(RequestId id);
  int numBlocks() const { return int(blocks_.size()); }
  const std::vector<KvBlockInfo>& blocks() const { return blocks_; }  // as last set, index = block id
  CellState cellState(int block) const;
  QRect cellRect(int block) const;  // where the block is drawn (empty when not shown)
  int blockAt(const QPoint& pos) const;
  virtual QString describeBlock(int block) const;  // the tooltip text
  int numFlashing() const;
  // Which blocks are not drawn and why ("" when all are): the panel shows it in its caption
  // rather than over the cells.
  QString note() const { return note_; }

  QSize sizeHint() const override { return {360, 220}; }

 signals:
  void noteChanged(const QString& note);

 protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  bool event(QEvent* e) override;  // tooltips
  // What an empty map says (the remote map has no model to load).
  virtual QString emptyText() const;

 private:
  void layoutGrid();
  void updateNote();
  void paintCell(QPainter& p, int block, const QRect& r) const;

  std::vector<KvBlockInfo> blocks_;
  std::vector<double> flashUntil_;  // per block, in flashClock_ seconds
  QElapsedTimer flashClock_;
  QTimer flashTimer_;
  int64_t lastPreemptions_ = -1;
  RequestId selected_ = -1;
  int cell_ = 8, cols_ = 1, numShown_ = 0;
  // Blocks past the high-water mark have never been used; a big pool is drawn only up
  // to a margin past it (with a note), so the cells stay big enough to read.
  int highWater_ = 0;
  QString note_;
  int numDrawable() const;
};

}  // namespace lwb::ui
