// The model families beyond the default Llama: the real config.json files of Qwen2.5,
// Qwen3, SmolLM2 and Llama 3.2 parse to the published shapes and parameter counts;
// architecture and weight errors name what is wrong; greedy decoding of random Qwen2 and
// Qwen3 models picks the same ids as the float64 reference; generation_config.json
// (Qwen2.5's) becomes the sampling defaults, each field with its source.
#include <QtTest>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/executor_driver.h"
#include "common/random_model.h"
#include "common/reference_llama.h"
#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/exec/executor.h"
#include "engine/model/generation_config.h"
#include "engine/model/model.h"

using namespace lwb;
using json = nlohmann::json;

namespace {

// config.json as published on Hugging Face (keys the engine reads, and the ones it must
// not trip over: use_sliding_window, max_window_layers, attention_bias, mlp_bias).
const char* const kQwen25_05B = R"({
  "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
  "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 896, "initializer_range": 0.02,
  "intermediate_size": 4864, "max_position_embeddings": 32768, "max_window_layers": 21,
  "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2,
  "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": true,
  "torch_dtype": "bfloat16", "transformers_version": "4.43.1", "use_cache": true,
  "use_sliding_window": false, "vocab_size": 151936})";

const char* const kQwen3_06B = R"({
  "architectures": ["Qwen3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
  "hidden_size": 1024, "initializer_range": 0.02, "intermediate_size": 3072,
  "max_position_embeddings": 40960, "max_window_layers": 28, "model_type": "qwen3",
  "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
  "rope_scaling": null, "rope_theta": 1000000, "sliding_window": null, "tie_word_embeddings": true,
  "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": true,
  "use_sliding_window": false, "vocab_size": 151936})";

const char* const kSmolLM2_360M = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 960,
  "initializer_range": 0.02, "intermediate_size": 2560, "is_llama_config": true,
  "max_position_embeddings": 8192, "mlp_bias": false, "model_type": "llama", "num_attention_heads": 15,
  "num_hidden_layers": 32, "num_key_value_heads": 5, "pad_token_id": 2, "pretraining_tp": 1,
  "rms_norm_eps": 1e-05, "rope_interleaved": false, "rope_scaling": null, "rope_theta": 100000,
  "tie_word_embeddings": true, "torch_dtype": "bfloat16", "transformers_version": "4.42.3",
  "use_cache": true, "vocab_size": 49152})";

const char* const kLlama32_1B = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "head_dim": 64, "hidden_act": "silu",
  "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 8192,
  "max_position_embeddings": 131072, "mlp_bias": false, "model_type": "llama", "num_attention_heads": 32,
  "num_hidden_layers": 16, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
  "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                   "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "rope_theta": 500000.0, "tie_word_embeddings": true, "torch_dtype": "bfloat16", "vocab_size": 128256})";

