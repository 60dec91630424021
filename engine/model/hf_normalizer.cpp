#include "engine/model/hf_normalizer.h"

#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/model/hf_json.h"

namespace lwb::hf {

using json = nlohmann::json;

std::unique_ptr<Normalizer> Normalizer::fromJson(const json& j, const std::string& where) {
  if (j.is_null()) return nullptr;
  auto n = std::unique_ptr<Normalizer>(new Normalizer());
  n->parse(j, where);
  return n;
}

Normalizer::~Normalizer() = default;

void Normalizer::parse(const json& j, const std::string& where) {
  const std::string type = stringField(j, "type", where);
  if (type == "Sequence") {
    const json& list = arrayField(j, "normalizers", where);
    for (size_t i = 0; i < list.size(); ++i) parse(list[i], where + ".normalizers[" + std::to_string(i) + "]");
    return;
  }
  Step s{};
  if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
    s.kind = Step::Kind::Unicode;
    s.form = type == "NFC" ? NormalForm::NFC : type == "NFD" ? NormalForm::NFD
           : type == "NFKC" ? NormalForm::NFKC : NormalForm::NFKD;
  } else if (type == "Replace") {
    s.kind = Step::Kind::Replace;
    s.pattern = patternField(j, where);
    s.content = stringField(j, "content", where);
  } else if (type == "Prepend") {
    s.kind = Step::Kind::Prepend;
    s.content = stringField(j, "prepend", where);
  } else if (type == "Strip") {
    s.kind = Step::Kind::Strip;
    s.left = boolField(j, "strip_left", where, true);
    s.right = boolField(j, "strip_right", where, true);
  } else {
    throw Error(where + ": normalizer type '" + type +
                "' is not supported (supported: NFC, NFD, NFKC, NFKD, Replace, Prepend, Strip, Sequence)");
  }
  steps_.push_back(std::move(s));
}

namespace {

std::string replaceAll(const std::string& text, const Regex& re, const std::string& content) {
  std::string out;
  size_t last = 0;
  re.forEachMatch(text, [&](size_t start, size_t end) {
    out.append(text, last, start - last);
    out += content;
    last = end;
  });
  out.append(text, last, std::string::npos);
  return out;
}

bool isSpaceAt(const std::string& s, size_t pos, size_t* len) {
  const uint32_t cp = codePointAt(s, pos, len);
  return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
         cp == 0x3000;
}

std::string strip(const std::string& s, bool left, bool right) {
  size_t begin = 0, end = s.size(), len = 1;
  while (left && begin < end && isSpaceAt(s, begin, &len)) begin += len;
  while (right && end > begin) {
    size_t start = end - 1;
    while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    if (!isSpaceAt(s, start, &len)) break;
    end = start;
  }
  return s.substr(begin, end - begin);
}

}  // namespace

std::string Normalizer::apply(std::string text) const {
  for (const Step& s : steps_) {
    switch (s.kind) {
      case Step::Kind::Unicode: text = normalizeUnicode(text, s.form); break;
      case Step::Kind::Replace: text = replaceAll(text, *s.pattern, s.content); break;
      case Step::Kind::Prepend:
        if (!text.empty()) text = s.content + text;  // as Hugging Face: never onto empty text
        break;
      case Step::Kind::Strip: text = strip(text, s.left, s.right); break;
    }
  }
  return text;
}

}  // namespace lwb::hf
