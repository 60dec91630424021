#!/usr/bin/python3
"""Stage a: Jane Austen's six novels from Debian's r-cran-janeaustenr -> chapters as
plain text, a train/validation split by chapter, and dialogue pairs mined from
consecutive quoted speeches.

Usage: prepare_corpus.py PKGROOT OUTDIR
  PKGROOT: the extracted .deb (contains usr/lib/R/site-library/janeaustenr)
Writes OUTDIR/train.jsonl, val.jsonl (one chapter per line: book, chapter, text),
OUTDIR/spm_train.txt (training paragraphs, one per line, for spm_train),
OUTDIR/dialogues.jsonl (pairs from training chapters), OUTDIR/corpus_stats.json.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rdata  # noqa: E402

BOOKS = {  # R object name -> title
    "sensesensibility": "Sense and Sensibility",
    "prideprejudice": "Pride and Prejudice",
    "mansfieldpark": "Mansfield Park",
    "emma": "Emma",
    "northangerabbey": "Northanger Abbey",
    "persuasion": "Persuasion",
}
CHAPTER_RE = re.compile(r"^(CHAPTER|Chapter)\s+([0-9IVXLC]+)\.?\s*$")
END_RE = re.compile(r"^(THE END|FINIS|Finis|A NOTE ON THE TEXT)\s*$")
SKIP_RE = re.compile(r"^(VOLUME|Volume)\s+[IVX0-9]+\s*$")


def split_chapters(lines):
    chapters, cur = [], None
    for line in lines:
        line = line or ""
        if END_RE.match(line.strip()):
            break
        if CHAPTER_RE.match(line.strip()):
            cur = {"heading": line.strip(), "lines": []}
            chapters.append(cur)
            continue
        if cur is None or SKIP_RE.match(line.strip()):
            continue
        cur["lines"].append(line)
    out = []
    for ch in chapters:
        paras, buf = [], []
        for line in ch["lines"] + [""]:
            s = line.strip()
            if s:
                buf.append(s)
            elif buf:
                paras.append(" ".join(buf))
                buf = []
        # strip footnote markers and the _italics_ underscores
        paras = [p.replace("_", "") for p in paras if not p.startswith("*Vide")]
        paras = [re.sub(r"\s+", " ", p).strip() for p in paras if p.strip()]
        out.append({"heading": ch["heading"], "paragraphs": paras})
    return out


QUOTE_RE = re.compile(r'"([^"]*)"')


def speech(par):
    """The spoken words of a paragraph that is a complete quoted speech (the quotes
    open it), with the narration ("said he", ...) removed; None otherwise."""
    if '"' not in par or par.count('"') % 2:
        return None
    # narration before the first quote must be short ("Elizabeth replied, ...")
    if len(par.split('"', 1)[0].split()) > 8:
        return None
    parts = [q.strip() for q in QUOTE_RE.findall(par) if q.strip()]
    if not parts:
        return None
    # narration between quotes: keep the speech, join the pieces
    text = " ".join(parts)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"[,;:\-]+$", ".", text)
    if text.endswith("--"):
        text = text[:-2] + "."
    if not re.search(r"[.!?]$", text):
        text += "."
    if "'" in text[:1]:
        return None
    return text


def mine_dialogues(chapters, max_user=40, max_asst=60):
    pairs = []
    for ch in chapters:
        sp = [speech(p) for p in ch["paragraphs"]]
        run = []
        for s in sp + [None]:
            if s is None:
                for i in range(len(run) - 1):
                    u, a = run[i], run[i + 1]
                    if len(u.split()) <= max_user and 2 <= len(a.split()) <= max_asst:
                        # the following exchange, for multi-turn examples
                        nxt = None
                        if i + 3 < len(run) and len(run[i + 2].split()) <= max_user \
                                and 2 <= len(run[i + 3].split()) <= max_asst:
                            nxt = [run[i + 2], run[i + 3]]
                        pairs.append({"user": u, "assistant": a, "next": nxt})
                run = []
            else:
                run.append(s)
    return pairs


def main():
    pkgroot, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    db = rdata.load_lazy_db(os.path.join(pkgroot, "usr/lib/R/site-library/janeaustenr/data/Rdata"))
    train, val, stats = [], [], {"books": {}}
    for key, title in BOOKS.items():
        chapters = split_chapters(db[key].value)
        n_val = max(2, round(0.05 * len(chapters)))
        for i, ch in enumerate(chapters):
            rec = {"book": title, "chapter": ch["heading"], "index": i,
                   "paragraphs": ch["paragraphs"]}
            (val if i >= len(chapters) - n_val else train).append(rec)
        stats["books"][title] = {"chapters": len(chapters), "validation_chapters": n_val,
                                 "words": sum(len(p.split()) for c in chapters for p in c["paragraphs"])}
    with open(os.path.join(outdir, "train.jsonl"), "w") as f:
        for r in train:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(os.path.join(outdir, "val.jsonl"), "w") as f:
        for r in val:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(os.path.join(outdir, "spm_train.txt"), "w") as f:
        for r in train:
            f.write(r["chapter"] + "\n")
            for p in r["paragraphs"]:
                f.write(p + "\n")
    pairs = mine_dialogues(train)
    with open(os.path.join(outdir, "dialogues.jsonl"), "w") as f:
        for p in pairs:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    stats["train_chapters"] = len(train)
    stats["validation_chapters"] = len(val)
    stats["train_words"] = sum(len(p.split()) for r in train for p in r["paragraphs"])
    stats["validation_words"] = sum(len(p.split()) for r in val for p in r["paragraphs"])
    stats["dialogue_pairs"] = len(pairs)
    with open(os.path.join(outdir, "corpus_stats.json"), "w") as f:
        json.dump(stats, f, indent=1)
    print(json.dumps(stats, indent=1))


if __name__ == "__main__":
    main()
