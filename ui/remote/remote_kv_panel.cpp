#include "ui/remote/remote_kv_panel.h"

#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/theme.h"

namespace lwb::ui {

namespace {
constexpr int kRefreshMs = 500;  // copying a large map costs more than a gauge: twice a second
constexpr int kTokensShown = 12;

QString tokenPreview(const std::vector<int>& ids) {
  QStringList out;
  for (size_t i = 0; i < ids.size() && i < size_t(kTokensShown); ++i) out << QString::number(ids[i]);
  if (ids.size() > size_t(kTokensShown)) out << QStringLiteral("…");
  return out.join(QStringLiteral(", "));
}
}  // namespace

void RemoteKvBlockMap::setRemoteBlocks(remote::RemoteBlockMap map, int numPoolBlocks) {
  cells_ = remote::layoutRemoteBlocks(map);
  map_ = std::move(map);
  std::vector<KvBlockInfo> blocks;
  blocks.reserve(std::max(cells_.size(), size_t(std::max(numPoolBlocks, 0))));
  for (const remote::RemoteBlockCell& c : cells_) {
    KvBlockInfo b;
    b.kind = KvBlockInfo::Kind::Owned;  // drawn in colour: the tree stands in for the owner
    b.refCount = 1;
    b.owners = {c.tree + 1};
    b.numTokens = map_.blockSize();
    b.firstTokenPos = c.depth * map_.blockSize();
    blocks.push_back(std::move(b));
  }
  while (int(blocks.size()) < numPoolBlocks) blocks.emplace_back();  // Kind::Free
  setBlocks(std::move(blocks), 0);
}

QString RemoteKvBlockMap::emptyText() const {
  return tr("No stored blocks reported yet (the map fills from the server's KV events).");
}

QString RemoteKvBlockMap::describeBlock(int block) const {
  if (block < 0 || block >= numBlocks()) return {};
  if (block >= numStoredCells())
    return tr("<b>not reported as stored</b><br>free, or in use by a request whose block is not full yet "
              "(the server's events name full blocks only)");
  const remote::RemoteBlockCell& c = cells_[size_t(block)];
  const remote::RemoteBlock& b = map_.blocks().at(c.hash);
  QString text = tr("<b>stored block</b> — prefix tree %1, depth %2<br>hash: %3")
                     .arg(c.tree + 1)
                     .arg(c.depth)
                     .arg(QString::fromStdString(c.hash));
  text += b.parent ? tr("<br>parent: %1").arg(QString::fromStdString(*b.parent)) : tr("<br>head block (no parent)");
  if (b.numCopies > 1) text += tr("<br>copy %1 of %2 (the server holds this hash more than once)").arg(c.copy + 1).arg(b.numCopies);
  text += tr("<br>tokens at positions %1–%2: %3")
              .arg(c.depth * map_.blockSize())
              .arg((c.depth + 1) * map_.blockSize() - 1)
              .arg(tokenPreview(b.tokenIds));
  if (!b.medium.empty()) text += tr("<br>medium: %1").arg(QString::fromStdString(b.medium));
  return text + tr("<br><i>which request holds it is not in the events</i>");
}

RemoteKvPanel::RemoteKvPanel(Source source, QWidget* parent)
    : QWidget(parent), source_(std::move(source)), map_(new RemoteKvBlockMap(this)), caption_(new QLabel(this)),
      legend_(new QLabel(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  caption_->setWordWrap(true);
  legend_->setWordWrap(true);
  legend_->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(theme::kMutedText)));
  legend_->setText(tr("Coloured: blocks the server reports stored, one colour per prefix tree (blocks that "
                      "continue one head block), laid out tree by tree. Dark: the rest of the pool. Not in "
                      "vLLM's KV events, so not shown: which request owns a block (no ownership colours), "
                      "the block ids, and whether a block not reported as stored is free or holds a partial "
                      "block."));
  layout->addWidget(caption_);
  layout->addWidget(map_, 1);
  layout->addWidget(legend_);
  // Queued: the note changes inside setRemoteBlocks(), which refresh() itself calls.
  connect(map_, &KvBlockMap::noteChanged, this, &RemoteKvPanel::refresh, Qt::QueuedConnection);
  timer_.setInterval(kRefreshMs);
  connect(&timer_, &QTimer::timeout, this, &RemoteKvPanel::refresh);
  timer_.start();
  showCaption(nullptr);
}

void RemoteKvPanel::setNumPoolBlocks(int n) {
  numPoolBlocks_ = std::max(n, 0);
  refresh();
}

void RemoteKvPanel::setKvUsage(std::optional<double> usage) { kvUsage_ = usage; }

void RemoteKvPanel::clear() {
  numPoolBlocks_ = 0;
  kvUsage_.reset();
  shownSeq_ = -2;
  shownPool_ = -1;
  map_->setRemoteBlocks({}, 0);
  showCaption(nullptr);
}

void RemoteKvPanel::refresh() {
  const remote::KvEventSubscriber* sub = source_ ? source_() : nullptr;
  if (!sub) return showCaption(nullptr);
  const remote::KvEventSubscriberStats stats = sub->stats();
  if (stats.lastSeq != shownSeq_ || numPoolBlocks_ != shownPool_) {
    // The copy is taken under the subscriber's mutex, which its thread holds only while
    // it applies one batch: no network wait on this thread.
    map_->setRemoteBlocks(sub->blockMap(), numPoolBlocks_);
    shownSeq_ = stats.lastSeq;
    shownPool_ = numPoolBlocks_;
  }
  showCaption(&stats);
}

void RemoteKvPanel::showCaption(const remote::KvEventSubscriberStats* stats) {
  if (!stats) {
    caption_->setText(tr("No KV-event address given: start the window with --kv-events ADDR (the address of "
                         "the server's --kv-events-config publisher) to draw its blocks."));
    return;
  }
  QString text = tr("%1 blocks stored by the server (from %2 event batches)").arg(map_->numStoredCells()).arg(stats->numBatches);
  text += numPoolBlocks_ > 0 ? tr(" of %1 in its pool (num_gpu_blocks)").arg(numPoolBlocks_)
                             : tr("; the pool size is not reported");
  if (!map_->note().isEmpty())  // a big pool is drawn only a little past the stored blocks
    text += tr(" (drawn up to a margin past the stored blocks)");
  if (kvUsage_) text += tr("; KV cache usage %1% (/metrics)").arg(100 * *kvUsage_, 0, 'f', 1);
  if (stats->numMissed || stats->numMalformed)
    text += tr("; %1 batches missed, %2 malformed").arg(stats->numMissed).arg(stats->numMalformed);
  if (!stats->lastError.empty()) text += tr(" — %1").arg(QString::fromStdString(stats->lastError));
  caption_->setText(text);
}

QString RemoteKvPanel::caption() const { return caption_->text(); }

}  // namespace lwb::ui
