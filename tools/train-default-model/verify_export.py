#!/usr/bin/python3
"""Stage g: an independent check of the exported folder. Parses config.json and
model.safetensors by hand, runs the Llama forward pass in numpy float64 (it does not
import the training code), and compares the logits with the PyTorch model's float32
logits saved by export.py (EXPORTDIR/reference.npz).

Usage: verify_export.py MODELDIR EXPORTDIR   -> prints the numbers, writes EXPORTDIR/verify.json
"""
import json
import os
import struct
import sys

import numpy as np

DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, h in header.items():
        if name == "__metadata__":
            continue
        a, b = h["data_offsets"]
        dt = DTYPES[h["dtype"]]
        arr = np.frombuffer(data[base + a: base + b], dtype=np.dtype(dt).newbyteorder("<"))
        if arr.size != int(np.prod(h["shape"])):
            raise ValueError(f"{name}: size does not match shape")
        out[name] = arr.reshape(h["shape"]).astype(np.float64)
    return header.get("__metadata__", {}), out


class NumpyLlama:
    def __init__(self, model_dir):
        with open(os.path.join(model_dir, "config.json")) as f:
            self.c = json.load(f)
        self.meta, self.w = read_safetensors(os.path.join(model_dir, "model.safetensors"))
        c = self.c
        self.hd = c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
        self.nh, self.nkv = c["num_attention_heads"], c["num_key_value_heads"]
        self.eps = c["rms_norm_eps"]
        lm = self.w.get("lm_head.weight")
        self.lm_head = self.w["model.embed_tokens.weight"] if lm is None else lm

    def rms(self, x, w):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + self.eps) * w

    def rope(self, x, pos):  # x: (heads, T, hd); HF rotate_half convention
        d = self.hd
        inv = 1.0 / (self.c["rope_theta"] ** (np.arange(0, d, 2, dtype=np.float64) / d))
        f = pos[:, None] * inv[None, :]
        emb = np.concatenate([f, f], -1)
        cos, sin = np.cos(emb), np.sin(emb)
        rot = np.concatenate([-x[..., d // 2:], x[..., : d // 2]], -1)
        return x * cos + rot * sin

    def forward(self, ids):
        w, T = self.w, len(ids)
        x = w["model.embed_tokens.weight"][np.asarray(ids)]
        pos = np.arange(T, dtype=np.float64)
        mask = np.triu(np.full((T, T), -np.inf), 1)
        for i in range(self.c["num_hidden_layers"]):
            p = f"model.layers.{i}."
            h = self.rms(x, w[p + "input_layernorm.weight"])
            q = (h @ w[p + "self_attn.q_proj.weight"].T).reshape(T, self.nh, self.hd).transpose(1, 0, 2)
            k = (h @ w[p + "self_attn.k_proj.weight"].T).reshape(T, self.nkv, self.hd).transpose(1, 0, 2)
            v = (h @ w[p + "self_attn.v_proj.weight"].T).reshape(T, self.nkv, self.hd).transpose(1, 0, 2)
            q, k = self.rope(q, pos), self.rope(k, pos)
            g = self.nh // self.nkv
            k, v = np.repeat(k, g, axis=0), np.repeat(v, g, axis=0)
            s = q @ k.transpose(0, 2, 1) / np.sqrt(self.hd) + mask
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            a = (s @ v).transpose(1, 0, 2).reshape(T, self.nh * self.hd)
            x = x + a @ w[p + "self_attn.o_proj.weight"].T
            h = self.rms(x, w[p + "post_attention_layernorm.weight"])
            gt = h @ w[p + "mlp.gate_proj.weight"].T
            up = h @ w[p + "mlp.up_proj.weight"].T
            x = x + ((gt / (1 + np.exp(-gt))) * up) @ w[p + "mlp.down_proj.weight"].T
        x = self.rms(x, w["model.norm.weight"])
        return x @ self.lm_head.T


def main():
    model_dir, exp = sys.argv[1], sys.argv[2]
    m = NumpyLlama(model_dir)
    ref = np.load(os.path.join(exp, "reference.npz"))
    names = sorted({k.rsplit("_", 1)[0] for k in ref.files})
    n_params = sum(v.size for v in m.w.values())
    res = {"tensors": len(m.w), "parameters": int(n_params), "metadata": m.meta, "prompts": []}
    worst = 0.0
    all_agree = True
    for name in names:
        ids = ref[name + "_ids"].tolist()
        lt = ref[name + "_logits"].astype(np.float64)
        ln = m.forward(ids)
        diff = float(np.abs(ln - lt).max())
        argmax_agree = float((ln.argmax(-1) == lt.argmax(-1)).mean())
        # greedy continuation in numpy vs the PyTorch model's greedy tokens
        want = ref[name + "_greedy"].tolist()
        seq, got = list(ids), []
        for _ in range(len(want)):
            t = int(m.forward(seq)[-1].argmax())
            got.append(t)
            seq.append(t)
        agree = got == want
        all_agree &= agree
        worst = max(worst, diff)
        res["prompts"].append({"name": name, "tokens": len(ids), "max_abs_logit_diff": diff,
                               "logit_scale_max_abs": float(np.abs(lt).max()),
                               "position_argmax_agreement": argmax_agree,
                               "greedy_tokens": len(want), "greedy_agree": agree})
        print(f"{name}: {len(ids)} tokens, max |logit diff| {diff:.3e}, argmax agreement "
              f"{argmax_agree:.3f}, greedy {len(want)} tokens agree: {agree}", flush=True)
    res["max_abs_logit_diff"] = worst
    res["greedy_all_agree"] = all_agree
    print(f"parameters in file: {n_params}; worst max |logit diff| {worst:.3e}; greedy all agree: {all_agree}")
    with open(os.path.join(exp, "verify.json"), "w") as f:
        json.dump(res, f, indent=1)
    if worst > 1e-2 or not all_agree:
        print("VERIFY FAILED", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
