#pragma once
// The bundled model (austen-chat-11m, put in the build tree by lwb_resources) that the
// server-side and remote tests serve, and the engine configuration they serve it with.
#include <memory>

#include "engine/config/engine_config.h"
#include "engine/model/model.h"

namespace lwb::test {

inline constexpr const char* kBundledModelMissing = "the bundled model is missing from the build tree";

// Loaded on first use and shared by every test of the executable (a loaded model is
// immutable); nullptr when the build tree has none, which initTestCase reports with
// kBundledModelMissing.
std::shared_ptr<const Model> bundledModel();

// CPU, one thread: the test machines are shared.
EngineConfig cpuTestConfig();

}  // namespace lwb::test
