#pragma once
// The simulator's cost model: the predicted time of one engine step of a Llama-family
// model on one HardwareProfile, per operator, for one tensor-parallel rank (the ranks run
// in parallel, so a rank's time is the step's). No weights are run.
//
// Every GEMM (the q/k/v, o, gate/up and down projections of each layer, the LM head) is a
// roofline with efficiencies and a fixed cost per kernel on each side:
//   t = max(gemm_tail_us + FLOPs / (peak × gemm × M / (M + gemm_half_rows)),
//           gemm_launch_us + bytes / (bandwidth × memory))
// (a kernel that streams its weights pays its launch; one bound by compute, the fill and
// drain of its pipeline: two fitted constants),
// with FLOPs = 2·M·N·K and bytes = the weight N·K (at the weights' bytes per parameter)
// plus the activations read and written (M·K + M·N, 16-bit). M is the step's rows (its
// tokens; for the LM head, the rows that need logits), N and K the rank's shard.
// Attention, per layer, one kernel for the step's prefill chunks and one for its decode
// rows, each attention_floor_us plus:
//   prefill: max(FLOPs / (peak × attention), KV bytes / (bandwidth × kv_memory)), with
//            FLOPs = 4 · heads · head_dim · new · (context + new): the paged prefill
//            kernels measured run no faster for the causal mask, so its half is not saved;
//   decode:  the KV bytes the rows read / (bandwidth × kv_memory);
// KV bytes = 2 (K and V) · kv_heads · head_dim · (context + new) · KV dtype bytes per
// sequence. With tensor parallelism N > 1, each layer adds two all-reduces of the step's
// activations (M × hidden × 2 bytes), each a ring:
//   interconnect_latency_us + 2 (N − 1) / N · bytes / (interconnect bandwidth × all_reduce).
// KV heads are replicated when N exceeds them (as vLLM does).
// Overhead: step_overhead_us, plus per layer launch_us_per_layer for a step run eagerly
// or graph_us_per_layer for a decode-only step (replayed as a CUDA graph). Sampling:
// sampling_us_per_row × rows × vocab / 128k.
// build/bench/bench_sim_fit fits these parameters to published per-operator GPU
// measurements (bench/sim/gpu-measurements.csv); build/bench/bench_sim_accuracy prints
// the error.
#include <string>
#include <vector>

#include "engine/exec/sim/hardware_profile.h"
#include "engine/model/model_config.h"

namespace lwb::sim {

// The model as one rank sees it.
struct SimModel {
  ModelConfig config;
  int tensorParallelSize = 1;
  double weightBytesPerParam = 2;  // bf16 / fp16; 1 for fp8 weights
  double kvBytesPerElement = 2;    // the KV cache's dtype
  // Per rank, after sharding: KV heads are replicated when tensorParallelSize exceeds them.
  int headsPerRank() const;
  int kvHeadsPerRank() const;
};

// Checks that tensorParallelSize divides num_attention_heads (and the KV heads, or is a
// multiple of them); throws lwb::Error naming the field and the values.
SimModel makeSimModel(const ModelConfig& config, int tensorParallelSize, const std::string& weightDtype,
                      const std::string& kvCacheDtype);

// One step's work: the sequences it schedules.
struct StepSeq {
  int newTokens = 1;    // tokens computed this step (1 for a decode row)
  int context = 0;      // tokens already in the KV cache before them
  bool needLogits = true;
};
struct StepShape {
  std::vector<StepSeq> seqs;
  int numTokens() const;
  bool decodeOnly() const;  // every sequence computes exactly one token
};

// Milliseconds per step for one rank, the layer ops summed over the layers.
struct OpTimes {
  double qkvProj = 0, oProj = 0, mlpGateUp = 0, mlpDown = 0, attention = 0, lmHead = 0;
  double allReduce = 0, overhead = 0, sampling = 0;
  double total() const;
};

// The operators by the names simulate-step prints (and gpu-measurements.csv uses), in order.
struct OpName {
  const char* name;
  double OpTimes::*time;
};
const std::vector<OpName>& opNames();
// The field of `op`, or nullptr when no operator has that name.
const double* opTime(const OpTimes& times, const std::string& op);

OpTimes predictStep(const SimModel& model, const HardwareProfile& hw, const StepShape& step);

// One GEMM, in seconds (exposed for tests).
double gemmSeconds(const HardwareProfile& hw, double m, double n, double k, double weightBytesPerParam,
                   double peakTflops);

}  // namespace lwb::sim
