#include "engine/sched/request.h"

#include "engine/common/error.h"
#include "engine/config/knobs.h"

namespace lwb {

void validateRequest(const std::vector<int>& prompt, const SamplingParams& sampling, int vocabSize,
                     int maxModelLen) {
  check(!prompt.empty(), "prompt: empty; expected at least one token id");
  for (size_t i = 0; i < prompt.size(); ++i)
    check(prompt[i] >= 0 && prompt[i] < vocabSize,
          "prompt: token id " + std::to_string(prompt[i]) + " at position " + std::to_string(i) +
              " is outside the vocabulary; expected 0.." + std::to_string(vocabSize - 1));
  check(int64_t(prompt.size()) < maxModelLen,
        "prompt: " + std::to_string(prompt.size()) + " tokens; " + std::string(knob::kMaxModelLen) + " is " + std::to_string(maxModelLen) +
            ", so a prompt may have at most " + std::to_string(maxModelLen - 1) + " tokens");
  sampling.validate();
}

}  // namespace lwb
