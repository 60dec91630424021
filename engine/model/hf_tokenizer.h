#pragma once
// A Hugging Face tokenizer.json with a BPE model: added tokens → normalizer →
// pre-tokenizer → BPE, the post-processor's default special tokens, and the decoder.
#include <memory>
#include <string>
#include <vector>

#include "engine/model/hf_added_vocab.h"
#include "engine/model/hf_bpe.h"
#include "engine/model/hf_decoder.h"
#include "engine/model/hf_normalizer.h"
#include "engine/model/hf_pretokenizer.h"
#include "engine/model/tokenizer.h"

namespace lwb {

class HfTokenizer : public Tokenizer {
 public:
  // Throws lwb::Error naming the file and the field when it is missing, not JSON, or
  // uses a component this reader does not support.
  static std::unique_ptr<HfTokenizer> load(const std::string& path);
  static std::unique_ptr<HfTokenizer> fromJsonText(const std::string& text, const std::string& path);
  ~HfTokenizer() override;

  TokenizerKind kind() const override { return kind_; }
  int vocabSize() const override { return int(pieces_.size()); }
  int bosId() const override { return bosId_; }
  int eosId() const override { return eosId_; }
  int unkId() const override { return unkId_; }
  int pieceToId(std::string_view piece) const override;
  // tokenizer_config.json names BOS and EOS; the file alone knows only its template's.
  void setBosEos(int bosId, int eosId) { bosId_ = bosId, eosId_ = eosId; }

  std::vector<int> encode(std::string_view text) const override;
  std::vector<int> encodeWithSpecials(std::string_view text) const override { return encode(text); }
  std::vector<int> addDefaultSpecials(std::vector<int> ids) const override;
  std::string decode(const std::vector<int>& ids) const override { return decode(ids, true); }
  // Hugging Face's decode(ids, skip_special_tokens).
  std::string decode(const std::vector<int>& ids, bool skipSpecialTokens) const;

  std::string piece(int id) const override;
  bool isControl(int id) const override;
  bool isByte(int id) const override;
  bool isUserDefined(int id) const override;
  std::vector<int> ordinaryIds() const override;

 private:
  HfTokenizer() = default;
  void readAddedTokens(const nlohmann::json& list, const std::string& where);
  void readPostProcessor(const nlohmann::json& j, const std::string& where);
  void encodeStretch(std::string_view text, bool atStart, std::vector<int>* ids) const;

  TokenizerKind kind_ = TokenizerKind::BpeByteLevel;
  std::unique_ptr<hf::Normalizer> normalizer_;
  std::unique_ptr<hf::PreTokenizer> preTokenizer_;
  std::unique_ptr<hf::BpeModel> model_;
  std::unique_ptr<hf::Decoder> decoder_;
  hf::AddedVocab added_;
  hf::StringMap<int> addedIds_;      // content → id
  std::vector<std::string> pieces_;  // [id]
  // The post-processor's single-sequence template: ids before and after the text.
  std::vector<int> prefixIds_, suffixIds_;
  int bosId_ = -1, eosId_ = -1, unkId_ = -1;
};

}  // namespace lwb
