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
// (sysfs, what lscpu prints), since glibc's sysconf decodes CPUID itself, and in a KVM
// guest CPUID's cache leaves can describe far more L3 than the guest has.
size_t l3CacheBytes();

}  // namespace lwb
