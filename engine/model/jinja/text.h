#pragma once
// Python str semantics on UTF-8: code-point length/indexing, strip/split/case methods.
// Invalid bytes decode to U+DC80+byte (Python's surrogateescape) so they round-trip.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lwb::jinja {

std::u32string decodeUtf8(const std::string& s);
std::string encodeUtf8(const std::u32string& s);
void appendUtf8(std::string& out, char32_t c);
bool isPySpace(char32_t c);

// str.strip/lstrip/rstrip: whitespace when chars is empty optional, else any of chars.
std::string pyStrip(const std::string& s, const std::optional<std::string>& chars, bool left, bool right);
// str.split(sep, maxsplit): on whitespace runs when sep is empty optional.
std::vector<std::string> pySplit(const std::string& s, const std::optional<std::string>& sep, int64_t maxsplit);
std::string pyReplace(const std::string& s, const std::string& from, const std::string& to, int64_t count);
std::string pyUpper(const std::string& s);
std::string pyLower(const std::string& s);
std::string pyTitle(const std::string& s);
std::string pyCapitalize(const std::string& s);
bool pyStartsWith(const std::string& s, const std::string& prefix);
bool pyEndsWith(const std::string& s, const std::string& suffix);
// The whole of `s` as a decimal float, locale-independent (Qt sets LC_NUMERIC); values
// beyond double's range become inf or 0 as in Python. False when `s` is not a number.
bool parseDouble(const std::string& s, double* out);
// Python's repr() of a str: quotes chosen as Python does, escapes for controls.
std::string pyReprString(const std::string& s);

}  // namespace lwb::jinja
