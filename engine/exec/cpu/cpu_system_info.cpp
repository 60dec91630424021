#include "engine/exec/cpu/cpu_system_info.h"

#include <unistd.h>

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

size_t l3CacheBytes() {
  const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index3/";
  int level = 0;
  std::ifstream(dir + "level") >> level;
  size_t kib = 0;
  char unit = 0;  // the file says e.g. "32768K"
  if (level == 3 && (std::ifstream(dir + "size") >> kib >> unit) && unit == 'K' && kib > 0) return kib * 1024;
#if defined(_SC_LEVEL3_CACHE_SIZE)
  const long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return v > 0 ? size_t(v) : 0;
#else
  return 0;
#endif
}

}  // namespace lwb
