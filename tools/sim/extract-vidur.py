#!/usr/bin/env python3
"""Writes bench/sim/gpu-measurements.csv: per-operator times of real H100 and A100 runs,
taken from the profiling data that the Vidur simulator publishes (github.com/microsoft/vidur,
MIT licence), in the operators and units of `llm-workbench simulate-step`.

Usage: tools/sim/extract-vidur.py VIDUR_GIT_DIR [OUT_CSV]
  VIDUR_GIT_DIR  a clone of microsoft/vidur, or its bare git directory (read with git show)
  OUT_CSV        default: bench/sim/gpu-measurements.csv

What it reads, at the clone's HEAD unless named:
  data/profiling/compute/{h100,a100}/<model>/mlp.csv
      the q/k/v, o, gate/up and down projections of one layer on one tensor-parallel rank,
      time_stats.<op>.median in ms (CUDA events), per num_tokens and
      num_tensor_parallel_workers;
  data/profiling/network/{h100,a100}_dgx/all_reduce.csv
      one NCCL all-reduce of `size` bytes over num_workers GPUs of one node;
  data/profiling/compute/{h100,a100}/<model>/attention.csv when the clone has its content
      (files of several MB: a snapshot without large files lacks them), else the one
      attention profile the history keeps whole, data/profiling/a100/attention.csv of
      commit e2d00e9 (branch users/nitinkedia7/oss-release): the attention kernel of the
      8192-wide, 64 / 8-head shape (Llama-2-70B, Llama-3-70B, CodeLlama-34B) on A100 at
      tensor parallelism 2, FlashAttention backend; time_stats.attn_prefill.median for one
      sequence of prefill_chunk_size new tokens over kv_cache_size cached ones, and
      time_stats.attn_decode.median for batch_size sequences of one new token each over
      kv_cache_size cached ones.

What it writes, one row per measurement: hardware (the preset's name), model (the folder
under resources/sim-models holding its config.json), tp, op (simulate-step's name), seqs and
tokens (the step: `seqs` sequences of tokens / seqs new tokens each; decode rows have
seqs == tokens, every other row is one sequence), context (tokens already cached per
sequence), and
measured_ms: the step's time for that operator as simulate-step reports it, i.e. the
per-layer median × num_hidden_layers (× 2 for all_reduce, two per layer). All-reduce times
are interpolated linearly in size between the two measured sizes around
tokens × hidden_size × 2 bytes. To keep the file small the projections keep every third
token count of the profile (1 … 4096) and attention a regular subset of its grid.
No numpy: plain python3.
"""
import csv
import io
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIGS = os.path.join(ROOT, "tests", "data", "sim")
HARDWARE = {"h100": "h100-sxm", "a100": "a100-80gb"}  # Vidur's device → our preset
MODELS = {  # Vidur's model name → our folder under resources/sim-models
    "meta-llama/Llama-2-7b-hf": "llama-2-7b",
    "meta-llama/Meta-Llama-3-8B": "llama-3-8b",
    "internlm/internlm-20b": "internlm-20b",
    "codellama/CodeLlama-34b-Instruct-hf": "codellama-34b",
    "meta-llama/Llama-2-70b-hf": "llama-2-70b",
    "meta-llama/Meta-Llama-3-70B": "llama-3-70b",
    "Qwen/Qwen-72B": "qwen-72b",
}
GEMM_OPS = {  # Vidur's metric → simulate-step's operator
    "attn_pre_proj": "qkv_proj",
    "attn_post_proj": "o_proj",
    "mlp_up_proj": "mlp_gate_up",
    "mlp_down_proj": "mlp_down",
}
MAX_TOKENS = 4096
ALL_REDUCE_TOKENS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 768, 1024, 1536, 2048, 3072, 4096]
OLD_ATTENTION = ("e2d00e9afba96cec9f0e7ea560bbfc4a539fae6a", "data/profiling/a100/attention.csv")
OLD_ATTENTION_MODEL = "llama-2-70b"  # its shape: hidden 8192, 64 heads, 8 KV heads


