#pragma once
// Requests dock: the table of every request; selecting one highlights its blocks in the
// KV map and its spans in the timeline (via requestSelected).
#include <QWidget>

#include "ui/bridge/frame.h"
#include "ui/bridge/throttle.h"

class QTableView;
class QSortFilterProxyModel;

namespace lwb::ui {

class RunSource;
class RequestsTableModel;

class RequestsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RequestsPanel(RunSource* source, QWidget* parent = nullptr);
  void onFrame(const Frame& frame);
  RequestsTableModel* model() const { return model_; }
  QTableView* view() const { return view_; }
  void selectRequest(RequestId id);

 signals:
  void requestSelected(lwb::RequestId id);  // -1: none

 private:
  void apply(const EngineSnapshot* snapshot, const std::vector<RequestFinishedEvent>& finished);

  RunSource* source_;
  RequestsTableModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* view_;
  std::shared_ptr<const EngineSnapshot> latest_;
  Throttle liveRefresh_{100, [this] { apply(latest_.get(), {}); }};  // live rows ~10 Hz; finished rows at once
};

}  // namespace lwb::ui
