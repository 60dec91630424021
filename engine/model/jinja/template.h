#pragma once
// A parsed Jinja template, rendered as Hugging Face renders chat templates: jinja2's
// ImmutableSandboxedEnvironment with trim_blocks and lstrip_blocks, the globals
// raise_exception and strftime_now, and tojson as json.dumps. Errors (syntax, unsupported
// constructs, raise_exception, undefined access) are lwb::Error naming the template line.
#include <string>

#include "engine/model/jinja/ast.h"

namespace lwb::jinja {

class Template {
 public:
  explicit Template(const std::string& source);
  // `variables` are the template's globals (messages, add_generation_prompt, ...); the
  // built-in functions are added unless a variable of the same name is given.
  std::string render(const Dict& variables) const;
  std::string render(const nlohmann::ordered_json& variables) const;
  // Whether the template reads a variable of this name anywhere (e.g. enable_thinking).
  bool readsVariable(const std::string& name) const;

 private:
  Body body_;
};

}  // namespace lwb::jinja
