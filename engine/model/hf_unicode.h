#pragma once
// Text helpers for tokenizer.json: UTF-8 walking, lossy repair, Unicode normalization
// (ICU) and GPT-2's byte-level alphabet.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace lwb::hf {

// Invalid UTF-8 → U+FFFD per maximal invalid subpart (as Python's errors="replace",
// Rust's from_utf8_lossy and a browser's TextDecoder do), so every later stage sees
// valid text.
std::string toValidUtf8(std::string_view s);

// Byte length of the UTF-8 sequence starting with `lead` (1 for a stray byte).
inline size_t utf8Length(unsigned char lead) {
  return lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}
// The code point at s[pos] (s valid UTF-8), its length in *len.
uint32_t codePointAt(std::string_view s, size_t pos, size_t* len);
void appendUtf8(std::string* out, uint32_t cp);

enum class NormalForm { NFC, NFD, NFKC, NFKD };
// Throws lwb::Error when ICU fails (never for valid UTF-8).
std::string normalizeUnicode(std::string_view s, NormalForm form);

// GPT-2's bytes_to_unicode: every byte as one printable character ("Ġ" for the space,
// "Ċ" for "\n"), as UTF-8.
const std::array<std::string, 256>& byteLevelChars();
// The byte a byte-level character stands for, or -1.
int byteOfByteLevelChar(uint32_t cp);
// A byte-level token ("Ġthe") → the raw bytes (" the"); false when a character is not
// in the alphabet.
bool byteLevelToBytes(std::string_view token, std::string* bytes);

// "<0x41>" → 0x41; -1 for anything else (byte_fallback pieces, upper-case hex).
int byteOfFallbackPiece(std::string_view piece);

}  // namespace lwb::hf
