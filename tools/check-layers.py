#!/usr/bin/env python3
"""Checks the include graph against the house's layer order (README, Architecture):

    app -> ui | server -> engine/remote -> engine/bench -> engine root -> engine/metrics
        -> engine/sched -> engine/kv | exec | sample | model -> engine/config -> engine/common

A source may include its own layer or any layer below it, never one above; modules of
one layer (kv, exec, sample, model) may include each other but not in a cycle. Prints
every offending include as file:line and exits 1 when there is one.
Usage: tools/check-layers.py [REPO_ROOT]
"""
import pathlib
import re
import sys

# Highest first; a path belongs to the first prefix it starts with.
LAYERS = [
    ("app/", 10),
    ("ui/", 9),
    ("server/", 9),
    ("engine/remote/", 8),
    ("engine/bench/", 7),
    ("engine/metrics/", 5),
    ("engine/spec/", 5),  # proposers: read requests (sched), run a draft model (exec, kv, model)
    ("engine/sched/", 4),
    ("engine/kv/", 3),
    ("engine/exec/", 3),
    ("engine/sample/", 3),
    ("engine/model/", 3),
    ("engine/config/", 2),
    ("engine/common/", 1),
    ("engine/", 6),  # the engine root: engine*.*, forward_batch_builder.*
]
SOURCES = ("app", "ui", "server", "engine")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path):
    for prefix, rank in LAYERS:
        if path.startswith(prefix):
            return prefix, rank
    return None, None


def module_of(path):
    prefix, _ = layer_of(path)
    return prefix


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    problems = []
    module_edges = {}
    for top in SOURCES:
        for f in sorted((root / top).rglob("*")):
            if f.suffix not in (".h", ".cpp", ".cu", ".cuh"):
                continue
            src = f.relative_to(root).as_posix()
            src_module, src_rank = layer_of(src)
            for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m or not (root / m.group(1)).exists():
                    continue  # system, Qt, generated (moc) or relative includes
                dst_module, dst_rank = layer_of(m.group(1))
                if dst_rank is None or dst_module == src_module:
                    continue
                if dst_rank > src_rank:
                    problems.append(f"{src}:{n}: includes {m.group(1)} (layer {dst_module} is above {src_module})")
                module_edges.setdefault(src_module, set()).add(dst_module)
    for a, targets in module_edges.items():
        for b in targets:
            if a in module_edges.get(b, set()) and a < b:
                problems.append(f"cycle: {a} and {b} include each other")
    for p in problems:
        print(p)
    print(f"{len(problems)} layer violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
