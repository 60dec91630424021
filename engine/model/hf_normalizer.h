#pragma once
// tokenizer.json "normalizer": NFC/NFD/NFKC/NFKD, Replace, Prepend, Strip and Sequence
// of them, applied to each stretch of text between added tokens.
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "engine/model/hf_regex.h"
#include "engine/model/hf_unicode.h"

namespace lwb::hf {

class Normalizer {
 public:
  // `j` is the "normalizer" value (null: none). `where` names the file and field for
  // errors ("tokenizer.json: normalizer"). An unsupported type is an lwb::Error.
  static std::unique_ptr<Normalizer> fromJson(const nlohmann::json& j, const std::string& where);
  ~Normalizer();
  std::string apply(std::string text) const;

 private:
  struct Step {
    enum class Kind { Unicode, Replace, Prepend, Strip } kind;
    NormalForm form = NormalForm::NFC;
    std::unique_ptr<Regex> pattern;  // Replace
    std::string content;             // Replace: the replacement; Prepend: the prefix
    bool left = false, right = false;  // Strip
  };
  void parse(const nlohmann::json& j, const std::string& where);
  std::vector<Step> steps_;
};

}  // namespace lwb::hf
