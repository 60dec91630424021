#!/usr/bin/python3
"""Stages c (pretrain) and d (chat fine-tune). Checkpoints every --ckpt-minutes and
resumes from the last checkpoint; writes WORK/<stage>/final.pt and merges its numbers
into WORK/metrics.json.

  train.py pretrain WORK [--steps1 N --steps2 N ...]
  train.py finetune WORK [--steps N ...]
"""
import argparse
import json
import math
import os
import random
import sys
import time

# passive OpenMP waiting: on a machine shared with compiles, spinning threads
# that wait for a descheduled sibling cost more than they save
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model as M  # noqa: E402

torch.set_num_threads(2)


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def update_metrics(work, key, value):
    path = os.path.join(work, "metrics.json")
    m = M.load_json(path) if os.path.exists(path) else {}
    m[key] = value
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(m, f, indent=1)
    os.replace(tmp, path)


def load_sp(work):
    import sentencepiece as spm
    return spm.SentencePieceProcessor(model_file=os.path.join(work, "tokenizer", "tok.model"))


def chapter_text(rec):
    return "\n".join([rec["chapter"]] + rec["paragraphs"])


def token_stream(work, split, sp):
    """All chapters of a split as one stream of ids, each chapter starting with BOS."""
    cache = os.path.join(work, "data", f"{split}_ids.pt")
    if os.path.exists(cache):
        return torch.load(cache)
    ids = []
    with open(os.path.join(work, "data", f"{split}.jsonl")) as f:
        for line in f:
            ids.extend(M.encode_plain(sp, chapter_text(json.loads(line))))
    t = torch.tensor(ids, dtype=torch.int16 if max(ids) < 32767 else torch.int32)
    torch.save(t, cache)
    return t


def sample_batch(stream, B, T, gen):
    starts = torch.randint(0, len(stream) - T - 1, (B,), generator=gen)
    x = torch.stack([stream[s:s + T + 1].long() for s in starts.tolist()])
    return x[:, :-1], x[:, 1:]


@torch.no_grad()
def evaluate(model, stream, T, max_windows=None):
    """Mean next-token loss over consecutive non-overlapping windows (fp32 logits of a
    bf16-autocast forward, as in training)."""
    model.eval()
    n = (len(stream) - 1) // T
    if max_windows:
        n = min(n, max_windows)
    tot, cnt = 0.0, 0
    for i in range(0, n, 4):
        xs = [stream[j * T: j * T + T + 1].long() for j in range(i, min(n, i + 4))]
        x = torch.stack(xs)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x[:, :-1])
        loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1),
                               reduction="sum")
        tot += loss.item()
        cnt += x[:, 1:].numel()
    model.train()
    return tot / cnt


def lr_at(step, total, peak, warmup, floor):
    if step < warmup:
        return peak * (step + 1) / warmup
    p = min(1.0, (step - warmup) / max(1, total - warmup))
    return floor + 0.5 * (peak - floor) * (1 + math.cos(math.pi * p))


def save_ckpt(path, state):
    tmp = path + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, path)


