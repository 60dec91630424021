#pragma once
// SentencePiece tokenizer (tokenizer.model) plus the special-token handling a chat
// template needs.
#include <memory>

#include "engine/model/tokenizer.h"

namespace sentencepiece { class SentencePieceProcessor; }

namespace lwb {

class SentencePieceTokenizer : public Tokenizer {
 public:
  // Throws lwb::Error naming the file when it is missing or not a SentencePiece model.
  static std::unique_ptr<SentencePieceTokenizer> load(const std::string& path);
  // A serialized ModelProto built in memory (GGUF files); `where` names it in errors.
  static std::unique_ptr<SentencePieceTokenizer> fromSerializedProto(const std::string& proto, const std::string& where);
  ~SentencePieceTokenizer() override;

  TokenizerKind kind() const override { return TokenizerKind::SentencePiece; }
  int vocabSize() const override;
  int bosId() const override;
  int eosId() const override;
  int unkId() const override;
  int pieceToId(std::string_view piece) const override;

  // SentencePiece itself matches user-defined pieces ("<|user|>") in any text, as it did
  // when the model was trained.
  std::vector<int> encode(std::string_view text) const override;
  // Splits on the control pieces ("<s>", "</s>"), maps those to their ids and encodes
  // each stretch between them with encode() (its own dummy prefix). This is exactly how
  // the default model's chat data was tokenized when it was trained
  // (tools/train-default-model).
  std::vector<int> encodeWithSpecials(std::string_view text) const override;
  std::string decode(const std::vector<int>& ids) const override;

  std::string piece(int id) const override;
  bool isControl(int id) const override;
  bool isByte(int id) const override;
  bool isUserDefined(int id) const override;
  std::vector<int> ordinaryIds() const override;

 private:
  SentencePieceTokenizer();
  void readPieceTypes(const std::string& where);  // pieceTypes_ and the control pieces
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
  std::vector<std::string> specialPieces_;  // control pieces, longest first, for encodeWithSpecials
  std::vector<int> specialIds_;             // [specialPieces_.size()]
  std::vector<unsigned char> pieceTypes_;   // [vocabSize] PieceType (sentencepiece_pieces.h)
};

}  // namespace lwb
