#include "engine/exec/sim/gpu_measurements.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/common/error.h"
#include "engine/model/model_config.h"

namespace lwb::sim {

namespace {

const char* const kHeader = "hardware,model,tp,op,seqs,tokens,context,measured_ms";

std::vector<std::string> splitFields(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream ss(line);
  std::string field;
  while (std::getline(ss, field, ',')) fields.push_back(field);
  return fields;
}

template <typename T>
T number(const std::string& text, const std::string& where, const char* column) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  check(ec == std::errc() && end == text.data() + text.size(),
        [&] { return where + ": " + column + " '" + text + "' is not a number"; });
  return value;
}

GpuMeasurement parseRow(const std::vector<std::string>& f, const std::string& where) {
  check(f.size() == 8, [&] { return where + ": " + std::to_string(f.size()) + " fields, expected 8 (" + kHeader + ")"; });
  GpuMeasurement m;
  m.hardware = f[0];
  m.model = f[1];
  m.tensorParallelSize = number<int>(f[2], where, "tp");
  m.op = f[3];
  m.seqs = number<int>(f[4], where, "seqs");
  m.tokens = number<int>(f[5], where, "tokens");
  m.context = number<int>(f[6], where, "context");
  m.measuredMs = number<double>(f[7], where, "measured_ms");
  check(opTime(OpTimes{}, m.op) != nullptr, [&] { return where + ": op '" + m.op + "' is not an operator of simulate-step"; });
  check(m.tensorParallelSize >= 1 && m.seqs >= 1 && m.tokens >= m.seqs && m.tokens % m.seqs == 0 && m.context >= 0,
        [&] { return where + ": expected tp >= 1, seqs >= 1 and tokens a multiple of seqs, context >= 0"; });
  check(m.measuredMs > 0, [&] { return where + ": measured_ms " + f[7] + ", expected a time > 0"; });
  return m;
}

}  // namespace

StepShape GpuMeasurement::step() const {
  return {std::vector<StepSeq>(seqs, StepSeq{tokens / seqs, context, true})};
}

std::vector<GpuMeasurement> readGpuMeasurements(const std::string& path) {
  std::ifstream in(path);
  check(bool(in), path + ": cannot open");
  std::vector<GpuMeasurement> rows;
  std::string line;
  bool header = false;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    const std::string where = path + ":" + std::to_string(n);
    if (!header) {
      check(line == kHeader, where + ": header '" + line + "', expected '" + kHeader + "'");
      header = true;
      continue;
    }
    rows.push_back(parseRow(splitFields(line), where));
  }
  check(header, path + ": no header line '" + std::string(kHeader) + "'");
  return rows;
}

double predictMs(const GpuMeasurement& row, const SimModel& model, const HardwareProfile& hw) {
  return *opTime(predictStep(model, hw, row.step()), row.op);
}

MeasuredSet loadMeasuredSet(const std::vector<std::string>& csvPaths, const std::string& modelDir) {
  MeasuredSet set;
  std::map<std::string, ModelConfig> configs;
  for (const std::string& path : csvPaths)
    for (GpuMeasurement& row : readGpuMeasurements(path)) {
      auto it = configs.find(row.model);
      if (it == configs.end())
        it = configs.emplace(row.model, loadModelConfig(modelDir + "/" + row.model + "/config.json")).first;
      set.models.push_back(makeSimModel(it->second, row.tensorParallelSize, "bfloat16", "bfloat16"));
      set.rows.push_back(std::move(row));
    }
  return set;
}

ErrorStats errorStats(std::vector<double> e) {
  ErrorStats s;
  s.n = e.size();
  if (e.empty()) return s;
  // The nearest-rank quantiles: the value below which that fraction of the errors lies.
  auto quantile = [&](double q) {
    const size_t k = std::min(e.size() - 1, size_t(std::ceil(q * double(e.size()))) - (q > 0 ? 1 : 0));
    std::nth_element(e.begin(), e.begin() + long(k), e.end());
    return e[k];
  };
  s.median = quantile(0.5);
  s.p90 = quantile(0.9);
  return s;
}

HardwareProfile datasheetRoofline(HardwareProfile hw) {
  hw.gemmEfficiency = hw.memoryEfficiency = hw.attentionEfficiency = hw.kvMemoryEfficiency = 1;
  hw.allReduceEfficiency = 1;
  hw.gemmHalfRows = 0;
  hw.gemmLaunchUs = hw.gemmTailUs = hw.attentionFloorUs = hw.interconnectLatencyUs = 0;
  return hw;
}

}  // namespace lwb::sim
