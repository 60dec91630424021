#!/usr/bin/env bash
# The test command: installs what is missing, builds everything (the CUDA plugin too
# when the toolkit is present, for one architecture) and runs the whole Qt Test suite;
# then the same tests again under ASan+UBSan (clang) and each fuzz target for 15 s.
# CI runs exactly this (.ci/run).
# Usage: tools/test.sh [--quick]   (--quick: only the main build and its tests)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
jobs=$(nproc)
launcher=()
if command -v ccache >/dev/null; then
  # Reuses objects across clones and runs on the same machine (paths taken relative to
  # the checkout); a machine without ccache simply builds everything.
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cuda_args=(-DLLM_WORKBENCH_CUDA=AUTO)
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$nvcc" ]; then
  # One architecture keeps CI's compile short; the plugin is still built and packaged.
  cuda_args+=(-DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER="$nvcc")
fi

echo "== layer check: no include runs up the house's layer order (README, Architecture) [$((SECONDS / 60)) min]"
python3 tools/check-layers.py

echo "== main build (Release) and tests [$((SECONDS / 60)) min]"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}" "${launcher[@]}"
cmake --build build -j"$jobs"
echo "== no kernel code compiled for one ISA linked in for another (tools/check-isa-symbols.py) [$((SECONDS / 60)) min]"
python3 tools/check-isa-symbols.py build
echo "== Release tests [$((SECONDS / 60)) min]"
# Two tests at a time: most of them wait on sockets, subprocesses or timers much of the
# time (every server binds port 0). The ASan suite on 2 cores: 339 s, about 630 s with -j1.
ctest --test-dir build --output-on-failure -j2 --timeout 1200
[ "${1:-}" = "--quick" ] && exit 0

echo "== ASan+UBSan build (clang): the whole suite again, then the libFuzzer targets [$((SECONDS / 60)) min]"
# tools/fuzz.sh configures build-asan with the sanitizers and the fuzz targets.
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLLM_WORKBENCH_SANITIZE=address,undefined -DLLM_WORKBENCH_FUZZ=ON -DLLM_WORKBENCH_GUI=ON \
  -DLLM_WORKBENCH_CUDA=OFF -DLLM_WORKBENCH_BENCH=OFF "${launcher[@]}"
cmake --build build-asan -j"$jobs"
echo "== ASan+UBSan tests [$((SECONDS / 60)) min]"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j2 --timeout 1800 -E tst_package
echo "== fuzz targets [$((SECONDS / 60)) min]"
tools/fuzz.sh "${LWB_FUZZ_SECONDS:-15}" build-asan
echo "== done in $((SECONDS / 60)) min $((SECONDS % 60)) s"
