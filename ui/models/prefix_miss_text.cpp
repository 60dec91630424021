#include "ui/models/prefix_miss_text.h"

#include <QCoreApplication>
#include <QStringList>
#include <iterator>

namespace lwb::ui {

namespace {
// The reasons' labels in the window, in prefixMissReasonName's order (its names with spaces).
const char* const kReasonLabels[] = {
    QT_TRANSLATE_NOOP("PrefixMiss", "caching off"), QT_TRANSLATE_NOOP("PrefixMiss", "partial block"),
    QT_TRANSLATE_NOOP("PrefixMiss", "last token"),  QT_TRANSLATE_NOOP("PrefixMiss", "evicted"),
    QT_TRANSLATE_NOOP("PrefixMiss", "behind miss"), QT_TRANSLATE_NOOP("PrefixMiss", "diverged"),
    QT_TRANSLATE_NOOP("PrefixMiss", "cold")};
static_assert(std::size(kReasonLabels) == kNumPrefixMissReasons);

QString quoted(const std::string& text) {
  QString s = QString::fromStdString(text).simplified();
  return QStringLiteral("'%1'").arg(s.isEmpty() ? QStringLiteral("…") : s);
}
}  // namespace

QString prefixMissReasonLabel(PrefixMissReason r) {
  return QCoreApplication::translate("PrefixMiss", kReasonLabels[int(r)]);
}

QString prefixMissReasons(const PrefixMiss& m) {
  QStringList parts;
  for (int i = 0; i < kNumPrefixMissReasons; ++i) {
    const PrefixMissReason r = prefixMissReasonAt(i);
    if (m[r] == 0) continue;
    QString part = QStringLiteral("%1 %2").arg(m[r]).arg(prefixMissReasonLabel(r));
    if (r == PrefixMissReason::Diverged && m.divergedAtToken >= 0) {
      part += QCoreApplication::translate("PrefixMiss", " at token %1").arg(m.divergedAtToken);
      if (!m.divergedOurText.empty() || !m.divergedTheirText.empty())
        part += QCoreApplication::translate("PrefixMiss", " (%1 vs %2)")
                    .arg(quoted(m.divergedOurText), quoted(m.divergedTheirText));
    }
    parts << part;
  }
  return parts.join(QCoreApplication::translate("PrefixMiss", ", "));
}

QString prefixMissSentence(const RequestTimeline& t) {
  QString s = QCoreApplication::translate("PrefixMiss", "%1 of %2 prompt tokens from cache")
                  .arg(t.numCachedPromptTokens)
                  .arg(t.numPromptTokens);
  const PrefixMiss& m = t.prefixMiss;
  if (m.accounted && m.numMissed() > 0)
    s += QCoreApplication::translate("PrefixMiss", "; %1 computed: %2").arg(m.numMissed()).arg(prefixMissReasons(m));
  if (m.recomputedAfterPreemption > 0)
    s += QCoreApplication::translate("PrefixMiss", "; %1 recomputed after preemption").arg(m.recomputedAfterPreemption);
  return s;
}

QString prefixMissCell(const RequestTimeline& t) {
  const PrefixMiss& m = t.prefixMiss;
  if (!m.accounted || m.numMissed() == 0) return {};
  QStringList parts;
  for (int i = 0; i < kNumPrefixMissReasons; ++i)
    if (m[prefixMissReasonAt(i)] > 0)
      parts << QStringLiteral("%1 %2").arg(m[prefixMissReasonAt(i)]).arg(prefixMissReasonLabel(prefixMissReasonAt(i)));
  return QStringLiteral("%1: %2").arg(m.numMissed()).arg(parts.join(QCoreApplication::translate("PrefixMiss", ", ")));
}

QString prefixMissTooltip(const RequestTimeline& t) {
  QString s = prefixMissSentence(t);
  const PrefixMiss& m = t.prefixMiss;
  if (m.evictedTime >= 0) {
    QStringList by;
    for (int64_t id : m.evictedBy) by << QString::number(id);
    s += QCoreApplication::translate("PrefixMiss", ".\nEvicted from t = %1 s, to make room for request %2")
             .arg(m.evictedTime, 0, 'f', 3)
             .arg(by.join(QStringLiteral(", ")));
  }
  return s;
}

}  // namespace lwb::ui
