#!/usr/bin/python3
"""Stage e/f: export the chat model in Hugging Face layout (float32 safetensors written
by hand), run the chat acceptance check, take samples, and write the golden data for
the C++ tests. Everything here runs the PyTorch model in float32 without autocast.
With --target (a draft model), also measure how often the draft's greedy guess equals
the target's: the number that predicts speculative decoding's acceptance.

Usage: export.py WORK OUTDIR GOLDEN_JSON [--model NAME] [--target TARGET_MODEL_DIR]
"""
import argparse
import json
import math
import os
import shutil
import struct
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import draft_agreement  # noqa: E402
import model as M  # noqa: E402

torch.set_num_threads(2)

ACCEPTANCE_QUESTIONS = [
    "How are you today?",
    "What is your favourite book?",
    "Will you come to the ball?",
    "Where do you live?",
    "Do you like music?",
]
PLAIN_PROMPTS = [
    "It is a truth universally acknowledged, that",
    "Mr. Darcy walked into the room and",
    "\"My dear Emma,\" said Mr. Knightley,",
]
QUICK = bool(os.environ.get("EXPORT_QUICK"))  # pipeline smoke test only
GEN = {"temperature": 0.7, "top_p": 0.9, "max_new_tokens": 256}


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def write_safetensors(path, tensors, metadata):
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        a = tensors[name].detach().cpu().contiguous().float().numpy()
        b = a.astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    header = {"__metadata__": metadata, **header}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    os.replace(path + ".tmp", path)


@torch.no_grad()
def logits_of(model, ids):
    return model(torch.tensor([ids]))[0].float()


@torch.no_grad()
def sample(model, ids, max_new, temperature, top_p, gen, stop=True):
    ids = list(ids)
    out = []
    for _ in range(max_new):
        lg = logits_of(model, ids[-model.c["max_position_embeddings"]:])[-1]
        if temperature <= 0:
            t = int(lg.argmax())
        else:
            p = torch.softmax(lg / temperature, -1)
            sp_, si = torch.sort(p, descending=True)
            keep = torch.cumsum(sp_, 0) - sp_ < top_p
            sp_ = sp_ * keep
            t = int(si[torch.multinomial(sp_ / sp_.sum(), 1, generator=gen)])
        out.append(t)
        ids.append(t)
        if stop and t == M.EOS:
            break
    return out


def top5(lg):
    lp = torch.log_softmax(lg.double(), -1)
    v, i = torch.topk(lp, 5)
    return [[int(a), float(b)] for a, b in zip(i, v)]


