#include "ui/charts/simulated_banner.h"

#include <QWidget>

#include <qcustomplot.h>
#include "ui/theme.h"

namespace lwb::ui {

namespace {
constexpr char kBannerName[] = "simulatedBanner";
}

void setSimulatedBanner(QCustomPlot* plot, const QString& text) {
  QCPItemText* banner = nullptr;
  for (int i = 0; i < plot->itemCount(); ++i)
    if (plot->item(i)->objectName() == QLatin1String(kBannerName)) banner = qobject_cast<QCPItemText*>(plot->item(i));
  if (text.isEmpty()) {
    if (banner) plot->removeItem(banner);
    plot->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  if (!banner && plot->axisRect()) {
    banner = new QCPItemText(plot);
    banner->setObjectName(QLatin1String(kBannerName));
    banner->setClipToAxisRect(false);
    banner->position->setType(QCPItemPosition::ptAxisRectRatio);
    banner->position->setAxisRect(plot->axisRect());
    banner->position->setCoords(1.0, 0.0);
    banner->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    banner->setPadding(QMargins(4, 2, 4, 2));
    QFont f = banner->font();
    f.setBold(true);
    banner->setFont(f);
    banner->setColor(theme::kMarker);
    banner->setBrush(QBrush(theme::kPanel));
    banner->setPen(QPen(theme::kMarker));
  }
  if (!banner) return;
  banner->setText(text);
  plot->replot(QCustomPlot::rpQueuedReplot);
}

void setSimulatedBanner(QWidget* root, const QString& text) {
  for (QCustomPlot* plot : root->findChildren<QCustomPlot*>()) setSimulatedBanner(plot, text);
}

}  // namespace lwb::ui
