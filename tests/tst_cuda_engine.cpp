// The CUDA backend behind greedy decoding: the default model's greedy tokens and whole
// Engine runs (chunked prefill, prefix hits, preemption) against the CPU's, following
// the near-tie rule of engine/exec/cuda/testing/greedy_match.h; a model shape the
// kernels do not handle is refused as unsupported and `auto` falls back to the CPU (no
// device needed for that). Skips with the loader's reason where there is no CUDA device;
// tools/device-check.sh counts a skip as a failure.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/cuda_compare.h"
#include "common/executor_driver.h"
#include "engine/common/error.h"
#include "engine/engine.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/exec/cuda/testing/greedy_match.h"
#include "engine/exec/cuda_loader.h"
#include "engine/model/model.h"

using namespace lwb;
using namespace lwb::test;

namespace {

struct TopTwo {
  std::vector<int> tokens;
  std::vector<float> margins;  // logprob of the winner minus the runner-up, per token
};

// Greedy Engine run; per request, its tokens and the top-2 margins.
std::map<RequestId, TopTwo> runEngine(std::shared_ptr<const Model> model, const std::string& backend,
                                      const std::vector<std::vector<int>>& prompts) {
  EngineConfig config;
  config.executor.backend = backend;
  config.maxNumBatchedTokens = 48;  // prompts of 60-100 tokens: chunked prefill
  config.maxNumSeqs = 8;
  config.blockSize = 16;
  config.numGpuBlocksOverride = 24;  // too few for everyone: preemption
  Engine engine(model, config);
  std::map<RequestId, TopTwo> out;
  std::vector<RequestId> ids;
  for (const std::vector<int>& p : prompts) {
    RequestInput in;
    in.promptTokenIds = p;
    in.sampling.temperature = 0;
    in.sampling.maxTokens = 24;
    in.sampling.ignoreEos = true;
    in.sampling.logprobs = 2;
    ids.push_back(engine.addRequest(in));
  }
  for (int guard = 0; engine.hasUnfinishedRequests() && guard < 10000; ++guard) {
    const StepOutput step = engine.step();
    for (const TokenDelta& d : step.deltas) {
      TopTwo& t = out[d.id];
      t.tokens.insert(t.tokens.end(), d.newTokenIds.begin(), d.newTokenIds.end());
      for (const auto& lp : d.newLogprobs)
        t.margins.push_back(lp.size() >= 2 ? lp[0].second - lp[1].second : INFINITY);
    }
  }
  return out;
}

}  // namespace

class TestCudaEngine : public QObject {
  Q_OBJECT

 private slots:
  void defaultModelGreedyMatchesCpu() {
    std::shared_ptr<const Model> model;
    try {
      model = loadModel(defaultModelDir());
    } catch (const Error& e) {
      QSKIP(qPrintable(QString("default model absent: %1").arg(e.what())));
    }
    REQUIRE_CUDA(cuda, model);
    auto cpu = createCpuExecutor(model, 0);
    const std::vector<int> prompt = model->encodePrompt("It is a truth universally acknowledged, that");
    std::vector<int> tokens[2];
    std::vector<float> logits[2], margins[2];
    Executor* exs[2] = {cpu.get(), cuda.get()};
    for (int e = 0; e < 2; ++e) {
      exs[e]->allocateKvCache(8, 16);
      Seq s{0, prompt, {0, 1, 2, 3, 4, 5, 6, 7}, 0};
      int chunk = int(prompt.size());
      for (int step = 0; step < 32; ++step) {
        ForwardBatch batch;
        batch.seqs.push_back({1, 0, chunk, s.numComputed, s.blocks, true});
        batch.tokenIds.assign(s.tokens.end() - chunk, s.tokens.end());
        ForwardResult out;
        exs[e]->forward(batch, out);
        s.numComputed += chunk;
        const int next = int(std::max_element(out.logits.begin(), out.logits.end()) - out.logits.begin());
        if (step == 0) logits[e] = out.logits;
        margins[e].push_back(devcheck::topTwoMargin(out.logits.data(), out.logits.size()));
        tokens[e].push_back(next);
        s.tokens.push_back(next);
        chunk = 1;
      }
    }
    compareLogits(logits[0], logits[1], model->config.vocabSize, 0.03);
    const devcheck::GreedyMatch m = devcheck::compareGreedy(tokens[0], margins[0], tokens[1]);
    QVERIFY2(m.ok, m.message.c_str());
    QVERIFY(m.compared >= 8);  // a tie in the first few tokens would make this vacuous
  }

