#pragma once
// What the CPU executor reports about the machine: /proc/cpuinfo and /proc/meminfo.
#include <cstddef>
#include <string>

namespace lwb {

struct MemoryInfo {
  size_t total = 0;      // MemTotal, bytes
  size_t available = 0;  // MemAvailable, bytes
};

// "model name" of the first processor in /proc/cpuinfo ("CPU" when unknown).
std::string cpuModelName();
MemoryInfo readMemoryInfo();

}  // namespace lwb
