#!/usr/bin/env bash
# The CUDA backend's device check, for a fresh GPU machine (root, no network, the repo
# copied there; packages may be missing) on a fixed time budget. Every step runs under
# its own timeout and the whole run under LWB_DEVCHECK_BUDGET seconds (default 280): a
# step with no time left is not started and counts as failed. It configures for ONE
# architecture (read from nvidia-smi's compute_cap, 90 when that fails), builds only what
# it needs with all cores, runs the CUDA tests when the Qt Test suite can be built (a
# skipped test is a failure here: this is the machine where they must run), then
# bench_cuda's kernel parity, model parity and benchmark. Prints ONE summary table;
# all logs go to one folder ($OUT, else build-devcheck/logs).
#   tools/device-check.sh [--arch 90] [--jobs 16]   (LWB_DEVCHECK_STANDALONE=1 skips the full build)
# Exit status: 0 every test and parity check passed (performance rows never fail the
# run), 1 a check failed or did not run, 2 the build could not be set up.
set -uo pipefail
cd "$(dirname "$0")/.."
ARCH=""
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
: >"$LOGS/summary.txt"
BUDGET=${LWB_DEVCHECK_BUDGET:-280}
START=$(date +%s)
log() { echo "device-check: $*" | tee -a "$LOGS/summary.txt"; }
elapsed() { echo $(( $(date +%s) - START )); }

# ---- steps: each one timed, bounded and recorded as a row of the summary -------------
ROWS=()      # "step|status|seconds|detail"
FAILED=0
# run_step NAME CAP_SECONDS GATING(1|0) LOG COMMAND...: runs COMMAND under
# min(CAP, budget left) seconds; returns its exit status (124 on timeout).
run_step() {
  local name=$1 cap=$2 gating=$3 logfile=$4; shift 4
  local left=$(( BUDGET - $(elapsed) ))
  local limit=$(( cap < left ? cap : left ))
  if [ "$limit" -lt 5 ]; then
    ROWS+=("$name|NOT RUN|0|time budget of ${BUDGET}s spent")
    [ "$gating" = 1 ] && FAILED=1
    log "$name: not run, time budget spent"
    return 125
  fi
  local t0=$(date +%s)
  timeout --kill-after=10 "$limit" "$@" >"$LOGS/$logfile" 2>&1
  local rc=$?
  local secs=$(( $(date +%s) - t0 ))
  STEP_RC=$rc STEP_SECS=$secs STEP_LIMIT=$limit
  return $rc
}
# record NAME STATUS GATING DETAIL
record() {
  ROWS+=("$1|$2|${STEP_SECS:-0}|$4")
  [ "$3" = 1 ] && [ "$2" != PASS ] && FAILED=1
  log "$1: $2 (${STEP_SECS:-0} s) $4"
}
timeout_or() { [ "$1" = 124 ] || [ "$1" = 137 ] && echo "TIMEOUT" || echo "$2"; }

print_summary() {
  {
    echo
    printf '%-40s %-8s %6s  %s\n' "step / check" "status" "secs" "detail"
    printf '%s\n' "$(printf '%.0s-' {1..110})"
    local r
    for r in "${ROWS[@]}"; do
      IFS='|' read -r a b c d <<<"$r"
      printf '%-40s %-8s %6s  %s\n' "$a" "$b" "$c" "$d"
    done
    # bench_cuda's own rows (kernels, parity, performance), from its --rows lines.
    local f
    for f in "$LOGS"/bench_*.log; do
      [ -e "$f" ] || continue
      grep '^ROW|' "$f" | while IFS='|' read -r _ check result bound ratio target status; do
        printf '%-40s %-8s %6s  %s\n' "  $check" "${status:--}" "" "$result${bound:+ | $bound}${ratio:+ | $ratio}${target:+ (target $target)}"
      done
    done
    echo
    echo "total $(elapsed) s of a ${BUDGET} s budget; logs in $LOGS; overall: $([ $FAILED = 0 ] && echo PASS || echo FAIL)"
  } | tee -a "$LOGS/summary.txt"
}

# ---- tools ----------------------------------------------------------------------------
export PATH="$PATH:/usr/local/cuda/bin"
for tool in cmake nvcc c++ timeout; do
  command -v "$tool" >/dev/null || { log "missing $tool: cannot build"; exit 2; }