  // A head_dim the kernels do not take is "unsupported", not a failure: auto falls back
  // to the CPU and says why (when a device and the plugin exist; else it falls back for
  // the lack of those, which the notice also says).
  void unsupportedShapeFallsBackToCpu() {
    RandomModelSpec spec;
    spec.hiddenSize = 84;
    spec.numAttentionHeads = 2;
    spec.numKeyValueHeads = 2;
    spec.headDim = 42;  // even (RoPE) but not a multiple of 8
    spec.intermediateSize = 128;
    spec.vocabSize = 400;
    QTemporaryDir tmp;
    const auto model = randomModel(tmp, spec);
    std::string reason;
    QVERIFY(cudaFor(model, &reason) == nullptr);
    QVERIFY(!reason.empty());
    std::string notice;
    ExecutorOptions options;
    options.backend = "auto";
    auto ex = createExecutor(model, options, &notice);
    QCOMPARE(ex->deviceInfo().backend, std::string("cpu"));
    QVERIFY2(notice.find(reason) != std::string::npos, notice.c_str());
    std::string probeReason;
    if (lwb::cudaplugin::openUsablePlugin(0, &probeReason))  // a device: the shape is the reason
      QVERIFY2(reason.find("head_dim 42") != std::string::npos, reason.c_str());
    options.backend = "cuda";
    QVERIFY_THROWS_EXCEPTION(Error, createExecutor(model, options));
  }

  void engineRunsMatchCpu() {
    QTemporaryDir tmp;
    RandomModelSpec spec;
    spec.hiddenSize = 128;
    spec.headDim = 32;
    spec.numAttentionHeads = 4;
    spec.numKeyValueHeads = 2;
    spec.intermediateSize = 256;
    spec.vocabSize = 400;
    spec.attentionDType = spec.mlpDType = spec.embeddingDType = spec.lmHeadDType = DType::BF16;
    spec.scale = 0.2f;
    const auto model = randomModel(tmp, spec);
    {
      REQUIRE_CUDA(probe, model);  // skips without a device
    }
    const std::vector<int> shared = randomTokens(40, spec.vocabSize, 5);  // a common system prompt
    std::vector<std::vector<int>> prompts;
    for (int i = 0; i < 6; ++i) {
      std::vector<int> p = shared;
      const std::vector<int> own = randomTokens(20 + 10 * i, spec.vocabSize, 10 + unsigned(i));
      p.insert(p.end(), own.begin(), own.end());
      prompts.push_back(p);
    }
    const auto cpu = runEngine(model, "cpu", prompts);
    const auto cuda = runEngine(model, "cuda", prompts);
    QCOMPARE(cuda.size(), cpu.size());
    int compared = 0;
    for (const auto& [id, expect] : cpu) {
      const TopTwo& got = cuda.at(id);
      QCOMPARE(got.tokens.size(), expect.tokens.size());
      const devcheck::GreedyMatch m = devcheck::compareGreedy(expect.tokens, expect.margins, got.tokens);
      QVERIFY2(m.ok, qPrintable(QString("request %1: %2").arg(id).arg(m.message.c_str())));
      compared += int(m.compared);
    }
    QVERIFY(compared > 6 * 12);  // most tokens were actually compared
  }
};

QTEST_GUILESS_MAIN(TestCudaEngine)
#include "tst_cuda_engine.moc"
