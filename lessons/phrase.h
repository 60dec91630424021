#pragma once
// A sentence of a lesson's finding kept translatable: a template marked with
// LWB_TRANSLATE_NOOP("Lessons", "... %1 ... %2 ...") and its arguments, each a literal
// (a number, a knob's name, a label) or a phrase of its own ("rose from %1 to %2 (%3)").
// The command line, the JSON and the tests render it in English (the templates as they
// are); the window renders it through QCoreApplication::translate("Lessons", text), so
// the Japanese .ts file translates every template once, whatever numbers it carries.
#include <functional>
#include <string>
#include <vector>

#include "engine/common/translate.h"

namespace lwb {

class Phrase {
 public:
  Phrase() = default;
  // A literal: shown as it is in every language (numbers, knob names, labels).
  Phrase(std::string literal) : literal_(std::move(literal)) {}  // NOLINT: implicit on purpose
  // A template, marked for lupdate where it is written; %1..%9 are `args` in order. (Not
  // named tr: lupdate would take it for QObject::tr with a context of "Phrase".)
  static Phrase marked(const char* text, std::vector<Phrase> args = {});

  bool empty() const { return !text_ && literal_.empty(); }
  const char* text() const { return text_; }  // null for a literal
  const std::vector<Phrase>& args() const { return args_; }

 private:
  const char* text_ = nullptr;
  std::string literal_;
  std::vector<Phrase> args_;
  friend std::string render(const Phrase&, const std::function<std::string(const char*)>&);
};

// A template's text in the language shown: identity for English.
using Translator = std::function<std::string(const char* text)>;

// The phrase with every template translated and %N replaced by its rendered argument
// (one pass: an argument's own text is never scanned for %N again). Throws lwb::Error
// naming the template when it uses an argument it was not given.
std::string render(const Phrase& phrase, const Translator& translate);
std::string english(const Phrase& phrase);

// Every template of `phrase` and its arguments, depth first.
void collectTemplates(const Phrase& phrase, std::vector<const char*>* out);

}  // namespace lwb