done
cmake_version=$(cmake --version | head -1 | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?')
if ! printf '3.25\n%s\n' "$cmake_version" | sort -V -C; then
  log "CMake $cmake_version is older than 3.25, which this project and its standalone CUDA build need:"
  log "put CMake >= 3.25 first on PATH (a release tarball from cmake.org, unpacked anywhere, works offline) and rerun"
  exit 2
fi
GEN=(-G "Unix Makefiles"); command -v ninja >/dev/null && GEN=(-G Ninja)
log "$(nvcc --version | grep -i release); CMake $cmake_version; generator ${GEN[1]}; $JOBS jobs"
if command -v nvidia-smi >/dev/null; then
  timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader \
    2>&1 | tee -a "$LOGS/summary.txt"
  cap=$(timeout 20 nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  if [ -z "$ARCH" ]; then
    if [[ "$cap" =~ ^[0-9]+$ ]]; then ARCH=$cap; else log "compute_cap unreadable ('$cap'): architecture 90"; fi
  fi
else
  log "no nvidia-smi: no NVIDIA driver here? (the tests will then fail, not skip)"
fi
ARCH=${ARCH:-90}
log "CUDA architecture $ARCH"

# ---- which build: the full project (tests too) when its dependencies are there -------------
have_pc() { command -v pkg-config >/dev/null && pkg-config --exists "$1"; }
full=1
[ "${LWB_DEVCHECK_STANDALONE:-0}" = 1 ] && { log "standalone build forced"; full=0; }
have_pc sentencepiece || { [ $full = 1 ] && log "no sentencepiece (pkg-config)"; full=0; }
have_pc libxxhash || { [ $full = 1 ] && log "no libxxhash (pkg-config)"; full=0; }
[ -e /usr/include/nlohmann/json.hpp ] || [ -e /usr/local/include/nlohmann/json.hpp ] || { [ $full = 1 ] && log "no nlohmann-json"; full=0; }
qt=0
for d in /usr/lib/*/cmake/Qt6Test /usr/lib/cmake/Qt6Test /usr/local/lib/cmake/Qt6Test /opt/qt*/*/lib/cmake/Qt6Test; do
  [ -e "$d" ] && qt=1
done
[ $qt = 1 ] || { [ $full = 1 ] && log "no Qt6 Test: the Qt test executables cannot be built"; full=0; }

TESTS=(tst_cuda_emulation tst_cuda_kernels tst_cuda_executor tst_cuda_engine)
if [ $full = 1 ]; then
  B=build-devcheck/full
  run_step "configure (full)" 90 1 configure.log \
    cmake -S . -B "$B" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DLLM_WORKBENCH_GUI=OFF -DLLM_WORKBENCH_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCH"
  rc=$?
  if [ $rc = 0 ]; then record "configure (full)" PASS 1 ""
  else record "configure (full)" "$(timeout_or $rc FAIL)" 0 "configure.log; trying the standalone build"; full=0; fi
fi
if [ $full = 1 ]; then
  run_step "build (full)" 240 1 build.log \
    cmake --build "$B" -j "$JOBS" --target lwb_cuda "${TESTS[@]}" bench_cuda lwb_resources
  rc=$?
  if [ $rc = 0 ]; then record "build (full)" PASS 1 "arch $ARCH"; BENCH="$B/bench/bench_cuda"
  else record "build (full)" "$(timeout_or $rc FAIL)" 0 "build.log; trying the standalone build"; full=0; fi
fi
if [ $full = 0 ]; then
  B=build-devcheck/standalone
  run_step "configure (standalone)" 90 1 configure-standalone.log \
    cmake -S engine/exec/cuda/standalone -B "$B" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$ARCH"
  rc=$?
  if [ $rc != 0 ]; then
    record "configure (standalone)" "$(timeout_or $rc FAIL)" 1 "configure-standalone.log"
    tail -20 "$LOGS/configure-standalone.log"; print_summary; exit 2
  fi
  record "configure (standalone)" PASS 1 ""
  run_step "build (standalone)" 200 1 build-standalone.log cmake --build "$B" -j "$JOBS"
  rc=$?
  if [ $rc != 0 ]; then
    record "build (standalone)" "$(timeout_or $rc FAIL)" 1 "build-standalone.log"
    tail -30 "$LOGS/build-standalone.log"; print_summary; exit 2
  fi
  record "build (standalone)" PASS 1 "arch $ARCH"
  BENCH="$B/bench/bench_cuda"
fi

# ---- the Qt CUDA tests: a skip is a failure on this machine ------------------------------
if [ $full = 0 ]; then  # they are part of the check: the verdict says they did not run
  ROWS+=("Qt tests tst_cuda_*|NOT RUN|0|no full build (see above): bench_cuda's checks only")
  FAILED=1
else
  for t in "${TESTS[@]}"; do
    cap=90; [ "$t" = tst_cuda_executor ] && cap=150
    run_step "$t" "$cap" 1 "$t.log" env QT_QPA_PLATFORM=offscreen "$B/tests/$t"
    rc=$?
    [ $rc = 125 ] && continue
    totals=$(grep '^Totals' "$LOGS/$t.log" | tail -1)
    skipped=$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$totals")
    if [ $rc = 0 ] && [ "${skipped:-0}" = 0 ] && [ -n "$totals" ]; then record "$t" PASS 1 "$totals"
    elif [ $rc = 0 ]; then
      record "$t" FAIL 1 "skipped on a GPU machine: $(grep -m1 '^SKIP' "$LOGS/$t.log" | cut -c1-120)"
    else
      record "$t" "$(timeout_or $rc FAIL)" 1 "$(grep -E '^FAIL' "$LOGS/$t.log" | head -2 | cut -c1-120 | tr '\n' ' ')$totals"
    fi
  done
fi

# ---- bench_cuda: kernels, parity (gate), performance (reported only) -----------------------
for section in kernels parity bench; do
  gating=1; cap=120; [ $section = bench ] && { gating=0; cap=150; }
  run_step "bench_cuda --$section" "$cap" "$gating" "bench_$section.log" "$BENCH" --$section --rows
  rc=$?
  [ $rc = 125 ] && continue
  detail="bench_$section.log"
  [ $rc = 3 ] && detail="CUDA unusable: $(grep -m1 unusable "$LOGS/bench_$section.log" | cut -c1-120)"
  if [ $rc = 0 ]; then record "bench_cuda --$section" PASS "$gating" "$detail"
  elif [ $gating = 0 ]; then record "bench_cuda --$section" "$(timeout_or $rc FAIL)" 0 "$detail (performance: reported, not fatal)"
  else record "bench_cuda --$section" "$(timeout_or $rc FAIL)" 1 "$detail"; fi
done

print_summary
exit $FAILED
