#include "engine/model/hf_pretokenizer.h"

#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/model/hf_json.h"

namespace lwb::hf {

using json = nlohmann::json;

namespace {

// GPT-2's pre-tokenizer regex (ByteLevel with use_regex).
constexpr const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// A word cut into pieces: the stretches between matches and the matches themselves.
struct Cut {
  size_t start, end;
  bool isMatch;
};

std::vector<Cut> cuts(const Regex& re, const std::string& text, bool invert) {
  std::vector<Cut> out;
  size_t last = 0;
  re.forEachMatch(text, [&](size_t start, size_t end) {
    if (start > last) out.push_back({last, start, invert});
    out.push_back({start, end, !invert});
    last = end;
  });
  if (last < text.size()) out.push_back({last, text.size(), invert});
  return out;
}

}  // namespace

std::unique_ptr<PreTokenizer> PreTokenizer::fromJson(const json& j, const std::string& where) {
  if (j.is_null()) return nullptr;
  auto p = std::unique_ptr<PreTokenizer>(new PreTokenizer());
  p->parse(j, where);
  return p;
}

PreTokenizer::~PreTokenizer() = default;

void PreTokenizer::parseSplit(const json& j, const std::string& where, Step* s) {
  s->pattern = patternField(j, where);
  const std::string b = stringField(j, "behavior", where);
  if (b == "Removed") s->behavior = Behavior::Removed;
  else if (b == "Isolated") s->behavior = Behavior::Isolated;
  else if (b == "MergedWithPrevious") s->behavior = Behavior::MergedWithPrevious;
  else if (b == "MergedWithNext") s->behavior = Behavior::MergedWithNext;
  else if (b == "Contiguous") s->behavior = Behavior::Contiguous;
  else throw Error(where + ": field 'behavior' is '" + b + "', expected Removed, Isolated, MergedWithPrevious, "
                   "MergedWithNext or Contiguous");
  s->invert = boolField(j, "invert", where, false);
}

void PreTokenizer::parse(const json& j, const std::string& where) {
  const std::string type = stringField(j, "type", where);
  if (type == "Sequence") {
    const json& list = arrayField(j, "pretokenizers", where);
    for (size_t i = 0; i < list.size(); ++i) parse(list[i], where + ".pretokenizers[" + std::to_string(i) + "]");
    return;
  }
  // Steps after ByteLevel would see the byte alphabet, which this pipeline never builds.
  check(!byteLevel_, where + ": a '" + type + "' pre-tokenizer after ByteLevel is not supported");
  Step s{};
  if (type == "Split") {
    s.kind = Step::Kind::Split;
    parseSplit(j, where, &s);
  } else if (type == "ByteLevel") {
    s.kind = Step::Kind::ByteLevel;
    s.addPrefixSpace = boolField(j, "add_prefix_space", where, true);
    if (boolField(j, "use_regex", where, true)) s.pattern = std::make_unique<Regex>(kGpt2Pattern, false, where);
    byteLevel_ = true;
  } else if (type == "Metaspace") {
    s.kind = Step::Kind::Metaspace;
    s.replacement = stringField(j, "replacement", where);
    check(!s.replacement.empty(), where + ": field 'replacement' is empty");
    const std::string scheme = j.contains("prepend_scheme") ? stringField(j, "prepend_scheme", where)
                               : boolField(j, "add_prefix_space", where, true) ? "always" : "never";
    if (scheme == "always") s.prepend = Prepend::Always;
    else if (scheme == "first") s.prepend = Prepend::First;
    else if (scheme == "never") s.prepend = Prepend::Never;
    else throw Error(where + ": field 'prepend_scheme' is '" + scheme + "', expected always, first or never");
    s.split = boolField(j, "split", where, true);
    metaspace_ = true;
  } else if (type == "Digits") {
    s.kind = Step::Kind::Digits;
    s.pattern = std::make_unique<Regex>(boolField(j, "individual_digits", where, false) ? "\\p{N}" : "\\p{N}+", false,
                                        where);
  } else {
    throw Error(where + ": pre-tokenizer type '" + type +
                "' is not supported (supported: Split, ByteLevel, Metaspace, Digits, Sequence)");
  }
  steps_.push_back(std::move(s));
}

void PreTokenizer::apply(std::vector<Word>* words) const {
  for (const Step& s : steps_) apply(s, words);
}

namespace {

void splitWords(const Regex& re, bool invert, int behavior, std::vector<Word>* words) {
  enum { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };
  std::vector<Word> out;
  for (Word& w : *words) {
    const std::vector<Cut> parts = cuts(re, w.text, invert);
    bool pendingMatch = false;  // the last piece pushed was a match (Contiguous) or is waiting (MergedWithNext)
    const size_t first = out.size();
    for (const Cut& c : parts) {
      std::string piece = w.text.substr(c.start, c.end - c.start);
      const bool canMerge = out.size() > first;
      if (c.isMatch && behavior == Removed) continue;
      if (c.isMatch && behavior == MergedWithPrevious && canMerge) out.back().text += piece;
      else if (!c.isMatch && behavior == MergedWithNext && pendingMatch) out.back().text += piece;
      else if (c.isMatch && behavior == Contiguous && pendingMatch) out.back().text += piece;
      else out.push_back({std::move(piece), w.atStart && c.start == 0});
      pendingMatch = c.isMatch && (behavior == MergedWithNext || behavior == Contiguous);
    }
  }
  *words = std::move(out);
}

}  // namespace

void PreTokenizer::apply(const Step& s, std::vector<Word>* words) const {
  switch (s.kind) {
    case Step::Kind::Split: splitWords(*s.pattern, s.invert, int(s.behavior), words); return;
    case Step::Kind::Digits: splitWords(*s.pattern, false, int(Behavior::Isolated), words); return;
    case Step::Kind::ByteLevel:
      for (Word& w : *words)
        if (s.addPrefixSpace && !w.text.starts_with(' ')) w.text.insert(0, 1, ' ');
      if (s.pattern) splitWords(*s.pattern, false, int(Behavior::Isolated), words);
      return;
    case Step::Kind::Metaspace: {
      for (Word& w : *words) {
        std::string t;
        for (char c : w.text) (c == ' ') ? void(t += s.replacement) : void(t += c);
        const bool prepend = s.prepend == Prepend::Always || (s.prepend == Prepend::First && w.atStart);
        if (prepend && !t.starts_with(s.replacement)) t.insert(0, s.replacement);
        w.text = std::move(t);
      }
      if (s.split) splitWords(Regex(s.replacement, true, "Metaspace"), false, int(Behavior::MergedWithNext), words);
      return;
    }
  }
}

}  // namespace lwb::hf
