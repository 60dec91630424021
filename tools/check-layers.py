#!/usr/bin/env python3
"""Checks the include graph against the layers the build declares.

Each layer is declared once, by an `lwb_layer(NAME [FILES_ONLY] DEPENDS ...)` call in the
CMakeLists.txt of its folder (cmake/Layers.cmake); the build gives each layer only the
include roots of the layers it depends on, and this script checks the same rule on the
source text, with a readable report:
  - the declared dependencies form no cycle, of any length;
  - every `#include "path"` of a project header, in every layer's folder (bench/ and
    fuzz/ included), names its own layer or one its layer depends on (directly or
    through layers below), by its path from the repository root (no "..");
  - the layers that includes actually connect form no cycle either.
It also prints the layer diagram (--diagram) that docs/architecture.md shows between its
`<!-- layers:begin -->` / `<!-- layers:end -->` markers (README.md shows its last line,
the order, between the same markers), and checks that both show the build's (--check-docs). --self-test runs the checks on a small
made-up tree with a known upward include and a known cycle.

Usage: tools/check-layers.py [--diagram | --check-docs | --update-docs | --self-test] [REPO_ROOT]
"""
import pathlib
import re
import sys
import tempfile

SOURCE_SUFFIXES = (".h", ".cpp", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
LAYER_CALL = re.compile(r"\blwb_layer\s*\(([^)]*)\)", re.S)
KEYWORDS = {"DEPENDS", "OPTIONAL_DEPENDS", "PUBLIC_LIBS", "PRIVATE_LIBS", "SOURCES", "FILES_ONLY", "PROGRAMS"}
DOCS = {"docs/architecture.md": "table", "README.md": "order"}  # what each shows of the diagram
BEGIN, END = "<!-- layers:begin -->", "<!-- layers:end -->"


class Layer:
    def __init__(self, name, folder, files_only, deps, order):
        self.name, self.folder, self.files_only, self.deps, self.order = name, folder, files_only, deps, order


def read_layers(root):
    """The lwb_layer() calls of every CMakeLists.txt, in the order the build defines them."""
    layers = {}
    files = [p for p in root.rglob("CMakeLists.txt") if not any(part.startswith("build") for part in p.relative_to(root).parts)]
    for path in sorted(files):
        folder = path.parent.relative_to(root).as_posix()
        text = re.sub(r"#.*", "", path.read_text())
        for call in LAYER_CALL.finditer(text):
            words = call.group(1).split()
            name, section, deps, files_only = words[0], None, [], False
            for w in words[1:]:
                if w in KEYWORDS:
                    section = w
                    files_only |= w == "FILES_ONLY"
                elif section in ("DEPENDS", "OPTIONAL_DEPENDS"):
                    deps.append(w)
            if name in layers:
                raise SystemExit(f"{path}: layer {name} declared twice")
            layers[name] = Layer(name, folder, files_only, deps, 0)
    order = define_order(layers)
    for i, name in enumerate(order):
        layers[name].order = i
    return layers


def find_cycle(graph):
    """One cycle of `graph` (node -> iterable of nodes) as a list of nodes, or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = "open"
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == "open":
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        state[n] = "done"
        stack.pop()
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def define_order(layers):
    """Bottom-up order; exits naming a cycle or an unknown layer. The engine's layers come
    first, then the folders outside engine/; within each, by height (the longest chain of
    dependencies below a layer), so a layer always comes after those it depends on."""
    for layer in layers.values():
        for d in layer.deps:
            if d not in layers:
                raise SystemExit(f"{layer.folder}/CMakeLists.txt: layer {layer.name} depends on unknown layer '{d}'")
    cycle = find_cycle({n: l.deps for n, l in layers.items()})
    if cycle:
        raise SystemExit("cycle in the declared layers: " + " -> ".join(cycle))
    height = {}

    def measure(n):
        if n not in height:
            height[n] = 1 + max((measure(d) for d in layers[n].deps), default=-1)
        return height[n]

    def key(n):
        return (0 if layers[n].folder.startswith("engine/") or layers[n].folder == "engine" else 1, measure(n))

    order = sorted(layers, key=lambda n: key(n) + (n,))
    for n in layers:
        for d in layers[n].deps:
            if key(d) >= key(n):
                raise SystemExit(f"layer {n} ({layers[n].folder}/) depends on {d} ({layers[d].folder}/), "
                                 "which is not below it: engine/ may not depend on a folder outside it")
    for n in layers:
        layers[n].key = key(n)
    return order


def closure(layers, name):
    seen, todo = set(), [name]
    while todo:
        for d in layers[todo.pop()].deps:
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def layer_of(layers, path):
    """The layer whose folder holds `path` (the deepest folder; FILES_ONLY: direct files only)."""
    best = None
    for layer in layers.values():
        prefix = layer.folder + "/"
        if not path.startswith(prefix):
            continue
        if layer.files_only and "/" in path[len(prefix):]:
            continue
        if best is None or len(layer.folder) > len(best.folder):
            best = layer
    return best


def check(root):
    layers = read_layers(root)
    allowed = {n: closure(layers, n) for n in layers}
    problems, edges = [], {}
    for top in sorted({l.folder.split("/")[0] for l in layers.values()}):
        for f in sorted((root / top).rglob("*")):
            if f.suffix not in SOURCE_SUFFIXES:
                continue
            src = f.relative_to(root).as_posix()
            src_layer = layer_of(layers, src)
            if src_layer is None:
                continue
            for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if m and ".." in m.group(1).split("/"):
                    problems.append(f"{src}:{n}: includes {m.group(1)}: include project headers by their path "
                                    "from the repository root, not with '..'")
                    continue
                if not m or not (root / m.group(1)).is_file():
                    continue  # system, Qt, generated (moc) or folder-relative includes
                dst_layer = layer_of(layers, m.group(1))
                if dst_layer is None or dst_layer is src_layer:
                    continue
                edges.setdefault(src_layer.name, set()).add(dst_layer.name)
                if dst_layer.name not in allowed[src_layer.name]:
                    problems.append(f"{src}:{n}: includes {m.group(1)}: layer {src_layer.name} does not depend on "
                                    f"layer {dst_layer.name} (declared in {src_layer.folder}/CMakeLists.txt)")
    cycle = find_cycle(edges)
    if cycle:
        problems.append("cycle in the includes between layers: " + " -> ".join(cycle))
    return layers, problems


def groups(layers):
    """Bottom-up groups of layers of one height (none of them depends on another)."""
    result = []
    for layer in sorted(layers.values(), key=lambda l: l.order):
        if result and result[-1][0].key == layer.key:
            result[-1].append(layer)
        else:
            result.append([layer])
    return result


def order_line(layers):
    return "Top to bottom: " + " → ".join(" | ".join(l.name for l in g) for g in reversed(groups(layers))) + "\n"


def diagram(layers):
    rows = [("layer", "folder", "depends on (may include)")]
    for layer in sorted(layers.values(), key=lambda l: -l.order):
        folder = layer.folder + ("/*" if layer.files_only else "/")
        rows.append((layer.name, folder, ", ".join(layer.deps) or "-"))
    w0, w1 = (max(len(r[i]) for r in rows) for i in (0, 1))
    table = [f"{a:<{w0}}  {b:<{w1}}  {c}".rstrip() for a, b, c in rows]
    return "```\n" + "\n".join(table) + "\n```\n\n" + order_line(layers)


def check_docs(root, layers):
    problems = []
    for doc, part in DOCS.items():
        want = diagram(layers) if part == "table" else order_line(layers)
        text = (root / doc).read_text() if (root / doc).exists() else ""
        if BEGIN not in text or END not in text:
            problems.append(f"{doc}: no {BEGIN} ... {END} block (tools/check-layers.py --diagram prints it)")
            continue
        have = text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"
        if have != want:
            problems.append(f"{doc}: the layers between the markers are not the build's; put there "
                            + ("`tools/check-layers.py --diagram`" if part == "table" else "its last line"))
    return problems


def update_docs(root, layers):
    for doc, part in DOCS.items():
        path = root / doc
        text = path.read_text()
        if BEGIN not in text or END not in text:
            raise SystemExit(f"{doc}: add the lines {BEGIN} and {END} where the layers go")
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        body = diagram(layers) if part == "table" else order_line(layers)
        path.write_text(head + BEGIN + "\n" + body + END + tail)


def self_test():
    def tree(files):
        d = pathlib.Path(tempfile.mkdtemp(prefix="check-layers-"))
        for path, text in files.items():
            (d / path).parent.mkdir(parents=True, exist_ok=True)
            (d / path).write_text(text)
        return d

    base = {
        "low/CMakeLists.txt": "lwb_layer(low)\n", "low/a.h": "#pragma once\n",
        "mid/CMakeLists.txt": "lwb_layer(mid DEPENDS low)\n", "mid/b.h": '#include "low/a.h"\n',
        "top/CMakeLists.txt": "lwb_layer(top DEPENDS mid)\n", "top/c.cpp": '#include "low/a.h"\n#include "mid/b.h"\n',
    }
    _, problems = check(tree(base))
    assert problems == [], problems
    upward = dict(base, **{"low/a.cpp": '#include "top/c.cpp"\n#include "mid/b.h"\n#include "../top/c.cpp"\n'})
    _, problems = check(tree(upward))
    assert len(problems) == 4 and problems[0].startswith("low/a.cpp:1:"), problems
    assert problems[2].startswith("low/a.cpp:3:") and "'..'" in problems[2], problems
    assert problems[-1].startswith("cycle in the includes"), problems
    cyclic = dict(base, **{"low/CMakeLists.txt": "lwb_layer(low DEPENDS top)\n"})
    try:
        check(tree(cyclic))
        assert False, "a three-layer cycle passed"
    except SystemExit as e:
        assert str(e).startswith("cycle in the declared layers:") and all(n in str(e) for n in ("low", "mid", "top")), e
    print("check-layers self-test: an upward include, a '..' include, an include cycle and a declared cycle are caught")
    return 0


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    if "--self-test" in flags:
        return self_test()
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parent.parent)
    layers, problems = check(root)
    if "--diagram" in flags:
        print(diagram(layers), end="")
        return 0
    if "--update-docs" in flags:
        update_docs(root, layers)
    if "--check-docs" in flags or "--update-docs" in flags:
        problems += check_docs(root, layers)
    for p in problems:
        print(p)
    print(f"{len(problems)} layer violation(s) in {len(layers)} layers")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
