#!/usr/bin/env bash
# The test command: installs what is missing; builds the programs (the CUDA plugin too
# when the toolkit is present, for one architecture) with the tests whose outcome depends
# on how the code was optimised (kernels, executors, sampling, the programs and package
# end to end: LLM_WORKBENCH_TEST_SET=codegen) and runs them; then builds everything with
# clang under ASan+UBSan and runs the whole Qt Test suite there, with each fuzz target
# running 15 s alongside. CI runs exactly this (.ci/run).
# Usage: tools/test.sh [--quick]   (--quick: only the main build, with the whole suite)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
jobs=$(nproc)
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
else
  launcher=()
fi

echo "== layer check: every include names its own layer or one below it; no cycle; the docs show the build's layers [$((SECONDS / 60)) min]"
python3 tools/check-layers.py --self-test
python3 tools/check-layers.py --check-docs
echo "== source text: no session numbers, benchmark machines or load averages in the sources (tools/check-source-text.py) [$((SECONDS / 60)) min]"
python3 tools/check-source-text.py --self-test
python3 tools/check-source-text.py
echo "== nlohmann json's parser compiled once: json::parse only in engine/common/json.cpp [$((SECONDS / 60)) min]"
if grep -rnE '(json|ojson)::parse\(' --include=*.cpp --include=*.h engine wire remote server ui app lessons tests fuzz bench |
    grep -v '^engine/common/json.cpp:'; then
  echo "parse JSON with lwb::parseJson & co. (engine/common/json.h)" >&2
  exit 1
fi

quick=false
[ "${1:-}" = "--quick" ] && quick=true
test_set=codegen
$quick && test_set=all
echo "== main build (Release) and its tests ($test_set) [$((SECONDS / 60)) min]"
tools/configure.sh build -DLLM_WORKBENCH_TEST_SET=$test_set
cmake --build build -j"$jobs"
echo "== the run command reuses this build: configuring again leaves nothing to rebuild [$((SECONDS / 60)) min]"
tools/configure.sh build -DLLM_WORKBENCH_TEST_SET=$test_set >/dev/null
if ninja -C build | grep -E "Building|Linking"; then
  echo "a second configure of build/ made the objects above out of date; tools/run.sh would rebuild them" >&2
  exit 1
fi
echo "== no kernel code compiled for one ISA linked in for another (tools/check-isa-symbols.py) [$((SECONDS / 60)) min]"
python3 tools/check-isa-symbols.py build
echo "== Release tests [$((SECONDS / 60)) min]"
# Two tests at a time: most of them wait on sockets, subprocesses or timers much of the
# time (every server binds port 0), so a second one uses the CPU those waits leave.
ctest --test-dir build --output-on-failure -j2 --timeout 1200
$quick && exit 0

echo "== ASan+UBSan build (clang): the whole suite again, then the libFuzzer targets [$((SECONDS / 60)) min]"
# tools/fuzz.sh configures build-asan with the sanitizers and the fuzz targets.
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLLM_WORKBENCH_SANITIZE=address,undefined -DLLM_WORKBENCH_FUZZ=ON -DLLM_WORKBENCH_GUI=ON \
  -DLLM_WORKBENCH_CUDA=OFF -DLLM_WORKBENCH_BENCH=OFF "${launcher[@]}"
cmake --build build-asan -j"$jobs"
echo "== ASan+UBSan tests, the fuzz targets alongside [$((SECONDS / 60)) min]"
# The fuzzers (one process at a time) use the CPU that the tests leave while they wait.
tools/fuzz.sh "${LWB_FUZZ_SECONDS:-15}" build-asan >build-asan/fuzz-summary.log 2>&1 &
fuzz_pid=$!
tests_status=0
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j2 --timeout 1800 -E tst_package || tests_status=$?
fuzz_status=0
wait "$fuzz_pid" || fuzz_status=$?
echo "== fuzz targets [$((SECONDS / 60)) min]"
cat build-asan/fuzz-summary.log
echo "== done in $((SECONDS / 60)) min $((SECONDS % 60)) s"
[ "$tests_status" = 0 ] && [ "$fuzz_status" = 0 ]
