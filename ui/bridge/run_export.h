#pragma once
// Files a run can be written to: the run JSON (reopened by the Runs view), a CSV of
// requests (one row each, vLLM metric names, ms) and a Chrome trace (Perfetto /
// chrome://tracing: one track per request with queued / prefill / decode spans, plus a
// counter track per step).
#include <QString>

#include "ui/bridge/run_data.h"

namespace lwb::ui {

// Each returns an empty string on success, else a readable error naming the file.
QString saveRunJson(const RunData& run, const QString& path);
QString openRunJson(const QString& path, RunData* run);
QString exportRequestsCsv(const RunData& run, const QString& path);
QString exportChromeTrace(const RunData& run, const QString& path);

}  // namespace lwb::ui
