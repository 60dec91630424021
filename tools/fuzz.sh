#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan+UBSan) and runs each for SECONDS
# (default 60). Prints executions and crashes per target; exits non-zero on a crash.
# Usage: tools/fuzz.sh [SECONDS] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${2:-build-fuzz}
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ is needed (apt-get install clang)" >&2; exit 1; }
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DLLM_WORKBENCH_FUZZ=ON -DLLM_WORKBENCH_SANITIZE=address,undefined -DLLM_WORKBENCH_GUI=OFF \
    -DLLM_WORKBENCH_CUDA=OFF -DLLM_WORKBENCH_BENCH=OFF >/dev/null
fi
targets=(fuzz_safetensors fuzz_config fuzz_tokenizer fuzz_hf_tokenizer fuzz_workload fuzz_jinja fuzz_http_request fuzz_gguf fuzz_kv_frame)
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
status=0
printf '%-18s %12s %8s\n' target executions crashes
for t in "${targets[@]}"; do
  corpus="$build/fuzz/corpus-$t"
  mkdir -p "$corpus"
  cp -n fuzz/seeds/"$t"/* "$corpus"/ 2>/dev/null || true
  log="$build/fuzz/$t.log"
  if "$build/fuzz/$t" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
       -artifact_prefix="$build/fuzz/$t-" "$corpus" >"$log" 2>&1; then crashes=0; else crashes=1; status=1; fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  # libFuzzer's last line is "Done N runs in S second(s)"; progress lines ("#N") are not
  # safe to grep because the recommended dictionary it prints may contain "#0".
  [ -n "$execs" ] || execs=$(grep -oE '^Done [0-9]+ runs' "$log" | tail -1 | grep -oE '[0-9]+' || true)
  printf '%-18s %12s %8s\n' "$t" "${execs:-?}" "$crashes"
  [ "$crashes" = 0 ] || tail -40 "$log"
done
exit $status
