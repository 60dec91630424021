#pragma once
// Gantt view of the newest requests: one row each, spans for queued (grey), prefill
// (amber), the KV transfer of a prefill/decode pair (green) and decode (blue) on the
// engine time axis; live requests grow to "now".
// The selected request's row is outlined; hovering a row tells why its prompt tokens
// missed the prefix cache.
#include <deque>
#include <map>

#include "ui/bridge/frame.h"
#include "ui/charts/time_chart.h"

namespace lwb::ui {

class TimelineChart : public TimeChart {
  Q_OBJECT
 public:
  static constexpr int kRows = 24;
  explicit TimelineChart(QWidget* parent = nullptr);
  void onFrame(const Frame& frame);
  void setSelectedRequest(RequestId id);
  void clear() override;
  int numRows() const { return int(rows_.size()); }
  int numTransferSegments() const;  // rows showing a KV transfer
  // Requests seen from a client (the remote window): it cannot tell queueing from
  // prefill, so a row is "until first token" (amber) then "streaming" (blue).
  void setClientSide(bool clientSide);
  // What hovering row `row` shows: the request and why its prompt missed the prefix
  // cache (ui/models/prefix_miss_text.h); empty outside the rows.
  QString rowToolTip(int row) const;

 private:
  void rebuild(double now);

  QCPBars *offset_, *queue_, *prefill_, *transfer_, *decode_;
  QCPItemRect* highlight_;
  std::map<RequestId, RequestTimeline> finished_;  // the newest finished, bounded
  std::vector<RequestTimeline> rows_;
  RequestId selected_ = -1;
  bool clientSide_ = false;
  std::shared_ptr<const EngineSnapshot> snapshot_;
};

}  // namespace lwb::ui
