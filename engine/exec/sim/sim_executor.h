#pragma once
// The sim backend's executor: runs no weights. Each forward pass returns the cost model's
// predicted time of the step (cost_model.h) on the simulated hardware, and one token per
// logit row chosen without logits (deterministic from the request and position, never a
// stop token, so requests run to their output length as with ignore_eos). The engine above
// it is the real one: it advances its virtual clock by the predicted time. The KV pool is
// sized as vLLM sizes it on the simulated device (kv_pool.h); for a CPU profile (one that
// `llm-workbench calibrate` wrote on a CPU) as the CPU backend sizes it.
#include <memory>

#include "engine/exec/executor.h"
#include "engine/exec/sim/cost_model.h"
#include "engine/exec/sim/hardware_profile.h"

namespace lwb {

// Throws lwb::Error naming the knob and the value: an unknown preset, a profile file at
// fault, tensor_parallel_size that does not divide the heads, quantized weights.
std::unique_ptr<Executor> createSimExecutor(std::shared_ptr<const Model> model, const ExecutorOptions& options);

// The model as the sim backend prices it for `options` on `hw`: tensor_parallel_size
// ranks, the KV cache in the dtype the simulated device keeps (auto: 16 bits on a GPU,
// float32 on a CPU profile, as the CPU backend keeps it). Throws as makeSimModel.
sim::SimModel simModelFor(const ModelConfig& config, const ExecutorOptions& options, const sim::HardwareProfile& hw);
// The device a simulated engine reports (vLLM's batch defaults follow it).
DeviceInfo simulatedDeviceInfo(const sim::HardwareProfile& hw, const sim::SimModel& model);

// The predicted cost of one batch as the sim executor prices it (exposed for the
// calibration's accuracy check and tests).
sim::StepShape stepShapeOf(const ForwardBatch& batch);

}  // namespace lwb
