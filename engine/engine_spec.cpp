// Speculative decoding inside Engine::step(): the proposer guesses drafts before the
// schedule, the target's rows verify them after the forward pass (engine.cpp).
#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/engine_impl.h"
#include "engine/spec/draft_proposer.h"
#include "engine/spec/proposer.h"

namespace lwb {

// The target's rows for the real token and each draft: drafts are accepted in order
// until one is rejected (its replacement is kept) or all are (a bonus token follows);
// then the rejected drafts' positions roll back.
int Engine::Impl::verifyDrafts(EngineRequest& er, const ScheduledSeq& s, const ForwardResult& result, int firstRow,
                               double t, StepOutput& out) {
  Request& r = er.req;
  const int k = s.numSpecTokens();
  int numAccepted = 0;
  for (int i = 0; i <= k && !r.isFinished(); ++i) {
    const int draft = i < k ? s.specTokenIds[size_t(i)] : -1;  // -1: the bonus token, sampled
    const std::vector<double>* q = size_t(i) < r.specDraftProbs.size() ? &r.specDraftProbs[size_t(i)] : nullptr;
    const float* logits = result.row(firstRow + i);
    scratch.assign(logits, logits + model->config.vocabSize);  // sampleToken rewrites what it reads
    bool accepted = false;
    const SampleResult sample = sampleToken(er, scratch.data(), draft, q, &accepted);
    const AppendResult append = appendToken(er, sample.tokenId);
    publishDelta(er, sample, accepted, &append, t, out);
    if (i == k || !accepted) break;
    ++numAccepted;
  }
  r.timeline.specDecode.observe(k, numAccepted);
  totals.specDecode.observe(k, numAccepted);
  scheduler->acceptDrafts(&r, numAccepted);
  return numAccepted;
}

// After the KV pool: a draft model gets as many blocks as the target (its blocks are smaller).
void Engine::Impl::checkSimulable(const EngineConfig& c) const {
  check(!virtualClock || !c.speculative.enabled(),
        std::string(knob::kSpeculativeConfig) +
            ": the sim backend does not simulate speculative decoding (its tokens are stand-ins, so no draft "
            "could be accepted); turn it off or use a real backend");
}

void Engine::Impl::buildProposer() {
  proposer.reset();
  proposerConfig = config.speculative;
  if (!config.speculative.enabled()) return;
  checkSimulable(config);
  if (config.speculative.method == SpecMethod::Ngram) proposer = createNgramProposer(config.speculative);
  else
    proposer = createDraftModelProposer(config.speculative, *model, config.executor, scheduler->kv().numBlocks(),
                                        config.blockSize);
}

void Engine::Impl::propose() {
  if (proposer) proposer->propose(scheduler->running(), inForce.maxModelLen);
  else
    for (Request* r : scheduler->running()) {
      r->specTokenIds.clear();
      r->specDraftProbs.clear();
    }
}

}  // namespace lwb
