// Any text as a chat template: parse and render with a fixed conversation, or a readable
// lwb::Error naming the template line; never a crash, hang or runaway allocation.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/model/jinja/template.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const nlohmann::ordered_json vars = lwb::parseOrderedJson(R"({
    "messages": [{"role": "system", "content": "Be brief."},
                 {"role": "user", "content": " Hi \u00e9 \ud83d\udc4b "},
                 {"role": "assistant", "content": "<think>\nx\n</think>\n\nHello", "tool_calls": [
                   {"type": "function", "function": {"name": "f", "arguments": {"a": [1, 2.5, null, true]}}}]},
                 {"role": "tool", "content": "42"}],
    "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
    "add_generation_prompt": true, "bos_token": "<s>", "eos_token": "</s>", "enable_thinking": false})");
  const std::string source(reinterpret_cast<const char*>(data), size);
  try {
    const lwb::jinja::Template t(source);
    (void)t.readsVariable("enable_thinking");
    (void)t.render(vars);
  } catch (const lwb::Error& e) {
    if (std::string(e.what()).rfind("template line ", 0) != 0) std::abort();  // every error names its line
  }
  return 0;
}
