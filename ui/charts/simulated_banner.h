#pragma once
// The SIMULATED mark: a simulated engine's figures are predictions, so every chart of the
// window says so (with the hardware and the model) in its top-right corner, on screen
// and in exported PNGs.
#include <QString>

class QCustomPlot;
class QWidget;

namespace lwb::ui {

// Shows `text` on every QCustomPlot under `root` (empty: removes the mark) and replots.
void setSimulatedBanner(QWidget* root, const QString& text);
// The same on one plot (a chart built after the mark was set).
void setSimulatedBanner(QCustomPlot* plot, const QString& text);

}  // namespace lwb::ui
