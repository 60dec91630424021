#pragma once
// Every request the engine has seen (bounded), one row each, updated once per GUI tick
// with one ranged dataChanged over the rows that changed. Live rows come from the
// snapshot, finished ones from RequestFinishedEvent.
#include <QAbstractTableModel>
#include <unordered_set>
#include <deque>
#include <unordered_map>

#include "engine/engine_loop.h"

namespace lwb::ui {

class RequestsTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Id, State, Priority, PromptTokens, Cached, OutputTokens, Ttft, Itl, E2e, Finish, Tag, Drafts, Missed, NumColumns };
  static constexpr int kMaxRows = 5000;  // oldest finished rows are dropped first
  static constexpr int kIdRole = Qt::UserRole + 1;

  struct Row {
    RequestTimeline timeline;
    QString state;  // waiting | running | preempted | finished | rejected
  };

  explicit RequestsTableModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

  // One tick: live timelines (state inferred from block ownership) and finished ones.
  void update(const EngineSnapshot* snapshot, const std::vector<RequestFinishedEvent>& finished);
  void clear();
  // Rows seen from a client (the remote window): a live request is "in flight" — the
  // client cannot tell queued from running — instead of a state inferred from KV blocks.
  void setClientSide(bool clientSide) { clientSide_ = clientSide; }
  int rowOf(RequestId id) const;
  RequestId idAt(int row) const;

 private:
  void upsert(const RequestTimeline& t, const QString& state, int* lo, int* hi);
  void flushPending();
  void dropOldest();
  QVariant display(const Row& r, int column) const;

  std::deque<Row> rows_;
  std::unordered_map<RequestId, size_t> index_;  // id → absolute position (offset_ + row)
  size_t offset_ = 0;                            // rows dropped from the front so far
  std::vector<Row> pending_;                     // new this tick, inserted together
  std::unordered_map<RequestId, size_t> pendingIndex_;
  bool clientSide_ = false;
};

// "waiting" / "running" / "preempted": running requests hold KV blocks; a request that
// was scheduled once and holds none has been preempted.
QString inferLiveState(const RequestTimeline& t, const std::vector<KvBlockInfo>& blocks);
// The same from the set of ids owning any block (built once per snapshot: live × blocks
// lookups per GUI tick were the table's main cost).
QString inferLiveState(const RequestTimeline& t, const std::unordered_set<RequestId>& blockOwners);

}  // namespace lwb::ui
