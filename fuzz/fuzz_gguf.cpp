// Any bytes as a GGUF file: the parser must accept or throw lwb::Error, every accepted
// tensor must lie inside the buffer, and dequantizing its first row must stay inside it.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/gguf.h"
#include "engine/model/quant.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const lwb::GgufContents g = lwb::parseGguf(data, size, "fuzz.gguf");
    for (const lwb::GgufTensor& t : g.tensors) {
      if (t.data < data || t.numBytes > size_t(data + size - t.data)) std::abort();
      if (t.rowLength() > (1 << 16)) continue;
      std::vector<float> row(size_t(t.rowLength()));
      lwb::dequantizeRow(t.type, t.data, row.data(), t.rowLength());
    }
  } catch (const lwb::Error&) {
  }
  return 0;
}
