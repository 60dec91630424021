#pragma once
// The `bench` workload as a form (vLLM's option names, a tooltip each): request_rate,
// num_prompts, input_len, range_ratio, output_len, shared_prefix_len, num_prefix_groups,
// seed, ignore_eos, and the Start / Stop row under it. One form for both load
// generators, the in-process engine's and the remote window's; each panel says what Stop
// does (its tooltip) and when a run is going (setRunning).
#include <QWidget>

#include "engine/bench/workload.h"

class QCheckBox;
class QDoubleSpinBox;
class QFormLayout;
class QPushButton;
class QSpinBox;

namespace lwb::ui {

class WorkloadForm : public QWidget {
  Q_OBJECT
 public:
  explicit WorkloadForm(const QString& stopToolTip, QWidget* parent = nullptr);
  // The fields without a row (temperature, the background requests) are those of the
  // last setOptions: a lesson's steady decodes reach the load it starts.
  WorkloadOptions options() const;
  void setOptions(const WorkloadOptions& w);
  QFormLayout* layout() const { return form_; }  // for a caller's own rows, above the buttons

  // Start enabled while idle, Stop while running (Stop starts disabled).
  void setRunning(bool running);
  // For a form that starts something else than a load (the Capacity view's sweep).
  void setButtonTexts(const QString& start, const QString& startToolTip, const QString& stop);
  void setRateEnabled(bool enabled);  // off while something else sets the rate (a request_rate sweep)
  bool showsRunning() const;

 signals:
  void startClicked();
  void stopClicked();

 private:
  void addButtons(const QString& stopToolTip);

  QFormLayout* form_;
  QPushButton *start_, *stop_;
  QDoubleSpinBox *rate_, *rangeRatio_;
  QSpinBox *count_, *inputLen_, *outputLen_, *prefixLen_, *groups_, *seed_;
  QCheckBox* ignoreEos_;
  WorkloadOptions unshown_;  // the last setOptions, for the fields the form has no row for
};

}  // namespace lwb::ui
