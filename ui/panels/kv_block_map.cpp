#include "ui/panels/kv_block_map.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <cmath>

#include "engine/config/knobs.h"
#include "ui/theme.h"

namespace lwb::ui {

namespace {
constexpr double kFlashSeconds = 1.2;
constexpr int kMinCell = 3;
}  // namespace

KvBlockMap::KvBlockMap(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(160, 80);
  setAttribute(Qt::WA_OpaquePaintEvent);
  flashClock_.start();
  flashTimer_.setInterval(50);
  connect(&flashTimer_, &QTimer::timeout, this, [this] {
    update();
    if (numFlashing() == 0) flashTimer_.stop();
  });
}

void KvBlockMap::setBlocks(std::vector<KvBlockInfo> blocks, int64_t totalPreemptions) {
  const bool preempted = lastPreemptions_ >= 0 && totalPreemptions > lastPreemptions_;
  lastPreemptions_ = totalPreemptions;
  flashUntil_.resize(blocks.size(), 0.0);
  if (preempted) {
    const double until = flashClock_.elapsed() / 1000.0 + kFlashSeconds;
    for (size_t i = 0; i < blocks.size() && i < blocks_.size(); ++i)
      if (blocks_[i].kind == KvBlockInfo::Kind::Owned && blocks[i].kind != KvBlockInfo::Kind::Owned)
        flashUntil_[i] = until;
    flashTimer_.start();
  }
  const bool sizeChanged = blocks.size() != blocks_.size();
  if (sizeChanged) highWater_ = 0;
  const int oldDrawable = numDrawable();
  for (int i = int(blocks.size()) - 1; i >= highWater_; --i)
    if (blocks[size_t(i)].kind != KvBlockInfo::Kind::Free) {
      highWater_ = i + 1;
      break;
    }
  blocks_ = std::move(blocks);
  if (sizeChanged || numDrawable() != oldDrawable) layoutGrid();
  else updateNote();
  update();
}

void KvBlockMap::setSelectedRequest(RequestId id) {
  selected_ = id;
  update();
}

int KvBlockMap::numFlashing() const {
  const double now = flashClock_.elapsed() / 1000.0;
  return int(std::count_if(flashUntil_.begin(), flashUntil_.end(), [now](double u) { return u > now; }));
}

KvBlockMap::CellState KvBlockMap::cellState(int block) const {
  const auto& b = blocks_.at(size_t(block));
  switch (b.kind) {
    case KvBlockInfo::Kind::Free: return CellState::Free;
    case KvBlockInfo::Kind::CachedFree: return CellState::CachedFree;
    case KvBlockInfo::Kind::Owned: return b.refCount > 1 ? CellState::Shared : CellState::Owned;
  }
  return CellState::Free;
}

void KvBlockMap::resizeEvent(QResizeEvent*) { layoutGrid(); }

int KvBlockMap::numDrawable() const {
  constexpr int kMinShown = 512;
  const int n = int(blocks_.size());
  if (n <= kMinShown) return n;
  // Grow in steps of 512 past 1.5 × the high-water mark, so the grid rarely re-flows.
  const int wanted = ((highWater_ * 3 / 2) / kMinShown + 1) * kMinShown;
  return std::min(n, std::max(kMinShown, wanted));
}

// The largest square cell (with a 1 px gap) such that every block fits; below the
// minimum size, as many blocks as fit are shown and the rest counted in a note.
void KvBlockMap::layoutGrid() {
  const int n = std::max(1, numDrawable());
  const int w = std::max(1, width() - 4), h = std::max(1, height() - 4);
  int cell = std::clamp(int(std::sqrt(double(w) * h / n)), kMinCell, 28);
  while (cell > kMinCell && (w / cell) * (h / cell) < n) --cell;
  cell_ = cell;
  cols_ = std::max(1, w / cell);
  numShown_ = std::min<int>(numDrawable(), cols_ * std::max(1, h / cell));
  updateNote();
}

QRect KvBlockMap::cellRect(int block) const {
  if (block < 0 || block >= numShown_) return {};
  const int gap = cell_ >= 6 ? 1 : 0;
  return QRect(2 + (block % cols_) * cell_, 2 + (block / cols_) * cell_, cell_ - gap, cell_ - gap);
}

int KvBlockMap::blockAt(const QPoint& pos) const {
  const int col = (pos.x() - 2) / cell_, row = (pos.y() - 2) / cell_;
  if (pos.x() < 2 || pos.y() < 2 || col >= cols_) return -1;
  const int block = row * cols_ + col;
  return block < numShown_ ? block : -1;
}

void KvBlockMap::paintCell(QPainter& p, int block, const QRect& r) const {
  const auto& b = blocks_[size_t(block)];
  const CellState state = cellState(block);
  const bool selected = selected_ >= 0 && std::find(b.owners.begin(), b.owners.end(), selected_) != b.owners.end();
  if (state == CellState::Free) {
    p.fillRect(r, theme::kBase);
    if (r.width() >= 5) {
      p.setPen(theme::kGrid);
      p.drawRect(r.adjusted(0, 0, -1, -1));
    }
  } else if (state == CellState::CachedFree) {
    p.fillRect(r, QColor(0x3a, 0x40, 0x4a));
    if (r.width() >= 6) p.fillRect(r, QBrush(theme::kMutedText, Qt::BDiagPattern));
  } else {
    const QColor c = theme::requestColor(b.owners.empty() ? 0 : b.owners.front());
    // Partly filled blocks (the tail of a sequence) are drawn lighter.
    p.fillRect(r, selected_ >= 0 && !selected ? c.darker(250) : c);
    if (state == CellState::Shared && r.width() >= 5) {
      const int s = std::max(3, r.width() / 3);
      p.fillRect(QRect(r.right() - s + 1, r.top(), s, s), Qt::white);
    }
  }
  if (selected && r.width() >= 5) {
    p.setPen(QPen(Qt::white, 1));
    p.drawRect(r.adjusted(0, 0, -1, -1));
  }
  if (block < int(flashUntil_.size()) && flashUntil_[size_t(block)] > flashClock_.elapsed() / 1000.0)
    p.fillRect(r, QColor(0xff, 0x40, 0x40, 200));
}

void KvBlockMap::updateNote() {
  QString note;
  if (numShown_ < int(blocks_.size()))
    note = numShown_ < numDrawable() ? tr("showing %1 of %2 blocks (widen the dock, or set %3)")
                                           .arg(numShown_)
                                           .arg(blocks_.size())
                                           .arg(QString::fromUtf8(knob::kNumGpuBlocksOverride.data()))
                                     : tr("blocks %1–%2 not shown: never used yet (free)").arg(numShown_).arg(blocks_.size() - 1);
  if (note == note_) return;
  note_ = note;
  emit noteChanged(note_);
}

void KvBlockMap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), theme::kWindow);
  if (blocks_.empty()) {
    p.setPen(theme::kMutedText);
    p.drawText(rect(), Qt::AlignCenter, emptyText());
    return;
  }
  for (int i = 0; i < numShown_; ++i) paintCell(p, i, cellRect(i));
}

