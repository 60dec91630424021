// IncrementalDetokenizer and the UTF-8 checks (declared in tokenizer.h).
//
// SentencePiece's decoder is stable under appending ids except in two places: the
// leading "▁" of the very first visible piece is dropped, and a trailing run of byte
// pieces that is an incomplete UTF-8 sequence decodes to U+FFFD per byte. So the stream
// decodes a short window [anchor, new ids...], where the anchor is an earlier plain piece
// whose text is subtracted again (it keeps the new ids away from the sequence start), and
// holds back ids that form an incomplete UTF-8 tail.
//
// tokenizer.json decoders are concatenations of bytes (byte-level) or of pieces with a
// first-piece rule (metaspace), so a short window of earlier ids is enough context, and
// text is held while it ends in U+FFFD: an incomplete UTF-8 sequence that a later piece
// may complete.
#include <algorithm>

#include "engine/common/error.h"
#include "engine/model/tokenizer.h"

namespace lwb {

namespace {

constexpr size_t kContextIds = 5;  // earlier ids decoded with each new one (tokenizer.json)
constexpr size_t kMaxHeldIds = 8;  // a UTF-8 character spans at most 4 byte pieces
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

enum class Utf8Status { Valid, Invalid, Truncated };

// The sequence starting at s[pos]: Valid with its length, Invalid (the lead byte is
// wrong, or a later byte breaks it), or Truncated (a correct start cut by the end of s).
// Overlongs, surrogates and code points above U+10FFFF are Invalid.
Utf8Status utf8At(std::string_view s, size_t pos, size_t* len) {
  const auto b0 = static_cast<unsigned char>(s[pos]);
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 < 0x80) need = 1;
  else if (b0 >= 0xC2 && b0 <= 0xDF) need = 2;
  else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 3;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 4;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // > U+10FFFF
  } else {
    return Utf8Status::Invalid;
  }
  for (size_t i = 1; i < need; ++i) {
    if (pos + i >= s.size()) return Utf8Status::Truncated;
    const auto b = static_cast<unsigned char>(s[pos + i]);
    if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) return Utf8Status::Invalid;
  }
  *len = need;
  return Utf8Status::Valid;
}

// Length of the trailing bytes of `s` that start a valid sequence but are cut short,
// scanning the way SentencePiece does (an invalid byte is consumed on its own).
size_t incompleteUtf8Tail(std::string_view s) {
  size_t pos = 0;
  while (pos < s.size()) {
    size_t len = 1;
    const Utf8Status st = utf8At(s, pos, &len);
    if (st == Utf8Status::Truncated) return s.size() - pos;
    pos += st == Utf8Status::Valid ? len : 1;
  }
  return 0;
}

// "<0x41>" → 0x41.
unsigned char byteOfPiece(const std::string& piece) {
  check(piece.size() == 6 && piece.starts_with("<0x") && piece.back() == '>', "tokenizer: '" + piece + "' is not a byte piece");
  return static_cast<unsigned char>(std::stoi(piece.substr(3, 2), nullptr, 16));
}

// Plain and user-defined pieces: their text never depends on what follows them.
bool isAnchor(const Tokenizer& tok, int id) {
  return id >= 0 && id < tok.vocabSize() && !tok.isControl(id) && !tok.isByte(id);
}

}  // namespace

size_t validUtf8Prefix(std::string_view s) {
  size_t pos = 0;
  while (pos < s.size()) {
    size_t len = 1;
    if (utf8At(s, pos, &len) != Utf8Status::Valid) break;
    pos += len;
  }
  return pos;
}

bool isValidUtf8(std::string_view s) { return validUtf8Prefix(s) == s.size(); }

