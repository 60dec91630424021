#include "engine/spec/draft_proposer.h"

#include <algorithm>
#include <map>
#include <random>

#include "engine/common/error.h"
#include "engine/kv/kv_cache_manager.h"
#include "engine/model/model.h"
#include "engine/sample/rejection_sampler.h"
#include "engine/sample/sampler.h"

namespace lwb {

namespace {

// What the draft keeps per request: the tokens whose K/V its cache holds, and its own
// random stream for drawing drafts (temperature > 0).
struct DraftState {
  std::vector<int> cached;
  std::mt19937_64 rng;
};

// One request's part of a draft pass.
struct DraftSeq {
  Request* request = nullptr;
  std::vector<int> tokens;  // the rows: tokens not in the draft cache yet
  int numDrafts = 0;        // how many to propose in all
};

class DraftModelProposer : public Proposer {
 public:
  DraftModelProposer(const SpeculativeConfig& c, std::shared_ptr<const Model> draft, const ExecutorOptions& executor,
                     int numKvBlocks, int blockSize)
      : config_(c), draft_(std::move(draft)), executor_(createExecutor(draft_, executor)),
        kv_(numKvBlocks, blockSize) {
    executor_->allocateKvCache(numKvBlocks, blockSize);
  }

  void propose(const std::vector<Request*>& running, int maxModelLen) override {
    std::vector<DraftSeq> seqs;
    for (Request* r : running) {
      r->specTokenIds.clear();
      r->specDraftProbs.clear();
      // The draft's positions end at numTokens + k − 2: within its own context too.
      const int k = isDecoding(*r) ? draftLimit(*r, config_.numSpeculativeTokens,
                                                std::min(maxModelLen, draft_->config.maxPositionEmbeddings + 1))
                                   : 0;
      if (k > 0 && catchUp(*r, k)) seqs.push_back({r, pending(*r), k});
    }
    for (int i = 0; !seqs.empty() && i < config_.numSpeculativeTokens; ++i) seqs = pass(seqs);
  }

  void release(RequestId id) override {
    kv_.free(id);
    states_.erase(id);
  }

 private:
  DraftState& state(const Request& r) {
    auto it = states_.find(r.id);
    if (it != states_.end()) return it->second;
    DraftState& s = states_[r.id];
    s.rng.seed(r.sampling.seed.value_or(uint64_t(r.id)) ^ 0xD7AF7D7AF7ull);
    return s;
  }

  // Rolls the draft cache back to the longest prefix it shares with the request's tokens
  // and reserves slots for the rest plus k − 1 drafts. False when the pool is full.
  bool catchUp(const Request& r, int k) {
    DraftState& s = state(r);
    const auto mismatch = std::mismatch(s.cached.begin(), s.cached.end(), r.tokenIds.begin(), r.tokenIds.end());
    s.cached.resize(size_t(mismatch.first - s.cached.begin()));
    if (s.cached.size() >= r.tokenIds.size()) s.cached.resize(r.tokenIds.size() - 1);  // the last token gives logits
    kv_.trimTo(r.id, int(s.cached.size()));
    if (kv_.allocateSlots(r.id, r.numTokens() + k - 1)) return true;
    release(r.id);  // no room: no drafts for it this step, and its draft cache starts over
    return false;
  }

  std::vector<int> pending(const Request& r) {
    const std::vector<int>& cached = state(r).cached;
    return {r.tokenIds.begin() + long(cached.size()), r.tokenIds.end()};
  }

  // One forward pass over every seq's pending rows; each samples its next draft. Returns
  // the seqs that want more, each with its new draft as the only row.
  std::vector<DraftSeq> pass(const std::vector<DraftSeq>& seqs) {
    ForwardBatch batch;
    for (const DraftSeq& d : seqs) {
      SeqSlice slice;
      slice.requestId = d.request->id;
      slice.firstRow = int32_t(batch.tokenIds.size());
      slice.numTokens = int32_t(d.tokens.size());
      slice.numCachedTokens = int32_t(state(*d.request).cached.size());
      const std::vector<int>& blocks = kv_.blockIds(d.request->id);
      slice.blockTable.assign(blocks.begin(), blocks.end());
      slice.needLogits = true;
      batch.tokenIds.insert(batch.tokenIds.end(), d.tokens.begin(), d.tokens.end());
      batch.seqs.push_back(std::move(slice));
    }
    ForwardResult result;
    executor_->forward(batch, result);
    std::vector<DraftSeq> next;
    for (size_t i = 0; i < seqs.size(); ++i) {
      const DraftSeq& d = seqs[i];
      DraftState& s = state(*d.request);
      s.cached.insert(s.cached.end(), d.tokens.begin(), d.tokens.end());
      const int token = draw(*d.request, result.row(int(i)), s);
      d.request->specTokenIds.push_back(token);
      if (int(d.request->specTokenIds.size()) < d.numDrafts) next.push_back({d.request, {token}, d.numDrafts});
    }
    return next;
  }

  // The request's sampling settings on the draft's logits: q, then one draw from it.
  int draw(Request& r, const float* logits, DraftState& s) {
    const int vocab = draft_->config.vocabSize;
    scratch_.assign(logits, logits + vocab);
    std::vector<int> history = r.tokenIds;
    history.insert(history.end(), r.specTokenIds.begin(), r.specTokenIds.end());
    std::vector<double> q;
    samplingProbs(r.sampling, scratch_.data(), vocab, history, q);
    const int token = drawFromWeights(q, double(s.rng() >> 11) * (1.0 / 9007199254740992.0));
    if (r.sampling.temperature >= 1e-5f) r.specDraftProbs.push_back(std::move(q));
    return token;
  }

  SpeculativeConfig config_;
  std::shared_ptr<const Model> draft_;
  std::unique_ptr<Executor> executor_;
  KvCacheManager kv_;
  std::map<RequestId, DraftState> states_;
  std::vector<float> scratch_;
};

}  // namespace

std::unique_ptr<Proposer> createDraftModelProposer(const SpeculativeConfig& config, const Model& target,
                                                   const ExecutorOptions& executor, int numKvBlocks, int blockSize) {
  std::shared_ptr<const Model> draft;
  try {
    draft = loadModel(config.model);
  } catch (const Error& e) {
    throw Error(std::string("--speculative-config: the draft model: ") + e.what());
  }
  check(draft->config.vocabSize == target.config.vocabSize,
        "--speculative-config: the draft model " + draft->dir + " has vocab_size " +
            std::to_string(draft->config.vocabSize) + "; expected the target's (" + target.dir + ") " +
            std::to_string(target.config.vocabSize));
  return std::make_unique<DraftModelProposer>(config, std::move(draft), executor, numKvBlocks, blockSize);
}

}  // namespace lwb
