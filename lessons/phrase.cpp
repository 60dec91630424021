#include "lessons/phrase.h"

#include "engine/common/error.h"

namespace lwb {

Phrase Phrase::marked(const char* text, std::vector<Phrase> args) {
  Phrase p;
  p.text_ = text;
  p.args_ = std::move(args);
  return p;
}

std::string render(const Phrase& phrase, const Translator& translate) {
  if (!phrase.text_) return phrase.literal_;
  const std::string text = translate ? translate(phrase.text_) : std::string(phrase.text_);
  std::string out;
  out.reserve(text.size() + 16 * phrase.args_.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%' || i + 1 >= text.size() || text[i + 1] < '1' || text[i + 1] > '9') {
      out += text[i];
      continue;
    }
    const size_t n = size_t(text[i + 1] - '1');
    check(n < phrase.args_.size(), [&] {
      return "lesson phrase '" + std::string(phrase.text_) + "': uses %" + text[i + 1] + " but has " +
             std::to_string(phrase.args_.size()) + " argument(s)";
    });
    out += render(phrase.args_[n], translate);
    ++i;
  }
  return out;
}

std::string english(const Phrase& phrase) { return render(phrase, {}); }

void collectTemplates(const Phrase& phrase, std::vector<const char*>* out) {
  if (phrase.text()) out->push_back(phrase.text());
  for (const Phrase& a : phrase.args()) collectTemplates(a, out);
}

}  // namespace lwb
