#!/usr/bin/env bash
# Trains the project's default model (austen-chat-11m) from scratch on CPU, end to end:
#   a. corpus    Jane Austen's six novels from Debian's r-cran-janeaustenr
#   b. tokenizer SentencePiece BPE, 4096 pieces, Llama-2 conventions
#   c. pretrain  Llama 6x384 (11M parameters), bf16 autocast, 256 then 1024 tokens
#   d. finetune  chat turns mined from the novels' dialogue
#   e. export    Hugging Face layout + golden data for the C++ tests
#   f. verify    independent numpy reader of the export, then the model card
# --model austen-chat-draft trains its speculative-decoding draft the same way: same
# corpus, the default model's tokenizer.model copied (identical ids), Llama 4x128 (1.3M
# parameters), fewer steps; its export also measures greedy agreement with the target.
# Every stage skips when its output exists; pretrain/finetune resume from their last
# checkpoint, so re-running after an interruption continues where it stopped.
#
# Usage: tools/train-default-model/train.sh [--model austen-chat-11m|austen-chat-draft]
#                                           [--out DIR] [--work DIR]
# Needs: tools/install-deps.sh --training (python3-torch, python3-numpy,
#        python3-sentencepiece, sentencepiece) and apt access for the corpus package.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
MODEL=austen-chat-11m
OUT="" WORK=""
while [ $# -gt 0 ]; do
  case "$1" in
    --model) MODEL="$2"; shift 2 ;;
    --out) OUT="$(realpath -m "$2")"; shift 2 ;;
    --work) WORK="$(realpath -m "$2")"; shift 2 ;;
    -h|--help) sed -n 2,18p "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
TARGET="$ROOT/resources/models/austen-chat-11m"
case "$MODEL" in
  austen-chat-11m)
    WORK="${WORK:-$ROOT/build-train}"
    PRETRAIN=(--steps1 560 --seq1 256 --batch1 16 --steps2 90 --seq2 1024 --batch2 4 --lr 2.5e-3 --warmup 30)
    FINETUNE=(--steps 160 --batch 16 --lr 3e-4 --plain-every 1)
    EXPORT=() ;;
  austen-chat-draft)
    WORK="${WORK:-$ROOT/build-train-draft}"
    PRETRAIN=(--steps1 290 --seq1 256 --batch1 16 --steps2 30 --seq2 1024 --batch2 4 --lr 4e-3 --warmup 30)
    FINETUNE=(--steps 120 --batch 16 --lr 6e-4 --plain-every 1)
    EXPORT=(--target "$TARGET") ;;
  *) echo "unknown --model $MODEL (austen-chat-11m or austen-chat-draft)" >&2; exit 2 ;;
esac
OUT="${OUT:-$ROOT/resources/models/$MODEL}"
GOLDEN="$ROOT/tests/data/golden_${MODEL//-/_}.json"
PY=/usr/bin/python3
export OMP_WAIT_POLICY=PASSIVE
mkdir -p "$WORK"
stage_time() { # name seconds -> WORK/stage_times.json
  "$PY" - "$WORK/stage_times.json" "$1" "$2" <<'EOF'
import json, os, sys
p, k, v = sys.argv[1], sys.argv[2], float(sys.argv[3])
d = json.load(open(p)) if os.path.exists(p) else {}
d[k] = round(d.get(k, 0.0) + v, 1)  # summed over resumed runs
json.dump(d, open(p, "w"), indent=1)
EOF
}
run_stage() { # name done-file command...
  local name="$1" done="$2"; shift 2
  if [ -e "$done" ]; then echo "== $name: done ($done)"; return; fi
  echo "== $name: $(date +%T)"
  local t0=$SECONDS
  "$@"
  stage_time "$name" $((SECONDS - t0))
}

corpus() {
  mkdir -p "$WORK/corpus"
  ( cd "$WORK/corpus"
    ls r-cran-janeaustenr_*.deb >/dev/null 2>&1 || apt-get download r-cran-janeaustenr
    rm -rf pkg && dpkg-deb -x r-cran-janeaustenr_*.deb pkg )
  "$PY" "$HERE/prepare_corpus.py" "$WORK/corpus/pkg" "$WORK/data"
}
tokenizer() {
  mkdir -p "$WORK/tokenizer"
  if [ "$MODEL" != austen-chat-11m ]; then  # a draft must share the target's token ids
    cp "$TARGET/tokenizer.model" "$WORK/tokenizer/tok.model"
    return
  fi
  spm_train --input="$WORK/data/spm_train.txt" --model_prefix="$WORK/tokenizer/tok" \
    --model_type=bpe --vocab_size=4096 --character_coverage=1.0 \
    --unk_id=0 --bos_id=1 --eos_id=2 --pad_id=-1 \
    --byte_fallback=true --split_digits=true \
    --normalization_rule_name=identity --remove_extra_whitespaces=false --add_dummy_prefix=true \
    --user_defined_symbols='<|system|>,<|user|>,<|assistant|>' \
    --max_sentence_length=100000 --input_sentence_size=0 --num_threads=2 \
    > "$WORK/tokenizer/spm_train.log" 2>&1
}

run_stage corpus "$WORK/data/dialogues.jsonl" corpus
run_stage tokenizer "$WORK/tokenizer/tok.model" tokenizer
run_stage pretrain "$WORK/pretrain/final.pt" "$PY" "$HERE/train.py" pretrain "$WORK" \
  --model "$MODEL" "${PRETRAIN[@]}"
run_stage finetune "$WORK/chat/final.pt" "$PY" "$HERE/train.py" finetune "$WORK" \
  --model "$MODEL" "${FINETUNE[@]}"
run_stage export "$WORK/export/done" "$PY" "$HERE/export.py" "$WORK" "$OUT" "$GOLDEN" \
  --model "$MODEL" "${EXPORT[@]}"
run_stage verify "$WORK/export/verify.json" "$PY" "$HERE/verify_export.py" "$OUT" "$WORK/export"
"$PY" "$HERE/make_card.py" "$WORK" "$OUT" --model "$MODEL"
echo "== all done: $OUT"