QString errorOf(const json& j) {
  try {
    parseModelConfig(j.dump(), "config.json");
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

std::shared_ptr<const Model> openWeights(const std::string& dir) {
  auto m = std::make_shared<Model>();
  m->config = loadModelConfig(dir + "/config.json");
  m->weights = WeightStore::openFolder(dir);
  m->llama = LlamaWeights::bind(*m->weights, m->config);
  return m;
}

// Greedy ids by the reference: the whole sequence recomputed for every new token.
std::vector<int> referenceGreedy(const Model& model, std::vector<int> tokens, int numNew) {
  std::vector<int> out;
  for (int i = 0; i < numNew; ++i) {
    const std::vector<double> logits = referenceLastLogits(model, tokens);
    out.push_back(int(std::max_element(logits.begin(), logits.end()) - logits.begin()));
    tokens.push_back(out.back());
  }
  return out;
}

// Greedy ids through the CPU executor: the prompt in one chunk, then a token a step.
std::vector<int> executorGreedy(Executor& ex, const std::vector<int>& prompt, int numNew) {
  lwb::test::Seq s{1, prompt, {0, 1, 2, 3}, 0};
  std::vector<int> out;
  int feed = int(prompt.size());
  for (int step = 0; step < numNew; ++step) {
    ForwardBatch batch{std::vector<int32_t>(s.tokens.begin() + s.numComputed, s.tokens.end()),
                       {lwb::test::sliceFor(s, 0, feed, true)}};
    ForwardResult res;
    ex.forward(batch, res);
    out.push_back(int(std::max_element(res.row(0), res.row(0) + res.vocabSize) - res.row(0)));
    s.numComputed += feed;
    s.tokens.push_back(out.back());
    feed = 1;
  }
  return out;
}

}  // namespace

class TestQwenModels : public QObject {
  Q_OBJECT

 private slots:
  void realConfigsParse() {
    const ModelConfig q2 = parseModelConfig(kQwen25_05B, "config.json");
    QVERIFY(q2.qkvBias && !q2.qkNorm);
    QCOMPARE(q2.headDim, 64);
    QCOMPARE(q2.maxPositionEmbeddings, 32768);  // use_sliding_window false: the window is not applied
    QCOMPARE(q2.ropeTheta, 1e6f);
    QVERIFY(q2.tieWordEmbeddings);
    QCOMPARE(q2.numParameters(), 494032768LL);  // Qwen2.5-0.5B's published count

    const ModelConfig q3 = parseModelConfig(kQwen3_06B, "config.json");
    QVERIFY(q3.qkNorm && !q3.qkvBias);
    QCOMPARE(q3.headDim, 128);  // != hidden 1024 / 16 heads
    QCOMPARE(q3.qSize(), 2048);
    QCOMPARE(q3.maxPositionEmbeddings, 40960);
    QCOMPARE(q3.numParameters(), 596049920LL);

    const ModelConfig smol = parseModelConfig(kSmolLM2_360M, "config.json");
    QVERIFY(!smol.qkvBias && !smol.qkNorm && smol.tieWordEmbeddings);
    QCOMPARE(smol.headDim, 64);
    QCOMPARE(smol.numParameters(), 361821120LL);

    const ModelConfig l3 = parseModelConfig(kLlama32_1B, "config.json");
    QVERIFY(l3.ropeScaling.type == RopeScaling::Type::Llama3);
    QCOMPARE(l3.eosTokenIds, (std::vector<int>{128001, 128008, 128009}));
  }

  void modelTypeAloneNamesTheArchitecture() {
    json j = lwb::parseJson(kQwen3_06B);
    j.erase("architectures");
    QCOMPARE(parseModelConfig(j.dump(), "config.json").architecture, std::string("Qwen3ForCausalLM"));
    j["model_type"] = "qwen2";
    QCOMPARE(parseModelConfig(j.dump(), "config.json").architecture, std::string("Qwen2ForCausalLM"));
  }

  void slidingWindowAppliesOnlyWhenSwitchedOn() {
    json j = lwb::parseJson(kQwen25_05B);
    j["sliding_window"] = 4096;
    QCOMPARE(parseModelConfig(j.dump(), "config.json").maxPositionEmbeddings, 32768);
    j["use_sliding_window"] = true;
    QCOMPARE(parseModelConfig(j.dump(), "config.json").maxPositionEmbeddings, 4096);
  }

  void unsupportedArchitecturesListTheSupportedOnes() {
    json j = lwb::parseJson(kQwen25_05B);
    j["architectures"] = {"Gemma3ForCausalLM"};
    const QString msg = errorOf(j);
    QVERIFY2(msg.contains("Gemma3ForCausalLM is not supported"), qPrintable(msg));
    for (const char* arch : {"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM"})
      QVERIFY2(msg.contains(arch), qPrintable(msg));
    j.erase("architectures");
    j["model_type"] = "qwen2_moe";
    QVERIFY2(errorOf(j).contains("'model_type' is \"qwen2_moe\""), qPrintable(errorOf(j)));
  }

  void biasesOtherThanQwen2sAreRefused() {
    json j = lwb::parseJson(kQwen3_06B);
    j["attention_bias"] = true;
    QVERIFY2(errorOf(j).contains("'attention_bias' is true"), qPrintable(errorOf(j)));
    j = lwb::parseJson(kQwen25_05B);
    j["mlp_bias"] = true;
    QVERIFY2(errorOf(j).contains("'mlp_bias' is true"), qPrintable(errorOf(j)));
    j = lwb::parseJson(kQwen3_06B);
    j["head_dim"] = 127;
    QVERIFY2(errorOf(j).contains("head_dim 127 must be even"), qPrintable(errorOf(j)));
  }

  // A Qwen folder without its extra tensors names the missing tensor and its shape.
  void missingQwenTensorsAreNamed_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<QString>("tensor");
    QTest::newRow("qwen2 bias") << "Qwen2ForCausalLM" << "model.layers.0.self_attn.q_proj.bias (expected shape [64])";
    QTest::newRow("qwen3 norm") << "Qwen3ForCausalLM" << "model.layers.0.self_attn.q_norm.weight (expected shape [16])";
  }
  void missingQwenTensorsAreNamed() {
    QFETCH(QString, arch);
    QFETCH(QString, tensor);
    QTemporaryDir tmp;
    RandomModelSpec spec;
    spec.architecture = "LlamaForCausalLM";  // weights without the Qwen tensors...
    const std::string dir = writeRandomLlamaModel(tmp.filePath("m").toStdString(), spec);
    spec.architecture = arch.toStdString();  // ...under a Qwen config
    QFile config(QString::fromStdString(dir + "/config.json"));
    QVERIFY(config.open(QIODevice::ReadWrite));
    json j = lwb::parseJson(config.readAll().toStdString());
    j["architectures"] = {spec.architecture};
    config.resize(0);
    config.write(QByteArray::fromStdString(j.dump()));
    config.close();
    try {
      openWeights(dir);
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("missing tensor " + tensor), e.what());
    }
  }

  // Qwen2.5-0.5B-Instruct's generation_config.json (eos ids shrunk to the test vocabulary).
  void generationConfigBecomesTheSamplingDefaults() {
    QTemporaryDir tmp;
    RandomModelSpec spec;
    spec.architecture = "Qwen2ForCausalLM";
    const std::string dir = writeRandomLlamaModel(tmp.filePath("m").toStdString(), spec);
    QFile gc(QString::fromStdString(dir + "/generation_config.json"));
    QVERIFY(gc.open(QIODevice::WriteOnly));
    gc.write(R"({"bos_token_id": 1, "pad_token_id": 1, "do_sample": true, "eos_token_id": [7, 2],
                 "repetition_penalty": 1.1, "temperature": 0.7, "top_p": 0.8, "top_k": 20,
                 "transformers_version": "4.37.0"})");
    gc.close();
    const auto model = loadModel(dir);
    QCOMPARE(model->stopTokenIds(), (std::vector<int>{2, 7}));
    SamplingParams builtIn;
    builtIn.maxTokens = 160;
    const SamplingDefaults d = samplingDefaults(model->generationDefaults, builtIn);
    QCOMPARE(d.params.temperature, 0.7f);
    QCOMPARE(d.params.topP, 0.8f);
    QCOMPARE(d.params.topK, 20);
    QCOMPARE(d.params.repetitionPenalty, 1.1f);
    QCOMPARE(d.params.minP, 0.0f);     // not in the file: built in
    QCOMPARE(d.params.maxTokens, 160);  // not in the file: built in
    QCOMPARE(d.fromModel, (std::vector<std::string>{"temperature", "top_p", "top_k", "repetition_penalty"}));
    QVERIFY(d.isFromModel("top_k") && !d.isFromModel("max_tokens"));

    gc.open(QIODevice::WriteOnly);
    gc.write(R"({"top_p": 1.5})");
    gc.close();
    try {
      loadModel(dir);
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("generation_config.json: top_p: expected a value in (0, 1], found 1.5"),
               e.what());
    }
  }

  void greedyIdsMatchTheReference_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<int>("dtype");
    QTest::newRow("qwen2 bf16") << "Qwen2ForCausalLM" << int(DType::BF16);
    QTest::newRow("qwen3 bf16") << "Qwen3ForCausalLM" << int(DType::BF16);
    QTest::newRow("qwen3 f32") << "Qwen3ForCausalLM" << int(DType::F32);
  }
  void greedyIdsMatchTheReference() {
    QFETCH(QString, arch);
    QFETCH(int, dtype);
    RandomModelSpec spec;
    spec.architecture = arch.toStdString();
    spec.hiddenSize = 64;
    spec.numAttentionHeads = 4;
    spec.numKeyValueHeads = 2;
    spec.headDim = arch.startsWith("Qwen3") ? 24 : 0;
    spec.tieWordEmbeddings = true;
    spec.vocabSize = 320;
    spec.scale = 0.3f;  // peaked enough that greedy choices are not near-ties
    spec.embeddingDType = spec.attentionDType = spec.mlpDType = DType(dtype);
    QTemporaryDir tmp;
    auto model = openWeights(writeRandomLlamaModel(tmp.filePath("m").toStdString(), spec));
    const std::vector<int> prompt{5, 17, 200, 3, 99, 42, 7};
    auto ex = createCpuExecutor(model, 2);
    ex->allocateKvCache(4, 8);
    const std::vector<int> got = executorGreedy(*ex, prompt, 12);
    QCOMPARE(got, referenceGreedy(*model, prompt, 12));
  }
};

QTEST_GUILESS_MAIN(TestQwenModels)
#include "tst_qwen_models.moc"
