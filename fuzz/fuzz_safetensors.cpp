// Any bytes as a safetensors file: the header parser must accept or throw lwb::Error,
// and every accepted tensor must lie inside the buffer.
#include <cstdint>
#include <cstdlib>

#include "engine/common/error.h"
#include "engine/model/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto tensors = lwb::parseSafetensorsHeader(data, size, "fuzz.safetensors");
    for (const auto& [name, t] : tensors) {
      const auto* begin = static_cast<const uint8_t*>(t.data);
      if (t.numBytes() > 0 && (begin < data || begin + t.numBytes() > data + size)) std::abort();
    }
  } catch (const lwb::Error&) {
  }
  return 0;
}
