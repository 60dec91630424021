#pragma once
// Piece types read straight from a serialized SentencePiece ModelProto. The library's
// public API has no IsUserDefined(), and its protobuf headers are not installed, so the
// few fields needed are read from the wire format here.
#include <string_view>
#include <vector>

namespace lwb {

// sentencepiece::ModelProto::SentencePiece::Type values.
enum class PieceType { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

// One entry per piece, in id order. Throws lwb::Error when the bytes are not a ModelProto.
std::vector<PieceType> parsePieceTypes(std::string_view serializedModelProto);

}  // namespace lwb
