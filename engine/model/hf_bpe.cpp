#include "engine/model/hf_bpe.h"

#include <algorithm>
#include <bit>
#include <nlohmann/json.hpp>
#include <queue>

#include "engine/common/error.h"
#include "engine/model/hf_json.h"
#include "engine/model/hf_unicode.h"

namespace lwb::hf {

using json = nlohmann::json;

void MergeTable::reserve(size_t n) {
  const size_t capacity = std::bit_ceil(std::max<size_t>(16, n * 2));
  keys_.assign(capacity, kEmpty);
  values_.assign(capacity, 0);
  shift_ = 64 - std::countr_zero(capacity);
}

void MergeTable::insert(int left, int right, uint32_t rank, int merged) {
  const uint64_t key = uint64_t(uint32_t(left)) << 32 | uint32_t(right);
  const size_t mask = keys_.size() - 1;
  for (size_t i = slot(key);; i = (i + 1) & mask) {
    if (keys_[i] == key) return;
    if (keys_[i] == kEmpty) {
      keys_[i] = key;
      values_[i] = uint64_t(rank) << 32 | uint32_t(merged);
      return;
    }
  }
}

bool MergeTable::find(int left, int right, uint32_t* rank, int* merged) const {
  const uint64_t key = uint64_t(uint32_t(left)) << 32 | uint32_t(right);
  const size_t mask = keys_.size() - 1;
  for (size_t i = slot(key);; i = (i + 1) & mask) {
    if (keys_[i] == kEmpty) return false;
    if (keys_[i] == key) {
      *rank = uint32_t(values_[i] >> 32);
      *merged = int(uint32_t(values_[i]));
      return true;
    }
  }
}

BpeModel::BpeModel(const json& model, const std::string& where, bool byteLevel) : byteLevel_(byteLevel) {
  check(stringField(model, "type", where) == "BPE",
        where + ": field 'type' is '" + stringField(model, "type", where) + "', only BPE models are supported");
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    const bool set = model.contains(key) && !model[key].is_null() && model[key] != "";
    check(!set, where + ": field '" + key + "' is " + (set ? model[key].dump() : "") + ", which is not supported");
  }
  const bool dropout = model.contains("dropout") && !model["dropout"].is_null() && model["dropout"] != 0;
  check(!dropout, where + ": field 'dropout' is set; BPE dropout is for training and not supported");
  byteFallback_ = boolField(model, "byte_fallback", where, false);
  ignoreMerges_ = boolField(model, "ignore_merges", where, false);
  fuseUnk_ = boolField(model, "fuse_unk", where, false);
  readVocab(field(model, "vocab", where), where + ".vocab");
  if (model.contains("unk_token") && !model["unk_token"].is_null()) {
    unkId_ = tokenToId(stringField(model, "unk_token", where));
    check(unkId_ >= 0, where + ": field 'unk_token' names " + model["unk_token"].dump() + ", which is not in the vocab");
  }
  readMerges(arrayField(model, "merges", where), where + ".merges");
}

void BpeModel::readVocab(const json& vocab, const std::string& where) {
  check(vocab.is_object(), where + " is " + std::string(vocab.type_name()) + ", expected an object {piece: id}");
  ids_.reserve(vocab.size());
  std::fill(std::begin(byteIds_), std::end(byteIds_), -1);
  std::string key;
  for (const auto& item : vocab.items()) {
    const std::string& piece = item.key();  // named, not a structured binding: clang 14's lambdas cannot capture those
    const json& idJson = item.value();
    // Error texts are built only on failure, not for each of the (up to 262k) entries.
    const auto at = [&] { return where + "['" + piece + "']"; };
    const int id = idValue(idJson, at);
    check(size_t(id) < 2 * vocab.size() + 1024, [&] {
      return at() + " is " + std::to_string(id) + ", far beyond the vocabulary's " + std::to_string(vocab.size()) +
             " entries";
    });
    if (size_t(id) >= tokens_.size()) tokens_.resize(size_t(id) + 1);
    tokens_[size_t(id)] = piece;
    // Byte-level pieces are keyed by their raw bytes, so encoding never maps text into
    // the byte alphabet; a piece outside the alphabet (rare) keeps its spelling.
    if (!byteLevel_ || !byteLevelToBytes(piece, &key)) key = piece;
    ids_.emplace(key, id);
    if (byteLevel_ && key.size() == 1) byteIds_[static_cast<unsigned char>(key[0])] = id;
    if (const int b = byteOfFallbackPiece(piece); !byteLevel_ && b >= 0) byteIds_[b] = id;
  }
}

