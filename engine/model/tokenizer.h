#pragma once
// SentencePiece tokenizer (tokenizer.model) plus the special-token handling a chat
// template needs, and incremental detokenization for streaming.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sentencepiece { class SentencePieceProcessor; }

namespace lwb {

class Tokenizer {
 public:
  // Throws lwb::Error naming the file when it is missing or not a SentencePiece model.
  static std::unique_ptr<Tokenizer> load(const std::string& path);
  ~Tokenizer();

  int vocabSize() const;
  int bosId() const;
  int eosId() const;
  int unkId() const;

  // Plain text → ids with SentencePiece's own rules (add_dummy_prefix: a leading "▁");
  // control spellings ("<s>") are NOT parsed; no BOS added. SentencePiece itself matches
  // user-defined pieces ("<|user|>") in any text, as it did when the model was trained.
  std::vector<int> encode(std::string_view text) const;
  // Text that may contain special-token spellings (rendered chat templates): splits on
  // the control pieces ("<s>", "</s>"), maps those to their ids and encodes each stretch
  // between them with encode() (its own dummy prefix; user-defined pieces such as
  // "<|user|>" are matched by SentencePiece inside it). This is exactly how the default
  // model's chat data was tokenized when it was trained (tools/train-default-model).
  std::vector<int> encodeWithSpecials(std::string_view text) const;
  std::string decode(const std::vector<int>& ids) const;

  std::string piece(int id) const;   // raw piece, e.g. "▁the", "<0x0A>"
  bool isControl(int id) const;      // <s>, </s>, <unk>
  bool isByte(int id) const;         // <0xNN> byte-fallback pieces
  bool isUserDefined(int id) const;  // e.g. "<|user|>"
  // Ids that are plain vocabulary pieces (not control, byte, unknown or user-defined):
  // what a synthetic workload draws from.
  std::vector<int> ordinaryIds() const;

 private:
  Tokenizer();
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
  std::vector<std::string> specialPieces_;  // control pieces, longest first, for encodeWithSpecials
  std::vector<int> specialIds_;             // [specialPieces_.size()]
  std::vector<unsigned char> pieceTypes_;   // [vocabSize] PieceType (sentencepiece_pieces.h)
};

// Streaming detokenization: push one id at a time, get the new text. Never emits a
// partial UTF-8 sequence (byte-fallback pieces are held until they complete) and keeps
// the leading space of the first generated token when `prefixIds` (the prompt's tail)
// is given.
class IncrementalDetokenizer {
 public:
  explicit IncrementalDetokenizer(const Tokenizer& tokenizer, std::vector<int> prefixIds = {});
  std::string push(int id);
  std::string flush();  // whatever is left, invalid bytes replaced by U+FFFD

 private:
  // A sliding window: ids_ = [anchor (0 or 1 plain piece already accounted for), ids not
  // yet fully emitted...]; the anchor keeps later pieces away from the sequence start.
  const Tokenizer& tok_;
  std::vector<int> ids_;
  size_t prefixLen_ = 0;     // 0 or 1: the anchor
  size_t emittedBytes_ = 0;  // of decode(ids_) beyond prefixText_
  std::string prefixText_;   // decode(anchor)
};

// Length of the longest prefix of `s` that is complete, valid UTF-8.
size_t validUtf8Prefix(std::string_view s);
bool isValidUtf8(std::string_view s);

}  // namespace lwb
