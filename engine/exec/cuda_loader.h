#pragma once
// The one CUDA loader. Finds and dlopen()s the backend plugin (liblwb_cuda.so), checks
// its ABI and resolves its C entry points — inline here and free of CUDA and of the
// engine library, so the standalone device check uses the same search — and, in
// lwb_engine (cuda_loader.cpp), wraps the plugin's executor for the engine. The main
// program therefore runs on machines without NVIDIA software. The library stays loaded
// for the life of the process (CUDA's static runtime does not like being unloaded).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/exec/cuda/plugin_abi.h"
#include "engine/exec/executor.h"

namespace lwb::cudaplugin {

struct Plugin {
  std::string path;
  LwbCudaProbeFn probe = nullptr;
  LwbCudaCreateFn create = nullptr;
  LwbCudaDestroyFn destroy = nullptr;
  LwbCudaTestKernelFn testKernel = nullptr;  // optional: kernel parity tests
  LwbCudaPeaksFn peaks = nullptr;            // optional: benchmark ceilings
};

inline std::string selfExeDir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

// LWB_CUDA_PLUGIN alone when set; else the build tree (<exe>/../lib, shared by bin/,
// tests/ and bench/) and the installed layouts (<prefix>/<libdir>/llm-workbench).
inline std::vector<std::string> pluginCandidates() {
  if (const char* env = std::getenv("LWB_CUDA_PLUGIN"); env && *env) return {env};
  const std::string up = selfExeDir() + "/..";
  std::vector<std::string> dirs = {up + "/lib"};
#ifdef LWB_INSTALL_LIBDIR
  dirs.push_back(up + "/" LWB_INSTALL_LIBDIR "/llm-workbench");
#endif
  for (const char* d : {"lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"})
    dirs.push_back(up + "/" + d + "/llm-workbench");
  std::vector<std::string> out;
  for (const std::string& d : dirs) out.push_back(std::filesystem::path(d + "/liblwb_cuda.so").lexically_normal());
  return out;
}

template <typename Fn>
bool resolve(void* handle, const char* name, Fn* fn, std::string* reason, const std::string& path) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (!*fn && reason) *reason = path + ": missing symbol " + name + " (plugin from another version?)";
  return *fn != nullptr;
}

// Opens the first candidate that exists; checks the ABI version and layout hash, so a
// stale plugin is refused with a message instead of called into. Not the device: call
// plugin.probe for that. Thread-safe; the result is computed once per process.
inline const Plugin* openPlugin(std::string* reason) {
  static std::mutex mutex;
  static Plugin plugin;
  static std::string failure;
  static bool tried = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (tried) {
    if (reason && !plugin.probe) *reason = failure;
    return plugin.probe ? &plugin : nullptr;
  }
  tried = true;
  const auto candidates = pluginCandidates();
  std::string path;
  for (const std::string& c : candidates)
    if (std::filesystem::exists(c)) { path = c; break; }
  if (path.empty()) {
    failure = "CUDA plugin not built (looked in:";
    for (const std::string& c : candidates) failure += " " + c;
    failure += ")";
    if (reason) *reason = failure;
    return nullptr;
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    failure = "cannot load the CUDA plugin " + path + ": " + (err ? err : "unknown dlopen error");
    if (reason) *reason = failure;
    return nullptr;
  }
  Plugin p;
  p.path = path;
  LwbCudaAbiVersionFn version = nullptr;
  if (!resolve(handle, "lwb_cuda_abi_version", &version, &failure, path) ||
      !resolve(handle, "lwb_cuda_probe", &p.probe, &failure, path) ||
      !resolve(handle, "lwb_cuda_create_executor", &p.create, &failure, path) ||
      !resolve(handle, "lwb_cuda_destroy_executor", &p.destroy, &failure, path)) {
    if (reason) *reason = failure;
    p.probe = nullptr;
    return nullptr;
  }
  if (version() != LWB_CUDA_ABI_VERSION) {
    failure = path + ": plugin ABI version " + std::to_string(version()) + ", this program needs " +
              std::to_string(LWB_CUDA_ABI_VERSION) + " (a stale plugin: rebuild or reinstall it with the program)";
    if (reason) *reason = failure;
    return nullptr;
  }
  LwbCudaLayoutHashFn layoutHash = nullptr;
  if (!resolve(handle, "lwb_cuda_layout_hash", &layoutHash, &failure, path)) {
    if (reason) *reason = failure;
    return nullptr;
  }
  if (layoutHash() != lwbCudaLayoutHash()) {
    failure = path + ": plugin built from other headers (layout hash " + std::to_string(layoutHash()) +
              ", this program " + std::to_string(lwbCudaLayoutHash()) +
              "): a stale plugin; rebuild or reinstall it with the program";
    if (reason) *reason = failure;
    return nullptr;
  }
  p.testKernel = reinterpret_cast<LwbCudaTestKernelFn>(dlsym(handle, "lwb_cuda_test_kernel"));
  p.peaks = reinterpret_cast<LwbCudaPeaksFn>(dlsym(handle, "lwb_cuda_measure_peaks"));
  plugin = p;
  return &plugin;
}

// The plugin, probed for `deviceIndex`: nullptr with the reason when unusable here.
inline const Plugin* openUsablePlugin(int deviceIndex, std::string* reason) {
  const Plugin* p = openPlugin(reason);
  if (!p) return nullptr;
  char message[512] = {0};
  if (p->probe(deviceIndex, message, sizeof message) <= 0) {
    if (reason) *reason = message;
    return nullptr;
  }
  return p;
}

}  // namespace lwb::cudaplugin

namespace lwb {

// The engine's CUDA executor (cuda_loader.cpp, part of lwb_engine): nullptr with
// `reason` set ("plugin not built", "no CUDA driver", "no CUDA device", a stale plugin,
// a model shape the kernels do not support ...) when the backend cannot be used here.
// Throws lwb::Error when the device exists but creating the executor fails (out of
// memory, ...).
std::unique_ptr<Executor> tryCreateCudaExecutor(std::shared_ptr<const Model> model,
                                                const ExecutorOptions& options, std::string* reason);

}  // namespace lwb