void BpeModel::readMerges(const json& merges, const std::string& where) {
  merges_.reserve(merges.size());
  std::string left, right, joined;  // reused: no allocation per merge
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const json& m = merges[rank];
    const auto at = [&] { return where + "[" + std::to_string(rank) + "]"; };
    if (m.is_string()) {
      const std::string& s = m.get_ref<const std::string&>();
      const size_t space = s.find(' ');
      check(space != std::string::npos && s.find(' ', space + 1) == std::string::npos,
            [&] { return at() + " is \"" + s + "\", expected two pieces separated by one space"; });
      left.assign(s, 0, space), right.assign(s, space + 1);
    } else {
      check(m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string(),
            [&] { return at() + " is " + m.dump().substr(0, 80) + ", expected \"a b\" or [\"a\", \"b\"]"; });
      left = m[0].get_ref<const std::string&>(), right = m[1].get_ref<const std::string&>();
    }
    joined.assign(left).append(right);
    const int l = tokenToId(left), r = tokenToId(right), merged = tokenToId(joined);
    check(l >= 0 && r >= 0 && merged >= 0,
          [&] { return at() + ": " + (l < 0 ? left : r < 0 ? right : joined) + " is not in the vocab"; });
    merges_.insert(l, r, uint32_t(rank), merged);
  }
}

int BpeModel::tokenToId(std::string_view token) const {
  std::string raw;
  if (byteLevel_ && byteLevelToBytes(token, &raw)) token = raw;
  const auto it = ids_.find(token);
  return it == ids_.end() ? -1 : it->second;
}

bool BpeModel::isByteFallback(int id) const {
  return !byteLevel_ && byteFallback_ && id >= 0 && std::find(std::begin(byteIds_), std::end(byteIds_), id) != std::end(byteIds_);
}

void BpeModel::initialSymbols(std::string_view word, std::vector<Symbol>* symbols) const {
  auto push = [&](int id) { symbols->push_back({id, int(symbols->size()) - 1, int(symbols->size()) + 1}); };
  bool lastWasUnk = false;
  for (size_t pos = 0; pos < word.size();) {
    const size_t len = byteLevel_ ? 1 : std::min(utf8Length(static_cast<unsigned char>(word[pos])), word.size() - pos);
    const std::string_view unit = word.substr(pos, len);
    pos += len;
    const auto it = len == 1 && byteLevel_ ? ids_.end() : ids_.find(unit);
    const int id = byteLevel_ ? byteIds_[static_cast<unsigned char>(unit[0])] : it == ids_.end() ? -1 : it->second;
    if (id >= 0) {
      push(id), lastWasUnk = false;
      continue;
    }
    if (byteFallback_ && std::all_of(unit.begin(), unit.end(), [&](char c) { return byteIds_[uint8_t(c)] >= 0; })) {
      for (char c : unit) push(byteIds_[uint8_t(c)]);
      lastWasUnk = false;
      continue;
    }
    if (unkId_ < 0) continue;  // as Hugging Face: without an unk token the character is dropped
    if (!(fuseUnk_ && lastWasUnk)) push(unkId_);
    lastWasUnk = true;
  }
  if (!symbols->empty()) symbols->back().next = -1;
}

void BpeModel::merge(std::vector<Symbol>* symbolsPtr) const {
  std::vector<Symbol>& sym = *symbolsPtr;
  struct Candidate {
    uint32_t rank;
    int left, right, leftId, rightId, merged;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  auto consider = [&](int left) {
    if (left < 0) return;
    const int right = sym[size_t(left)].next;
    if (right < 0) return;
    uint32_t rank;
    int merged;
    if (merges_.find(sym[size_t(left)].id, sym[size_t(right)].id, &rank, &merged))
      queue.push({rank, left, right, sym[size_t(left)].id, sym[size_t(right)].id, merged});
  };
  for (size_t i = 0; i + 1 < sym.size(); ++i) consider(int(i));
  while (!queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    Symbol& l = sym[size_t(c.left)];
    Symbol& r = sym[size_t(c.right)];
    if (l.id != c.leftId || r.id != c.rightId || l.next != c.right) continue;  // stale: a neighbour merged
    l.id = c.merged;
    l.next = r.next;
    r.id = -2;  // dead
    if (l.next >= 0) sym[size_t(l.next)].prev = c.left;
    consider(l.prev);
    consider(c.left);
  }
}

void BpeModel::encodeWord(std::string_view word, std::vector<int>* ids) const {
  if (word.empty()) return;
  const bool cacheable = word.size() <= kMaxCachedWord;
  if (cacheable) {
    std::lock_guard lock(cacheMutex_);
    if (const auto it = cache_.find(word); it != cache_.end()) {
      ids->insert(ids->end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int> out;
  const auto whole = ignoreMerges_ ? ids_.find(word) : ids_.end();
  if (whole != ids_.end()) {
    out.push_back(whole->second);
  } else {
    std::vector<Symbol> symbols;
    symbols.reserve(word.size());
    initialSymbols(word, &symbols);
    merge(&symbols);
    for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[size_t(i)].next) out.push_back(symbols[size_t(i)].id);
  }
  ids->insert(ids->end(), out.begin(), out.end());
  if (cacheable) {
    std::lock_guard lock(cacheMutex_);
    if (cache_.size() >= kMaxCacheEntries) cache_.clear();
    cache_.emplace(std::string(word), std::move(out));
  }
}

}  // namespace lwb::hf
