#pragma once
// The remote engine's KV blocks, drawn with the local block map widget from the map its
// KV events rebuild (remote_block_map.h): one cell per stored block, coloured by prefix
// tree (the blocks that descend from one head block), then the rest of the pool when
// the server reports its size (vLLM's num_gpu_blocks). What the events do not carry is
// said, not drawn: which request owns a block, where the server keeps it, and whether a
// block not reported as stored is free or holds a partial (unhashed) block.
#include <QTimer>
#include <QWidget>

#include <functional>
#include <optional>

#include "remote/kv_event_subscriber.h"
#include "remote/remote_block_layout.h"
#include "ui/panels/kv_block_map.h"

class QLabel;

namespace lwb::ui {

class RemoteKvBlockMap : public KvBlockMap {
  Q_OBJECT
 public:
  using KvBlockMap::KvBlockMap;
  // `numPoolBlocks` 0 = unknown: only the stored blocks are drawn.
  void setRemoteBlocks(remote::RemoteBlockMap map, int numPoolBlocks);
  int numStoredCells() const { return int(cells_.size()); }
  QString describeBlock(int block) const override;

 protected:
  QString emptyText() const override;

 private:
  remote::RemoteBlockMap map_;
  std::vector<remote::RemoteBlockCell> cells_;  // [numStoredCells()], drawn first
};

class RemoteKvPanel : public QWidget {
  Q_OBJECT
 public:
  using Source = std::function<const remote::KvEventSubscriber*()>;  // nullptr: no event address
  explicit RemoteKvPanel(Source source, QWidget* parent = nullptr);

  void setNumPoolBlocks(int n);                    // from the server's configuration; 0 = unknown
  void setKvUsage(std::optional<double> usage);    // [0, 1] from /metrics
  void refresh();                                  // on its timer; cheap when nothing changed
  void clear();
  RemoteKvBlockMap* map() const { return map_; }
  QString caption() const;

 private:
  void showCaption(const remote::KvEventSubscriberStats* stats);

  Source source_;
  RemoteKvBlockMap* map_;
  QLabel *caption_, *legend_;
  QTimer timer_;
  int numPoolBlocks_ = 0;
  std::optional<double> kvUsage_;
  int64_t shownSeq_ = -2;  // the event sequence number last drawn (-2: none)
  int shownPool_ = -1;
};

}  // namespace lwb::ui
