// The settings of the two lessons that need more than one engine's knobs: speculative
// decoding (a real backend: the simulator does not simulate it) and P/D disaggregation
// (a PdEngine against one colocated engine).
#include <algorithm>
#include <cmath>

#include "engine/config/knobs.h"
#include "lessons/finding_words.h"
#include "lessons/lessons.h"

namespace lwb {

namespace {

using lesson_words::fixedLengthWorkload;
using lesson_words::knobLabel;
using lesson_words::scaled;

// n-gram prompt lookup: no second model, so it runs on whatever model is loaded. Short
// n-grams (2..4) find the loops a greedy decode falls into.
SpeculativeConfig ngramDrafts() {
  SpeculativeConfig s;
  s.method = SpecMethod::Ngram;
  s.numSpeculativeTokens = 4;
  s.promptLookupMin = 2;
  s.promptLookupMax = 4;
  return s;
}

}  // namespace

Phrase speculativeDecodingUnsupported(const EngineConfig& base) {
  if (base.executor.backend != "sim") return {};
  return Phrase::marked(
      LWB_TRANSLATE_NOOP("Lessons", "This lesson needs a real backend: the simulator does not simulate speculative "
                                    "decoding (its tokens are stand-ins, so no draft could be accepted and any "
                                    "speed-up would be made up). Open a model on the CPU and run it again."));
}

// At each load (max_num_seqs 1, 4, 16), without and with n-gram drafts, greedy.
std::vector<LessonSetting> speculativeDecodingSettings(const EngineConfig& base, double scale) {
  std::vector<LessonSetting> out;
  for (int seqs : {1, 4, 16}) {
    // One request at a time needs few of them; the loaded runs two waves of the batch.
    const int prompts = seqs == 1 ? scaled(6, scale, 2) : scaled(2 * seqs, scale, 2 * std::min(seqs, 4));
    const WorkloadOptions w = fixedLengthWorkload(prompts, 64, scaled(128, scale, 32), INFINITY, 8);
    EngineConfig off = base;
    off.maxNumSeqs = seqs;
    off.speculative = {};
    EngineConfig on = off;
    on.speculative = ngramDrafts();
    const std::string load = knobLabel(knob::kMaxNumSeqs, std::to_string(seqs));
    out.push_back({Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "%1, speculation off"), {load}), off, w, "", {}});
    out.push_back({Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "%1, n-gram drafts (k %2)"),
                              {load, std::to_string(on.speculative.numSpeculativeTokens)}),
                   on, w, "", {}});
  }
  return out;
}

// Long prompts arriving while others decode, on one engine with chunked prefill, then on
// a prefill and a decode instance. On the CPU the two designs share the same threads (2,
// or the --threads given: the pair splits them); the simulator has no half GPU, so there
// the pair runs on two GPUs against one, and the finding says so.
std::vector<LessonSetting> pdDisaggregationSettings(const EngineConfig& base, double scale) {
  WorkloadOptions w = fixedLengthWorkload(scaled(16, scale, 3), 768, 32, 3, 7);
  w.numBackgroundRequests = 4;
  w.backgroundOutputLen = scaled(300, scale, 60);
  const bool sim = base.executor.backend == "sim";
  const int threads = base.executor.numThreads > 1 ? base.executor.numThreads : 2;
  EngineConfig colocated = base;
  if (!sim) {
    colocated.executor.backend = "cpu";  // a pair copies blocks on the CPU (or simulates them)
    colocated.executor.numThreads = threads;
  }
  colocated.enableChunkedPrefill = true;
  colocated.maxNumBatchedTokens = 256;
  colocated.maxNumSeqs = 64;  // <= the budget; more than the load runs
  PdConfig pd;
  pd.prefill = pd.decode = colocated;
  pd.prefill.maxNumBatchedTokens = pd.decode.maxNumBatchedTokens = 0;  // each instance: vLLM's default budget
  if (!sim) {
    pd.prefill.executor.numThreads = threads / 2;
    pd.decode.executor.numThreads = threads - threads / 2;
  }
  pd.transfer = base.kvTransfer.enabled() ? base.kvTransfer : KvTransferConfig{"PdInProcessConnector"};
  const std::string budget = knobLabel(knob::kMaxNumBatchedTokens, "256");
  Phrase colocatedLabel, pdLabel;
  if (sim) {
    colocatedLabel = Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "colocated on one GPU, chunked prefill (%1)"), {budget});
    pdLabel = Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "P/D 1:1, one GPU each"));
  } else {
    colocatedLabel = Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "colocated on %1 threads, chunked prefill (%2)"),
                                {std::to_string(threads), budget});
    pdLabel = Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "P/D 1:1 on %1 + %2 threads"),
                         {std::to_string(pd.prefill.executor.numThreads), std::to_string(pd.decode.executor.numThreads)});
  }
  return {{colocatedLabel, colocated, w, "", {}}, {pdLabel, colocated, w, "", pd}};
}

}  // namespace lwb
