#include "engine/model/sentencepiece_pieces.h"

#include <cstdint>

#include "engine/common/error.h"

namespace lwb {

namespace {

// Minimal protobuf wire-format reader: varints, and skipping fields of any wire type.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}
  bool done() const { return p_ >= end_; }

  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      check(p_ < end_, "SentencePiece model: truncated varint");
      const uint8_t b = uint8_t(*p_++);
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw Error("SentencePiece model: varint too long");
  }
  std::string_view lengthDelimited() {
    const uint64_t len = varint();
    check(len <= uint64_t(end_ - p_), "SentencePiece model: field length beyond the end of the data");
    std::string_view s(p_, size_t(len));
    p_ += len;
    return s;
  }
  void skip(int wireType) {
    switch (wireType) {
      case 0: varint(); return;
      case 1: advance(8); return;
      case 2: lengthDelimited(); return;
      case 5: advance(4); return;
      default: throw Error("SentencePiece model: unsupported wire type " + std::to_string(wireType));
    }
  }

 private:
  void advance(size_t n) {
    check(n <= size_t(end_ - p_), "SentencePiece model: truncated field");
    p_ += n;
  }
  const char* p_;
  const char* end_;
};

PieceType parsePiece(std::string_view bytes) {
  WireReader r(bytes);
  uint64_t type = uint64_t(PieceType::Normal);  // proto default
  while (!r.done()) {
    const uint64_t key = r.varint();
    if (key >> 3 == 3 && (key & 7) == 0) type = r.varint();
    else r.skip(int(key & 7));
  }
  check(type >= 1 && type <= 6, "SentencePiece model: unknown piece type " + std::to_string(type));
  return PieceType(type);
}

}  // namespace

std::vector<PieceType> parsePieceTypes(std::string_view serializedModelProto) {
  WireReader r(serializedModelProto);
  std::vector<PieceType> types;
  while (!r.done()) {
    const uint64_t key = r.varint();
    if (key >> 3 == 1 && (key & 7) == 2) types.push_back(parsePiece(r.lengthDelimited()));  // ModelProto.pieces
    else r.skip(int(key & 7));
  }
  return types;
}

}  // namespace lwb
