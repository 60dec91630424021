// Tokenizer (SentencePiece + specials), IncrementalDetokenizer and the UTF-8 checks.
// Most cases use the tiny tokenizer trained in-process (tests/common/random_model.h);
// the default model's tokenizer and golden ids are checked when they exist.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/model/tokenizer.h"
#include "common/random_model.h"

using namespace lwb;
using json = nlohmann::json;

namespace {

const std::string kDefaultTokenizer = std::string(LWB_SOURCE_DIR) + "/resources/models/austen-chat-11m/tokenizer.model";
const std::string kGolden = std::string(LWB_TEST_DATA_DIR) + "/golden_austen_chat_11m.json";

std::vector<int> concat(std::initializer_list<std::vector<int>> parts) {
  std::vector<int> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

int byteId(const Tokenizer& tok, unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "<0x%02X>", b);
  for (int id = 0; id < tok.vocabSize(); ++id)
    if (tok.isByte(id) && tok.piece(id) == buf) return id;
  return -1;
}

// Streams `ids` through a detokenizer; checks every chunk is valid UTF-8; returns the text.
std::string stream(const Tokenizer& tok, const std::vector<int>& ids, const std::vector<int>& prefix, bool* allValid) {
  IncrementalDetokenizer detok(tok, prefix);
  std::string out;
  for (int id : ids) {
    const std::string chunk = detok.push(id);
    *allValid = *allValid && isValidUtf8(chunk);
    out += chunk;
  }
  const std::string rest = detok.flush();
  *allValid = *allValid && isValidUtf8(rest);
  return out + rest;
}

}  // namespace

class TestTokenizer : public QObject {
  Q_OBJECT

  QTemporaryDir tmp_;
  std::unique_ptr<Tokenizer> tok_;

 private slots:
  void initTestCase() {
    const std::string path = tmp_.filePath("tokenizer.model").toStdString();
    writeTinyTokenizer(path);
    tok_ = Tokenizer::load(path);
  }

  void conventions() {
    const Tokenizer& t = *tok_;
    QCOMPARE(t.vocabSize(), tinyTokenizerVocabSize());
    QCOMPARE(t.unkId(), 0);
    QCOMPARE(t.bosId(), 1);
    QCOMPARE(t.eosId(), 2);
    QCOMPARE(t.piece(1), std::string("<s>"));
    QVERIFY(t.isControl(0) && t.isControl(1) && t.isControl(2));
    QVERIFY(!t.isControl(3) && t.isUserDefined(3) && t.isUserDefined(4) && t.isUserDefined(5));
    QCOMPARE(t.piece(4), std::string("<|user|>"));
    int numBytes = 0;
    for (int id = 0; id < t.vocabSize(); ++id) numBytes += t.isByte(id);
    QCOMPARE(numBytes, 256);
    const std::vector<int> ordinary = t.ordinaryIds();
    QCOMPARE(int(ordinary.size()), t.vocabSize() - 3 - 3 - 256);
    for (int id : ordinary) QVERIFY(!t.isControl(id) && !t.isByte(id) && !t.isUserDefined(id));
    QVERIFY_THROWS_EXCEPTION(Error, t.piece(t.vocabSize()));
    QVERIFY_THROWS_EXCEPTION(Error, t.decode({t.vocabSize()}));
  }

