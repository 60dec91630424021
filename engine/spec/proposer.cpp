#include "engine/spec/proposer.h"

#include <algorithm>

#include "engine/spec/ngram_proposer.h"

namespace lwb {

int draftLimit(const Request& r, int k, int maxModelLen) {
  const int byLength = r.sampling.maxTokens - r.numOutputTokens() - 1;
  const int byContext = maxModelLen - r.numTokens() - 1;
  return std::max(0, std::min({k, byLength, byContext}));
}

bool isDecoding(const Request& r) {
  return r.state == RequestState::Running && r.numComputedTokens == r.numTokens() - 1 && r.numOutputTokens() > 0;
}

namespace {

class NgramProposer : public Proposer {
 public:
  explicit NgramProposer(const SpeculativeConfig& c) : config_(c) {}
  void propose(const std::vector<Request*>& running, int maxModelLen) override {
    for (Request* r : running) {
      const int k = isDecoding(*r) ? draftLimit(*r, config_.numSpeculativeTokens, maxModelLen) : 0;
      r->specDraftProbs.clear();
      r->specTokenIds = k > 0 ? proposeNgram(r->tokenIds, config_.promptLookupMin, config_.promptLookupMax, k)
                              : std::vector<int>{};
    }
  }

 private:
  SpeculativeConfig config_;
};

}  // namespace

std::unique_ptr<Proposer> createNgramProposer(const SpeculativeConfig& config) {
  return std::make_unique<NgramProposer>(config);
}

}  // namespace lwb