def golden_entry(model, name, text, ids, messages=None):
    n = len(ids)
    lg = logits_of(model, ids)
    positions = sorted({0, 1, n // 4, n // 2, (3 * n) // 4, n - 2, n - 1})
    seq = list(ids)
    greedy, greedy_top = [], []
    for _ in range(4 if QUICK else 32):
        last = logits_of(model, seq)[-1]
        greedy_top.append(top5(last))
        t = int(last.argmax())
        greedy.append(t)
        seq.append(t)
    e = {"name": name, "prompt_text": text}
    if messages is not None:
        e["messages"] = messages
    e.update({"prompt_token_ids": ids, "positions": positions,
              "top_logprobs": [top5(lg[p]) for p in positions],
              "greedy_token_ids": greedy, "greedy_top_logprobs": greedy_top})
    return e


def passage(sp, rec, min_tokens):
    text = rec["chapter"]
    for p in rec["paragraphs"]:
        text += "\n" + p
        if len(sp.encode(text)) >= min_tokens:
            break
    return text


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("work")
    p.add_argument("out")
    p.add_argument("golden")
    p.add_argument("--model", default="austen-chat-11m", help="architecture: a name in model.CONFIGS")
    p.add_argument("--target", help="the target model's folder, when this model is its draft")
    p.add_argument("--repeat-seeds", type=int, default=None,
                   help="further sampling seeds for the chat acceptance rate (default 4, for a draft 0)")
    return p.parse_args()


def main():
    args = parse_args()
    if args.repeat_seeds is None:  # a draft's own chat samples matter less than its agreement
        args.repeat_seeds = 0 if args.target else 4
    work, out, golden_path = args.work, args.out, args.golden
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=os.path.join(work, "tokenizer", "tok.model"))
    exp = os.path.join(work, "export")
    os.makedirs(exp, exist_ok=True)
    os.makedirs(out, exist_ok=True)
    model = M.Llama(M.config_for(args.model))
    model.load_state_dict(torch.load(os.path.join(work, "chat", "final.pt"))["model"])
    model.eval()
    t0 = time.time()

    # ---- e. the Hugging Face folder ----------------------------------------------
    cfg = dict(model.c)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    write_safetensors(os.path.join(out, "model.safetensors"), model.hf_state_dict(), {"format": "pt"})
    shutil.copyfile(os.path.join(work, "tokenizer", "tok.model"), os.path.join(out, "tokenizer.model"))
    tok_cfg = {
        "tokenizer_class": "LlamaTokenizer",
        "add_bos_token": True,
        "add_eos_token": False,
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
        "pad_token": None,
        "additional_special_tokens": ["<|system|>", "<|user|>", "<|assistant|>"],
        "legacy": True,
        "clean_up_tokenization_spaces": False,
        "model_max_length": 1024,
        "chat_template": M.CHAT_TEMPLATE,
    }
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump(tok_cfg, f, indent=2, ensure_ascii=False)
    gen_cfg = {"bos_token_id": 1, "eos_token_id": 2, "do_sample": True,
               "temperature": GEN["temperature"], "top_p": GEN["top_p"],
               "max_new_tokens": GEN["max_new_tokens"]}
    with open(os.path.join(out, "generation_config.json"), "w") as f:
        json.dump(gen_cfg, f, indent=2)
    log("exported", out)

    # ---- d. chat acceptance: 5 questions, temperature 0.7, 96 tokens ---------------
    gen = torch.Generator().manual_seed(20240601)
    accept = []
    for q in ACCEPTANCE_QUESTIONS:
        msgs = [{"role": "user", "content": q}]
        ids = M.encode_rendered(sp, M.render_chat(msgs, True))
        o = sample(model, ids, 8 if QUICK else 96, 0.7, 1.0, gen)
        stopped = o[-1] == M.EOS
        accept.append({"question": q, "answer": sp.decode([t for t in o if t != M.EOS]),
                       "tokens": len(o), "stopped_with_eos": stopped})
        log("chat", q, "->", repr(accept[-1]["answer"]), "stopped" if stopped else "NOT stopped")
    # repeated over more seeds for a rate estimate
    n_rep, n_stop = 0, 0
    for seed in range(0 if QUICK else args.repeat_seeds):
        g = torch.Generator().manual_seed(seed)
        for q in ACCEPTANCE_QUESTIONS:
            ids = M.encode_rendered(sp, M.render_chat([{"role": "user", "content": q}], True))
            o = sample(model, ids, 96, 0.7, 1.0, g)
            n_rep += 1
            n_stop += o[-1] == M.EOS
    sys_q = []
    g = torch.Generator().manual_seed(7)
    for q in ACCEPTANCE_QUESTIONS[:3]:
        msgs = [{"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": q}]
        ids = M.encode_rendered(sp, M.render_chat(msgs, True))
        o = sample(model, ids, 8 if QUICK else 96, GEN["temperature"], GEN["top_p"], g)
        sys_q.append({"system": msgs[0]["content"], "question": q,
                      "answer": sp.decode([t for t in o if t != M.EOS]),
                      "stopped_with_eos": o[-1] == M.EOS})
    plain = []
    g = torch.Generator().manual_seed(11)
    for p in PLAIN_PROMPTS:
        pids = M.encode_plain(sp, p)
        o = sample(model, pids, 8 if QUICK else 80, GEN["temperature"], GEN["top_p"], g)
        full = sp.decode(pids[1:] + [t for t in o if t != M.EOS])
        cont = full[len(p):] if full.startswith(p) else sp.decode([t for t in o if t != M.EOS])
        plain.append({"prompt": p, "continuation": cont, "tokens": len(o),
                      "stopped_with_eos": o[-1] == M.EOS})
        log("plain", repr(p + plain[-1]["continuation"]))

    # ---- f. golden data -------------------------------------------------------------
    vals = [json.loads(l) for l in open(os.path.join(work, "data", "val.jsonl"))]
    long1 = passage(sp, vals[0], 320)
    long2 = passage(sp, vals[-1], 560)
    chat_msgs = [{"role": "system", "content": "You are a character in a Jane Austen novel."},
                 {"role": "user", "content": "Will you come to the ball tomorrow?"}]
    chat_text = M.render_chat(chat_msgs, True)
    short = "It is a truth universally acknowledged, that a single man in possession of a good fortune"
    raw = [1, 4, 29, 300, 1000, 2000, 3000, 4095, 5, 16, 200, 17, 2, 1, 3]
    prompts = [
        ("plain_short", short, M.encode_plain(sp, short), None),
        ("plain_digits_unicode", "In 1811, the café at No. 42 served naïve guests — 3 pounds.",
         M.encode_plain(sp, "In 1811, the café at No. 42 served naïve guests — 3 pounds."), None),
        ("chat_generation_prompt", chat_text, M.encode_rendered(sp, chat_text), chat_msgs),
        ("validation_passage_320", long1, M.encode_plain(sp, long1), None),
        ("validation_passage_560", long2, M.encode_plain(sp, long2), None),
        ("raw_ids", None, raw, None),
    ]
    golden = {"model_dir": "resources/models/" + args.model, "dtype": "float32",
              "description": "Reference outputs of the training code's PyTorch model (float32, no "
                             "autocast). top_logprobs[i] belongs to positions[i]: the 5 best "
                             "[token_id, log_softmax] of the logits at that prompt position (predicting "
                             "the next token), best first. greedy_token_ids: 32 argmax tokens continuing "
                             "the prompt (no stop at EOS); greedy_top_logprobs[k]: top 5 at generated "
                             "step k. Tokenization: text is split on the strings <s> and </s> (ids 1 and "
                             "2) and each piece in between is encoded with SentencePiece (dummy prefix "
                             "per piece); plain prompts get BOS (1) in front.",
              "prompts": []}
    for name, text, ids, msgs in prompts:
        golden["prompts"].append(golden_entry(model, name, text, ids, msgs))
        log("golden", name, len(ids), "tokens")
    tok_texts = [
        "Hello world",
        "It is a truth universally acknowledged.",
        " leading space and  double  spaces ",
        "Numbers: 1811, 3.14 and 1000000.",
        "café — naïve 日本",
        "Line one\nLine two\n\nLine four",
        "\"Oh!\" said Lydia stoutly, \"I am not afraid.\"",
        "<|user|> markers <|assistant|> inside text",
        "emoji 😀 and tab\there",
        M.render_chat([{"role": "system", "content": "You are a helpful assistant."},
                       {"role": "user", "content": "How are you today?"},
                       {"role": "assistant", "content": "Very well, I thank you."},
                       {"role": "user", "content": "Do you like music?"}], True),
    ]
    golden["tokenization"] = [{"text": t, "ids": M.encode_rendered(sp, t)} for t in tok_texts]
    golden["tokenization_note"] = ("ids = the pieces between <s>/</s> encoded with SentencePiece "
                                   "(add_dummy_prefix per piece), <s>/</s> as ids 1/2; no BOS added.")
    os.makedirs(os.path.dirname(golden_path), exist_ok=True)
    with open(golden_path, "w") as f:
        json.dump(golden, f, indent=1, ensure_ascii=False)

    # reference logits for the independent numpy check
    ref = {}
    for name, text, ids, msgs in prompts[:4]:
        ref[name + "_ids"] = np.array(ids, dtype=np.int64)
        ref[name + "_logits"] = logits_of(model, ids).numpy()
        ref[name + "_greedy"] = np.array(golden["prompts"][[p[0] for p in prompts].index(name)]
                                         ["greedy_token_ids"][:16], dtype=np.int64)
    np.savez(os.path.join(exp, "reference.npz"), **ref)

    agreement = None
    if args.target:
        agreement = draft_agreement.measure(model, draft_agreement.load_hf_model(args.target), sp, work)
    size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
    res = {"acceptance": {"questions": accept, "stopped": sum(a["stopped_with_eos"] for a in accept),
                          "of": len(accept), "temperature": 0.7, "top_p": 1.0, "max_new_tokens": 96,
                          "repeat_runs": n_rep, "repeat_stopped": n_stop},
           "chat_with_system_samples": sys_q, "plain_samples": plain,
           "folder_bytes": size, "export_wall_s": round(time.time() - t0, 1)}
    if agreement:
        res["draft_agreement"] = agreement
    mp = os.path.join(work, "metrics.json")
    m = M.load_json(mp)
    m["export"] = res
    with open(mp, "w") as f:
        json.dump(m, f, indent=1, ensure_ascii=False)
    log(f"acceptance: {res['acceptance']['stopped']}/5 stopped; over {n_rep} more runs: {n_stop}")
    with open(os.path.join(exp, "done"), "w") as f:
        f.write("ok\n")


if __name__ == "__main__":
    main()
