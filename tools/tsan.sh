#!/usr/bin/env bash
# Builds the engine-thread tests with ThreadSanitizer (gcc) and runs them.
# Usage: tools/tsan.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-tsan}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLM_WORKBENCH_SANITIZE=thread \
  -DLLM_WORKBENCH_GUI=OFF -DLLM_WORKBENCH_CUDA=OFF -DLLM_WORKBENCH_BENCH=OFF >/dev/null
tests=(tst_engine_loop tst_overload tst_engine tst_engine_requests tst_engine_faults tst_cpu_kernels)
cmake --build "$build" -j"$(nproc)" --target "${tests[@]}"
export TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp halt_on_error=1 second_deadlock_stack=1"
for t in "${tests[@]}"; do
  echo "== $t under TSan"
  "$build/tests/$t"
done