QString KvBlockMap::emptyText() const { return tr("No KV cache yet: load a model."); }

QString KvBlockMap::describeBlock(int block) const {
  const auto& b = blocks_.at(size_t(block));
  QString kind;
  switch (cellState(block)) {
    case CellState::Free: kind = tr("free"); break;
    case CellState::CachedFree: kind = tr("cached, free (evictable; reused on a prefix hit)"); break;
    case CellState::Owned: kind = tr("in use"); break;
    case CellState::Shared: kind = tr("shared by %1 requests (prefix cache)").arg(b.refCount); break;
  }
  QStringList owners;
  for (RequestId id : b.owners) owners << QString::number(id);
  QString text = tr("<b>block %1</b> — %2<br>ref count: %3").arg(block).arg(kind).arg(b.refCount);
  if (!owners.isEmpty()) text += tr("<br>owners: %1").arg(owners.join(QStringLiteral(", ")));
  if (b.numTokens > 0)
    text += tr("<br>tokens: positions %1–%2 (%3 filled)")
                .arg(b.firstTokenPos)
                .arg(b.firstTokenPos + b.numTokens - 1)
                .arg(b.numTokens);
  if (b.hasHash) text += tr("<br>hash: %1").arg(QString::number(b.hash, 16).rightJustified(16, QLatin1Char('0')));
  return text;
}

bool KvBlockMap::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const int block = blockAt(help->pos());
    if (block >= 0) QToolTip::showText(help->globalPos(), describeBlock(block), this, cellRect(block));
    else QToolTip::hideText();
    return true;
  }
  return QWidget::event(e);
}

}  // namespace lwb::ui
