#pragma once
// Requests dock: the table of every request; selecting one highlights its blocks in the
// KV map and its spans in the timeline (via requestSelected).
#include <QWidget>

#include "ui/bridge/frame.h"

class QTableView;
class QSortFilterProxyModel;

namespace lwb::ui {

class EngineBridge;
class RequestsTableModel;

class RequestsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RequestsPanel(EngineBridge* bridge, QWidget* parent = nullptr);
  void onFrame(const Frame& frame);
  RequestsTableModel* model() const { return model_; }
  QTableView* view() const { return view_; }
  void selectRequest(RequestId id);

 signals:
  void requestSelected(lwb::RequestId id);  // -1: none

 private:
  EngineBridge* bridge_;
  RequestsTableModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* view_;
};

}  // namespace lwb::ui
