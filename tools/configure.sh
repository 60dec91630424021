#!/usr/bin/env bash
# Configures the main build folder the one way both README commands (tools/run.sh and
# tools/test.sh) use, so whichever runs second reuses the first one's objects.
# Usage: tools/configure.sh [BUILD_DIR [CMAKE_ARGS...]]   (default: build; later -D wins)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DLLM_WORKBENCH_TEST_SET=codegen -DLLM_WORKBENCH_CUDA=AUTO)
if command -v ccache >/dev/null; then
  # Reuses objects across clones and runs on the same machine (paths taken relative to
  # the checkout); a machine without ccache simply builds everything.
  args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$nvcc" ]; then
  # One architecture keeps CI's compile short; the plugin is still built and packaged.
  args+=(-DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER="$nvcc")
fi
cmake -S . -B "$dir" "${args[@]}" "$@"
