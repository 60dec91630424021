#include "ui/panels/kv_panel.h"

#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

#include "ui/panels/kv_block_map.h"
#include "ui/theme.h"

namespace lwb::ui {

void KvUsageBar::setCounts(int used, int cachedFree, int free) {
  if (used == used_ && cachedFree == cached_ && free == free_) return;
  used_ = used;
  cached_ = cachedFree;
  free_ = free;
  update();
}

void KvUsageBar::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QRect r = rect().adjusted(0, 1, -1, -1);
  p.fillRect(r, theme::kBase);
  const int total = std::max(1, used_ + cached_ + free_);
  const int wUsed = r.width() * used_ / total, wCached = r.width() * cached_ / total;
  p.fillRect(QRect(r.left(), r.top(), wUsed, r.height()), theme::kAccent);
  p.fillRect(QRect(r.left() + wUsed, r.top(), wCached, r.height()), QColor(0x3a, 0x40, 0x4a));
  p.fillRect(QRect(r.left() + wUsed, r.top(), wCached, r.height()), QBrush(theme::kMutedText, Qt::BDiagPattern));
  p.setPen(theme::kGrid);
  p.drawRect(r);
}

namespace {
QString swatch(const QColor& fill, const QString& label, const QString& border = QString()) {
  return QStringLiteral("<span style='background:%1;%3'>&nbsp;&nbsp;&nbsp;</span>&nbsp;%2&nbsp;&nbsp; ")
      .arg(theme::htmlColor(fill), label, border.isEmpty() ? QString() : QStringLiteral("border:1px solid %1;").arg(border));
}
}  // namespace

KvPanel::KvPanel(QWidget* parent)
    : QWidget(parent), bar_(new KvUsageBar(this)), summary_(new QLabel(this)), map_(new KvBlockMap(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);
  summaryText_ = tr("KV cache: no engine");
  summary_->setText(summaryText_);
  summary_->setTextFormat(Qt::RichText);
  summary_->setWordWrap(true);
  bar_->setToolTip(tr("KV blocks in use (blue), cached but free — evictable, kept for prefix "
                      "hits (grey hatched) — and free (dark). vllm:kv_cache_usage_perc counts "
                      "the blocks in use."));
  auto* legend = new QLabel(this);
  legend->setTextFormat(Qt::RichText);
  legend->setText(swatch(theme::requestColor(1), tr("owned (colour = request)")) +
                  swatch(QColor(0x3a, 0x40, 0x4a), tr("cached, free (evictable)")) +
                  swatch(theme::kBase, tr("free"), theme::htmlColor(theme::kGrid)) +
                  swatch(Qt::white, tr("shared (ref>1)")) + swatch(theme::kPreempt, tr("preempted")));
  legend->setWordWrap(true);
  legend->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(theme::kMutedText)));
  simulated_ = new QLabel(this);
  simulated_->setStyleSheet(QStringLiteral("color: %1; font-weight: bold;").arg(theme::htmlColor(theme::kMarker)));
  simulated_->setVisible(false);
  layout->addWidget(simulated_);
  layout->addWidget(summary_);
  layout->addWidget(bar_);
  layout->addWidget(map_, 1);
  layout->addWidget(legend);
  connect(map_, &KvBlockMap::noteChanged, this, &KvPanel::showCaption);
}

QString KvPanel::caption() const { return summary_->text(); }

void KvPanel::showCaption() {
  const QString note = map_->note();
  summary_->setText(note.isEmpty() ? summaryText_
                                   : summaryText_ + QStringLiteral(" · <span style='color:%1'>%2</span>")
                                                        .arg(theme::htmlColor(theme::kMarker), note.toHtmlEscaped()));
}

void KvPanel::clear() {
  map_->setBlocks({}, 0);
  summaryText_ = tr("KV cache: no engine");
  showCaption();
}

void KvPanel::onFrame(const Frame& frame) {
  if (!frame.snapshotChanged || !frame.snapshot) return;
  const auto& s = *frame.snapshot;
  int used = 0, cached = 0, free = 0, shared = 0;
  for (const auto& b : s.kvBlocks) {
    if (b.kind == KvBlockInfo::Kind::Owned) ++used, shared += b.refCount > 1;
    else if (b.kind == KvBlockInfo::Kind::CachedFree) ++cached;
    else ++free;
  }
  const int total = std::max<int>(1, int(s.kvBlocks.size()));
  bar_->setCounts(used, cached, free);
  summaryText_ = (tr("<b>%1%</b> in use — %2 of %3 blocks × %4 tokens · %5 shared · %6 cached-free · "
                       "preemptions: %7")
                        .arg(100.0 * used / total, 0, 'f', 1)
                        .arg(used)
                        .arg(s.kvBlocks.size())
                        .arg(s.config.blockSize)
                        .arg(shared)
                        .arg(cached)
                        .arg(s.totals.preemptions));
  map_->setBlocks(s.kvBlocks, s.totals.preemptions);
  captionRefresh_.request();  // a wrapped rich-text label: each change re-lays out the dock
}

void KvPanel::setSimulatedNote(const QString& text) {
  simulated_->setText(text);
  simulated_->setVisible(!text.isEmpty());
}

}  // namespace lwb::ui
