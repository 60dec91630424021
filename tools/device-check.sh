#!/usr/bin/env bash
# The CUDA backend's device check, for a fresh GPU machine (root, no network, the repo
# copied there; packages may be missing). Configures for ONE architecture (default 90,
# H100/H200), builds only what it needs with all cores, runs the CUDA tests when the
# Qt Test suite can be built, then bench_cuda: parity (CPU / fp32 reference vs CUDA)
# and the benchmark, printed as ONE table. Logs go to $OUT (or build-devcheck/logs).
#   tools/device-check.sh [--arch 90] [--jobs 16]   (LWB_DEVCHECK_STANDALONE=1 skips the full build)
# Exit status: 0 all parity checks and tests passed, 1 a check failed, 2 setup failed.
set -uo pipefail
cd "$(dirname "$0")/.."
ARCH=90
JOBS=$(nproc 2>/dev/null || echo 8)
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) ARCH=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    *) echo "usage: $0 [--arch N] [--jobs N]" >&2; exit 2 ;;
  esac
done
LOGS=${OUT:-build-devcheck/logs}
mkdir -p "$LOGS"
log() { echo "device-check: $*" | tee -a "$LOGS/summary.txt"; }
START=$(date +%s)

# ---- tools --------------------------------------------------------------------------
export PATH="$PATH:/usr/local/cuda/bin"
for tool in cmake nvcc c++; do
  command -v "$tool" >/dev/null || { log "missing $tool: cannot build"; exit 2; }
done
GEN=(-G "Unix Makefiles"); command -v ninja >/dev/null && GEN=(-G Ninja)
log "$(nvcc --version | grep -i release); $(cmake --version | head -1); generator ${GEN[1]}"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
  | tee -a "$LOGS/summary.txt"

# ---- which build: the full project (tests too) when its dependencies are there -------------
have_pc() { command -v pkg-config >/dev/null && pkg-config --exists "$1"; }
full=1
[ "${LWB_DEVCHECK_STANDALONE:-0}" = 1 ] && { log "standalone build forced"; full=0; }
have_pc sentencepiece || { log "no sentencepiece (pkg-config)"; full=0; }
have_pc libxxhash || { log "no libxxhash (pkg-config)"; full=0; }
[ -e /usr/include/nlohmann/json.hpp ] || [ -e /usr/local/include/nlohmann/json.hpp ] || { log "no nlohmann-json"; full=0; }
qt=0
for d in /usr/lib/*/cmake/Qt6Test /usr/lib/cmake/Qt6Test /usr/local/lib/cmake/Qt6Test /opt/qt*/*/lib/cmake/Qt6Test; do
  [ -e "$d" ] && qt=1
done
[ $qt = 1 ] || { log "no Qt6 Test: the Qt test executables cannot be built"; full=0; }

status=0
if [ $full = 1 ]; then
  B=build-devcheck/full
  log "full project build (GUI off) in $B"
  cmake -S . -B "$B" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DLLM_WORKBENCH_GUI=OFF -DLLM_WORKBENCH_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCH" >"$LOGS/configure.log" 2>&1 || { log "configure failed (configure.log)"; full=0; }
fi
if [ $full = 1 ]; then
  if cmake --build "$B" -j "$JOBS" --target lwb_cuda tst_cuda_kernels tst_cuda_executor bench_cuda lwb_resources \
      >"$LOGS/build.log" 2>&1; then
    for t in tst_cuda_kernels tst_cuda_executor; do
      if "$B/tests/$t" >"$LOGS/$t.log" 2>&1; then log "$t: $(grep '^Totals' "$LOGS/$t.log")"
      else log "$t FAILED: $(grep -E '^(FAIL|Totals)' "$LOGS/$t.log" | head -5 | tr '\n' ' ')"; status=1; fi
    done
    BENCH="$B/bench/bench_cuda"
  else
    log "full build failed (build.log); trying the standalone build"; full=0
  fi
fi
if [ $full = 0 ]; then
  B=build-devcheck/standalone
  log "standalone build (plugin + bench_cuda, no Qt/tests) in $B"
  cmake -S engine/exec/cuda/standalone -B "$B" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCH" >"$LOGS/configure-standalone.log" 2>&1 \
    || { log "standalone configure failed (configure-standalone.log)"; tail -20 "$LOGS/configure-standalone.log"; exit 2; }
  cmake --build "$B" -j "$JOBS" >"$LOGS/build-standalone.log" 2>&1 \
    || { log "standalone build failed (build-standalone.log)"; tail -30 "$LOGS/build-standalone.log"; exit 2; }
  BENCH="$B/bench/bench_cuda"
fi
log "built in $(( $(date +%s) - START )) s"

# ---- parity and benchmark ---------------------------------------------------------------
"$BENCH" 2>&1 | tee "$LOGS/bench_cuda.log"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { log "bench_cuda exited $rc"; status=1; }
log "done in $(( $(date +%s) - START )) s, status $status"
exit $status
