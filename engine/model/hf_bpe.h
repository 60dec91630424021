#pragma once
// tokenizer.json "model": {"type": "BPE"}. Merges are looked up in an open-addressing
// hash keyed by the pair of ids; each word merges lowest rank first (leftmost on ties)
// with a priority queue over a linked list of symbols, and results are cached per word.
#include <cstdint>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace lwb::hf {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

// (left id, right id) → (rank, merged id).
class MergeTable {
 public:
  void reserve(size_t n);
  // Keeps the first (lowest-rank) entry for a pair.
  void insert(int left, int right, uint32_t rank, int merged);
  // False when the pair does not merge.
  bool find(int left, int right, uint32_t* rank, int* merged) const;

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);
  size_t slot(uint64_t key) const { return size_t((key * 0x9E3779B97F4A7C15ull) >> shift_); }
  std::vector<uint64_t> keys_, values_;  // value: rank << 32 | merged id
  int shift_ = 64;
};

class BpeModel {
 public:
  // `byteLevel`: words arrive as raw bytes and the vocabulary is in GPT-2's byte
  // alphabet. Throws lwb::Error naming `where` ("tokenizer.json: model") and the field.
  BpeModel(const nlohmann::json& model, const std::string& where, bool byteLevel);

  void encodeWord(std::string_view word, std::vector<int>* ids) const;
  int tokenToId(std::string_view token) const;  // -1 when absent
  // Pieces as written in the file ("Ġthe"); "" for ids the vocabulary does not hold.
  const std::vector<std::string>& tokens() const { return tokens_; }
  bool isByteFallback(int id) const;

 private:
  struct Symbol {
    int id, prev, next;
  };
  void readVocab(const nlohmann::json& vocab, const std::string& where);
  void readMerges(const nlohmann::json& merges, const std::string& where);
  void initialSymbols(std::string_view word, std::vector<Symbol>* symbols) const;
  void merge(std::vector<Symbol>* symbols) const;

  bool byteLevel_, byteFallback_ = false, ignoreMerges_ = false, fuseUnk_ = false;
  int unkId_ = -1;
  std::vector<std::string> tokens_;  // [id]
  StringMap<int> ids_;               // piece as written → id; byte-level: raw bytes → id
  int byteIds_[256];                 // byte-level: the single-byte pieces; else <0xNN> pieces (-1: none)
  MergeTable merges_;

  static constexpr size_t kMaxCachedWord = 64;  // bytes; longer words are rare and not worth keeping
  static constexpr size_t kMaxCacheEntries = 1 << 17;
  mutable std::mutex cacheMutex_;
  mutable StringMap<std::vector<int>> cache_;
};

}  // namespace lwb::hf
