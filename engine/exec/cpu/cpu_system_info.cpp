#include "engine/exec/cpu/cpu_system_info.h"

#include <fstream>
#include <sstream>

namespace lwb {

std::string cpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    const size_t start = line.find_first_not_of(" \t", colon + 1);
    if (start != std::string::npos) return line.substr(start);
  }
  return "CPU";
}

MemoryInfo readMemoryInfo() {
  MemoryInfo info;
  std::ifstream in("/proc/meminfo");
  std::string key;
  size_t kib = 0;
  std::string unit;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemTotal:") info.total = kib * 1024;
    else if (key == "MemAvailable:") info.available = kib * 1024;
  }
  return info;
}

}  // namespace lwb
