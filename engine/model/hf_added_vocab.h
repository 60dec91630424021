#pragma once
// tokenizer.json "added_tokens": strings matched in the text before the model sees it
// (leftmost, then longest), special or not, with the lstrip/rstrip/single_word flags.
// Tokens with normalized=false are matched in the raw text, the others in each
// normalized stretch between those.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace lwb::hf {

struct AddedToken {
  std::string content;
  int id = -1;
  bool special = false, lstrip = false, rstrip = false, singleWord = false, normalized = false;
};

class AddedVocab {
 public:
  struct Span {
    size_t start, end;
    int id;  // -1: plain text
  };
  // `matchText`: the spelling to look for (the normalized content for normalized tokens).
  void add(const AddedToken& token, const std::string& matchText);
  // Cuts `text` into added tokens and the plain stretches between them; `normalizedSet`
  // picks which tokens are looked for.
  std::vector<Span> split(std::string_view text, bool normalizedSet) const;
  const AddedToken* byId(int id) const;
  const std::vector<AddedToken>& tokens() const { return tokens_; }

 private:
  struct Trie {
    std::unordered_map<uint64_t, int> edges;  // node << 8 | byte → child node
    std::vector<int> terminal{-1};            // [node] index into tokens_, or -1
    bool firstByte[256] = {};
    void insert(const std::string& s, int token);
    // The longest token starting at text[pos]: its index (or -1) and end.
    int longestAt(std::string_view text, size_t pos, size_t* end) const;
  };
  bool acceptable(const AddedToken& t, std::string_view text, size_t start, size_t end) const;
  std::vector<AddedToken> tokens_;
  std::unordered_map<int, size_t> byId_;
  Trie raw_, normalized_;
};

}  // namespace lwb::hf
