// tokenizer.json loading and encoding: the input is a tokenizer.json text, a NUL byte,
// then text to encode. Loading either succeeds or throws lwb::Error; a loaded tokenizer
// encodes any bytes, decodes its ids to valid UTF-8, and streams them to valid UTF-8.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/common/error.h"
#include "engine/model/hf_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string jsonText = input.substr(0, nul);
  const std::string text = nul == std::string::npos ? std::string() : input.substr(nul + 1);
  std::unique_ptr<lwb::HfTokenizer> tok;
  try {
    tok = lwb::HfTokenizer::fromJsonText(jsonText, "fuzz/tokenizer.json");
  } catch (const lwb::Error&) {
    return 0;
  }
  std::vector<int> ids;
  try {
    ids = tok->addDefaultSpecials(tok->encode(text));
  } catch (const lwb::Error&) {
    return 0;  // e.g. PCRE2's match limit on a pathological regex: an error, not a crash
  }
  for (int id : ids)
    if (id < 0 || id >= tok->vocabSize()) std::abort();
  if (!lwb::isValidUtf8(tok->decode(ids, false))) std::abort();
  lwb::IncrementalDetokenizer detok(*tok);
  std::string streamed;
  for (int id : ids) streamed += detok.push(id);
  streamed += detok.flush();
  if (!lwb::isValidUtf8(streamed)) std::abort();
  for (int id : ids) (void)lwb::readablePiece(*tok, id);
  return 0;
}
