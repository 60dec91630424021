// The bundled draft model (resources/models/austen-chat-draft), the proposer for
// speculative decoding with the default model: it shares the target's tokenizer files
// (identical token ids), is several times cheaper, and its greedy tokens and top
// log-probabilities, through the CPU executor and through `llm-workbench generate` on
// the copy in the build tree, equal the training script's PyTorch outputs
// (tests/data/golden_austen_chat_draft.json, written by tools/train-default-model).
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/cli_runner.h"
#include "common/executor_driver.h"
#include "engine/common/json.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/model/model.h"

using namespace lwb;
using nlohmann::json;

namespace {

const std::string kModels = LWB_SOURCE_DIR "/resources/models/";
const std::string kDraft = kModels + "austen-chat-draft";
const std::string kTarget = kModels + "austen-chat-11m";
const QString kDraftInBuildTree = QStringLiteral(LWB_BINARY_DIR "/share/llm-workbench/models/austen-chat-draft");

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::shared_ptr<const Model> openWeights(const std::string& dir) {
  auto m = std::make_shared<Model>();
  m->dir = dir;
  m->config = loadModelConfig(dir + "/config.json");
  m->weights = WeightStore::openFolder(dir);
  m->llama = LlamaWeights::bind(*m->weights, m->config);
  return m;
}

std::vector<double> logSoftmax(const float* logits, int n) {
  const double maxv = *std::max_element(logits, logits + n);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += std::exp(double(logits[i]) - maxv);
  std::vector<double> out(size_t(n), 0.0);
  for (int i = 0; i < n; ++i) out[size_t(i)] = double(logits[i]) - maxv - std::log(sum);
  return out;
}

// Greedy decoding through the executor: the prompt in one chunk, then a token a step.
// Returns the tokens and the log-softmax of every step's logits.
std::pair<std::vector<int>, std::vector<std::vector<double>>> greedy(Executor& ex, const std::vector<int>& prompt,
                                                                     int numNew) {
  test::Seq s{1, prompt, {}, 0};
  for (int b = 0; b * ex.kvBlockSize() < int(prompt.size()) + numNew; ++b) s.blocks.push_back(b);
  std::vector<int> tokens;
  std::vector<std::vector<double>> logprobs;
  int feed = int(prompt.size());
  for (int step = 0; step < numNew; ++step) {
    ForwardBatch batch{std::vector<int32_t>(s.tokens.begin() + s.numComputed, s.tokens.end()),
                       {test::sliceFor(s, 0, feed, true)}};
    ForwardResult res;
    ex.forward(batch, res);
    logprobs.push_back(logSoftmax(res.row(0), res.vocabSize));
    const int next = int(std::max_element(res.row(0), res.row(0) + res.vocabSize) - res.row(0));
    tokens.push_back(next);
    s.numComputed += feed;
    s.tokens.push_back(next);
    feed = 1;
  }
  return {tokens, logprobs};
}

QStringList idsArg(const std::vector<int>& ids) {
  QStringList parts;
  for (int id : ids) parts << QString::number(id);
  return {"--prompt-token-ids", parts.join(',')};
}

}  // namespace

class TestDraftModel : public QObject {
  Q_OBJECT
  json golden_;

 private slots:
  // The draft is committed: a missing file is a failure, not a skip.
  void initTestCase() {
    for (const char* f : {"config.json", "model.safetensors", "tokenizer.model", "tokenizer_config.json",
                          "generation_config.json", "README.md"})
      QVERIFY2(std::filesystem::exists(kDraft + "/" + f), qPrintable(QString::fromStdString(kDraft) + "/" + f));
    golden_ = lwb::readJsonFile(LWB_TEST_DATA_DIR "/golden_austen_chat_draft.json");
    QVERIFY(golden_["prompts"].is_array() && golden_["prompts"].size() >= 5);
  }

