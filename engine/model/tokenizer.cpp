#include "engine/model/tokenizer.h"

#include <cstdio>

#include "engine/model/hf_tokenizer.h"
#include "engine/model/hf_unicode.h"
#include "engine/model/tokenizer_sentencepiece.h"

namespace lwb {

std::unique_ptr<Tokenizer> Tokenizer::load(const std::string& path) {
  if (path.ends_with(".json")) return HfTokenizer::load(path);
  return SentencePieceTokenizer::load(path);
}

std::string tokenizerKindName(TokenizerKind kind) {
  switch (kind) {
    case TokenizerKind::SentencePiece: return "SentencePiece";
    case TokenizerKind::BpeByteLevel: return "BPE byte-level";
    case TokenizerKind::BpeMetaspace: return "BPE metaspace";
  }
  return "?";
}

namespace {

// Raw bytes for display: whole UTF-8 characters as themselves (space "␣", newline "↵"),
// control characters and bytes that are not whole UTF-8 as <0xNN>.
std::string readableBytes(std::string_view raw) {
  std::string out;
  for (size_t pos = 0; pos < raw.size();) {
    const auto b = static_cast<unsigned char>(raw[pos]);
    const size_t len = hf::utf8Length(b);
    const std::string_view unit = raw.substr(pos, std::min(len, raw.size() - pos));
    if (b == ' ') out += "␣";
    else if (b == '\n') out += "↵";
    else if (b >= 0x20 && b != 0x7F && unit.size() == len && isValidUtf8(unit)) out += unit;
    else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "<0x%02X>", b);
      out += hex;
      pos += 1;
      continue;
    }
    pos += unit.size();
  }
  return out;
}

}  // namespace

std::string readablePiece(const Tokenizer& tokenizer, int id) {
  const std::string p = tokenizer.piece(id);
  if (tokenizer.kind() != TokenizerKind::BpeByteLevel || tokenizer.isControl(id) || tokenizer.isUserDefined(id)) return p;
  std::string raw;
  return hf::byteLevelToBytes(p, &raw) ? readableBytes(raw) : p;
}

}  // namespace lwb
