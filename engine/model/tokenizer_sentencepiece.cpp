#include "engine/model/tokenizer_sentencepiece.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <filesystem>

#include "engine/common/error.h"
#include "engine/model/sentencepiece_pieces.h"

namespace lwb {

SentencePieceTokenizer::SentencePieceTokenizer() : sp_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {}
SentencePieceTokenizer::~SentencePieceTokenizer() = default;

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::load(const std::string& path) {
  check(std::filesystem::is_regular_file(path), path + ": tokenizer file not found (tokenizer.model is required)");
  std::unique_ptr<SentencePieceTokenizer> tok(new SentencePieceTokenizer());
  const auto status = tok->sp_->Load(path);
  check(status.ok(), path + ": not a valid SentencePiece model: " + status.ToString());
  tok->readPieceTypes(path);
  return tok;
}

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::fromSerializedProto(const std::string& proto,
                                                                                   const std::string& where) {
  std::unique_ptr<SentencePieceTokenizer> tok(new SentencePieceTokenizer());
  const auto status = tok->sp_->LoadFromSerializedProto(proto);
  check(status.ok(), where + ": not a valid SentencePiece model: " + status.ToString());
  tok->readPieceTypes(where);
  return tok;
}

void SentencePieceTokenizer::readPieceTypes(const std::string& path) {
  std::vector<PieceType> types;
  try {
    types = parsePieceTypes(sp_->serialized_model_proto());
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  check(int(types.size()) == vocabSize(), path + ": piece table has " + std::to_string(types.size()) +
                                                   " entries, the model reports " + std::to_string(vocabSize()));
  std::vector<std::pair<std::string, int>> specials;  // (spelling, id) of control pieces
  for (int id = 0; id < vocabSize(); ++id) {
    pieceTypes_.push_back(static_cast<unsigned char>(types[size_t(id)]));
    if (types[size_t(id)] == PieceType::Control && !sp_->IdToPiece(id).empty())
      specials.emplace_back(sp_->IdToPiece(id), id);
  }
  // Longest spelling first, so a special never loses to a shorter one it starts with.
  std::stable_sort(specials.begin(), specials.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (auto& [spelling, id] : specials) {
    specialPieces_.push_back(std::move(spelling));
    specialIds_.push_back(id);
  }
}

int SentencePieceTokenizer::vocabSize() const { return sp_->GetPieceSize(); }
int SentencePieceTokenizer::bosId() const { return sp_->bos_id(); }
int SentencePieceTokenizer::eosId() const { return sp_->eos_id(); }
int SentencePieceTokenizer::unkId() const { return sp_->unk_id(); }

int SentencePieceTokenizer::pieceToId(std::string_view piece) const {
  const int id = sp_->PieceToId(piece);
  return id == unkId() && piece != sp_->IdToPiece(id) ? -1 : id;
}

std::vector<int> SentencePieceTokenizer::encode(std::string_view text) const {
  std::vector<int> ids;
  if (text.empty()) return ids;
  const auto status = sp_->Encode(text, &ids);
  check(status.ok(), "tokenizer: encoding failed: " + status.ToString());
  return ids;
}

std::vector<int> SentencePieceTokenizer::encodeWithSpecials(std::string_view text) const {
  std::vector<int> ids;
  size_t segmentStart = 0, pos = 0;
  // Each stretch of text between control pieces is encoded on its own (with its own
  // dummy prefix), as the chat data of the default model was tokenized for training.
  auto flushSegment = [&](size_t end) {
    const std::vector<int> part = encode(text.substr(segmentStart, end - segmentStart));
    ids.insert(ids.end(), part.begin(), part.end());
  };
  while (pos < text.size()) {
    size_t matched = 0;
    for (size_t i = 0; i < specialPieces_.size() && !matched; ++i) {
      if (text.substr(pos).starts_with(specialPieces_[i])) {
        flushSegment(pos);
        ids.push_back(specialIds_[i]);
        matched = specialPieces_[i].size();
      }
    }
    if (matched) {
      pos += matched;
      segmentStart = pos;
    } else {
      ++pos;
    }
  }
  flushSegment(text.size());
  return ids;
}

std::string SentencePieceTokenizer::decode(const std::vector<int>& ids) const {
  for (int id : ids)
    check(id >= 0 && id < vocabSize(), "tokenizer: id " + std::to_string(id) + " is outside the vocabulary [0, " +
                                           std::to_string(vocabSize()) + ")");
  std::string text;
  const auto status = sp_->Decode(ids, &text);
  check(status.ok(), "tokenizer: decoding failed: " + status.ToString());
  return text;
}

std::string SentencePieceTokenizer::piece(int id) const {
  check(id >= 0 && id < vocabSize(), "tokenizer: id " + std::to_string(id) + " is outside the vocabulary");
  return sp_->IdToPiece(id);
}

namespace {
bool hasType(const std::vector<unsigned char>& types, int id, PieceType t) {
  return id >= 0 && size_t(id) < types.size() && types[size_t(id)] == static_cast<unsigned char>(t);
}
}  // namespace

bool SentencePieceTokenizer::isControl(int id) const {
  return hasType(pieceTypes_, id, PieceType::Control) || hasType(pieceTypes_, id, PieceType::Unknown);
}
bool SentencePieceTokenizer::isByte(int id) const { return hasType(pieceTypes_, id, PieceType::Byte); }
bool SentencePieceTokenizer::isUserDefined(int id) const { return hasType(pieceTypes_, id, PieceType::UserDefined); }

std::vector<int> SentencePieceTokenizer::ordinaryIds() const {
  std::vector<int> ids;
  for (int id = 0; id < vocabSize(); ++id)
    if (hasType(pieceTypes_, id, PieceType::Normal)) ids.push_back(id);
  return ids;
}

}  // namespace lwb
