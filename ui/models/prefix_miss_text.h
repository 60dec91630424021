#pragma once
// The words every view uses for why prompt tokens missed the prefix cache
// (engine/kv/prefix_miss.h): the chat's per-answer line, the Requests table's column and
// tooltip, the request timeline's tooltip. One wording, so the numbers read the same.
#include <QString>

#include "engine/sched/request_timeline.h"

namespace lwb::ui {

// "partial block", ... (the reason's name with spaces).
QString prefixMissReasonLabel(PrefixMissReason r);
// "16 diverged at token 125 ('Thursday' vs 'Friday'), 13 partial block": the reasons with
// tokens, in precedence order; empty when nothing missed or nothing was accounted.
QString prefixMissReasons(const PrefixMiss& m);
// "112 of 141 prompt tokens from cache; 29 computed: <prefixMissReasons>", and the
// tokens recomputed after preemptions when there were any.
QString prefixMissSentence(const RequestTimeline& t);
// Short, for a table cell: "29: 16 diverged, 13 partial block".
QString prefixMissCell(const RequestTimeline& t);
// prefixMissSentence plus when and by whom evicted blocks were evicted; for tooltips.
QString prefixMissTooltip(const RequestTimeline& t);

}  // namespace lwb::ui
