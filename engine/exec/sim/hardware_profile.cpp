#include "engine/exec/sim/hardware_profile.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/config/knobs.h"
#include "engine/model/model.h"

namespace lwb::sim {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

double positive(const json& j, const std::string& key, const std::string& fileName, bool zeroAllowed = false) {
  check(j.contains(key), fileName + ": missing field '" + key + "' (a number)");
  check(j[key].is_number(), [&] { return fileName + ": field '" + key + "' is " + j[key].dump() + ", expected a number"; });
  const double v = j[key].get<double>();
  check(zeroAllowed ? v >= 0 : v > 0, [&] {
    return fileName + ": field '" + key + "' is " + j[key].dump() + ", expected a number " + (zeroAllowed ? ">= 0" : "> 0");
  });
  return v;
}

double fraction(const json& j, const std::string& key, const std::string& fileName) {
  const double v = positive(j, key, fileName);
  check(v <= 1, [&] { return fileName + ": field '" + key + "' is " + j[key].dump() + ", expected a fraction in (0, 1]"; });
  return v;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  check(bool(in), path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

HardwareProfile parseHardwareProfile(const std::string& jsonText, const std::string& fileName) {
  json j;
  try {
    j = parseJson(jsonText);
  } catch (const json::exception& e) {
    throw Error(fileName + ": not valid JSON: " + e.what());
  }
  check(j.is_object(), fileName + ": expected a JSON object");
  HardwareProfile p;
  check(j.contains("name") && j["name"].is_string(), fileName + ": missing field 'name' (a string)");
  p.name = j["name"].get<std::string>();
  p.description = j.value("description", p.name);
  p.source = fileName;
  p.kind = j.value("kind", std::string("gpu"));
  check(p.kind == "gpu" || p.kind == "cpu", fileName + ": field 'kind' is '" + p.kind + "', expected gpu or cpu");
  p.memoryGiB = positive(j, "memory_gib", fileName);
  p.memoryBandwidthGBs = positive(j, "memory_bandwidth_gbs", fileName);
  p.bf16Tflops = positive(j, "bf16_tflops", fileName);
  p.fp8Tflops = positive(j, "fp8_tflops", fileName, true);
  p.interconnectGBs = positive(j, "interconnect_gbs", fileName);
  p.interconnectLatencyUs = positive(j, "interconnect_latency_us", fileName, true);
  check(j.contains("efficiency") && j["efficiency"].is_object(), fileName + ": missing object 'efficiency'");
  const json& e = j["efficiency"];
  const std::string where = fileName + ": efficiency";
  p.gemmEfficiency = fraction(e, "gemm", where);
  p.gemmHalfRows = positive(e, "gemm_half_rows", where);
  p.memoryEfficiency = fraction(e, "memory", where);
  p.gemmLaunchUs = positive(e, "gemm_launch_us", where, true);
  p.gemmTailUs = positive(e, "gemm_tail_us", where, true);
  p.attentionEfficiency = fraction(e, "attention", where);
  p.kvMemoryEfficiency = fraction(e, "kv_memory", where);
  p.attentionFloorUs = positive(e, "attention_floor_us", where, true);
  p.allReduceEfficiency = fraction(e, "all_reduce", where);
  p.stepOverheadUs = positive(e, "step_overhead_us", where, true);
  p.launchUsPerLayer = positive(e, "launch_us_per_layer", where, true);
  p.graphUsPerLayer = positive(e, "graph_us_per_layer", where, true);
  p.samplingUsPerRow = positive(e, "sampling_us_per_row", where, true);
  if (j.contains("sources") && j["sources"].is_array())
    for (const auto& s : j["sources"])
      if (s.is_string()) p.citations.push_back(s.get<std::string>());
  return p;
}

std::string hardwareProfileJson(const HardwareProfile& p, const std::string& note) {
  nlohmann::ordered_json j;
  j["name"] = p.name;
  j["description"] = p.description;
  j["kind"] = p.kind;
  j["memory_gib"] = p.memoryGiB;
  j["memory_bandwidth_gbs"] = p.memoryBandwidthGBs;
  j["bf16_tflops"] = p.bf16Tflops;
  j["fp8_tflops"] = p.fp8Tflops;
  j["interconnect_gbs"] = p.interconnectGBs;
  j["interconnect_latency_us"] = p.interconnectLatencyUs;
  j["sources"] = p.citations;
  nlohmann::ordered_json e;
  e["gemm"] = p.gemmEfficiency;
  e["gemm_half_rows"] = p.gemmHalfRows;
  e["memory"] = p.memoryEfficiency;
  e["gemm_launch_us"] = p.gemmLaunchUs;
  e["gemm_tail_us"] = p.gemmTailUs;
  e["attention"] = p.attentionEfficiency;
  e["kv_memory"] = p.kvMemoryEfficiency;
  e["attention_floor_us"] = p.attentionFloorUs;
  e["all_reduce"] = p.allReduceEfficiency;
  e["step_overhead_us"] = p.stepOverheadUs;
  e["launch_us_per_layer"] = p.launchUsPerLayer;
  e["graph_us_per_layer"] = p.graphUsPerLayer;
  e["sampling_us_per_row"] = p.samplingUsPerRow;
  e["note"] = note;
  j["efficiency"] = e;
  return j.dump(2) + "\n";
}

std::string hardwarePresetDir() {
  return (fs::path(executableDir()) / ".." / LWB_SHARE_SUBDIR / "hardware").lexically_normal().string();
}

std::string simModelDir() {
  return (fs::path(executableDir()) / ".." / LWB_SHARE_SUBDIR / "sim-models").lexically_normal().string();
}

std::vector<std::string> simModelNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(simModelDir(), ec))
    if (fs::is_regular_file(entry.path() / "config.json")) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> hardwarePresetNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(hardwarePresetDir(), ec))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string hardwarePresetList() {
  std::string out;
  for (const std::string& n : hardwarePresetNames()) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none found in " + hardwarePresetDir() : out;
}

HardwareProfile loadHardwareProfile(const std::string& nameOrPath) {
  if (fs::is_regular_file(nameOrPath)) return parseHardwareProfile(readFile(nameOrPath), nameOrPath);
  const fs::path preset = fs::path(hardwarePresetDir()) / (nameOrPath + ".json");
  check(fs::is_regular_file(preset),
        std::string(knob::kSimHardware) + " " + nameOrPath + ": not a preset (" + hardwarePresetList() + ") nor an existing profile file");
  HardwareProfile p = parseHardwareProfile(readFile(preset.string()), preset.string());
  check(p.name == nameOrPath, preset.string() + ": its 'name' is '" + p.name + "', expected '" + nameOrPath + "' (the file's name)");
  return p;
}

}  // namespace lwb::sim
