#pragma once
// tokenizer.json "decoder": ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip and
// Sequence of them. Each step maps the list of pieces to a new list, as Hugging Face's
// decode_chain does; the result is their concatenation.
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "engine/model/hf_regex.h"

namespace lwb::hf {

class Decoder {
 public:
  // `j` is the "decoder" value (null: none, pieces are joined with spaces).
  static std::unique_ptr<Decoder> fromJson(const nlohmann::json& j, const std::string& where);
  ~Decoder();
  std::string decode(std::vector<std::string> pieces) const;
  bool byteLevel() const { return byteLevel_; }

 private:
  struct Step {
    enum class Kind { ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip } kind;
    std::unique_ptr<Regex> pattern;  // Replace
    std::string content;             // Replace: replacement; Metaspace: the replacement char; Strip: the char
    bool prependFirst = true;        // Metaspace: the first piece's prefix space is dropped
    size_t start = 0, stop = 0;      // Strip
  };
  void parse(const nlohmann::json& j, const std::string& where);
  std::vector<Step> steps_;
  bool byteLevel_ = false;
};

}  // namespace lwb::hf