# ------------------------------------------------------------------------------------
def pretrain(a):
    work = a.work
    out = os.path.join(work, "pretrain")
    os.makedirs(out, exist_ok=True)
    final = os.path.join(out, "final.pt")
    if os.path.exists(final):
        log("pretrain: final.pt exists, skipping")
        return
    sp = load_sp(work)
    train_ids = token_stream(work, "train", sp)
    val_ids = token_stream(work, "val", sp)
    log(f"pretrain: {len(train_ids)} train tokens, {len(val_ids)} val tokens")
    torch.manual_seed(a.seed)
    model = M.Llama(M.config_for(a.model))
    log(f"parameters: {M.num_params(model)}")
    decay = [p for p in model.parameters() if p.dim() == 2]
    nodecay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": a.wd},
                             {"params": nodecay, "weight_decay": 0.0}],
                            lr=a.lr, betas=(0.9, 0.95), eps=1e-8)
    phases = [(a.steps1, a.seq1, a.batch1), (a.steps2, a.seq2, a.batch2)]
    total = a.steps1 + a.steps2
    ck = os.path.join(out, "ckpt.pt")
    step, elapsed, history = 0, 0.0, []
    if os.path.exists(ck):
        s = torch.load(ck)
        model.load_state_dict(s["model"])
        opt.load_state_dict(s["opt"])
        step, elapsed, history = s["step"], s["elapsed"], s["history"]
        history.append({"resumed_at_step": step, "total_steps": total})
        log(f"resumed at step {step} ({elapsed:.0f}s trained)")
    t0 = time.time() - elapsed
    last_ck = time.time()
    run_loss, run_n, tok = 0.0, 0, 0
    tstep = time.time()
    while step < total:
        T, B = (phases[0][1], phases[0][2]) if step < a.steps1 else (phases[1][1], phases[1][2])
        gen = torch.Generator().manual_seed(a.seed * 1000003 + step)
        x, y = sample_batch(train_ids, B, T, gen)
        lr = lr_at(step, total, a.lr, a.warmup, a.lr * 0.05)
        for g in opt.param_groups:
            g["lr"] = lr
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        run_loss += loss.item()
        run_n += 1
        tok += B * T
        if step % a.log_every == 0 or step == total:
            dt = time.time() - tstep
            log(f"step {step}/{total} T={T} loss {run_loss / run_n:.4f} lr {lr:.2e} "
                f"{tok / dt:.0f} tok/s elapsed {time.time() - t0:.0f}s")
            history.append({"step": step, "seq_len": T, "train_loss": round(run_loss / run_n, 4),
                            "elapsed_s": round(time.time() - t0, 1)})
            run_loss, run_n, tok, tstep = 0.0, 0, 0, time.time()
        if step == a.steps1 or step % a.eval_every == 0:
            vl = evaluate(model, val_ids, 256, max_windows=64)
            log(f"step {step} val loss (256-token windows, 64) {vl:.4f}")
            history.append({"step": step, "val_loss_256": round(vl, 4)})
        if time.time() - last_ck > a.ckpt_minutes * 60 and step < total:
            save_ckpt(ck, {"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                           "elapsed": time.time() - t0, "history": history})
            last_ck = time.time()
            log(f"checkpoint at step {step}")
    train_s = time.time() - t0
    log("final evaluation")
    te = time.time()
    val_loss = evaluate(model, val_ids, 1024)
    train_loss = evaluate(model, train_ids, 1024, max_windows=160)
    log(f"pretrain done: train loss {train_loss:.4f} val loss {val_loss:.4f} "
        f"(ppl {math.exp(val_loss):.2f}) in {train_s:.0f}s")
    metrics = {
        "model": a.model, "parameters": M.num_params(model),
        "train_tokens": len(train_ids), "val_tokens": len(val_ids),
        "steps_phase1": a.steps1, "seq_len_phase1": a.seq1, "batch_phase1": a.batch1,
        "steps_phase2": a.steps2, "seq_len_phase2": a.seq2, "batch_phase2": a.batch2,
        "tokens_seen": a.steps1 * a.seq1 * a.batch1 + a.steps2 * a.seq2 * a.batch2,
        "peak_lr": a.lr, "weight_decay": a.wd, "warmup": a.warmup, "seed": a.seed,
        "train_loss_1024": round(train_loss, 4), "train_ppl_1024": round(math.exp(train_loss), 2),
        "val_loss_1024": round(val_loss, 4), "val_ppl_1024": round(math.exp(val_loss), 2),
        "train_wall_s": round(train_s, 1), "eval_wall_s": round(time.time() - te, 1),
        "history": history,
    }
    torch.save({"model": model.state_dict(), "metrics": metrics}, final + ".tmp")
    os.replace(final + ".tmp", final)
    update_metrics(work, "pretrain", metrics)
    if os.path.exists(ck):
        os.remove(ck)


# ------------------------------------------------------------------------------------
SYSTEM_PROMPTS = [
    "You are a helpful assistant.",
    "You are a character in a Jane Austen novel.",
    "You are a polite lady of the Regency era. Answer briefly.",
    "Answer the question in the manner of Jane Austen.",
]


def chat_example(sp, pair, rng):
    """ids and loss mask for one conversation (assistant content + its </s>)."""
    msgs = []
    if rng.random() < 0.4:
        msgs.append({"role": "system", "content": rng.choice(SYSTEM_PROMPTS)})
    msgs += [{"role": "user", "content": pair["user"]},
             {"role": "assistant", "content": pair["assistant"]}]
    if pair.get("next") and rng.random() < 0.5:
        msgs += [{"role": "user", "content": pair["next"][0]},
                 {"role": "assistant", "content": pair["next"][1]}]
    text = M.render_chat(msgs, add_generation_prompt=False)
    ids = M.encode_rendered(sp, text)
    asst = sp.piece_to_id("<|assistant|>")
    nl = sp.piece_to_id("<0x0A>")
    mask = [0] * len(ids)
    i = 0
    while i < len(ids):
        if ids[i] == asst:
            assert ids[i + 1] == nl
            j = i + 2
            while ids[j] != M.EOS:
                mask[j] = 1
                j += 1
            mask[j] = 1  # the </s> that ends the turn
            i = j
        i += 1
    return ids, mask


def finetune(a):
    work = a.work
    out = os.path.join(work, "chat")
    os.makedirs(out, exist_ok=True)
    final = os.path.join(out, "final.pt")
    if os.path.exists(final):
        log("finetune: final.pt exists, skipping")
        return
    sp = load_sp(work)
    train_ids = token_stream(work, "train", sp)
    pairs = [json.loads(l) for l in open(os.path.join(work, "data", "dialogues.jsonl"))]
    rng = random.Random(a.seed)
    rng.shuffle(pairs)
    n_hold = max(50, len(pairs) // 20)
    hold, pairs = pairs[:n_hold], pairs[n_hold:]
    log(f"finetune: {len(pairs)} dialogue pairs, {n_hold} held out")
    model = M.Llama(M.config_for(a.model))
    model.load_state_dict(torch.load(os.path.join(work, "pretrain", "final.pt"))["model"])
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.95), weight_decay=0.0)
    ck = os.path.join(out, "ckpt.pt")
    step, elapsed, history = 0, 0.0, []
    if os.path.exists(ck):
        s = torch.load(ck)
        model.load_state_dict(s["model"])
        opt.load_state_dict(s["opt"])
        step, elapsed, history = s["step"], s["elapsed"], s["history"]
        history.append({"resumed_at_step": step, "total_steps": a.steps})
        log(f"resumed at step {step}")
    t0 = time.time() - elapsed
    last_ck = time.time()

    def chat_batch(seed, source, B):
        r = random.Random(seed)
        ex = [chat_example(sp, source[r.randrange(len(source))], r) for _ in range(B)]
        L = max(len(e[0]) for e in ex)
        x = torch.full((B, L), M.EOS, dtype=torch.long)
        y = torch.full((B, L), -100, dtype=torch.long)
        for b, (ids, mask) in enumerate(ex):
            x[b, :len(ids)] = torch.tensor(ids)
            tgt = [t if m else -100 for t, m in zip(ids[1:], mask[1:])]
            y[b, :len(tgt)] = torch.tensor(tgt)
        return x, y

    def chat_loss(x, y):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x)
        return F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1),
                               ignore_index=-100)

    @torch.no_grad()
    def held_loss():
        model.eval()
        ls = [chat_loss(*chat_batch(10_000 + i, hold, 16)).item() for i in range(4)]
        model.train()
        return sum(ls) / len(ls)

    run = []
    while step < a.steps:
        lr = lr_at(step, a.steps, a.lr, 20, a.lr * 0.1)
        for g in opt.param_groups:
            g["lr"] = lr
        x, y = chat_batch(a.seed * 7919 + step, pairs, a.batch)
        loss = chat_loss(x, y)
        if step % a.plain_every == 0:  # keep plain-text fluency
            gen = torch.Generator().manual_seed(a.seed * 31 + step)
            px, py = sample_batch(train_ids, 4, 256, gen)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                pl = model(px)
            loss = loss + 0.5 * F.cross_entropy(pl.float().reshape(-1, pl.shape[-1]), py.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        run.append(loss.item())
        if step % a.log_every == 0 or step == a.steps:
            hl = held_loss()
            log(f"ft step {step}/{a.steps} loss {sum(run) / len(run):.4f} held-out chat loss {hl:.4f} "
                f"lr {lr:.2e} elapsed {time.time() - t0:.0f}s")
            history.append({"step": step, "train_loss": round(sum(run) / len(run), 4),
                            "heldout_chat_loss": round(hl, 4)})
            run = []
        if time.time() - last_ck > a.ckpt_minutes * 60 and step < a.steps:
            save_ckpt(ck, {"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                           "elapsed": time.time() - t0, "history": history})
            last_ck = time.time()
            log(f"checkpoint at step {step}")
    train_s = time.time() - t0
    val_ids = token_stream(work, "val", sp)
    val_loss = evaluate(model, val_ids, 1024)
    hl = held_loss()
    log(f"finetune done: plain val loss {val_loss:.4f}, held-out chat loss {hl:.4f}, {train_s:.0f}s")
    metrics = {"steps": a.steps, "batch": a.batch, "lr": a.lr, "plain_every": a.plain_every,
               "dialogue_pairs": len(pairs), "heldout_pairs": n_hold,
               "heldout_chat_loss": round(hl, 4), "val_loss_1024": round(val_loss, 4),
               "val_ppl_1024": round(math.exp(val_loss), 2), "train_wall_s": round(train_s, 1),
               "history": history}
    torch.save({"model": model.state_dict(), "metrics": metrics}, final + ".tmp")
    os.replace(final + ".tmp", final)
    update_metrics(work, "finetune", metrics)
    if os.path.exists(ck):
        os.remove(ck)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("stage", choices=["pretrain", "finetune"])
    p.add_argument("work")
    p.add_argument("--model", default="austen-chat-11m", help="architecture: a name in model.CONFIGS")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--ckpt-minutes", type=float, default=3.0)
    p.add_argument("--log-every", type=int, default=20)
    p.add_argument("--eval-every", type=int, default=200)
    p.add_argument("--steps1", type=int, default=900)
    p.add_argument("--seq1", type=int, default=256)
    p.add_argument("--batch1", type=int, default=16)
    p.add_argument("--steps2", type=int, default=300)
    p.add_argument("--seq2", type=int, default=1024)
    p.add_argument("--batch2", type=int, default=4)
    p.add_argument("--warmup", type=int, default=60)
    p.add_argument("--wd", type=float, default=0.1)
    p.add_argument("--lr", type=float, default=None)
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--batch", type=int, default=24)
    p.add_argument("--plain-every", type=int, default=3)
    a = p.parse_args()
    if a.stage == "pretrain":
        a.lr = a.lr or 2e-3
        pretrain(a)
    else:
        a.lr = a.lr or 3e-4
        finetune(a)


if __name__ == "__main__":
    main()
