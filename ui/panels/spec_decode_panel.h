#pragma once
// Speculative decoding dock: acceptance over time (SpecDecodeChart), acceptance per
// draft position (SpecPositionChart), a one-line summary, and the warning when the mean
// acceptance length falls towards 1 (SpecDecodeMonitor's rule), shown here and as a
// status-bar label. When speculation is off it says so and how to turn it on. Data comes
// from the bridge's frames only: step records and the snapshot's totals and knobs.
#include <QWidget>
#include <memory>

#include "ui/bridge/frame.h"
#include "ui/bridge/throttle.h"

class QLabel;

namespace lwb::ui {

class SpecDecodeChart;
class SpecPositionChart;

class SpecDecodePanel : public QWidget {
  Q_OBJECT
 public:
  explicit SpecDecodePanel(QWidget* parent = nullptr);
  void onFrame(const Frame& frame);
  void clear();  // engine restarted or Engine ▸ Reset

  SpecDecodeChart* chart() const { return chart_; }
  SpecPositionChart* positions() const { return positions_; }
  // For the window's status bar (QStatusBar::addPermanentWidget): visible only while the
  // warning stands.
  QLabel* statusLabel() const { return statusLabel_; }
  bool speculationOn() const { return on_; }
  bool warningShown() const { return warning_; }
  QString warningText() const;
  QString summaryText() const;

 private:
  void updateSpeculation(const SpeculativeConfig& config);
  void updateWarning();
  void updateWarningText();
  void updateSummary(const EngineSnapshot& s);
  void refresh();

  SpecDecodeChart* chart_;
  SpecPositionChart* positions_;
  QLabel *offLabel_, *summaryLabel_, *warningLabel_, *statusLabel_;
  bool on_ = false, warning_ = false;
  std::shared_ptr<const EngineSnapshot> snapshot_;  // the newest
  // Text people read needs a few updates a second, not one per frame (see throttle.h).
  Throttle refresh_{250, [this] { refresh(); }};
};

}  // namespace lwb::ui
