#include "ui/models/requests_table_model.h"

#include <QColor>
#include <numeric>
#include <unordered_set>

#include "ui/models/prefix_miss_text.h"
#include "ui/theme.h"

namespace lwb::ui {

QString inferLiveState(const RequestTimeline& t, const std::vector<KvBlockInfo>& blocks) {
  for (const auto& b : blocks)
    for (RequestId owner : b.owners)
      if (owner == t.id) return QStringLiteral("running");
  return t.firstScheduledTime ? QStringLiteral("preempted") : QStringLiteral("waiting");
}

QString inferLiveState(const RequestTimeline& t, const std::unordered_set<RequestId>& blockOwners) {
  if (blockOwners.count(t.id)) return QStringLiteral("running");
  return t.firstScheduledTime ? QStringLiteral("preempted") : QStringLiteral("waiting");
}

RequestsTableModel::RequestsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int RequestsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(rows_.size());
}

int RequestsTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NumColumns; }

QVariant RequestsTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  static const char* const names[] = {
      QT_TR_NOOP("id"),       QT_TR_NOOP("state"),     QT_TR_NOOP("prio"),     QT_TR_NOOP("prompt"),
      QT_TR_NOOP("cached"),   QT_TR_NOOP("output"),    QT_TR_NOOP("TTFT (ms)"), QT_TR_NOOP("ITL (ms)"),
      QT_TR_NOOP("e2e (ms)"), QT_TR_NOOP("finish"),    QT_TR_NOOP("tag"),      QT_TR_NOOP("drafts"),
      QT_TR_NOOP("missed (why)")};
  static const char* const tips[] = {
      QT_TR_NOOP("Request id, in arrival order"),
      QT_TR_NOOP("waiting (queued), running (holds KV blocks), preempted (blocks taken back; recomputed later), "
                 "finished; in flight: sent to a remote server, not answered in full yet"),
      QT_TR_NOOP("Priority (with the priority scheduling policy: lower value runs first)"),
      QT_TR_NOOP("Prompt tokens"),
      QT_TR_NOOP("Prompt tokens found in the prefix cache on admission (not recomputed)"),
      QT_TR_NOOP("Tokens generated so far"),
      QT_TR_NOOP("Time to first token: queueing + prefill"),
      QT_TR_NOOP("Mean inter-token latency while decoding"),
      QT_TR_NOOP("End to end: arrival to last token"),
      QT_TR_NOOP("Why it ended: stop (EOS / stop string), length (max_tokens), abort, error, rejected"),
      QT_TR_NOOP("Origin: a chat tab or the load generator"),
      QT_TR_NOOP("Speculative decoding: draft tokens accepted / proposed for this request, and the mean acceptance "
                 "length (1 + accepted / verifications: tokens gained per target step; near 1 speculation is pure "
                 "cost). Empty when no draft was verified"),
      QT_TR_NOOP("Prompt tokens computed rather than found in the prefix cache, and why: caching off, partial block "
                 "(the trailing incomplete block is never cached), last token (a cached last block dropped because the "
                 "last prompt token must be computed), evicted, behind miss (cached, but after a missed block), "
                 "diverged (at the first token that differs from an earlier prompt), cold (never seen). Hover a row "
                 "for details")};
  if (section < 0 || section >= NumColumns) return {};
  if (role == Qt::DisplayRole) return tr(names[section]);
  if (role == Qt::ToolTipRole) return tr(tips[section]);
  return {};
}

namespace {
QVariant ms(const std::optional<double>& s) {
  return s ? QVariant(QString::number(*s * 1000.0, 'f', 1)) : QVariant(QString());
}
}  // namespace

QVariant RequestsTableModel::display(const Row& r, int column) const {
  const auto& t = r.timeline;
  switch (column) {
    case Id: return qlonglong(t.id);
    case State: {
      // r.state stays the English key (the colours below compare it); shown translated.
      static const char* const states[] = {QT_TR_NOOP("waiting"),  QT_TR_NOOP("running"),  QT_TR_NOOP("preempted"),
                                           QT_TR_NOOP("finished"), QT_TR_NOOP("rejected"), QT_TR_NOOP("in flight")};
      Q_UNUSED(states);
      return tr(r.state.toUtf8().constData());
    }
    case Priority: return t.priority;
    case PromptTokens: return t.numPromptTokens;
    case Cached: return t.numCachedPromptTokens;
    case OutputTokens: return t.numOutputTokens;
    case Ttft: return ms(t.ttft());
    case Itl: {
      auto gaps = t.itls();
      if (gaps.empty()) return QString();
      return QString::number(1000.0 * std::accumulate(gaps.begin(), gaps.end(), 0.0) / double(gaps.size()), 'f', 1);
    }
    case E2e: return t.finishTime ? ms(t.e2e()) : QVariant(QString());
    case Finish: return QString::fromStdString(finishReasonName(t.finishReason));
    case Tag: return QString::fromStdString(r.timeline.tag);
    case Drafts: {
      const SpecDecodeCounts& d = t.specDecode;
      if (d.numDraftTokens == 0) return QString();
      return QStringLiteral("%1/%2 (%3)").arg(d.numAcceptedTokens).arg(d.numDraftTokens)
          .arg(d.meanAcceptanceLength(), 0, 'f', 2);
    }
    case Missed: return prefixMissCell(t);
  }
  return {};
}

