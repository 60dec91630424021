#include "engine/model/hf_tokenizer.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/model/hf_json.h"
#include "engine/model/hf_unicode.h"

namespace lwb {

using json = nlohmann::json;

std::unique_ptr<HfTokenizer> HfTokenizer::load(const std::string& path) {
  check(std::filesystem::is_regular_file(path), path + ": tokenizer file not found");
  std::ifstream in(path, std::ios::binary);
  check(bool(in), path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return fromJsonText(ss.str(), path);
}

HfTokenizer::~HfTokenizer() = default;

std::unique_ptr<HfTokenizer> HfTokenizer::fromJsonText(const std::string& text, const std::string& path) {
  json j;
  try {
    j = parseJson(text);
  } catch (const json::exception& e) {
    throw Error(path + ": not valid JSON: " + e.what());
  }
  check(j.is_object(), path + ": expected a JSON object, found " + std::string(j.type_name()));
  auto tok = std::unique_ptr<HfTokenizer>(new HfTokenizer());
  auto optional = [&](const char* key) -> const json& {
    static const json null;
    return j.contains(key) ? j[key] : null;
  };
  tok->normalizer_ = hf::Normalizer::fromJson(optional("normalizer"), path + ": normalizer");
  tok->preTokenizer_ = hf::PreTokenizer::fromJson(optional("pre_tokenizer"), path + ": pre_tokenizer");
  tok->decoder_ = hf::Decoder::fromJson(optional("decoder"), path + ": decoder");
  const bool byteLevel = tok->preTokenizer_ && tok->preTokenizer_->byteLevel();
  tok->kind_ = byteLevel || (tok->decoder_ && tok->decoder_->byteLevel()) ? TokenizerKind::BpeByteLevel
                                                                          : TokenizerKind::BpeMetaspace;
  tok->model_ = std::make_unique<hf::BpeModel>(hf::field(j, "model", path), path + ": model", byteLevel);
  tok->pieces_ = tok->model_->tokens();
  const json& addedTokens = optional("added_tokens");
  if (!addedTokens.is_null()) {
    check(addedTokens.is_array(), path + ": field 'added_tokens' is " + std::string(addedTokens.type_name()) +
                                      ", expected an array");
    tok->readAddedTokens(addedTokens, path + ": added_tokens");
  }
  if (j.contains("model") && j["model"].contains("unk_token") && j["model"]["unk_token"].is_string())
    tok->unkId_ = tok->pieceToId(j["model"]["unk_token"].get<std::string>());
  tok->readPostProcessor(optional("post_processor"), path + ": post_processor");
  tok->bosId_ = tok->prefixIds_.empty() ? -1 : tok->prefixIds_.front();
  check(!tok->pieces_.empty(), path + ": the vocabulary is empty");
  return tok;
}

void HfTokenizer::readAddedTokens(const json& list, const std::string& where) {
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    hf::AddedToken t;
    t.content = hf::stringField(list[i], "content", at);
    t.id = hf::idValue(hf::field(list[i], "id", at), at + ".id");
    t.special = hf::boolField(list[i], "special", at, false);
    t.lstrip = hf::boolField(list[i], "lstrip", at, false);
    t.rstrip = hf::boolField(list[i], "rstrip", at, false);
    t.singleWord = hf::boolField(list[i], "single_word", at, false);
    t.normalized = hf::boolField(list[i], "normalized", at, !t.special);
    check(!t.content.empty(), at + ": field 'content' is empty");
    check(size_t(t.id) < 2 * (pieces_.size() + list.size()) + 1024,
          at + ": id " + std::to_string(t.id) + " is far beyond the vocabulary's " + std::to_string(pieces_.size()) + " entries");
    if (size_t(t.id) >= pieces_.size()) pieces_.resize(size_t(t.id) + 1);
    pieces_[size_t(t.id)] = t.content;
    addedIds_.emplace(t.content, t.id);
    added_.add(t, t.normalized && normalizer_ ? normalizer_->apply(t.content) : t.content);
  }
}

void HfTokenizer::readPostProcessor(const json& j, const std::string& where) {
  if (j.is_null()) return;
  const std::string type = hf::stringField(j, "type", where);
  if (type == "Sequence") {
    const json& list = hf::arrayField(j, "processors", where);
    for (size_t i = 0; i < list.size(); ++i) readPostProcessor(list[i], where + ".processors[" + std::to_string(i) + "]");
  } else if (type == "TemplateProcessing") {
    const json& single = hf::arrayField(j, "single", where);
    const json& specials = hf::field(j, "special_tokens", where);
    bool seenSequence = false;
    for (const json& item : single) {
      if (item.contains("Sequence")) {
        seenSequence = true;
        continue;
      }
      const std::string name = hf::stringField(hf::field(item, "SpecialToken", where + ".single"), "id", where + ".single");
      const json& ids = hf::arrayField(hf::field(specials, name.c_str(), where + ".special_tokens"), "ids",
                                       where + ".special_tokens." + name);
      for (const json& id : ids) (seenSequence ? suffixIds_ : prefixIds_).push_back(hf::idValue(id, where + "." + name));
    }
  } else if (type == "RobertaProcessing" || type == "BertProcessing") {
    for (const char* key : {"cls", "sep"}) {
      const json& pair = hf::field(j, key, where);
      check(pair.is_array() && pair.size() == 2, where + ": field '" + key + "' must be [token, id]");
      (key[0] == 'c' ? prefixIds_ : suffixIds_).push_back(hf::idValue(pair[1], where + "." + key));
    }
  } else if (type != "ByteLevel") {
    throw Error(where + ": post-processor type '" + type +
                "' is not supported (supported: TemplateProcessing, ByteLevel, RobertaProcessing, BertProcessing, "
                "Sequence)");
  }
  for (int id : prefixIds_) check(id < vocabSize(), where + ": special token id " + std::to_string(id) + " is outside the vocabulary");
  for (int id : suffixIds_) check(id < vocabSize(), where + ": special token id " + std::to_string(id) + " is outside the vocabulary");
}

int HfTokenizer::pieceToId(std::string_view piece) const {
  const auto it = addedIds_.find(piece);
  return it != addedIds_.end() ? it->second : model_->tokenToId(piece);
}

void HfTokenizer::encodeStretch(std::string_view text, bool atStart, std::vector<int>* ids) const {
  const std::string normalized = normalizer_ ? normalizer_->apply(std::string(text)) : std::string(text);
  for (const hf::AddedVocab::Span& span : added_.split(normalized, true)) {
    if (span.id >= 0) {
      ids->push_back(span.id);
      continue;
    }
    std::vector<hf::Word> words{{normalized.substr(span.start, span.end - span.start), atStart && span.start == 0}};
    if (preTokenizer_) preTokenizer_->apply(&words);
    for (const hf::Word& w : words) model_->encodeWord(w.text, ids);
  }
}

std::vector<int> HfTokenizer::encode(std::string_view input) const {
  const std::string text = hf::toValidUtf8(input);
  std::vector<int> ids;
  for (const hf::AddedVocab::Span& span : added_.split(text, false)) {
    if (span.id >= 0) ids.push_back(span.id);
    else encodeStretch(std::string_view(text).substr(span.start, span.end - span.start), span.start == 0, &ids);
  }
  return ids;
}

std::vector<int> HfTokenizer::addDefaultSpecials(std::vector<int> ids) const {
  ids.insert(ids.begin(), prefixIds_.begin(), prefixIds_.end());
  ids.insert(ids.end(), suffixIds_.begin(), suffixIds_.end());
  return ids;
}

std::string HfTokenizer::decode(const std::vector<int>& ids, bool skipSpecialTokens) const {
  std::vector<std::string> pieces;
  pieces.reserve(ids.size());
  for (int id : ids) {
    check(id >= 0 && id < vocabSize(), "tokenizer: id " + std::to_string(id) + " is outside the vocabulary [0, " +
                                           std::to_string(vocabSize()) + ")");
    const hf::AddedToken* added = added_.byId(id);
    if (added && added->special && skipSpecialTokens) continue;
    if (!pieces_[size_t(id)].empty()) pieces.push_back(pieces_[size_t(id)]);
  }
  if (decoder_) return decoder_->decode(std::move(pieces));
  std::string out;
  for (size_t i = 0; i < pieces.size(); ++i) out += (i ? " " : "") + pieces[i];
  return out;
}

std::string HfTokenizer::piece(int id) const {
  check(id >= 0 && id < vocabSize(), "tokenizer: id " + std::to_string(id) + " is outside the vocabulary");
  return pieces_[size_t(id)];
}

bool HfTokenizer::isControl(int id) const {
  const hf::AddedToken* t = added_.byId(id);
  return (t && t->special) || (id >= 0 && id == unkId_);
}

bool HfTokenizer::isByte(int id) const { return model_->isByteFallback(id); }

bool HfTokenizer::isUserDefined(int id) const {
  const hf::AddedToken* t = added_.byId(id);
  return t && !t->special;
}

std::vector<int> HfTokenizer::ordinaryIds() const {
  std::vector<int> ids;
  for (int id = 0; id < vocabSize(); ++id)
    if (!pieces_[size_t(id)].empty() && !added_.byId(id) && !isByte(id) && id != unkId_) ids.push_back(id);
  return ids;
}

}  // namespace lwb
