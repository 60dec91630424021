#pragma once
// What the CPU executor reports about the machine: /proc/cpuinfo, /proc/meminfo and the
// L3 cache's size.
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

// The L3 cache's size in bytes (0 when the system does not say): the kernel's view first
// (sysfs, what lscpu prints), since glibc's sysconf decodes CPUID itself and on a KVM guest
// of an AMD EPYC said 256 MiB for a 32 MiB L3.
size_t l3CacheBytes();

}  // namespace lwb