class Vidur:
    def __init__(self, git_dir):
        self.git_dir = git_dir
        self.head = self.git("rev-parse", "HEAD").strip()

    def git(self, *args):
        r = subprocess.run(["git", "--git-dir", self.git_dir, *args], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)}: {r.stderr.strip()}")
        return r.stdout

    def csv(self, path, commit=None):
        """The rows of a CSV at a commit, or None when the clone lacks the file's content."""
        try:
            return list(csv.DictReader(io.StringIO(self.git("show", f"{commit or self.head}:{path}"))))
        except RuntimeError:
            return None


def load_config(model):
    path = os.path.join(CONFIGS, model, "config.json")
    with open(path) as f:
        c = json.load(f)
    c["_path"] = path
    return c


def check_shape(config, row, path):
    """The profile's shape must be the config's: a mismatch means a wrong mapping."""
    want = {"n_embd": config["hidden_size"], "n_head": config["num_attention_heads"],
            "n_kv_head": config.get("num_key_value_heads", config["num_attention_heads"]),
            "n_expanded_embd": config["intermediate_size"]}
    for key, value in want.items():
        if key in row and int(row[key]) != value:
            raise SystemExit(f"{path}: {key} {row[key]} but {config['_path']} gives {value}")


def sig(x):
    return f"{x:.4g}"


def gemm_rows(vidur, hw, vidur_model, model, config, out):
    path = f"data/profiling/compute/{hw}/{vidur_model}/mlp.csv"
    rows = vidur.csv(path)
    if rows is None:
        print(f"skipped (absent at {vidur.head[:9]}): {path}", file=sys.stderr)
        return []
    check_shape(config, rows[0], path)
    times = {}  # (tp, tokens, op) → [medians]; a few token counts are profiled twice
    for r in rows:
        tokens = int(r["num_tokens"])
        if tokens <= MAX_TOKENS:
            for metric, op in GEMM_OPS.items():
                times.setdefault((int(r["num_tensor_parallel_workers"]), tokens, op), []).append(
                    float(r[f"time_stats.{metric}.median"]))
    token_counts = sorted({t for _, t, _ in times})
    kept = set(token_counts[::3]) | {token_counts[-1]}
    layers = config["num_hidden_layers"]
    for (tp, tokens, op), v in sorted(times.items()):
        if tokens in kept:
            out.append((HARDWARE[hw], model, tp, op, 1, tokens, 0, sig(sum(v) / len(v) * layers)))
    return sorted({tp for tp, _, _ in times})


def all_reduce_rows(vidur, hw, model, config, tps, out):
    path = f"data/profiling/network/{hw}_dgx/all_reduce.csv"
    rows = vidur.csv(path)
    if rows is None:
        print(f"skipped (absent at {vidur.head[:9]}): {path}", file=sys.stderr)
        return
    for tp in tps:
        if tp < 2:
            continue
        # vidur's own selection: every rank on one node
        sizes = sorted((int(r["size"]), float(r["time_stats.all_reduce.median"])) for r in rows
                       if r["collective"] == "all_reduce" and int(r["num_workers"]) == tp
                       and int(r["devices_per_node"]) == tp)
        if not sizes:
            continue
        for tokens in ALL_REDUCE_TOKENS:
            ms = interpolate(sizes, tokens * config["hidden_size"] * 2)
            out.append((HARDWARE[hw], model, tp, "all_reduce", 1, tokens, 0,
                        sig(ms * 2 * config["num_hidden_layers"])))


def interpolate(points, x):
    """Linear in x between the two points around it; the nearest end outside them."""
    if x <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return points[-1][1]


