"""Llama decoder exactly as Hugging Face's LlamaForCausalLM computes it (rotate_half
RoPE, RMSNorm in float32, grouped-query attention, SwiGLU MLP, no biases, tied
embeddings), plus the tokenization helpers shared by all stages."""
import json
import math
import re

import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 384,
    "num_hidden_layers": 6,
    "num_attention_heads": 6,
    "num_key_value_heads": 2,
    "head_dim": 64,
    "intermediate_size": 1024,
    "vocab_size": 4096,
    "max_position_embeddings": 1024,
    "rope_theta": 10000.0,
    "rms_norm_eps": 1e-5,
    "tie_word_embeddings": True,
    "hidden_act": "silu",
    "attention_bias": False,
    "mlp_bias": False,
    "attention_dropout": 0.0,
    "initializer_range": 0.02,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "rope_scaling": None,
    "use_cache": True,
    "torch_dtype": "float32",
}
# The draft for speculative decoding: same vocabulary, tokenizer and conventions, about
# an eighth of the parameters (4 narrow layers), so that its forward costs a fraction of
# the target's while its greedy guesses still often match the target's.
DRAFT_CONFIG = dict(CONFIG, hidden_size=128, num_hidden_layers=4, num_attention_heads=4,
                    num_key_value_heads=2, head_dim=32, intermediate_size=384)
CONFIGS = {"austen-chat-11m": CONFIG, "austen-chat-draft": DRAFT_CONFIG}
BOS, EOS = 1, 2
CHAT_TEMPLATE = ("{{ bos_token }}{% for message in messages %}{{ '<|' + message['role'] + '|>\\n' + "
                 "message['content'] + eos_token + '\\n' }}{% endfor %}{% if add_generation_prompt %}"
                 "{{ '<|assistant|>\\n' }}{% endif %}")


class RMSNorm(nn.Module):
    def __init__(self, n, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Rope(nn.Module):
    def __init__(self, dim, theta):
        super().__init__()
        inv_freq = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, positions):  # positions: (T,) -> cos, sin (T, dim) float32
        freqs = positions.float()[:, None] * self.inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos(), emb.sin()


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.nh, self.nkv, self.hd = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
        h = c["hidden_size"]
        self.q_proj = nn.Linear(h, self.nh * self.hd, bias=False)
        self.k_proj = nn.Linear(h, self.nkv * self.hd, bias=False)
        self.v_proj = nn.Linear(h, self.nkv * self.hd, bias=False)
        self.o_proj = nn.Linear(self.nh * self.hd, h, bias=False)

    def forward(self, x, cos, sin, mask):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.nh, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.nkv, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.nkv, self.hd).transpose(1, 2)
        cos, sin = cos.to(q.dtype), sin.to(q.dtype)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = self.nh // self.nkv
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        att = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd)
        att = att + mask.to(att.dtype)
        att = F.softmax(att, dim=-1, dtype=torch.float32).to(q.dtype)
        y = torch.matmul(att, v).transpose(1, 2).reshape(B, T, self.nh * self.hd)
        return self.o_proj(y)


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        h, i = c["hidden_size"], c["intermediate_size"]
        self.gate_proj = nn.Linear(h, i, bias=False)
        self.up_proj = nn.Linear(h, i, bias=False)
        self.down_proj = nn.Linear(i, h, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.input_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.self_attn = Attention(c)
        self.post_attention_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.mlp = MLP(c)

    def forward(self, x, cos, sin, mask):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask)
        return x + self.mlp(self.post_attention_layernorm(x))


class Llama(nn.Module):
    def __init__(self, c=CONFIG):
        super().__init__()
        self.c = c
        self.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.layers = nn.ModuleList([Layer(c) for _ in range(c["num_hidden_layers"])])
        self.norm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.rope = Rope(c["head_dim"], c["rope_theta"])
        std = c["initializer_range"]
        for name, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, mean=0.0, std=std)
                if name.endswith("o_proj.weight") or name.endswith("down_proj.weight"):
                    p.data /= math.sqrt(2 * c["num_hidden_layers"])

    def forward(self, ids, hidden=False):
        B, T = ids.shape
        pos = torch.arange(T)
        cos, sin = self.rope(pos)
        mask = torch.full((T, T), float("-inf")).triu(1)
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        x = self.norm(x)
        if hidden:
            return x
        return F.linear(x, self.embed_tokens.weight)  # tied lm_head

    def hf_state_dict(self):
        out = {"model.embed_tokens.weight": self.embed_tokens.weight}
        for i, l in enumerate(self.layers):
            p = f"model.layers.{i}."
            out[p + "input_layernorm.weight"] = l.input_layernorm.weight
            out[p + "post_attention_layernorm.weight"] = l.post_attention_layernorm.weight
            for n in ("q_proj", "k_proj", "v_proj", "o_proj"):
                out[p + f"self_attn.{n}.weight"] = getattr(l.self_attn, n).weight
            for n in ("gate_proj", "up_proj", "down_proj"):
                out[p + f"mlp.{n}.weight"] = getattr(l.mlp, n).weight
        out["model.norm.weight"] = self.norm.weight
        return {k: v.detach().float().contiguous() for k, v in out.items()}


def config_for(name):
    if name not in CONFIGS:
        raise SystemExit(f"unknown model name {name!r}; expected one of {sorted(CONFIGS)}")
    return CONFIGS[name]


def num_params(model):
    return sum(p.numel() for p in model.parameters())


# ---- tokenization exactly as the C++ engine does it -------------------------------
SPECIAL_SPLIT = re.compile(r"(<s>|</s>)")


def encode_rendered(sp, text):
    """Split a rendered chat template on the special-token strings <s> / </s> (-> ids
    1 / 2) and encode each piece in between with SentencePiece as it is (dummy prefix
    per piece). <|system|>, <|user|>, <|assistant|> are user-defined symbols."""
    ids = []
    for seg in SPECIAL_SPLIT.split(text):
        if seg == "<s>":
            ids.append(BOS)
        elif seg == "</s>":
            ids.append(EOS)
        elif seg:
            ids.extend(sp.encode(seg))
    return ids


def render_chat(messages, add_generation_prompt):
    """The chat template (CHAT_TEMPLATE) rendered in Python."""
    s = "<s>"
    for m in messages:
        s += "<|" + m["role"] + "|>\n" + m["content"] + "</s>" + "\n"
    if add_generation_prompt:
        s += "<|assistant|>\n"
    return s


def encode_plain(sp, text, bos=True):
    return ([BOS] if bos else []) + sp.encode(text)


def load_json(path):
    with open(path) as f:
        return json.load(f)
