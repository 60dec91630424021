// config.json parsing: supported architectures and defaults, every error naming its
// field, and RoPE inverse frequencies against values computed here from HF's formulas.
#include <QtTest>

#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/model/model_config.h"

using namespace lwb;
using json = nlohmann::json;

namespace {

json baseConfig() {
  return {{"architectures", {"LlamaForCausalLM"}},
          {"hidden_size", 384},
          {"intermediate_size", 1024},
          {"num_attention_heads", 6},
          {"num_key_value_heads", 2},
          {"num_hidden_layers", 6},
          {"vocab_size", 4096},
          {"max_position_embeddings", 1024},
          {"rms_norm_eps", 1e-5},
          {"rope_theta", 10000.0},
          {"tie_word_embeddings", true},
          {"bos_token_id", 1},
          {"eos_token_id", 2},
          {"hidden_act", "silu"},
          {"torch_dtype", "float32"}};
}

ModelConfig parse(const json& j) { return parseModelConfig(j.dump(), "config.json"); }

// The message of the lwb::Error thrown by parsing `j` ("" when nothing is thrown).
QString errorOf(const json& j) {
  try {
    parse(j);
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestModelConfig : public QObject {
  Q_OBJECT

 private slots:
  void parsesTheDefaultModelShape() {
    const ModelConfig c = parse(baseConfig());
    QCOMPARE(c.architecture, std::string("LlamaForCausalLM"));
    QCOMPARE(c.hiddenSize, 384);
    QCOMPARE(c.intermediateSize, 1024);
    QCOMPARE(c.numAttentionHeads, 6);
    QCOMPARE(c.numKeyValueHeads, 2);
    QCOMPARE(c.headDim, 64);
    QCOMPARE(c.numHiddenLayers, 6);
    QCOMPARE(c.vocabSize, 4096);
    QCOMPARE(c.maxPositionEmbeddings, 1024);
    QCOMPARE(c.rmsNormEps, 1e-5f);
    QCOMPARE(c.ropeTheta, 10000.0f);
    QVERIFY(c.ropeScaling.type == RopeScaling::Type::None);
    QVERIFY(c.tieWordEmbeddings);
    QCOMPARE(c.bosTokenId, 1);
    QCOMPARE(c.eosTokenIds, std::vector<int>{2});
    QCOMPARE(c.torchDtype, std::string("float32"));
    QCOMPARE(c.qSize(), 384);
    QCOMPARE(c.kvSize(), 128);
  }

  void countsParameters() {
    ModelConfig c = parse(baseConfig());
    const long long perLayer = 2 * 384 + 384 * 384 + 2 * 384 * 128 + 384 * 384 + 3 * 384 * 1024;
    const long long tied = 4096LL * 384 + 6 * perLayer + 384;
    QCOMPARE(c.numParameters(), tied);
    c.tieWordEmbeddings = false;
    QCOMPARE(c.numParameters(), tied + 4096LL * 384);
  }

  void appliesDefaults() {
    json j = baseConfig();
    for (const char* key : {"num_key_value_heads", "rope_theta", "tie_word_embeddings", "eos_token_id",
                            "bos_token_id", "hidden_act", "torch_dtype", "rms_norm_eps"})
      j.erase(key);
    j["head_dim"] = nullptr;  // HF writes null for "not set"
    const ModelConfig c = parse(j);
    QCOMPARE(c.numKeyValueHeads, 6);
    QCOMPARE(c.headDim, 64);
    QCOMPARE(c.ropeTheta, 10000.0f);
    QVERIFY(!c.tieWordEmbeddings);
    QCOMPARE(c.eosTokenIds, std::vector<int>{2});
    QCOMPARE(c.bosTokenId, 1);
    QCOMPARE(c.rmsNormEps, 1e-6f);
  }

  void explicitHeadDimMayDifferFromHiddenOverHeads() {
    json j = baseConfig();
    j["head_dim"] = 128;
    j["num_attention_heads"] = 4;
    j["num_key_value_heads"] = 1;
    const ModelConfig c = parse(j);
    QCOMPARE(c.headDim, 128);
    QCOMPARE(c.qSize(), 512);
    QCOMPARE(c.kvSize(), 128);
  }

  void acceptsMistralAndModelType() {
    json j = baseConfig();
    j["architectures"] = {"MistralForCausalLM"};
    j["sliding_window"] = nullptr;
    QCOMPARE(parse(j).architecture, std::string("MistralForCausalLM"));

    j.erase("architectures");
    j["model_type"] = "mistral";
    QCOMPARE(parse(j).architecture, std::string("MistralForCausalLM"));
    j["model_type"] = "llama";
    QCOMPARE(parse(j).architecture, std::string("LlamaForCausalLM"));
  }

  void slidingWindowLimitsTheContext() {
    json j = baseConfig();
    j["architectures"] = {"MistralForCausalLM"};
    j["sliding_window"] = 256;
    QCOMPARE(parse(j).maxPositionEmbeddings, 256);
  }

  void eosMayBeAList() {
    json j = baseConfig();
    j["eos_token_id"] = {2, 7, 9};
    QCOMPARE(parse(j).eosTokenIds, (std::vector<int>{2, 7, 9}));
  }

  void missingRequiredFieldsAreNamed_data() {
    QTest::addColumn<QString>("field");
    for (const char* f : {"hidden_size", "intermediate_size", "num_attention_heads", "num_hidden_layers", "vocab_size"})
      QTest::newRow(f) << QString(f);
  }
  void missingRequiredFieldsAreNamed() {
    QFETCH(QString, field);
    json j = baseConfig();
    j.erase(field.toStdString());
    QCOMPARE(errorOf(j), QString("config.json: missing required field '%1'").arg(field));
  }

  void badValuesNameFieldValueAndExpectation_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");  // JSON
    QTest::addColumn<QString>("expected");
    QTest::newRow("string size") << "hidden_size" << "\"384\"" << "positive integer";
    QTest::newRow("zero size") << "intermediate_size" << "0" << "positive integer";
    QTest::newRow("negative heads") << "num_attention_heads" << "-6" << "positive integer";
    QTest::newRow("float layers") << "num_hidden_layers" << "6.5" << "positive integer";
    QTest::newRow("zero eps") << "rms_norm_eps" << "0" << "positive number";
    QTest::newRow("theta string") << "rope_theta" << "\"big\"" << "positive number";
    QTest::newRow("tie as int") << "tie_word_embeddings" << "1" << "true or false";
    QTest::newRow("gelu") << "hidden_act" << "\"gelu\"" << "\"silu\"";
    QTest::newRow("eos string") << "eos_token_id" << "\"</s>\"" << "token id";
    QTest::newRow("bos empty list") << "bos_token_id" << "[]" << "token id";
    QTest::newRow("architecture") << "architectures" << "[\"GPT2LMHeadModel\"]" << "LlamaForCausalLM";
    QTest::newRow("rope_scaling type") << "rope_scaling" << "3" << "object";
  }
  void badValuesNameFieldValueAndExpectation() {
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, expected);
    json j = baseConfig();
    j[field.toStdString()] = lwb::parseJson(value.toStdString());
    const QString msg = errorOf(j);
    QVERIFY2(msg.startsWith("config.json: field '" + field + "' is "), qPrintable(msg));
    QVERIFY2(msg.contains(QString::fromStdString(lwb::parseJson(value.toStdString()).dump())), qPrintable(msg));
    QVERIFY2(msg.contains("expected") && msg.contains(expected), qPrintable(msg));
  }

  void structuralErrors() {
    QVERIFY(errorOf(json::array()).contains("must be a JSON object"));
    try {
      parseModelConfig("{\"hidden_size\": ", "x/config.json");
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY(QString(e.what()).startsWith("x/config.json: not valid JSON"));
    }
    json j = baseConfig();
    j.erase("architectures");
    QCOMPARE(errorOf(j), QString("config.json: missing required field 'architectures' (or 'model_type')"));
    j["model_type"] = "gpt2";
    QVERIFY(errorOf(j).contains("'model_type' is \"gpt2\""));

    j = baseConfig();
    j["num_key_value_heads"] = 4;
    QVERIFY(errorOf(j).contains("num_attention_heads 6 is not a multiple of num_key_value_heads 4"));
    j = baseConfig();
    j["head_dim"] = 63;
    QVERIFY(errorOf(j).contains("head_dim 63 must be even"));
    j = baseConfig();
    j["num_attention_heads"] = 5;
    j["num_key_value_heads"] = 5;
    QVERIFY(errorOf(j).contains("hidden_size 384 is not a multiple of num_attention_heads 5"));
    j = baseConfig();
    j["attention_bias"] = true;
    QVERIFY(errorOf(j).contains("'attention_bias'"));
    j = baseConfig();
    j["eos_token_id"] = 5000;
    QVERIFY(errorOf(j).contains("eos_token_id 5000 is not below vocab_size 4096"));
  }

  void ropeScalingErrorsNameTheField() {
    json j = baseConfig();
    j["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}};
    QVERIFY2(errorOf(j).contains("rope_scaling.rope_type \"yarn\""), qPrintable(errorOf(j)));
    j["rope_scaling"] = {{"type", "dynamic"}, {"factor", 2.0}};
    QVERIFY(errorOf(j).contains("rope_scaling.rope_type \"dynamic\""));
    j["rope_scaling"] = {{"rope_type", "linear"}};
    QCOMPARE(errorOf(j), QString("config.json: missing required field 'rope_scaling.factor'"));
    j["rope_scaling"] = {{"rope_type", "linear"}, {"factor", -1}};
    QVERIFY(errorOf(j).contains("field 'rope_scaling.factor' is -1"));
    j["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0}};
    QCOMPARE(errorOf(j), QString("config.json: missing required field 'rope_scaling.original_max_position_embeddings'"));
    j["rope_scaling"] = {{"factor", 2.0}};
    QCOMPARE(errorOf(j), QString("config.json: missing required field 'rope_scaling.type'"));
  }

  void defaultRopeMatchesFormula() {
    json j = baseConfig();
    j["rope_theta"] = 500000.0;
    j["rope_scaling"] = {{"rope_type", "default"}};
    const ModelConfig c = parse(j);
    const std::vector<float> inv = ropeInvFreq(c);
    QCOMPARE(inv.size(), size_t(32));
    for (int i = 0; i < 32; ++i) QCOMPARE(inv[size_t(i)], float(1.0 / std::pow(500000.0, 2.0 * i / 64.0)));
    QCOMPARE(inv[0], 1.0f);
  }

  void linearRopeDividesByFactor() {
    json j = baseConfig();
    j["rope_scaling"] = {{"type", "linear"}, {"factor", 4.0}};
    const ModelConfig c = parse(j);
    QVERIFY(c.ropeScaling.type == RopeScaling::Type::Linear);
    const std::vector<float> inv = ropeInvFreq(c);
    for (int i = 0; i < 32; ++i) QCOMPARE(inv[size_t(i)], float(1.0 / std::pow(10000.0, 2.0 * i / 64.0) / 4.0));
  }

  // Llama 3.1's published scaling (factor 8, low 1, high 4, original 8192), head_dim 128,
  // theta 500000: high frequencies unchanged, low ones divided by 8, the middle blended.
  void llama3RopeMatchesHuggingFace() {
    json j = baseConfig();
    j["hidden_size"] = 512;
    j["num_attention_heads"] = 4;
    j["num_key_value_heads"] = 1;
    j["rope_theta"] = 500000.0;
    j["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0},
                         {"high_freq_factor", 4.0}, {"original_max_position_embeddings", 8192}};
    const ModelConfig c = parse(j);
    QCOMPARE(c.headDim, 128);
    const std::vector<float> inv = ropeInvFreq(c);
    int low = 0, mid = 0, high = 0;
    for (int i = 0; i < 64; ++i) {
      const double base = 1.0 / std::pow(500000.0, 2.0 * i / 128.0);
      const double wavelen = 2 * M_PI / base;
      double expected = base;
      if (wavelen > 8192.0) {
        expected = base / 8.0;
        ++low;
      } else if (wavelen >= 2048.0) {
        const double smooth = (8192.0 / wavelen - 1.0) / 3.0;
        expected = (1 - smooth) * base / 8.0 + smooth * base;
        ++mid;
      } else {
        ++high;
      }
      QCOMPARE(inv[size_t(i)], float(expected));
    }
    QVERIFY(low > 0 && mid > 0 && high > 0);  // all three regimes exercised
    // Spot values: first untouched, last fully scaled.
    QCOMPARE(inv[0], 1.0f);
    QCOMPARE(inv[63], float(1.0 / std::pow(500000.0, 126.0 / 128.0) / 8.0));
  }
};

QTEST_GUILESS_MAIN(TestModelConfig)
#include "tst_model_config.moc"
