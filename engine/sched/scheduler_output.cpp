#include "engine/sched/scheduler_output.h"

#include <algorithm>

namespace lwb {

int ScheduledSeq::numPrefillTokens() const {
  int promptLeft = request->numPromptTokens - numComputedBefore;
  return std::clamp(promptLeft, 0, numNewTokens);
}

}  // namespace lwb
