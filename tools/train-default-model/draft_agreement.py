"""How well a draft model predicts its target; argmaxes compared in float32:

- text: on the validation chapters (text neither model trained on), the fraction of
  positions where the draft's argmax equals the target's argmax;
- chat: on held-out dialogue prompts (exchanges the chat fine-tune held out), the
  target's greedy answer is generated and, at every answer position, the draft's
  argmax compared with the target's. That is what greedy speculative decoding asks of
  a draft, so it also gives the mean acceptance length for k = 1..5 draft tokens: each
  step keeps the leading run of matches (at most k) plus the target's own token.
  The answers are generated under bf16 autocast (float32 matmuls are slow on shared
  CPUs); the comparisons are float32 forwards over prompt + answer, and
  chat_answer_tokens_off_fp32_greedy counts where the two precisions chose differently.
"""
import json
import os
import random
import struct

import numpy as np
import torch

import model as M
import train

TEXT_WINDOW = 1024
TEXT_WINDOWS = 8  # evenly spaced among the 54 of the validation chapters (float32 is slow here)
CHAT_PROMPTS = 24
CHAT_MAX_NEW = 32
MAX_K = 5


def load_hf_model(folder):
    """A Llama of the training code holding the weights of an exported folder
    (float32 safetensors, tied embeddings), e.g. the committed default model."""
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    with open(os.path.join(folder, "model.safetensors"), "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    tensors = {}
    for name, h in header.items():
        if name == "__metadata__":
            continue
        if h["dtype"] != "F32":
            raise SystemExit(f"{folder}/model.safetensors: {name} is {h['dtype']}, expected F32")
        a, b = h["data_offsets"]
        arr = np.frombuffer(data[8 + n + a: 8 + n + b], dtype="<f4").reshape(h["shape"])
        tensors[name] = torch.from_numpy(arr.copy())
    model = M.Llama(cfg)
    own = model.hf_state_dict().keys()
    missing = sorted(set(own) - set(tensors))
    if missing:
        raise SystemExit(f"{folder}/model.safetensors: missing {missing[:3]}")
    with torch.no_grad():
        for name, param in hf_parameters(model).items():
            param.copy_(tensors[name])
    model.eval()
    return model


def hf_parameters(model):
    """The model's parameters under their Hugging Face names (the inverse of hf_state_dict)."""
    out = {"model.embed_tokens.weight": model.embed_tokens.weight, "model.norm.weight": model.norm.weight}
    for i, layer in enumerate(model.layers):
        p = f"model.layers.{i}."
        out[p + "input_layernorm.weight"] = layer.input_layernorm.weight
        out[p + "post_attention_layernorm.weight"] = layer.post_attention_layernorm.weight
        for n in ("q_proj", "k_proj", "v_proj", "o_proj"):
            out[p + f"self_attn.{n}.weight"] = getattr(layer.self_attn, n).weight
        for n in ("gate_proj", "up_proj", "down_proj"):
            out[p + f"mlp.{n}.weight"] = getattr(layer.mlp, n).weight
    return out


@torch.no_grad()
def text_agreement(draft, target, stream):
    """Argmax agreement over evenly spaced non-overlapping windows of the stream (the
    validation chapters are in book order, so every book is represented)."""
    same = total = 0
    n = (len(stream) - 1) // TEXT_WINDOW
    picked = list(range(0, n, max(1, -(-n // TEXT_WINDOWS))))
    for i in range(0, len(picked), 4):
        x = torch.stack([stream[j * TEXT_WINDOW: (j + 1) * TEXT_WINDOW].long() for j in picked[i:i + 4]])
        same += int((draft(x).argmax(-1) == target(x).argmax(-1)).sum())
        total += x.numel()
    return same, total


def heldout_prompts(work, sp):
    """The chat fine-tune's held-out exchanges (same shuffle and seed as train.py)."""
    pairs = [json.loads(l) for l in open(os.path.join(work, "data", "dialogues.jsonl"))]
    random.Random(1234).shuffle(pairs)
    hold = pairs[:max(50, len(pairs) // 20)]
    return [M.encode_rendered(sp, M.render_chat([{"role": "user", "content": p["user"]}], True))
            for p in hold[:CHAT_PROMPTS]]


@torch.no_grad()
def greedy_answer(target, ids):
    out = []
    for _ in range(CHAT_MAX_NEW):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            t = int(target(torch.tensor([ids + out]))[0, -1].float().argmax())
        out.append(t)
        if t == M.EOS:
            break
    return out


@torch.no_grad()
def answer_argmax(model, ids, answer):
    """The model's float32 argmax at every answer position, given prompt + answer[:j]."""
    logits = model(torch.tensor([ids + answer]))[0]
    return logits[len(ids) - 1: len(ids) - 1 + len(answer)].argmax(-1).tolist()


def simulate(matches, k):
    """Greedy speculative decoding along the target's answer: (steps, drafted, accepted)."""
    steps = drafted = accepted = 0
    j = 0
    while j < len(matches):
        window = matches[j: j + k]
        run = next((i for i, ok in enumerate(window) if not ok), len(window))
        steps += 1
        drafted += len(window)
        accepted += run
        j += run + 1  # the accepted drafts plus the target's own token
    return steps, drafted, accepted


def measure(draft, target, sp, work):
    draft.eval()
    target.eval()
    val = train.token_stream(work, "val", sp)
    same, total = text_agreement(draft, target, val)
    all_matches, off = [], 0
    for ids in heldout_prompts(work, sp):
        answer = greedy_answer(target, ids)
        want = answer_argmax(target, ids, answer)
        off += sum(w != a for w, a in zip(want, answer))
        all_matches.append([g == w for g, w in zip(answer_argmax(draft, ids, answer), want)])
    flat = [m for ms in all_matches for m in ms]
    per_k = []
    for k in range(1, MAX_K + 1):
        steps, drafted, accepted = map(sum, zip(*(simulate(ms, k) for ms in all_matches)))
        per_k.append({"k": k, "acceptance_rate": round(accepted / drafted, 4),
                      "mean_acceptance_length": round((steps + accepted) / steps, 3)})
    res = {"target_parameters": M.num_params(target),
           "target_config": {k: target.c[k] for k in ("num_hidden_layers", "hidden_size")},
           "text_positions": total, "text_argmax_agreement": round(same / total, 4),
           "chat_prompts": len(all_matches), "chat_answer_tokens": len(flat),
           "chat_max_new_tokens": CHAT_MAX_NEW, "chat_answer_tokens_off_fp32_greedy": off,
           "chat_greedy_agreement": round(sum(flat) / len(flat), 4), "chat_speculation": per_k}
    print("draft agreement:", json.dumps(res), flush=True)
    return res