IncrementalDetokenizer::IncrementalDetokenizer(const Tokenizer& tokenizer, std::vector<int> prefixIds)
    : tok_(tokenizer) {
  if (tok_.kind() != TokenizerKind::SentencePiece) {
    const size_t keep = std::min<size_t>(prefixIds.size(), kContextIds);
    ids_.assign(prefixIds.end() - std::ptrdiff_t(keep), prefixIds.end());
    prefixLen_ = ids_.size();
    prefixText_ = tok_.decode(ids_);
    return;
  }
  auto anchor = std::find_if(prefixIds.rbegin(), prefixIds.rend(), [&](int id) { return isAnchor(tok_, id); });
  if (anchor != prefixIds.rend()) {
    ids_ = {*anchor};
  } else if (std::any_of(prefixIds.begin(), prefixIds.end(), [&](int id) { return !tok_.isControl(id); })) {
    // Only byte pieces before us: any plain piece stands in for them.
    const std::vector<int> ordinary = tok_.ordinaryIds();
    if (!ordinary.empty()) ids_ = {ordinary.front()};
  }
  prefixLen_ = ids_.size();
  prefixText_ = tok_.decode(ids_);
}

std::string IncrementalDetokenizer::push(int id) {
  check(id >= 0 && id < tok_.vocabSize(), "detokenizer: id " + std::to_string(id) + " is outside the vocabulary");
  return tok_.kind() == TokenizerKind::SentencePiece ? pushSentencePiece(id) : pushWindowed(id);
}

std::string IncrementalDetokenizer::pushWindowed(int id) {
  ids_.push_back(id);
  const std::string text = tok_.decode(ids_);
  const bool held = text.ends_with(kReplacement) && ids_.size() - prefixLen_ < kMaxHeldIds;
  if (text.size() <= prefixText_.size() || held) return "";
  std::string out = text.substr(prefixText_.size());
  ids_.erase(ids_.begin(), ids_.begin() + std::ptrdiff_t(prefixLen_));  // the emitted ids become the context
  prefixLen_ = ids_.size();
  prefixText_ = tok_.decode(ids_);
  return out;
}

std::string IncrementalDetokenizer::pushSentencePiece(int id) {
  ids_.push_back(id);
  std::string tailBytes;  // raw bytes of the trailing run of byte pieces
  size_t runStart = ids_.size();
  while (runStart > prefixLen_ && tok_.isByte(ids_[runStart - 1])) --runStart;
  for (size_t i = runStart; i < ids_.size(); ++i) tailBytes += char(byteOfPiece(tok_.piece(ids_[i])));
  const size_t held = incompleteUtf8Tail(tailBytes);

  const std::vector<int> stable(ids_.begin(), ids_.end() - std::ptrdiff_t(held));
  const std::string text = tok_.decode(stable);
  const size_t from = prefixText_.size() + emittedBytes_;
  std::string out = text.size() > from ? text.substr(from) : std::string();
  emittedBytes_ += out.size();

  // Slide the window so each push decodes only a few ids.
  if (held == 0 && isAnchor(tok_, id) && ids_.size() > prefixLen_ + 1) {
    ids_ = {id};
    prefixLen_ = 1;
    prefixText_ = tok_.decode(ids_);
    emittedBytes_ = 0;
  }
  return out;
}

std::string IncrementalDetokenizer::flush() {
  if (tok_.kind() != TokenizerKind::SentencePiece) {
    const std::string text = tok_.decode(ids_);  // incomplete sequences are U+FFFD by now
    std::string out = text.size() > prefixText_.size() ? text.substr(prefixText_.size()) : std::string();
    ids_.erase(ids_.begin(), ids_.begin() + std::ptrdiff_t(prefixLen_));
    prefixLen_ = ids_.size();
    prefixText_ = tok_.decode(ids_);
    return out;
  }
  const std::string text = tok_.decode(ids_);  // SentencePiece writes U+FFFD per stray byte
  const size_t from = prefixText_.size() + emittedBytes_;
  std::string out = text.size() > from ? text.substr(from) : std::string();
  emittedBytes_ += out.size();
  return out;
}

}  // namespace lwb