  // Speculative decoding compares token ids across the two models: the tokenizer files
  // must be the very same, and so must the special ids and the vocabulary size.
  void sharesTheTargetsTokenizer() {
    for (const char* f : {"tokenizer.model", "tokenizer_config.json"})
      QVERIFY2(readFile(kDraft + "/" + f) == readFile(kTarget + "/" + f), f);
    const ModelConfig draft = loadModelConfig(kDraft + "/config.json");
    const ModelConfig target = loadModelConfig(kTarget + "/config.json");
    QCOMPARE(draft.vocabSize, target.vocabSize);
    QCOMPARE(draft.bosTokenId, target.bosTokenId);
    QCOMPARE(draft.eosTokenIds, target.eosTokenIds);
    QCOMPARE(draft.maxPositionEmbeddings, target.maxPositionEmbeddings);
    QCOMPARE(lwb::readJsonFile(kDraft + "/generation_config.json")["eos_token_id"],
             lwb::readJsonFile(kTarget + "/generation_config.json")["eos_token_id"]);
    // The golden tokenizations of both models came from their own tokenizer copies.
    QCOMPARE(golden_["tokenization"], lwb::readJsonFile(LWB_TEST_DATA_DIR "/golden_austen_chat_11m.json")["tokenization"]);
  }

  // A draft pays off only when its forward costs a fraction of the target's.
  void isSeveralTimesSmaller() {
    const ModelConfig draft = loadModelConfig(kDraft + "/config.json");
    const ModelConfig target = loadModelConfig(kTarget + "/config.json");
    QVERIFY2(draft.numParameters() * 5 <= target.numParameters(),
             qPrintable(QString("%1 vs %2 parameters").arg(draft.numParameters()).arg(target.numParameters())));
    QVERIFY(draft.numHiddenLayers < target.numHiddenLayers);
    QVERIFY(draft.hiddenSize < target.hiddenSize);
    const auto bytes = std::filesystem::file_size(kDraft + "/model.safetensors");
    QVERIFY2(bytes < 8u << 20, qPrintable(QString("model.safetensors is %1 bytes").arg(bytes)));
  }

  void executorMatchesTheGoldenData() {
    auto ex = createCpuExecutor(openWeights(kDraft), 2);
    ex->allocateKvCache(256, 16);
    for (const json& c : golden_["prompts"]) {
      const auto prompt = c.at("prompt_token_ids").get<std::vector<int>>();
      const auto expected = c.at("greedy_token_ids").get<std::vector<int>>();
      const auto [tokens, logprobs] = greedy(*ex, prompt, int(expected.size()));
      QCOMPARE(tokens, expected);
      const json& top = c.at("greedy_top_logprobs");  // [step] = [[token id, logprob], ...] (top 5)
      QCOMPARE(top.size(), logprobs.size());
      for (size_t step = 0; step < top.size(); ++step)
        for (const json& pair : top[step]) {
          const double got = logprobs[step][pair[0].get<size_t>()], want = pair[1].get<double>();
          QVERIFY2(std::fabs(got - want) < 2e-3, qPrintable(QString("%1 step %2 token %3: %4, golden %5")
                                                                .arg(QString::fromStdString(c["name"]))
                                                                .arg(step).arg(pair[0].get<int>()).arg(got).arg(want)));
        }
    }
  }

  // Found next to the program as the default model is (build tree: <build>/share/...).
  void foundLikeTheDefaultModel() {
    QCOMPARE(QFileInfo(QString::fromStdString(bundledDraftModelDir())).canonicalFilePath(),
             QFileInfo(kDraftInBuildTree).canonicalFilePath());
  }

  // The copy next to the build's bin/ (as installed) is what `--model` gets pointed at.
  void generateWithTheDraftInTheBuildTree() {
    QVERIFY2(QFileInfo::exists(kDraftInBuildTree + "/model.safetensors"), qPrintable(kDraftInBuildTree));
    for (const json& c : golden_["prompts"]) {
      const auto prompt = c["prompt_token_ids"].get<std::vector<int>>();
      const auto expected = c["greedy_token_ids"].get<std::vector<int>>();
      const auto r = test::runWorkbench(QStringList{"generate", "--model", kDraftInBuildTree} + idsArg(prompt) +
                                        QStringList{"--max-tokens", QString::number(expected.size()),
                                                    "--temperature", "0", "--ignore-eos", "--json"});
      QVERIFY2(r.exitCode == 0, r.err.constData());
      const json j = lwb::parseJson(r.out.constData());
      QCOMPARE(QFileInfo(QString::fromStdString(j["model"])).canonicalFilePath(),
               QFileInfo(kDraftInBuildTree).canonicalFilePath());
      QCOMPARE(j["output_token_ids"].get<std::vector<int>>(), expected);
    }
  }
};

QTEST_GUILESS_MAIN(TestDraftModel)
#include "tst_draft_model.moc"
