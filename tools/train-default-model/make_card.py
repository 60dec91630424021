#!/usr/bin/python3
"""Writes the model card OUTDIR/README.md from the numbers the other stages recorded
(WORK/metrics.json, stage_times.json, data/corpus_stats.json, export/verify.json).

Usage: make_card.py WORK OUTDIR [--model NAME]
"""
import argparse
import glob
import json
import os
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def fmt_s(s):
    s = int(round(s))
    return f"{s // 60} min {s % 60:02d} s"


def draft_section(w, cfg, pt, agreement):
    """What a draft is judged by: its cost against the target's and how often its greedy
    guess is the target's (export.py --target, draft_agreement.py)."""
    target = agreement["target_config"]
    w("## As a draft for austen-chat-11m\n")
    w("Speculative decoding lets this model guess the next k tokens and the target verify them in "
      "one forward pass; a guess is kept while it equals what the target would produce. Measured "
      "with `tools/train-default-model/draft_agreement.py` against the committed `austen-chat-11m` "
      "weights, both models' argmaxes in float32 (the target's chat answers were generated under "
      f"bf16 autocast for speed; {agreement['chat_answer_tokens_off_fp32_greedy']} of their tokens "
      "differ from the float32 argmax, and the comparison there is with the float32 one):\n")
    w("| measure | value |")
    w("|---|---:|")
    w(f"| parameters, draft / target | {pt['parameters']:,} / {agreement['target_parameters']:,} "
      f"({agreement['target_parameters'] / pt['parameters']:.1f}x fewer) |")
    w(f"| layers x hidden size, draft / target | {cfg['num_hidden_layers']}x{cfg['hidden_size']} / "
      f"{target['num_hidden_layers']}x{target['hidden_size']} |")
    w(f"| argmax agreement on the validation chapters ({agreement['text_positions']:,} positions) | "
      f"{agreement['text_argmax_agreement']:.1%} |")
    w(f"| greedy agreement on the target's greedy answers to {agreement['chat_prompts']} held-out chat "
      f"prompts ({agreement['chat_answer_tokens']:,} tokens, at most {agreement['chat_max_new_tokens']} each) | "
      f"{agreement['chat_greedy_agreement']:.1%} |")
    w("")
    w("Greedy speculative decoding simulated on those answers (each step keeps the leading run of "
      "correct guesses plus the target's own token; mean acceptance length = 1 + accepted / drafts, "
      "as vLLM's `vllm:spec_decode_*` metrics define it):\n")
    w("| k (num_speculative_tokens) | acceptance rate | mean acceptance length |")
    w("|---:|---:|---:|")
    for r in agreement["chat_speculation"]:
        w(f"| {r['k']} | {r['acceptance_rate']:.1%} | {r['mean_acceptance_length']:.2f} |")
    w("")
    w("Use it with the target: `llm-workbench generate --speculative-config "
      "'{\"model\": \"DIR/austen-chat-draft\", \"num_speculative_tokens\": 3}'` (DIR: the bundled "
      "models folder, `share/llm-workbench/models`). On its own it writes worse prose than the target.\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("work")
    p.add_argument("out")
    p.add_argument("--model", default="austen-chat-11m")
    args = p.parse_args()
    work, out, name = args.work, args.out, args.model
    m = load(os.path.join(work, "metrics.json"))
    times = load(os.path.join(work, "stage_times.json"))
    cs = load(os.path.join(work, "data", "corpus_stats.json"))
    ver = load(os.path.join(work, "export", "verify.json"))
    cfg = load(os.path.join(out, "config.json"))
    gen = load(os.path.join(out, "generation_config.json"))
    tok = load(os.path.join(out, "tokenizer_config.json"))
    pt, ft, ex = m["pretrain"], m["finetune"], m["export"]
    deb = sorted(glob.glob(os.path.join(work, "corpus", "r-cran-janeaustenr_*.deb")))
    deb = os.path.basename(deb[-1]) if deb else "r-cran-janeaustenr"
    # pretrain/finetune resume from checkpoints: their own clocks count every run
    times = dict(times)
    if "pretrain" in times:
        times["pretrain"] = max(times["pretrain"], pt["train_wall_s"] + pt.get("eval_wall_s", 0))
    if "finetune" in times:
        times["finetune"] = max(times["finetune"], ft["train_wall_s"])
    total = sum(times.values())
    acc = ex["acceptance"]
    size_mb = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out)
                  if f != "README.md") / 1e6

    L = []
    w = L.append
    agreement = ex.get("draft_agreement")
    w(f"# {name}\n")
    if agreement:
        w("The draft model of llm-workbench's default model `austen-chat-11m`, for speculative "
          f"decoding: a much smaller Llama ({pt['parameters']:,} parameters) trained from scratch the same "
          "way, on two CPU cores, on the same corpus (Jane Austen's six novels) with the same tokenizer "
          "(the target's `tokenizer.model`, so token ids are identical), then fine-tuned on the same chat "
          "turns. It ships beside the default model so that speculative decoding with a draft model can "
          "be tried on any machine.\n")
    else:
        w("The default model of llm-workbench: a tiny Llama-architecture language model "
          f"({pt['parameters']:,} parameters) trained from scratch, on two CPU cores, on Jane Austen's six "
          "novels, then fine-tuned to take turns in a chat. It is small enough to ship with the program "
          "and fast enough to make an inference server's behaviour (batching, KV cache, prefix cache) "
          "visible on any machine. It writes Austen-flavoured, fluent-ish sentences with little "
          "coherence; it knows nothing useful.\n")
    w("Files: `config.json`, `model.safetensors` (float32), `tokenizer.model` (SentencePiece), "
      "`tokenizer_config.json` (with the chat template), `generation_config.json`, this card "
      f"(together {size_mb:.1f} MB). Hugging Face layout: loads as `LlamaForCausalLM` + `LlamaTokenizer`.\n")

    w("## Corpus and licence\n")
    w("The six completed novels of Jane Austen (1775-1817), public domain: *Sense and Sensibility*, "
      "*Pride and Prejudice*, *Mansfield Park*, *Emma*, *Northanger Abbey*, *Persuasion*. The text "
      "comes from the R package janeaustenr by Julia Silge (MIT licence; texts from Project "
      f"Gutenberg), as packaged by Debian (`{deb}`); `rdata.py` reads R's lazy-load database "
      "without R. Chapters are split on their headings; paragraphs are joined into one line each, "
      "`_italics_` underscores removed, and Northanger Abbey's modern \"note on the text\" dropped.\n")
    w("| book | chapters | held out | words |")
    w("|---|---:|---:|---:|")
    for b, s in cs["books"].items():
        w(f"| {b} | {s['chapters']} | {s['validation_chapters']} | {s['words']:,} |")
    w("")
    w(f"Validation = the last chapters of each book ({cs['validation_chapters']} chapters, "
      f"{cs['validation_words']:,} words, {pt['val_tokens']:,} tokens); training = the other "
      f"{cs['train_chapters']} chapters ({cs['train_words']:,} words, {pt['train_tokens']:,} tokens). "
      "Each chapter is one document: BOS, the heading, then the paragraphs separated by `\\n`.\n")
    w("The weights are a derived work of public-domain texts; they are distributed with "
      "llm-workbench under its licence.\n")

    w("## Tokenizer\n")
    w("SentencePiece BPE, 4096 pieces, trained on the training chapters with Llama-2 conventions: "
      "`<unk>`=0, `<s>`=1 (BOS), `</s>`=2 (EOS), no pad; byte fallback (any UTF-8 text encodes; "
      "`\\n` is the byte piece `<0x0A>`), digits split, identity normalisation, extra whitespace kept, "
      "dummy prefix added. `<|system|>`=3, `<|user|>`=4, `<|assistant|>`=5 are user-defined symbols, "
      "so each is always one token. `spm_train` options are in `tools/train-default-model/train.sh`.\n")

    w("## Architecture\n")
    w("Llama, computed exactly as Hugging Face's `LlamaForCausalLM`: RMSNorm (float32, then times "
      "weight), RoPE in the rotate-half convention, grouped-query attention, SwiGLU MLP, no biases, "
      "final norm, LM head tied to the embeddings (no `lm_head.weight` in the file).\n")
    w("| field | value |")
    w("|---|---|")
    for k in ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
              "head_dim", "intermediate_size", "vocab_size", "max_position_embeddings", "rope_theta",
              "rms_norm_eps", "tie_word_embeddings", "hidden_act"):
        w(f"| {k} | {cfg[k]} |")
    w(f"| parameters | {pt['parameters']:,} (embedding {cfg['vocab_size'] * cfg['hidden_size']:,}) |")
    w("")

    w("## Training\n")
    w("One command reproduces everything (corpus download, tokenizer, pretraining, chat "
      "fine-tune, export, golden test data, this card); every stage resumes after an interruption:\n")
    flag = "" if name == "austen-chat-11m" else f" --model {name}"
    w(f"```\ntools/install-deps.sh --training\ntools/train-default-model/train.sh{flag}   "
      f"# [--out DIR], default resources/models/{name}\n```\n")
    w(f"- Pretraining: AdamW (betas 0.9/0.95, weight decay {pt['weight_decay']}), peak learning rate "
      f"{pt['peak_lr']}, {pt['warmup']} warm-up steps, cosine decay to 5%, gradient clipping 1.0, bf16 "
      f"autocast on CPU. Phase 1: {pt['steps_phase1']} steps of {pt['batch_phase1']}x{pt['seq_len_phase1']} "
      f"tokens; phase 2: {pt['steps_phase2']} steps of {pt['batch_phase2']}x{pt['seq_len_phase2']} tokens; "
      f"{pt['tokens_seen']:,} tokens in all ({pt['tokens_seen'] / pt['train_tokens']:.1f} epochs). Random "
      "windows of the concatenated chapters.")
    w(f"- Chat fine-tune: {ft['steps']} steps of {ft['batch']} conversations (learning rate {ft['lr']}, "
      f"cosine), {ft['dialogue_pairs']:,} exchanges mined from the training chapters: two consecutive "
      "quoted speeches become a user turn and the assistant's reply (narration such as \"said he\" "
      "removed, long speeches dropped), 40% with a system prompt, half of those with a following "
      "exchange as a second turn. Loss only on the assistant's tokens and the `</s>` that ends each "
      "of its turns. " + ("Every step" if ft["plain_every"] == 1 else f"Every {ft['plain_every']}th step")
      + " also trains on a batch of plain text (4x256 tokens, loss weight 0.5) to keep the prose fluent.")
    w(f"- Measured on 2 shared CPU cores (other compiles running), total {fmt_s(total)}:\n")
    w("| stage | wall time |")
    w("|---|---:|")
    for k, v in times.items():
        w(f"| {k} | {fmt_s(v)} |")
    w("")
    for note in m.get("notes", []):
        w(f"Note: {note}\n")

    w("## Results\n")
    w("Losses are mean next-token cross-entropy (nats) over 1024-token windows; perplexity = exp(loss).\n")
    w("| model | data | loss | perplexity |")
    w("|---|---|---:|---:|")
    w(f"| pretrained | training chapters (sample of {min(160, pt['train_tokens'] // 1024)} windows) | "
      f"{pt['train_loss_1024']:.3f} | {pt['train_ppl_1024']:.1f} |")
    w(f"| pretrained | validation chapters | {pt['val_loss_1024']:.3f} | {pt['val_ppl_1024']:.1f} |")
    w(f"| chat (this model) | validation chapters | {ft['val_loss_1024']:.3f} | {ft['val_ppl_1024']:.1f} |")
    w(f"| chat (this model) | {ft['heldout_pairs']} held-out exchanges, assistant tokens | "
      f"{ft['heldout_chat_loss']:.3f} | {2.718281828 ** ft['heldout_chat_loss']:.1f} |")
    w("")
    hist = [h for h in pt["history"] if "train_loss" in h]
    if hist:
        pick = hist[:: max(1, len(hist) // 6)] + ([hist[-1]] if hist[-1] not in hist[:: max(1, len(hist) // 6)] else [])
        w("Training loss during pretraining (random batches): " +
          ", ".join(f"step {h['step']}: {h['train_loss']:.2f}" for h in pick) + ".\n")

    w("## Export check\n")
    w("`tools/train-default-model/verify_export.py` reads the exported `model.safetensors` by hand "
      "and runs the forward pass in numpy float64, independent of the training code, then compares "
      "with the PyTorch model's float32 logits:\n")
    w("| prompt | tokens | max abs logit diff | greedy tokens agree |")
    w("|---|---:|---:|---|")
    for p in ver["prompts"]:
        w(f"| {p['name']} | {p['tokens']} | {p['max_abs_logit_diff']:.2e} | "
          f"{p['greedy_tokens']}/{p['greedy_tokens'] if p['greedy_agree'] else 'NO'} |")
    w("")
    w(f"Parameters in the file: {ver['parameters']:,} in {ver['tensors']} tensors. Golden outputs for "
      "the C++ engine's tests (top-5 log-probabilities at several prompt positions, 32 greedy tokens, "
      f"tokenizations) are in `tests/data/golden_{name.replace('-', '_')}.json`.\n")
    if agreement:
        draft_section(w, cfg, pt, agreement)

    w("## Chat template\n")
    w("Zephyr style with BOS (`chat_template` in `tokenizer_config.json`):\n")
    w("```jinja\n" + tok["chat_template"] + "\n```\n")
    w("Rendered for a system prompt and one question, ready for the answer:\n")
    w("```\n<s><|system|>\nYou are a helpful assistant.</s>\n<|user|>\nHow are you today?</s>\n"
      "<|assistant|>\n```\n")
    w("To tokenize, split the rendered text on the strings `<s>` and `</s>` (they become the ids 1 "
      "and 2, never their spelled text) and encode every piece in between with SentencePiece as it "
      "is (the dummy prefix applies to each piece). `<|system|>`, `<|user|>`, `<|assistant|>` come out "
      "as single tokens. The model ends its answer with `</s>` (id 2): stop there.\n")

    w("## Samples\n")
    w(f"Generation defaults (`generation_config.json`): temperature {gen['temperature']}, top-p "
      f"{gen['top_p']}, up to {gen['max_new_tokens']} new tokens.\n")
    w("Plain text (the prompt in bold):\n")
    for s in ex["plain_samples"]:
        w(f"> **{s['prompt']}**{s['continuation']}\n".replace("\n", " ").rstrip() + "\n")
    w(f"Chat acceptance check (chat template, no system prompt, temperature {acc['temperature']}, "
      f"top-p {acc['top_p']}, at most {acc['max_new_tokens']} tokens): {acc['stopped']} of {acc['of']} "
      f"answers ended by themselves with `</s>`"
      + (f" (over {acc['repeat_runs']} further samples: {acc['repeat_stopped']})" if acc["repeat_runs"] else "")
      + ".\n")
    w("| user | assistant | tokens | ended with `</s>` |")
    w("|---|---|---:|---|")
    for q in acc["questions"]:
        a = q["answer"].replace("\n", " ").replace("|", "\\|")
        w(f"| {q['question']} | {a} | {q['tokens']} | {'yes' if q['stopped_with_eos'] else 'no'} |")
    w("")
    w("With a system prompt (`" + ex["chat_with_system_samples"][0]["system"] + "`), default sampling:\n")
    w("| user | assistant | ended with `</s>` |")
    w("|---|---|---|")
    for q in ex["chat_with_system_samples"]:
        a = q["answer"].replace("\n", " ").replace("|", "\\|")
        w(f"| {q['question']} | {a} | {'yes' if q['stopped_with_eos'] else 'no'} |")
    w("")

    w("## Known limits\n")
    if agreement:
        w("- A draft: its job is to guess the target's next tokens cheaply. Its own text is weaker than "
          "the target's, and its agreement with the target is lower on plain prose than on the "
          "target's own (more repetitive) greedy output.")
    w("- A tiny model trained for under an hour on under a million words: sentences are grammatical-ish "
      "and in period style, but meaning drifts within a sentence or two, names from all six novels "
      "mix, and it repeats itself at low temperature.")
    w("- Its chat turns are lines of Austen dialogue, not answers: it does not follow instructions, "
      "knows no facts and ignores most of the system prompt.")
    n_eos = sum(1 for s in ex["plain_samples"] if s.get("stopped_with_eos"))
    if n_eos:
        w(f"- The chat fine-tune taught it to end turns with `</s>`, and it carries that over to plain "
          f"text: {n_eos} of the {len(ex['plain_samples'])} plain samples above ended with `</s>` after a "
          "sentence or two. For long plain-text output (load generation) ignore EOS.")
    w("- English only; other scripts are encoded byte by byte and never generated sensibly.")
    w(f"- Trained on sequences up to {cfg['max_position_embeddings']} tokens; longer contexts are "
      "outside its training.")
    w("- bf16 training on CPU: a re-run on another machine gives a similar but not bit-identical "
      "model (the golden data belongs to the committed weights).")
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(L) + "\n")
    print("wrote", os.path.join(out, "README.md"))


if __name__ == "__main__":
    main()
