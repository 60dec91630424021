#pragma once
// The P/D layout: a prefill/decode pair's two sides next to each other — a prefill
// instance left, a decode instance right, each titled, with its batch composition per
// step and its KV block map — and the one-click comparison against one colocated design
// on the same hardware. A simulated N:M pair has several instances per side: a selector
// above each side (hidden when it has one) picks the instance shown. Fed the bridge's
// frames: the prefill side gets the frame's prefillSteps, the decode side its steps, each
// chart keeping the selected instance's; each map the selected instance's pool.
#include <QWidget>
#include <memory>

#include "ui/bridge/frame.h"

class QComboBox;
class QLabel;
class QPushButton;

namespace lwb::ui {

class BatchChart;
class KvPanel;

class PdPanel : public QWidget {
  Q_OBJECT
 public:
  enum Side { Prefill = 0, Decode = 1 };
  explicit PdPanel(QWidget* parent = nullptr);
  void onFrame(const Frame& frame);
  void clear();
  BatchChart* batch(Side side) const { return batch_[side]; }
  KvPanel* kv(Side side) const { return kv_[side]; }
  QPushButton* compareButton() const { return compare_; }
  QLabel* status() const { return status_; }  // what the comparison is doing, or did
  QComboBox* instanceSelector(Side side) const { return selector_[side]; }
  void setSimulatedNote(const QString& text);
  // A colocated engine is attached: the views stay empty and say how to start a pair.
  // A pair: `snapshot` (its first, if any) sizes the instance selectors.
  void setPairAttached(bool attached, std::shared_ptr<const EngineSnapshot> snapshot = nullptr);

 signals:
  void compareRequested();

 private:
  std::shared_ptr<const EngineSnapshot> instanceSnapshot(Side side, const std::shared_ptr<const EngineSnapshot>& s);
  void updateSelector(Side side, int numInstances);
  void selectInstance(Side side, int index);

  BatchChart* batch_[2];
  KvPanel* kv_[2];
  QLabel* title_[2];
  QComboBox* selector_[2];
  QLabel* hint_;
  QLabel* status_;
  QPushButton* compare_;
  // Per side: the snapshot last derived for the selected instance, and what it came from.
  std::shared_ptr<const EngineSnapshot> source_[2], derived_[2];
  std::shared_ptr<const EngineSnapshot> last_;  // the pair's latest: a new selection redraws from it
};

}  // namespace lwb::ui
