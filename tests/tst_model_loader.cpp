// Model folder loading: random models in every dtype mix, tokenizer/generation settings,
// prompt and chat encoding, weight binding errors and every loader error message; the
// default model when it is present.
#include <QCoreApplication>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/random_model.h"
#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/model/model.h"

using namespace lwb;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

QString loadError(const std::string& dir) {
  try {
    loadModel(dir);
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

void writeFile(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

json readJson(const fs::path& path) {
  return lwb::readJsonFile(path);
}

// Rewrites model.safetensors keeping every tensor but `drop` (all as F32 zeros).
void dropTensor(const fs::path& dir, const std::string& drop) {
  std::vector<TensorData> kept;
  {
    const auto file = SafetensorsFile::open((dir / "model.safetensors").string());
    for (const auto& [name, t] : file->tensors())
      if (name != drop) kept.push_back({name, t.dtype, t.shape, std::vector<uint8_t>(t.numBytes())});
  }
  writeSafetensors((dir / "model.safetensors").string(), kept);
}

}  // namespace

class TestModelLoader : public QObject {
  Q_OBJECT

  QTemporaryDir tmp_;
  int next_ = 0;

  fs::path newDir() { return tmp_.filePath(QString("m%1").arg(next_++)).toStdString(); }

 private slots:
  void loadsARandomModel() {
    RandomModelSpec spec;
    spec.headDim = 32;  // differs from hidden / heads = 16
    const std::string dir = writeRandomLlamaModel(newDir().string(), spec);
    std::vector<std::pair<double, std::string>> stages;
    const auto model = loadModel(dir, [&](double f, const std::string& s) { stages.push_back({f, s}); });
    QCOMPARE(model->dir, dir);
    const ModelConfig& c = model->config;
    const ModelConfig expected = randomModelConfig(spec);
    QCOMPARE(c.hiddenSize, expected.hiddenSize);
    QCOMPARE(c.headDim, 32);
    QCOMPARE(c.numKeyValueHeads, 2);
    QCOMPARE(c.vocabSize, 512);
    QCOMPARE(model->tokenizer->vocabSize(), tinyTokenizerVocabSize());
    QVERIFY(model->chatTemplate.family() == ChatTemplate::Family::Zephyr);

    const LlamaWeights& w = model->llama;
    QCOMPARE(int(w.layers.size()), spec.numHiddenLayers);
    QCOMPARE(w.layers[1].q->shape, (std::vector<int64_t>{4 * 32, 64}));
    QCOMPARE(w.layers[1].k->shape, (std::vector<int64_t>{2 * 32, 64}));
    QCOMPARE(w.layers[1].o->shape, (std::vector<int64_t>{64, 4 * 32}));
    QCOMPARE(w.layers[0].down->shape, (std::vector<int64_t>{64, 128}));
    QCOMPARE(w.layers[0].down->name, std::string("model.layers.0.mlp.down_proj.weight"));
    QVERIFY(w.lmHead != w.embedTokens);
    QCOMPARE(w.lmHead->name, std::string("lm_head.weight"));
    const float e0 = *static_cast<const float*>(w.embedTokens->data);
    QVERIFY(std::abs(e0) <= spec.scale);
    const float n0 = *static_cast<const float*>(w.finalNorm->data);
    QVERIFY(std::abs(n0 - 1.0f) <= spec.scale);

    QVERIFY(stages.size() >= 3);
    for (size_t i = 1; i < stages.size(); ++i) QVERIFY(stages[i].first >= stages[i - 1].first);
    QCOMPARE(stages.back().first, 1.0);
  }

  void mixedDtypesAndTiedEmbeddings() {
    RandomModelSpec spec;
    spec.embeddingDType = DType::BF16;
    spec.attentionDType = DType::F16;
    spec.mlpDType = DType::BF16;
    spec.normDType = DType::F32;
    spec.tieWordEmbeddings = true;
    spec.architecture = "MistralForCausalLM";
    const auto model = loadModel(writeRandomLlamaModel(newDir().string(), spec));
    const LlamaWeights& w = model->llama;
    QVERIFY(w.lmHead == w.embedTokens);
    QVERIFY(w.embedTokens->dtype == DType::BF16);
    QVERIFY(w.layers[0].q->dtype == DType::F16);
    QVERIFY(w.layers[0].gate->dtype == DType::BF16);
    QVERIFY(w.layers[0].inputNorm->dtype == DType::F32);
    QVERIFY(model->weights->find("lm_head.weight") == nullptr);
    QCOMPARE(model->config.architecture, std::string("MistralForCausalLM"));
  }

  // numParameters() counts what the checkpoint holds, tied or not.
  void parameterCountMatchesTheTensors() {
    for (bool tied : {false, true}) {
      RandomModelSpec spec;
      spec.tieWordEmbeddings = tied;
      spec.numKeyValueHeads = 1;
      const auto model = loadModel(writeRandomLlamaModel(newDir().string(), spec));
      long long numel = 0;
      for (const auto& [name, t] : model->weights->all()) numel += t.numel();
      QCOMPARE(model->config.numParameters(), numel);
    }
  }

  void readsTokenizerAndGenerationSettings() {
    const fs::path dir = writeRandomLlamaModel(newDir().string());
    writeFile(dir / "generation_config.json",
              R"({"temperature": 0.7, "top_p": 0.9, "top_k": 40, "repetition_penalty": 1.1, "max_new_tokens": 64,
                  "eos_token_id": [2, 7], "do_sample": true})");
    json tc = readJson(dir / "tokenizer_config.json");
    tc["add_bos_token"] = false;
    tc["bos_token"] = {{"content", "<s>"}, {"lstrip", false}};
    writeFile(dir / "tokenizer_config.json", tc.dump());
    const auto model = loadModel(dir.string());
    const GenerationDefaults& g = model->generationDefaults;
    QCOMPARE(*g.temperature, 0.7f);
    QCOMPARE(*g.topP, 0.9f);
    QCOMPARE(*g.topK, 40);
    QCOMPARE(*g.repetitionPenalty, 1.1f);
    QCOMPARE(*g.maxNewTokens, 64);
    QVERIFY(!g.minP);
    QCOMPARE(model->stopTokenIds(), (std::vector<int>{2, 7}));
    QVERIFY(!model->tokenizerSettings.addBosToken);
    QCOMPARE(model->encodePrompt("the house"), model->tokenizer->encode("the house"));
  }

  void encodesPromptsAndChats() {
    const auto model = loadModel(writeRandomLlamaModel(newDir().string()));
    const Tokenizer& tok = *model->tokenizer;
    std::vector<int> prompt = {1};
    for (int id : tok.encode("the house")) prompt.push_back(id);
    QCOMPARE(model->encodePrompt("the house"), prompt);

    const std::vector<int> chat = model->encodeChat({{"system", "SYS"}, {"user", "HI"}}, true);
    QCOMPARE(chat, tok.encodeWithSpecials("<s><|system|>\nSYS</s>\n<|user|>\nHI</s>\n<|assistant|>\n"));
    QCOMPARE(std::count(chat.begin(), chat.end(), 1), 1L);  // BOS once
  }

  void chatMLGetsOneBosAndStopsOnImEnd() {
    RandomModelSpec spec;
    spec.chatTemplate = "{% for m in messages %}{{'<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n'}}{% endfor %}";
    const auto model = loadModel(writeRandomLlamaModel(newDir().string(), spec));
    QVERIFY(model->chatTemplate.family() == ChatTemplate::Family::ChatML);
    const std::vector<int> chat = model->encodeChat({{"user", "HI"}}, true);
    QCOMPARE(chat.front(), 1);
    QCOMPARE(std::count(chat.begin(), chat.end(), 1), 1L);
    // "<|im_end|>" is several tokens in this vocabulary: it cannot stop on an id.
    QCOMPARE(model->stopTokenIds(), std::vector<int>{2});
  }

  void unknownTemplateFallsBackToPlainText() {
    RandomModelSpec spec;
    spec.writeTokenizerConfig = false;
    const auto model = loadModel(writeRandomLlamaModel(newDir().string(), spec));
    QVERIFY(model->chatTemplate.family() == ChatTemplate::Family::PlainText);
    QVERIFY(!model->chatTemplate.notice().empty());
    QVERIFY(model->tokenizerSettings.addBosToken);
  }

  void loaderErrorsNameTheProblem() {
    const fs::path dir = writeRandomLlamaModel(newDir().string());
    const std::string config = (dir / "config.json").string();
    const json good = readJson(config);

    QVERIFY(loadError((dir / "nope").string()).endsWith("nope: model folder not found"));

    writeFile(dir / "config.json", "{ \"hidden_size\": ");
    QVERIFY2(loadError(dir.string()).startsWith(QString::fromStdString(config + ": not valid JSON")), qPrintable(loadError(dir.string())));

    json bad = good;
    bad["architectures"] = {"GPT2LMHeadModel"};
    writeFile(config, bad.dump());
    QVERIFY(loadError(dir.string()).contains("'architectures' is [\"GPT2LMHeadModel\"]"));

    bad = good;
    bad["vocab_size"] = 100;
    writeFile(config, bad.dump());
    QCOMPARE(loadError(dir.string()),
             QString::fromStdString(config + ": vocab_size 100 is smaller than the tokenizer's 400 pieces"));

    writeFile(config, good.dump());
    writeFile(dir / "tokenizer_config.json", "{ broken");
    QVERIFY(loadError(dir.string()).startsWith(QString::fromStdString((dir / "tokenizer_config.json").string() + ": not valid JSON")));
    fs::remove(dir / "tokenizer_config.json");
    writeFile(dir / "generation_config.json", "[1, 2");
    QVERIFY(loadError(dir.string()).startsWith(QString::fromStdString((dir / "generation_config.json").string() + ": not valid JSON")));
    writeFile(dir / "generation_config.json", R"({"temperature": "hot"})");
    QVERIFY(loadError(dir.string()).contains("field 'temperature' is \"hot\""));
    fs::remove(dir / "generation_config.json");

    const std::string tokPath = (dir / "tokenizer.model").string();
    writeFile(tokPath, "garbage that is not a model");
    QVERIFY(loadError(dir.string()).startsWith(QString::fromStdString(tokPath + ": not a valid SentencePiece model")));
    fs::remove(tokPath);
    QVERIFY(loadError(dir.string()).startsWith(QString::fromStdString(tokPath + ": tokenizer file not found")));
    writeTinyTokenizer(tokPath);

    fs::remove(config);
    QVERIFY(loadError(dir.string()).startsWith(QString::fromStdString(config + ": cannot open")));
    writeFile(config, good.dump());
    QVERIFY(loadError(dir.string()).isEmpty());

    fs::remove(dir / "model.safetensors");
    QVERIFY(loadError(dir.string()).contains("no weights found"));
  }

  void bindingErrorsNameTensorExpectedAndFound() {
    const fs::path dir = writeRandomLlamaModel(newDir().string());
    const std::string weights = (dir / "model.safetensors").string();
    json config = readJson(dir / "config.json");
    config["intermediate_size"] = 96;  // the file holds 128
    writeFile(dir / "config.json", config.dump());
    QCOMPARE(loadError(dir.string()),
             QString::fromStdString(weights + ": tensor model.layers.0.mlp.gate_proj.weight: expected shape [96, 64], "
                                              "found [128, 64]"));
    config["intermediate_size"] = 128;
    writeFile(dir / "config.json", config.dump());
    dropTensor(dir, "model.layers.1.self_attn.v_proj.weight");
    QCOMPARE(loadError(dir.string()),
             QString::fromStdString(weights + ": missing tensor model.layers.1.self_attn.v_proj.weight (expected shape [32, 64])"));
    dropTensor(dir, "lm_head.weight");
    config["tie_word_embeddings"] = true;
    writeFile(dir / "config.json", config.dump());
    QVERIFY(loadError(dir.string()).contains("v_proj"));  // still missing; lm_head no longer needed
  }

  // A sparse file whose one tensor is bigger than MemAvailable: refused before binding.
  void refusesWeightsLargerThanMemory() {
    const fs::path dir = writeRandomLlamaModel(newDir().string());
    std::ifstream meminfo("/proc/meminfo");
    std::string key, unit;
    uint64_t kb = 0;
    while (meminfo >> key >> kb >> unit && key != "MemAvailable:") {}
    if (key != "MemAvailable:") QSKIP("no MemAvailable in /proc/meminfo");
    const uint64_t numel = (kb * 1024 * 2) / 4;
    const std::string header = json{{"big", {{"dtype", "F32"}, {"shape", {numel}}, {"data_offsets", {0, numel * 4}}}}}.dump();
    const fs::path path = dir / "model.safetensors";
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      for (int i = 0; i < 8; ++i) out.put(char(uint64_t(header.size()) >> (8 * i)));
      out << header;
    }
    std::error_code ec;
    fs::resize_file(path, 8 + header.size() + numel * 4, ec);
    if (ec) QSKIP("cannot create a sparse file here");
    const QString msg = loadError(dir.string());
    QVERIFY2(msg.contains("the weights need") && msg.contains("MiB is available (MemAvailable"), qPrintable(msg));
    fs::remove(path);  // the sparse file uses no space, but leave nothing huge behind
  }

  void findsTheDefaultModelDir() {
    QCOMPARE(QString::fromStdString(executableDir()), QCoreApplication::applicationDirPath());
    const QByteArray saved = qgetenv("LWB_MODEL_DIR");
    const std::string dir = writeRandomLlamaModel(newDir().string());
    qputenv("LWB_MODEL_DIR", QByteArray::fromStdString(dir));
    QCOMPARE(defaultModelDir(), dir);
    qputenv("LWB_MODEL_DIR", QByteArray::fromStdString(tmp_.path().toStdString()));
    QVERIFY_THROWS_EXCEPTION(Error, defaultModelDir());
    qunsetenv("LWB_MODEL_DIR");
    const std::string expected =
        fs::path(std::string(LWB_BINARY_DIR) + "/share/llm-workbench/models/austen-chat-11m").lexically_normal().string();
    try {
      QCOMPARE(defaultModelDir(), expected);
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains(QString::fromStdString(expected)), e.what());
      QVERIFY(QString(e.what()).contains("LWB_MODEL_DIR"));
    }
    if (!saved.isNull()) qputenv("LWB_MODEL_DIR", saved);
  }

  void loadsTheDefaultModel() {
    std::string dir;
    try {
      dir = defaultModelDir();
    } catch (const Error&) {
      QSKIP("default model not built into this build tree yet (resources/models/austen-chat-11m)");
    }
    const auto model = loadModel(dir);
    const ModelConfig& c = model->config;
    QCOMPARE(c.hiddenSize, 384);
    QCOMPARE(c.numHiddenLayers, 6);
    QCOMPARE(c.numAttentionHeads, 6);
    QCOMPARE(c.numKeyValueHeads, 2);
    QCOMPARE(c.headDim, 64);
    QCOMPARE(c.intermediateSize, 1024);
    QCOMPARE(c.vocabSize, 4096);
    QVERIFY(c.tieWordEmbeddings);
    QVERIFY(model->chatTemplate.family() == ChatTemplate::Family::Zephyr);
    const Tokenizer& tok = *model->tokenizer;
    const std::vector<int> chat = model->encodeChat({{"system", "SYS"}, {"user", "HI"}}, true);
    std::vector<int> expected = {1};
    for (int id : tok.encode("<|system|>\nSYS")) expected.push_back(id);
    expected.push_back(2);
    for (int id : tok.encode("\n<|user|>\nHI")) expected.push_back(id);
    expected.push_back(2);
    for (int id : tok.encode("\n<|assistant|>\n")) expected.push_back(id);
    QCOMPARE(chat, expected);
    const std::vector<int> stops = model->stopTokenIds();
    QVERIFY(std::find(stops.begin(), stops.end(), 2) != stops.end());
  }
};

QTEST_GUILESS_MAIN(TestModelLoader)
#include "tst_model_loader.moc"
