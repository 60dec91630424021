#include "ui/panels/requests_panel.h"

#include <QHeaderView>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/bridge/run_source.h"
#include "ui/models/requests_table_model.h"

namespace lwb::ui {

RequestsPanel::RequestsPanel(RunSource* source, QWidget* parent)
    : QWidget(parent), source_(source), model_(new RequestsTableModel(this)), proxy_(new QSortFilterProxyModel(this)),
      view_(new QTableView(this)) {
  proxy_->setSourceModel(model_);
  view_->setModel(proxy_);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::SingleSelection);
  view_->setAlternatingRowColors(true);
  view_->setSortingEnabled(false);  // arrival order; live sorting would make rows jump
  view_->verticalHeader()->setVisible(false);
  view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 4);
  view_->horizontalHeader()->setStretchLastSection(true);
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  const int widths[RequestsTableModel::NumColumns] = {44, 72, 40, 54, 54, 54, 70, 62, 66, 54, 60, 84, 200};
  for (int c = 0; c < RequestsTableModel::NumColumns; ++c) view_->setColumnWidth(c, widths[c]);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(view_);
  connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
    emit requestSelected(cur.isValid() ? RequestId(cur.data(RequestsTableModel::kIdRole).toLongLong()) : -1);
  });
  connect(source_, &RunSource::runReset, model_, &RequestsTableModel::clear);
}

void RequestsPanel::onFrame(const Frame& frame) {
  if (!frame.finished.empty()) apply(nullptr, frame.finished);
  if (frame.snapshotChanged) {
    latest_ = frame.snapshot;
    liveRefresh_.request();
  }
}

void RequestsPanel::apply(const EngineSnapshot* snapshot, const std::vector<RequestFinishedEvent>& finished) {
  // Follow the newest rows unless the user scrolled up to read.
  auto* bar = view_->verticalScrollBar();
  const bool atBottom = bar->value() >= bar->maximum() - 2;
  model_->update(snapshot, finished);
  if (atBottom && !view_->selectionModel()->hasSelection()) view_->scrollToBottom();
}

void RequestsPanel::selectRequest(RequestId id) {
  const int row = model_->rowOf(id);
  if (row < 0) return;
  view_->selectRow(proxy_->mapFromSource(model_->index(row, 0)).row());
}

}  // namespace lwb::ui
