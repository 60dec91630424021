#include "engine/model/gguf_tokenizer.h"

#include <cstring>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/model/hf_tokenizer.h"
#include "engine/model/tokenizer_sentencepiece.h"

namespace lwb {

namespace {

using json = nlohmann::json;

// llama.cpp's token types (= SentencePiece's piece types).
enum TokenType { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

struct Vocab {
  std::vector<std::string> tokens;
  std::vector<int64_t> types;  // [tokens.size()]
  std::vector<double> scores;  // [tokens.size()] ("llama" only)
};

Vocab readVocab(const GgufFile& f, bool withScores) {
  Vocab v;
  v.tokens = f.getStringArray("tokenizer.ggml.tokens");
  check(!v.tokens.empty(), f.path() + ": metadata key tokenizer.ggml.tokens is empty");
  v.types = f.find("tokenizer.ggml.token_type") ? f.getIntArray("tokenizer.ggml.token_type")
                                                 : std::vector<int64_t>(v.tokens.size(), kNormal);
  check(v.types.size() == v.tokens.size(), f.path() + ": metadata key tokenizer.ggml.token_type has " +
                                               std::to_string(v.types.size()) + " entries, tokenizer.ggml.tokens " +
                                               std::to_string(v.tokens.size()));
  for (size_t i = 0; i < v.types.size(); ++i)
    check(v.types[i] >= kNormal && v.types[i] <= kByte, [&] {
      return f.path() + ": metadata key tokenizer.ggml.token_type[" + std::to_string(i) + "] = " +
             std::to_string(v.types[i]) + ": expected 1..6";
    });
  if (!withScores) return v;
  v.scores = f.find("tokenizer.ggml.scores") ? f.getFloatArray("tokenizer.ggml.scores")
                                              : std::vector<double>(v.tokens.size(), 0.0);
  check(v.scores.size() == v.tokens.size(), f.path() + ": metadata key tokenizer.ggml.scores has " +
                                                std::to_string(v.scores.size()) + " entries, tokenizer.ggml.tokens " +
                                                std::to_string(v.tokens.size()));
  return v;
}

// An optional token id key; -1 when absent. Out of range is an error naming the key.
int tokenIdOr(const GgufFile& f, const std::string& key, int fallback, size_t vocabSize) {
  if (!f.find(key)) return fallback;
  const uint64_t id = f.getUint(key);
  check(id < vocabSize, f.path() + ": metadata key " + key + " = " + std::to_string(id) +
                            " is not below the vocabulary size " + std::to_string(vocabSize));
  return int(id);
}

bool flagOr(const GgufFile& f, const std::string& key, bool fallback) {
  const GgufValue* v = f.find(key);
  if (!v) return fallback;
  check(v->type == GgufValueType::Bool, f.path() + ": metadata key " + key + ": expected a bool, found " +
                                            ggufValueTypeName(v->type));
  return v->u != 0;
}

// --- "llama": a SentencePiece ModelProto in protobuf's wire format ----------------------

void putVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(char((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(char(v));
}
void putTag(std::string& out, int field, int wireType) { putVarint(out, uint64_t(field) << 3 | uint64_t(wireType)); }
void putBytes(std::string& out, int field, const std::string& bytes) {
  putTag(out, field, 2);
  putVarint(out, bytes.size());
  out += bytes;
}
void putInt(std::string& out, int field, int64_t v) {
  putTag(out, field, 0);
  putVarint(out, uint64_t(v));  // negative ints are 10-byte varints, as protobuf writes int32
}
void putFloat(std::string& out, int field, float v) {
  putTag(out, field, 5);
  char b[4];
  std::memcpy(b, &v, 4);
  out.append(b, 4);
}

std::string sentencePieceProto(const GgufFile& f, const Vocab& v) {
  std::string proto;
  int numBytePieces = 0;
  for (size_t i = 0; i < v.tokens.size(); ++i) {
    std::string piece;
    putBytes(piece, 1, v.tokens[i]);                    // SentencePiece.piece
    putFloat(piece, 2, float(v.scores[i]));             // .score
    putInt(piece, 3, v.types[i]);                       // .type
    putBytes(proto, 1, piece);                          // ModelProto.pieces
    numBytePieces += v.types[i] == kByte;
  }
  const size_t n = v.tokens.size();
  auto spelling = [&](const char* key, int fallback) {
    const int id = tokenIdOr(f, key, fallback, n);
    return id >= 0 && size_t(id) < n ? v.tokens[size_t(id)] : std::string();
  };
  std::string trainer;
  putInt(trainer, 3, 2);                                 // model_type = BPE: merges by score, as llama.cpp
  putInt(trainer, 4, int64_t(n));                        // vocab_size
  putInt(trainer, 35, numBytePieces == 256);             // byte_fallback
  putInt(trainer, 40, tokenIdOr(f, "tokenizer.ggml.unknown_token_id", 0, n));
  putInt(trainer, 41, tokenIdOr(f, "tokenizer.ggml.bos_token_id", -1, n));
  putInt(trainer, 42, tokenIdOr(f, "tokenizer.ggml.eos_token_id", -1, n));
  putInt(trainer, 43, tokenIdOr(f, "tokenizer.ggml.padding_token_id", -1, n));
  putBytes(trainer, 45, spelling("tokenizer.ggml.unknown_token_id", 0));
  putBytes(trainer, 46, spelling("tokenizer.ggml.bos_token_id", -1));
  putBytes(trainer, 47, spelling("tokenizer.ggml.eos_token_id", -1));
  putBytes(proto, 2, trainer);
  std::string normalizer;
  putBytes(normalizer, 1, "identity");
  putInt(normalizer, 3, flagOr(f, "tokenizer.ggml.add_space_prefix", true));  // add_dummy_prefix
  putInt(normalizer, 4, flagOr(f, "tokenizer.ggml.remove_extra_whitespaces", false));
  putInt(normalizer, 5, 1);                                                   // escape_whitespaces
  putBytes(proto, 3, normalizer);
  return proto;
}

// --- "gpt2": a tokenizer.json -------------------------------------------------------------

// The pre-tokenizers of tokenizer.json files llama.cpp names by tokenizer.ggml.pre
// (Llama 3's and Qwen2's Split regexes, GPT-2's ByteLevel regex), and whether the model
// skips merging words that are whole tokens (Llama 3's ignore_merges) or normalizes NFC.
struct PreTokenizer {
  const char* names[3];
  const char* regex;  // nullptr: GPT-2's (ByteLevel use_regex)
  bool ignoreMerges, nfc;
};
constexpr PreTokenizer kPreTokenizers[] = {
    {{"llama-bpe", "llama3", "llama-v3"},
     R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     true, false},
    {{"qwen2", "", ""},
     R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     false, true},
    {{"gpt-2", "gpt2", ""}, nullptr, false, false},
};

const PreTokenizer& preTokenizerOf(const GgufFile& f) {
  const std::string pre = f.find("tokenizer.ggml.pre") ? f.getString("tokenizer.ggml.pre") : "gpt-2";
  for (const PreTokenizer& p : kPreTokenizers)
    for (const char* name : p.names)
      if (*name && pre == name) return p;
  throw Error(f.path() + ": metadata key tokenizer.ggml.pre = '" + pre + "' is not supported (supported: " +
              ggufSupportedPreTokenizers() + ")");
}

json preTokenizerJson(const PreTokenizer& p) {
  if (!p.regex) return {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
  return {{"type", "Sequence"},
          {"pretokenizers",
           json::array({{{"type", "Split"}, {"pattern", {{"Regex", p.regex}}}, {"behavior", "Isolated"}, {"invert", false}},
                        {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", false}}})}};
}

json bpeModelJson(const GgufFile& f, const Vocab& v, const PreTokenizer& p) {
  json vocab = json::object();
  for (size_t i = 0; i < v.tokens.size(); ++i) vocab[v.tokens[i]] = i;
  check(vocab.size() == v.tokens.size(), f.path() + ": metadata key tokenizer.ggml.tokens holds a token twice");
  json merges = json::array();
  for (std::string& m : f.getStringArray("tokenizer.ggml.merges")) merges.push_back(std::move(m));
  return {{"type", "BPE"}, {"vocab", std::move(vocab)}, {"merges", std::move(merges)}, {"ignore_merges", p.ignoreMerges}};
}

json addedTokensJson(const Vocab& v) {
  json added = json::array();
  for (size_t i = 0; i < v.tokens.size(); ++i)
    if (v.types[i] == kControl || v.types[i] == kUserDefined)
      added.push_back({{"id", i}, {"content", v.tokens[i]}, {"special", v.types[i] == kControl}});
  return added;
}

json postProcessorJson(const GgufFile& f, const Vocab& v, int bos, int eos) {
  json single = json::array(), specials = json::object();
  auto special = [&](int id) {
    single.push_back({{"SpecialToken", {{"id", v.tokens[size_t(id)]}, {"type_id", 0}}}});
    specials[v.tokens[size_t(id)]] = {{"id", v.tokens[size_t(id)]}, {"ids", {id}}, {"tokens", {v.tokens[size_t(id)]}}};
  };
  if (bos >= 0 && flagOr(f, "tokenizer.ggml.add_bos_token", false)) special(bos);
  single.push_back({{"Sequence", {{"id", "A"}, {"type_id", 0}}}});
  if (eos >= 0 && flagOr(f, "tokenizer.ggml.add_eos_token", false)) special(eos);
  return {{"type", "TemplateProcessing"}, {"single", std::move(single)}, {"special_tokens", std::move(specials)}};
}

std::unique_ptr<Tokenizer> byteLevelBpe(const GgufFile& f, int bos, int eos) {
  const Vocab v = readVocab(f, false);
  const PreTokenizer& p = preTokenizerOf(f);
  json j = {{"normalizer", p.nfc ? json{{"type", "NFC"}} : json()},
            {"pre_tokenizer", preTokenizerJson(p)},
            {"model", bpeModelJson(f, v, p)},
            {"decoder", {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}}},
            {"added_tokens", addedTokensJson(v)},
            {"post_processor", postProcessorJson(f, v, bos, eos)}};
  auto tok = HfTokenizer::fromJsonText(j.dump(), f.path() + " (tokenizer.ggml.*)");
  tok->setBosEos(bos, eos);
  return tok;
}

}  // namespace

const char* ggufSupportedPreTokenizers() { return "llama-bpe, llama3, llama-v3, qwen2, gpt-2"; }

TokenizerFiles ggufTokenizerFiles(const GgufFile& f) {
  TokenizerFiles files;
  files.tokenizerPath = f.path();
  const std::string model = f.getString("tokenizer.ggml.model");
  const size_t n = f.getStringArray("tokenizer.ggml.tokens").size();
  const int bos = tokenIdOr(f, "tokenizer.ggml.bos_token_id", -1, n);
  const int eos = tokenIdOr(f, "tokenizer.ggml.eos_token_id", -1, n);
  if (model == "llama") {
    files.tokenizer = SentencePieceTokenizer::fromSerializedProto(sentencePieceProto(f, readVocab(f, true)),
                                                                  f.path() + " (tokenizer.ggml.*)");
    files.settings.addBosToken = flagOr(f, "tokenizer.ggml.add_bos_token", true);
  } else if (model == "gpt2") {
    files.tokenizer = byteLevelBpe(f, bos, eos);
    files.settings.addBosToken = flagOr(f, "tokenizer.ggml.add_bos_token", false);
  } else {
    throw Error(f.path() + ": metadata key tokenizer.ggml.model = '" + model + "' is not supported (supported: llama, gpt2)");
  }
  files.settings.addEosToken = flagOr(f, "tokenizer.ggml.add_eos_token", false);
  files.settings.bosToken = bos >= 0 ? files.tokenizer->piece(bos) : "";
  files.settings.eosToken = eos >= 0 ? files.tokenizer->piece(eos) : "";
  if (f.find("tokenizer.chat_template")) files.settings.chatTemplate = f.getString("tokenizer.chat_template");
  files.chatTemplate =
      ChatTemplate::detect(files.settings.chatTemplate, files.settings.bosToken, files.settings.eosToken);
  return files;
}

}  // namespace lwb
