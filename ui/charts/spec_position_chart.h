#pragma once
// Acceptance per draft position (vLLM's vllm:spec_decode_num_accepted_tokens_per_pos
// divided by vllm:spec_decode_num_drafts): the share of verifications whose draft was
// accepted up to and including position i. It can only fall with i, since a draft is
// accepted as a prefix; where it drops tells how far ahead the proposer guesses well.
#include <QWidget>
#include <qcustomplot.h>

#include "engine/sched/request_timeline.h"

namespace lwb::ui {

class SpecPositionChart : public QWidget {
  Q_OBJECT
 public:
  explicit SpecPositionChart(QWidget* parent = nullptr);
  // Counters since the engine started (EngineTotals::specDecode); `numPositions` is the
  // num_speculative_tokens in force (bars for positions never reached show 0).
  void setCounts(const SpecDecodeCounts& counts, int numPositions);
  QCustomPlot* plot() const { return plot_; }
  // Percent per position, 1-based on the axis; for tests.
  std::vector<double> values() const { return values_; }

 protected:
  void showEvent(QShowEvent* e) override;

 private:
  QCustomPlot* plot_;
  QCPBars* bars_;
  std::vector<double> values_;
  int64_t shownDrafts_ = -1;
  int shownPositions_ = -1;
};

}  // namespace lwb::ui
