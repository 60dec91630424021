// Any bytes as a GGUF file, end to end as loadGgufModel reads one: the parser must
// accept or throw lwb::Error, every accepted tensor must lie inside the buffer, and
// dequantizing its first row must stay inside it; then the model config from the
// metadata, the tokenizer built from tokenizer.ggml.* (which must encode and decode a
// short text) and the weights bound to the config (renaming, q/k un-permuting, shape
// checks) must each succeed or throw lwb::Error. The seeds (fuzz/seeds/fuzz_gguf) are
// whole small models, so mutations reach the metadata readers, not only the header.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/gguf.h"
#include "engine/model/gguf_llama.h"
#include "engine/model/gguf_tokenizer.h"
#include "engine/model/llama_weights.h"
#include "engine/model/model_config.h"
#include "engine/model/quant.h"
#include "engine/model/safetensors.h"
#include "engine/model/tokenizer.h"
#include "engine/model/tokenizer_files.h"

namespace {

void checkTensors(const lwb::GgufContents& g, const uint8_t* data, size_t size) {
  for (const lwb::GgufTensor& t : g.tensors) {
    if (t.data < data || t.numBytes > size_t(data + size - t.data)) std::abort();
    if (t.rowLength() > (1 << 16)) continue;
    std::vector<float> row(size_t(t.rowLength()));
    lwb::dequantizeRow(t.type, t.data, row.data(), t.rowLength());
  }
}

void checkTokenizer(const lwb::GgufFile& file) {
  const lwb::TokenizerFiles tf = lwb::ggufTokenizerFiles(file);
  const std::vector<int> ids = tf.encodePrompt("Hello, world! 123 <s> ünïcode");
  for (int id : ids)
    if (id < 0 || id >= tf.tokenizer->vocabSize()) std::abort();
  (void)tf.tokenizer->decode(ids);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::unique_ptr<lwb::GgufFile> file;
  try {
    checkTensors(lwb::parseGguf(data, size, "fuzz.gguf"), data, size);
    file = lwb::GgufFile::fromMemory(data, size, "fuzz.gguf");
  } catch (const lwb::Error&) {
    return 0;
  }
  try {
    checkTokenizer(*file);
  } catch (const lwb::Error&) {
  }
  try {
    const lwb::ModelConfig config = lwb::ggufModelConfig(*file);
    const bool unpermute = lwb::ggufPermutesQk(*file);
    const auto store = lwb::WeightStore::fromGguf(std::move(file), config, unpermute);
    (void)lwb::LlamaWeights::bind(*store, config);
  } catch (const lwb::Error&) {
  }
  return 0;
}
