#pragma once
// What the bridge hands to every view on one GUI tick (~30 Hz): the events drained from
// the engine since the previous tick, grouped by kind, and the latest snapshot.
#include <memory>
#include <vector>

#include "engine/engine_loop.h"

namespace lwb::ui {

struct Frame {
  std::vector<TokenDelta> deltas;
  std::vector<StepRecord> steps;          // a P/D pair's: the decode instance's
  std::vector<StepRecord> prefillSteps;   // a P/D pair's prefill instance (not in the run's history)
  std::vector<RequestFinishedEvent> finished;
  std::vector<ConfigChangedEvent> configChanges;
  std::vector<EngineErrorEvent> errors;
  std::vector<ModelLoadedEvent> modelLoads;
  std::shared_ptr<const EngineSnapshot> snapshot;  // never null once an engine is attached
  bool snapshotChanged = false;                    // a newer snapshot than the last tick's

  bool hasEvents() const {
    return !deltas.empty() || !steps.empty() || !prefillSteps.empty() || !finished.empty() || !configChanges.empty() ||
           !errors.empty() || !modelLoads.empty();
  }
};

}  // namespace lwb::ui
