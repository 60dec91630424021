#pragma once
// The run JSON the Runs view reopens. The CSV and Chrome-trace exports are the engine's
// (engine/metrics/export.h, trace.h), the same files `bench` writes.
#include <QString>

#include "ui/bridge/run_data.h"

namespace lwb::ui {

// Each returns an empty string on success, else a readable error naming the file.
QString saveRunJson(const RunData& run, const QString& path);
QString openRunJson(const QString& path, RunData* run);
// Writes `bytes` to `path` through a temporary file, so a failed write leaves the old file.
QString writeFileAtomically(const QString& path, const QByteArray& bytes);

}  // namespace lwb::ui
