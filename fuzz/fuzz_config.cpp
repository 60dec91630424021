// Any text as config.json: parse or a readable lwb::Error; accepted configs are sane.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/common/error.h"
#include "engine/model/model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    lwb::ModelConfig c = lwb::parseModelConfig(text, "config.json");
    if (c.hiddenSize <= 0 || c.numAttentionHeads <= 0 || c.numKeyValueHeads <= 0 ||
        c.numAttentionHeads % c.numKeyValueHeads != 0 || c.headDim <= 0 || c.vocabSize <= 0)
      std::abort();
    if (c.headDim <= 4096) (void)lwb::ropeInvFreq(c);
  } catch (const lwb::Error& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
