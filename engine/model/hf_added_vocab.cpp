#include "engine/model/hf_added_vocab.h"

#include <cctype>

#include "engine/model/hf_unicode.h"

namespace lwb::hf {

void AddedVocab::Trie::insert(const std::string& s, int token) {
  if (s.empty()) return;
  int node = 0;
  for (char c : s) {
    const uint64_t key = uint64_t(node) << 8 | uint8_t(c);
    const auto it = edges.find(key);
    if (it != edges.end()) {
      node = it->second;
    } else {
      edges.emplace(key, int(terminal.size()));
      node = int(terminal.size());
      terminal.push_back(-1);
    }
  }
  if (terminal[size_t(node)] < 0) terminal[size_t(node)] = token;  // the first spelling wins
  firstByte[uint8_t(s[0])] = true;
}

int AddedVocab::Trie::longestAt(std::string_view text, size_t pos, size_t* end) const {
  int node = 0, best = -1;
  for (size_t i = pos; i < text.size(); ++i) {
    const auto it = edges.find(uint64_t(node) << 8 | uint8_t(text[i]));
    if (it == edges.end()) break;
    node = it->second;
    if (terminal[size_t(node)] >= 0) best = terminal[size_t(node)], *end = i + 1;
  }
  return best;
}

void AddedVocab::add(const AddedToken& token, const std::string& matchText) {
  byId_[token.id] = tokens_.size();
  tokens_.push_back(token);
  (token.normalized ? normalized_ : raw_).insert(matchText, int(tokens_.size() - 1));
}

const AddedToken* AddedVocab::byId(int id) const {
  const auto it = byId_.find(id);
  return it == byId_.end() ? nullptr : &tokens_[it->second];
}

namespace {

bool isSpace(uint32_t cp) {
  return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
         cp == 0x3000;
}

// Letters, digits and "_" in ASCII; every non-ASCII character counts as part of a word.
bool isWordByte(unsigned char c) { return c >= 0x80 || std::isalnum(c) || c == '_'; }

size_t lastCharStart(std::string_view s, size_t end) {
  size_t p = end - 1;
  while (p > 0 && (static_cast<unsigned char>(s[p]) & 0xC0) == 0x80) --p;
  return p;
}

}  // namespace

bool AddedVocab::acceptable(const AddedToken& t, std::string_view text, size_t start, size_t end) const {
  if (!t.singleWord) return true;
  const bool before = start > 0 && isWordByte(static_cast<unsigned char>(text[start - 1]));
  const bool after = end < text.size() && isWordByte(static_cast<unsigned char>(text[end]));
  return !before && !after;
}

std::vector<AddedVocab::Span> AddedVocab::split(std::string_view text, bool normalizedSet) const {
  const Trie& trie = normalizedSet ? normalized_ : raw_;
  std::vector<Span> spans;
  size_t plainStart = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = 0;
    const int t = trie.firstByte[uint8_t(text[pos])] ? trie.longestAt(text, pos, &end) : -1;
    if (t < 0) {
      ++pos;
      continue;
    }
    const AddedToken& tok = tokens_[size_t(t)];
    if (!acceptable(tok, text, pos, end)) {
      pos = end;  // as Hugging Face: a rejected match is still consumed by the search
      continue;
    }
    size_t start = pos, len = 1;
    while (tok.lstrip && start > plainStart && isSpace(codePointAt(text, lastCharStart(text, start), &len)))
      start = lastCharStart(text, start);
    while (tok.rstrip && end < text.size() && isSpace(codePointAt(text, end, &len))) end += len;
    if (start > plainStart) spans.push_back({plainStart, start, -1});
    spans.push_back({start, end, tok.id});
    plainStart = pos = end;
  }
  if (plainStart < text.size()) spans.push_back({plainStart, text.size(), -1});
  return spans;
}

}  // namespace lwb::hf
