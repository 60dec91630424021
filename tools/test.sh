#!/usr/bin/env bash
# The test command: installs what is missing, builds everything (the CUDA plugin too
# when the toolkit is present, for one architecture) and runs the whole Qt Test suite.
# CI runs exactly this (.ci/run). Usage: tools/test.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
tools/install-deps.sh
jobs=$(nproc)
cuda_args=(-DLLM_WORKBENCH_CUDA=AUTO)
if [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null; then
  # One architecture keeps CI's compile short; the plugin is still built and loaded.
  cuda_args+=(-DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}"
cmake --build "$build" -j"$jobs"
ctest --test-dir "$build" --output-on-failure -j1 --timeout 1200
