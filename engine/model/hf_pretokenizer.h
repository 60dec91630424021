#pragma once
// tokenizer.json "pre_tokenizer": Split (String or Regex, every behaviour), ByteLevel,
// Metaspace, Digits and Sequence of them. Splits one normalized stretch of text into the
// words BPE sees.
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "engine/model/hf_regex.h"

namespace lwb::hf {

struct Word {
  std::string text;
  bool atStart = false;  // begins at the very start of the encoded text (Metaspace "first")
};

class PreTokenizer {
 public:
  // `j` is the "pre_tokenizer" value (null: none). Throws lwb::Error naming `where`.
  static std::unique_ptr<PreTokenizer> fromJson(const nlohmann::json& j, const std::string& where);
  ~PreTokenizer();
  void apply(std::vector<Word>* words) const;
  // A ByteLevel step is present: BPE then works on raw bytes, each byte one symbol.
  bool byteLevel() const { return byteLevel_; }
  bool metaspace() const { return metaspace_; }

 private:
  enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };
  enum class Prepend { Always, First, Never };
  struct Step {
    enum class Kind { Split, ByteLevel, Metaspace, Digits } kind;
    std::unique_ptr<Regex> pattern;  // Split; ByteLevel with use_regex (GPT-2's)
    Behavior behavior = Behavior::Isolated;
    bool invert = false;
    bool addPrefixSpace = false;  // ByteLevel
    std::string replacement;      // Metaspace, "▁"
    Prepend prepend = Prepend::Always;
    bool split = true;            // Metaspace
  };
  void parse(const nlohmann::json& j, const std::string& where);
  void parseSplit(const nlohmann::json& j, const std::string& where, Step* s);
  void apply(const Step& s, std::vector<Word>* words) const;
  std::vector<Step> steps_;
  bool byteLevel_ = false, metaspace_ = false;
};

}  // namespace lwb::hf