QVariant RequestsTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= int(rows_.size()) || index.column() >= NumColumns) return {};
  const Row& r = rows_[size_t(index.row())];
  switch (role) {
    case Qt::DisplayRole: return display(r, index.column());
    case kIdRole: return qlonglong(r.timeline.id);
    case Qt::TextAlignmentRole:
      return index.column() == State || index.column() == Finish || index.column() == Tag || index.column() == Missed
                 ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                 : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ForegroundRole:
      if (index.column() == Id) return theme::requestColor(r.timeline.id);
      if (index.column() == State) {
        if (r.state == QLatin1String("running") || r.state == QLatin1String("in flight")) return theme::kRunning;
        if (r.state == QLatin1String("waiting")) return theme::kWaiting;
        if (r.state == QLatin1String("preempted")) return theme::kPreempt;
        return theme::kMutedText;
      }
      return {};
    case Qt::ToolTipRole:
      if (!r.timeline.error.empty()) return QString::fromStdString(r.timeline.error);
      if (index.column() == Missed || index.column() == Cached || index.column() == PromptTokens)
        return r.timeline.prefixMiss.accounted ? prefixMissTooltip(r.timeline) : QVariant();
      return {};
  }
  return {};
}

int RequestsTableModel::rowOf(RequestId id) const {
  auto it = index_.find(id);
  return it == index_.end() ? -1 : int(it->second - offset_);
}

RequestId RequestsTableModel::idAt(int row) const {
  return row >= 0 && row < int(rows_.size()) ? rows_[size_t(row)].timeline.id : -1;
}

void RequestsTableModel::upsert(const RequestTimeline& t, const QString& state, int* lo, int* hi) {
  const int row = rowOf(t.id);
  if (row >= 0) {
    Row& r = rows_[size_t(row)];
    r.timeline = t;
    r.state = state;
    *lo = std::min(*lo, row);
    *hi = std::max(*hi, row);
    return;
  }
  if (auto p = pendingIndex_.find(t.id); p != pendingIndex_.end()) {
    pending_[p->second] = {t, state};
    return;
  }
  pendingIndex_[t.id] = pending_.size();
  pending_.push_back({t, state});
}

// New rows of one tick are inserted with a single beginInsertRows.
void RequestsTableModel::flushPending() {
  if (pending_.empty()) return;
  const int at = int(rows_.size());
  beginInsertRows({}, at, at + int(pending_.size()) - 1);
  for (auto& r : pending_) {
    index_[r.timeline.id] = offset_ + rows_.size();
    rows_.push_back(std::move(r));
  }
  endInsertRows();
  pending_.clear();
  pendingIndex_.clear();
}

void RequestsTableModel::dropOldest() {
  const int excess = int(rows_.size()) - kMaxRows;
  if (excess <= 0) return;
  beginRemoveRows({}, 0, excess - 1);
  for (int i = 0; i < excess; ++i) {
    index_.erase(rows_.front().timeline.id);
    rows_.pop_front();
    ++offset_;
  }
  endRemoveRows();
}

void RequestsTableModel::update(const EngineSnapshot* snapshot, const std::vector<RequestFinishedEvent>& finished) {
  int lo = INT32_MAX, hi = -1;
  std::unordered_set<RequestId> done;
  for (const auto& f : finished) {
    const bool rejected = f.timeline.finishReason == FinishReason::Rejected;
    upsert(f.timeline, rejected ? QStringLiteral("rejected") : QStringLiteral("finished"), &lo, &hi);
    done.insert(f.timeline.id);
  }
  std::unordered_set<RequestId> owners;
  if (snapshot && !snapshot->live.empty())
    for (const auto& b : snapshot->kvBlocks) owners.insert(b.owners.begin(), b.owners.end());
  if (snapshot)
    for (const auto& t : snapshot->live) {
      if (done.count(t.id)) continue;  // the snapshot may predate the finish event
      const int row = rowOf(t.id);
      if (row >= 0 && rows_[size_t(row)].timeline.finishReason != FinishReason::None) continue;
      upsert(t, clientSide_ ? QStringLiteral("in flight") : inferLiveState(t, owners), &lo, &hi);
    }
  if (hi >= lo) emit dataChanged(index(lo, 0), index(hi, NumColumns - 1));
  flushPending();
  dropOldest();
}

void RequestsTableModel::clear() {
  beginResetModel();
  rows_.clear();
  index_.clear();
  offset_ = 0;
  endResetModel();
}

}  // namespace lwb::ui
