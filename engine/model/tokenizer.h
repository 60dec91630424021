#pragma once
// The tokenizer interface: SentencePiece (tokenizer.model, tokenizer_sentencepiece.h) or
// Hugging Face tokenizer.json (hf_tokenizer.h), plus incremental detokenization for
// streaming.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace lwb {

enum class TokenizerKind {
  SentencePiece,  // tokenizer.model
  BpeByteLevel,   // tokenizer.json, byte-level BPE (GPT-2, Llama 3, Qwen, DeepSeek V3, gpt-oss)
  BpeMetaspace    // tokenizer.json, SentencePiece-style BPE on "▁" (Llama 2, Gemma)
};
std::string tokenizerKindName(TokenizerKind kind);  // "SentencePiece", "BPE byte-level", "BPE metaspace"

class Tokenizer {
 public:
  // By file name: *.json is a Hugging Face tokenizer.json, anything else a SentencePiece
  // model. Throws lwb::Error naming the file when it is missing or malformed.
  static std::unique_ptr<Tokenizer> load(const std::string& path);
  virtual ~Tokenizer() = default;

  virtual TokenizerKind kind() const = 0;
  virtual int vocabSize() const = 0;  // one past the largest id
  virtual int bosId() const = 0;      // -1 when the tokenizer has none
  virtual int eosId() const = 0;
  virtual int unkId() const = 0;
  // The id whose piece is exactly `piece` (added tokens included), or -1.
  virtual int pieceToId(std::string_view piece) const = 0;

  // Plain text → ids, no special tokens added around it. SentencePiece: its own rules
  // (a leading "▁"), control spellings ("<s>") are NOT parsed. tokenizer.json: as
  // Hugging Face's encode(text, add_special_tokens=False): added tokens written in the
  // text are matched. Invalid UTF-8 is read as U+FFFD per maximal invalid subpart.
  virtual std::vector<int> encode(std::string_view text) const = 0;
  // Text that may contain special-token spellings (rendered chat templates).
  virtual std::vector<int> encodeWithSpecials(std::string_view text) const = 0;
  // What the tokenizer file itself adds around a plain text by default (tokenizer.json's
  // post-processor, e.g. BOS); SentencePiece files add nothing themselves.
  virtual std::vector<int> addDefaultSpecials(std::vector<int> ids) const { return ids; }
  // Control / special tokens are left out, as streaming output shows them.
  virtual std::string decode(const std::vector<int>& ids) const = 0;

  virtual std::string piece(int id) const = 0;   // raw piece, e.g. "▁the", "<0x0A>", "Ġthe"
  virtual bool isControl(int id) const = 0;      // <s>, </s>, <unk>, special added tokens
  virtual bool isByte(int id) const = 0;         // <0xNN> byte-fallback pieces
  virtual bool isUserDefined(int id) const = 0;  // e.g. "<|user|>", non-special added tokens
  // Ids that are plain vocabulary pieces (not control, byte, unknown or user-defined):
  // what a synthetic workload draws from.
  virtual std::vector<int> ordinaryIds() const = 0;
};

// A piece as a person reads it: "▁"/"Ġ" → "␣", "Ċ" → "↵", a byte-level piece that is not
// whole UTF-8 → <0xNN> per byte.
std::string readablePiece(const Tokenizer& tokenizer, int id);

// Streaming detokenization: push one id at a time, get the new text. Never emits a
// partial UTF-8 sequence (byte pieces are held until they complete) and keeps the
// leading space of the first generated token when `prefixIds` (the prompt's tail) is
// given.
class IncrementalDetokenizer {
 public:
  explicit IncrementalDetokenizer(const Tokenizer& tokenizer, std::vector<int> prefixIds = {});
  std::string push(int id);
  std::string flush();  // whatever is left, invalid bytes replaced by U+FFFD

 private:
  std::string pushSentencePiece(int id);
  std::string pushWindowed(int id);
  // SentencePiece: a sliding window ids_ = [anchor (0 or 1 plain piece already accounted
  // for), ids not yet fully emitted...]; the anchor keeps later pieces away from the
  // sequence start.
  // tokenizer.json: ids_ = [a few context ids..., ids not yet emitted]; prefixLen_ of
  // them were emitted (as prefixText_), the text of the rest is held while it ends in an
  // incomplete UTF-8 sequence (decoded as U+FFFD).
  const Tokenizer& tok_;
  std::vector<int> ids_;
  size_t prefixLen_ = 0;
  size_t emittedBytes_ = 0;  // of decode(ids_) beyond prefixText_
  std::string prefixText_;   // decode(ids_[0, prefixLen_))
};

// Length of the longest prefix of `s` that is complete, valid UTF-8.
size_t validUtf8Prefix(std::string_view s);
bool isValidUtf8(std::string_view s);

}  // namespace lwb
