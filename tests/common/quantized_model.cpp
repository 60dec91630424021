#include "common/quantized_model.h"

#include <cstring>
#include <filesystem>

#include "engine/common/dtype.h"
#include "engine/exec/cpu/gemm_quant.h"
#include "engine/model/quant.h"
#include "engine/model/safetensors.h"

namespace lwb::test {

namespace {

namespace fs = std::filesystem;

bool isLinear(const std::string& name) {
  auto endsWith = [&](const std::string& s) { return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0; };
  return endsWith("_proj.weight") || name == "lm_head.weight";
}

std::vector<float> toFloats(const TensorView& t) {
  std::vector<float> out(size_t(t.numel()));
  const uint16_t* h = static_cast<const uint16_t*>(t.data);
  for (size_t i = 0; i < out.size(); ++i) {
    if (t.dtype == DType::F32) std::memcpy(&out[i], static_cast<const float*>(t.data) + i, 4);
    else out[i] = t.dtype == DType::BF16 ? bf16ToFloat(h[i]) : halfToFloat(h[i]);
  }
  return out;
}

TensorData requantized(const TensorView& t, GgmlType quantization) {
  std::vector<float> w = toFloats(t);
  const int K = int(t.shape[1]);
  const GgmlType type = quantTypeFor(quantization, K);
  if (type != GgmlType::F32) {
    std::vector<uint8_t> q(ggmlRowBytes(type, K));
    for (int64_t r = 0; r < t.shape[0]; ++r) {
      quantizeRow(type, w.data() + r * K, q.data(), K);
      dequantizeRow(type, q.data(), w.data() + r * K, K);
    }
  }
  TensorData d{t.name, DType::F32, t.shape, std::vector<uint8_t>(w.size() * 4)};
  std::memcpy(d.bytes.data(), w.data(), d.bytes.size());
  return d;
}

TensorData copied(const TensorView& t) {
  const auto* p = static_cast<const uint8_t*>(t.data);
  return {t.name, t.dtype, t.shape, std::vector<uint8_t>(p, p + t.numBytes())};
}

}  // namespace

std::string writeDequantizedCopy(const std::string& srcDir, const std::string& dstDir, GgmlType quantization) {
  fs::create_directories(dstDir);
  for (const auto& entry : fs::directory_iterator(srcDir))
    if (entry.path().filename() != "model.safetensors")
      fs::copy_file(entry.path(), fs::path(dstDir) / entry.path().filename(), fs::copy_options::overwrite_existing);
  auto store = WeightStore::openFolder(srcDir);
  std::vector<TensorData> tensors;
  for (const auto& [name, view] : store->all())
    tensors.push_back(isLinear(name) && view.shape.size() == 2 ? requantized(view, quantization) : copied(view));
  writeSafetensors((fs::path(dstDir) / "model.safetensors").string(), tensors);
  return fs::absolute(dstDir).string();
}

}  // namespace lwb::test
