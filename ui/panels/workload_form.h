#pragma once
// The `bench` workload as a form (vLLM's option names, a tooltip each): request_rate,
// num_prompts, input_len, range_ratio, output_len, shared_prefix_len, num_prefix_groups,
// seed, ignore_eos. One form for both load generators, the in-process engine's and the
// remote window's.
#include <QWidget>

#include "engine/bench/workload.h"

class QCheckBox;
class QDoubleSpinBox;
class QFormLayout;
class QSpinBox;

namespace lwb::ui {

class WorkloadForm : public QWidget {
  Q_OBJECT
 public:
  explicit WorkloadForm(QWidget* parent = nullptr);
  WorkloadOptions options() const;
  void setOptions(const WorkloadOptions& w);
  QFormLayout* layout() const { return form_; }  // for a caller's own rows below

 private:
  QFormLayout* form_;
  QDoubleSpinBox *rate_, *rangeRatio_;
  QSpinBox *count_, *inputLen_, *outputLen_, *prefixLen_, *groups_, *seed_;
  QCheckBox* ignoreEos_;
};

}  // namespace lwb::ui