  void roundTrips_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("ascii") << "Mr. Darcy had a letter for her sister, and the evening was good.";
    QTest::newRow("unknown ascii letters") << "Quixotic XYZ zebra";
    QTest::newRow("unicode") << QString::fromUtf8("café naïve über — «ça» Ωμέγα 日本語");
    QTest::newRow("emoji") << QString::fromUtf8("I like 😀 and 🇬🇧!");
    QTest::newRow("digits") << "In 1813, 42 of 1000000 readers";
    QTest::newRow("whitespace") << "two  spaces\nnew line\ttab ";
    QTest::newRow("leading space") << " leading";
    QTest::newRow("special spellings stay text") << "<s> and </s> are plain here";
  }
  void roundTrips() {
    QFETCH(QString, text);
    const std::string s = text.toStdString();
    const std::vector<int> ids = tok_->encode(s);
    QVERIFY(!ids.empty());
    QCOMPARE(tok_->decode(ids), s);
    for (int id : ids) QVERIFY2(id != tok_->unkId() && id != tok_->bosId() && id != tok_->eosId(), s.c_str());
  }

  void digitsAreSplit() {
    for (int id : tok_->encode("2024 and 1234567")) {
      const std::string p = tok_->piece(id);
      QVERIFY2(std::count_if(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; }) <= 1, p.c_str());
    }
  }

  void rareCharactersFallBackToBytes() {
    const std::vector<int> ids = tok_->encode("😀");  // U+1F600: F0 9F 98 80
    std::vector<int> bytes;
    for (int id : ids)
      if (tok_->isByte(id)) bytes.push_back(id);
    QCOMPARE(bytes, (std::vector<int>{byteId(*tok_, 0xF0), byteId(*tok_, 0x9F), byteId(*tok_, 0x98), byteId(*tok_, 0x80)}));
  }

  void encodeAddsNoBos() {
    QVERIFY(tok_->encode("").empty());
    QCOMPARE(tok_->encode("hello").front() == tok_->bosId(), false);
  }

  // The default model's rendered chat: split on <s> / </s> only; every stretch between
  // them encoded with its own dummy prefix; <|user|> etc. matched by SentencePiece.
  void encodeWithSpecialsSplitsOnControlPieces() {
    const std::string chat = "<s><|system|>\nSYS</s>\n<|user|>\nHI</s>\n<|assistant|>\n";
    const std::vector<int> expected = concat({{1}, tok_->encode("<|system|>\nSYS"), {2}, tok_->encode("\n<|user|>\nHI"),
                                              {2}, tok_->encode("\n<|assistant|>\n")});
    const std::vector<int> ids = tok_->encodeWithSpecials(chat);
    QCOMPARE(ids, expected);
    QCOMPARE(std::count(ids.begin(), ids.end(), 1), 1L);
    QCOMPARE(std::count(ids.begin(), ids.end(), 2), 2L);
    QCOMPARE(std::count(ids.begin(), ids.end(), 4), 1L);  // <|user|>
    QCOMPARE(ids[1], tok_->encode("x")[0]);                // the segment's dummy "▁" before <|system|>
    QCOMPARE(tok_->piece(ids[1]), std::string("\xE2\x96\x81"));
    QCOMPARE(ids[2], 3);
    // Plain encode does not turn "<s>" into BOS; encodeWithSpecials does, anywhere.
    QVERIFY(!tok_->encode("<s>").empty() && tok_->encode("<s>")[0] != 1);
    QCOMPARE(tok_->encodeWithSpecials("a</s></s>b"), concat({tok_->encode("a"), {2, 2}, tok_->encode("b")}));
    QCOMPARE(tok_->encodeWithSpecials("plain text"), tok_->encode("plain text"));
  }

  void loadErrorsNameTheFile() {
    const std::string missing = tmp_.filePath("absent.model").toStdString();
    try {
      Tokenizer::load(missing);
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).startsWith(QString::fromStdString(missing + ": tokenizer file not found")), e.what());
    }
    const std::string corrupt = tmp_.filePath("corrupt.model").toStdString();
    std::ofstream(corrupt) << "this is not a protobuf";
    try {
      Tokenizer::load(corrupt);
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).startsWith(QString::fromStdString(corrupt + ": not a valid SentencePiece model")), e.what());
    }
  }

  void utf8Validation() {
    QVERIFY(isValidUtf8(""));
    QVERIFY(isValidUtf8("plain ascii"));
    QVERIFY(isValidUtf8("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF"));  // é € 😀 U+10FFFF
    QVERIFY(!isValidUtf8("\xC0\x80"));          // overlong NUL
    QVERIFY(!isValidUtf8("\xE0\x80\xAF"));      // overlong '/'
    QVERIFY(!isValidUtf8("\xF0\x80\x80\xAF"));  // overlong
    QVERIFY(!isValidUtf8("\xED\xA0\x80"));      // surrogate U+D800
    QVERIFY(!isValidUtf8("\xF4\x90\x80\x80"));  // U+110000
    QVERIFY(!isValidUtf8("\xF5\x80\x80\x80"));
    QVERIFY(!isValidUtf8("\x80"));
    QCOMPARE(validUtf8Prefix("ab\xE2\x82"), size_t(2));  // truncated €
    QCOMPARE(validUtf8Prefix("ab\xE2\x82\xAC"), size_t(5));
    QCOMPARE(validUtf8Prefix("\xC3\xA9x\xFFy"), size_t(3));
  }

  void detokenizerHoldsIncompleteCharacters() {
    IncrementalDetokenizer d(*tok_);
    QCOMPARE(d.push(byteId(*tok_, 0xE2)), std::string());
    QCOMPARE(d.push(byteId(*tok_, 0x82)), std::string());
    QCOMPARE(d.push(byteId(*tok_, 0xAC)), std::string("\xE2\x82\xAC"));
    QCOMPARE(d.push(byteId(*tok_, 0xF0)), std::string());
    QCOMPARE(d.push(byteId(*tok_, 0x9F)), std::string());
    // Cut short: flush writes U+FFFD per stray byte, as SentencePiece's decode does.
    QCOMPARE(d.flush(), std::string("\xEF\xBF\xBD\xEF\xBF\xBD"));
  }

  void detokenizerKeepsTheLeadingSpace() {
    const std::vector<int> prompt = tok_->encode("the house");
    const std::vector<int> next = tok_->encode("the letter");  // "▁the" ...
    QVERIFY(tok_->piece(next[0]).starts_with("\xE2\x96\x81"));
    IncrementalDetokenizer withPrompt(*tok_, prompt);
    QVERIFY(withPrompt.push(next[0]).starts_with(" "));
    IncrementalDetokenizer fresh(*tok_);
    QVERIFY(!fresh.push(next[0]).starts_with(" "));  // start of the text: stripped like decode()
    // A prompt ending in byte pieces (an emoji) still keeps the space.
    IncrementalDetokenizer afterBytes(*tok_, tok_->encode("😀"));
    QVERIFY(afterBytes.push(next[0]).starts_with(" "));
  }

  // Streaming equals a full decode for random id sequences mixing plain pieces, valid
  // and broken byte-fallback runs, controls and user-defined pieces; no chunk is ever
  // invalid UTF-8.
  void streamingEqualsFullDecode() {
    std::mt19937 rng(11);
    const std::vector<int> ordinary = tok_->ordinaryIds();
    const std::vector<std::string> chars = {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "a", "\n"};
    const std::vector<std::vector<int>> prefixes = {{}, tok_->encode("Hello there"), tok_->encode("café 😀"), {1}};
    for (int trial = 0; trial < 400; ++trial) {
      std::vector<int> ids;
      const int n = 1 + int(rng() % 40);
      while (int(ids.size()) < n) {
        switch (rng() % 6) {
          case 0: ids.push_back(int(rng() % 6)); break;  // controls, user-defined
          case 1:
            for (unsigned char b : chars[rng() % chars.size()]) ids.push_back(byteId(*tok_, b));
            break;
          case 2: ids.push_back(byteId(*tok_, uint8_t(rng()))); break;  // any byte, often broken
          default: ids.push_back(ordinary[rng() % ordinary.size()]);
        }
      }
      const std::vector<int>& prefix = prefixes[size_t(trial) % prefixes.size()];
      const std::string prefixText = tok_->decode(prefix);
      const std::string full = tok_->decode(concat({prefix, ids}));
      QVERIFY(full.starts_with(prefixText));
      bool allValid = true;
      const std::string streamed = stream(*tok_, ids, prefix, &allValid);
      QVERIFY2(allValid, qPrintable(QString("trial %1").arg(trial)));
      QCOMPARE(streamed, full.substr(prefixText.size()));
    }
  }

  void defaultTokenizerRoundTrips() {
    if (!std::filesystem::exists(kDefaultTokenizer)) QSKIP("default model tokenizer not present yet");
    const auto tok = Tokenizer::load(kDefaultTokenizer);
    QCOMPARE(tok->vocabSize(), 4096);
    QCOMPARE(tok->bosId(), 1);
    QCOMPARE(tok->eosId(), 2);
    QCOMPARE(tok->unkId(), 0);
    for (const char* s : {"It is a truth universally acknowledged, that a single man in possession of a good fortune",
                          "Emma Woodhouse, handsome, clever, and rich — 1816 😀"})
      QCOMPARE(tok->decode(tok->encode(s)), std::string(s));
    QVERIFY(tok->isUserDefined(tok->encodeWithSpecials("<|user|>").back()));
  }

  // tests/data/golden_austen_chat_11m.json "tokenization": [{"text": ..., "ids": [...]}, ...]
  // as the training tools computed them: rendered chats split on <s>/</s>, plain text
  // encoded directly. Optional per entry: "kind" ("plain" | "chat") and "add_bos"; without
  // them, text containing <s>/</s> counts as a chat and a leading BOS in the ids as add_bos.
  void goldenTokenization() {
    if (!std::filesystem::exists(kDefaultTokenizer)) QSKIP("default model tokenizer not present yet");
    if (!std::filesystem::exists(kGolden)) QSKIP("tests/data/golden_austen_chat_11m.json not present yet");
    const auto tok = Tokenizer::load(kDefaultTokenizer);
    const json golden = lwb::readJsonFile(kGolden);
    QVERIFY2(golden.contains("tokenization") && golden["tokenization"].is_array(), "golden file has no 'tokenization' list");
    int checked = 0;
    for (const json& e : golden["tokenization"]) {
      const std::string text = e.value("text", e.value("input", std::string()));
      const std::vector<int> expected = e.value("ids", e.value("token_ids", std::vector<int>()));
      if (text.empty() && expected.empty()) continue;
      const bool chat = e.contains("kind") ? e["kind"] != "plain"
                                           : text.find("<s>") != std::string::npos || text.find("</s>") != std::string::npos;
      std::vector<int> ids = chat ? tok->encodeWithSpecials(text) : tok->encode(text);
      const bool addBos = e.contains("add_bos") ? e["add_bos"].get<bool>() : !expected.empty() && expected[0] == tok->bosId();
      if (addBos && (ids.empty() || ids[0] != tok->bosId())) ids.insert(ids.begin(), tok->bosId());
      QCOMPARE(ids, expected);
      if (!chat) QCOMPARE(tok->decode(ids), text);
      ++checked;
    }
    QVERIFY2(checked > 0, "no {text, ids} entries in the golden tokenization list");
  }
};

QTEST_GUILESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"