def attention_rows(rows, hw, model, config, path, out):
    check_shape(config, rows[0], path)
    layers = config["num_hidden_layers"]
    prefill = [r for r in rows if r["is_prefill"] == "True"]
    decode = [r for r in rows if r["is_prefill"] == "False"]
    chunks = sorted({int(r["prefill_chunk_size"]) for r in prefill})[::2]
    batches = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512}

    def kept_contexts(rs):
        return set(sorted({int(r["kv_cache_size"]) for r in rs})[::4])

    kv_prefill, kv_decode = kept_contexts(prefill), kept_contexts(decode)
    seen = set()
    for r in prefill:
        chunk, kv, tp = int(r["prefill_chunk_size"]), int(r["kv_cache_size"]), int(r["num_tensor_parallel_workers"])
        key = ("p", tp, chunk, kv)
        if chunk in chunks and kv in kv_prefill and key not in seen and r["time_stats.attn_prefill.median"]:
            seen.add(key)
            out.append((HARDWARE[hw], model, tp, "attention", 1, chunk, kv,
                        sig(float(r["time_stats.attn_prefill.median"]) * layers)))
    for r in decode:
        batch, kv, tp = int(r["batch_size"]), int(r["kv_cache_size"]), int(r["num_tensor_parallel_workers"])
        key = ("d", tp, batch, kv)
        if batch in batches and kv in kv_decode and key not in seen and r["time_stats.attn_decode.median"]:
            seen.add(key)
            out.append((HARDWARE[hw], model, tp, "attention", batch, batch, kv,
                        sig(float(r["time_stats.attn_decode.median"]) * layers)))


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    vidur = Vidur(sys.argv[1])
    out_path = sys.argv[2] if len(sys.argv) == 3 else os.path.join(ROOT, "bench", "sim", "gpu-measurements.csv")
    out, sources, per_model_attention = [], set(), False
    for hw in HARDWARE:
        for vidur_model, model in MODELS.items():
            config = load_config(model)
            tps = gemm_rows(vidur, hw, vidur_model, model, config, out)
            if not tps:
                continue
            sources.add(f"data/profiling/compute/{{{','.join(HARDWARE)}}}/<model>/mlp.csv")
            all_reduce_rows(vidur, hw, model, config, tps, out)
            sources.add(f"data/profiling/network/{{{','.join(HARDWARE)}}}_dgx/all_reduce.csv")
            path = f"data/profiling/compute/{hw}/{vidur_model}/attention.csv"
            rows = vidur.csv(path)
            if rows:
                attention_rows(rows, hw, model, config, path, out)
                sources.add(f"data/profiling/compute/{{{','.join(HARDWARE)}}}/<model>/attention.csv")
                per_model_attention = True
    if not per_model_attention:
        commit, path = OLD_ATTENTION
        rows = vidur.csv(path, commit)
        if rows is None:
            raise SystemExit(f"{sys.argv[1]}: has neither the per-model attention.csv files nor {commit}:{path}")
        attention_rows(rows, "a100", OLD_ATTENTION_MODEL, load_config(OLD_ATTENTION_MODEL), f"{commit}:{path}", out)
        sources.add(f"{path} at commit {commit} (branch users/nitinkedia7/oss-release): attention, A100, "
                     "the 8192-wide 64/8-head shape at tp 2 (FlashAttention backend), written as llama-2-70b")
    commit_date = vidur.git("log", "-1", "--format=%cs", vidur.head).strip()
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w", newline="") as f:
        f.write("# Per-operator GPU times from the Vidur simulator's published profiles:\n"
                "#   https://github.com/microsoft/vidur (MIT licence, Copyright (c) Microsoft Corporation)\n"
                f"#   commit {vidur.head} ({commit_date}), files:\n")
        for s in sorted(sources):
            f.write(f"#     {s}\n")
        f.write("# Written by tools/sim/extract-vidur.py (its header says how each value is derived).\n"
                "# measured_ms is the step's time for the operator as llm-workbench simulate-step reports it:\n"
                "# one tensor-parallel rank, the per-layer median x num_hidden_layers (x 2 for all_reduce).\n"
                "# Each row's step is `seqs` sequences of tokens / seqs new tokens each over `context` cached\n"
                "# tokens each: a decode step has seqs == tokens, every other row one sequence.\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["hardware", "model", "tp", "op", "seqs", "tokens", "context", "measured_ms"])
        w.writerows(out)
    print(f"{out_path}: {len(out)} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
