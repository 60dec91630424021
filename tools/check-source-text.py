#!/usr/bin/env python3
"""Rejects work-log text in the product's sources: a session number ("session 17"), a
machine of some benchmark run ("Zen 5", "Zen4", "Xeon VM", "EPYC VM") or a load average.

Every file under engine/, ui/, server/, app/, remote/ and wire/ is read (code, comments,
CMakeLists.txt, data: all types; binary files, those with a NUL byte, are skipped;
missing folders too). Such text rots the day the machine changes: a comment says why in
one sentence and names the bench command that measures it (bench/README.md), and the
figures live in the benchmark pages. A CPU's name shown to users comes from CPUID at run
time (cpuModelName()), not from a table in the source.

Prints each hit as `path:line: <pattern>: <the line>`, then a one-line summary; exits 1
when there is a hit, 0 otherwise. --self-test checks the check on a temporary tree.
Usage: tools/check-source-text.py [--self-test] [REPO_ROOT]
"""
import pathlib
import re
import subprocess
import sys
import tempfile

FOLDERS = ("engine", "ui", "server", "app", "remote", "wire")
PATTERNS = [
    ("session N", re.compile(r"\bsessions?\s+[0-9]+", re.IGNORECASE)),
    ("Zen 4", re.compile(r"\bZen ?4\b", re.IGNORECASE)),
    ("Zen 5", re.compile(r"\bZen ?5\b", re.IGNORECASE)),
    ("Xeon VM", re.compile(r"\bXeon\s+VMs?\b", re.IGNORECASE)),
    ("EPYC VM", re.compile(r"\bEPYC\s+VMs?\b", re.IGNORECASE)),
    ("load average", re.compile(r"\bload\s+averages?\b", re.IGNORECASE)),
]


def text_of(path):
    data = path.read_bytes()
    return None if b"\0" in data else data.decode("utf-8", errors="replace")


def hits(root):
    """(path relative to root, line number, pattern name, line) for every hit, in order."""
    found = []
    for top in FOLDERS:
        for f in sorted((root / top).rglob("*")):
            text = text_of(f) if f.is_file() and not f.is_symlink() else None
            if text is None:
                continue
            for n, line in enumerate(text.splitlines(), 1):
                for name, pattern in PATTERNS:
                    if pattern.search(line):
                        found.append((f.relative_to(root).as_posix(), n, name, line.strip()))
    return found


def check(root):
    found = hits(root)
    for path, n, name, line in found:
        print(f"{path}:{n}: {name}: {line}")
    where = ", ".join(f"{top}/" for top in FOLDERS)
    print(f"{len(found)} hit(s) of session numbers, machine names or load averages in {where}")
    return 1 if found else 0


def self_test():
    """Runs this script on a temporary tree laid out like the repo: one file per pattern
    (and spelling), clean files with near misses, hits outside the checked folders or in a
    binary file; then on a tree of the clean files alone."""
    dirty = [  # (path, content, line of the hit, pattern)
        ("engine/exec/cpu/a.cpp", "// measured in session 17 on the lead's machine\n", 1, "session N"),
        ("engine/CMakeLists.txt", "set(X 1)\n# Sessions 5-7: 172 -> 132 s\n", 2, "session N"),
        ("ui/b.h", "int x;\n// tiles tuned on Zen 5\n", 2, "Zen 5"),
        ("ui/c.cpp", "// one zen5 core\n", 1, "Zen 5"),
        ("server/d.cpp", "// Zen 4 and later\n", 1, "Zen 4"),
        ("server/e.h", "// Zen4 too\n", 1, "Zen 4"),
        ("remote/f.py", "# the Intel Xeon VM of the README\n", 1, "Xeon VM"),
        ("wire/g.txt", "on the EPYC VM\n", 1, "EPYC VM"),
        ("app/h.cpp", "// at a load average of 15\n", 1, "load average"),
    ]
    clean = {
        "engine/clean.cpp": "// The session reconnects; a Zen 3 core; an EPYC, a VM, average load 2.\n"
                            "int sessionId5 = 0;  // citizen 5, Xeon, loaded averages\n",
        "ui/clean.h": "// A CPU's name comes from CPUID at run time.\n",
        "engine/blob.bin": "session 9\0binary\n",  # binary: skipped
        "tests/tst_x.cpp": "// session 12 (not a checked folder)\n",
        "bench/README.md": "Zen 5 VM, load average 3\n",
    }
    problems = []

    def write(root, files):
        for rel, content in files:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(content)

    def run(root):
        r = subprocess.run([sys.executable, __file__, str(root)], capture_output=True, text=True)
        return r.returncode, r.stdout.splitlines()

    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp) / "dirty"
        write(root, list(clean.items()) + [(rel, content) for rel, content, _, _ in dirty])
        rc, out = run(root)
        want = sorted(f"{rel}:{n}: {name}: {content.splitlines()[n - 1].strip()}" for rel, content, n, name in dirty)
        got = sorted(out[:-1])
        if rc != 1:
            problems.append(f"dirty tree: exit {rc}, expected 1")
        if got != want:
            problems.append("dirty tree: hits\n  " + "\n  ".join(got) + "\nexpected\n  " + "\n  ".join(want))
        if not out or not out[-1].startswith(f"{len(dirty)} hit(s)"):
            problems.append(f"dirty tree: summary {out[-1:]}, expected {len(dirty)} hit(s)")

        root = pathlib.Path(tmp) / "clean"
        write(root, clean.items())
        rc, out = run(root)
        if rc != 0 or len(out) != 1 or not out[0].startswith("0 hit(s)"):
            problems.append(f"clean tree: exit {rc}, output {out}; expected 0 and a 0-hit summary alone")
    for p in problems:
        print(f"self-test: {p}")
    print("self-test: " + ("FAILED" if problems else f"passed ({len(dirty)} hits found, the clean tree clean)"))
    return 1 if problems else 0


def main():
    args = sys.argv[1:]
    if args[:1] == ["--self-test"]:
        return self_test()
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parent.parent)
    return check(root)


if __name__ == "__main__":
    sys.exit(main())
