#!/usr/bin/env python3
"""Checks that no code compiled for one SIMD target can be linked in for another.

The CPU kernels are compiled per ISA (files *_avx2.cpp, *_avx512.cpp, *_scalar.cpp under
engine/exec/cpu, each in its own target region) into one library, and the executor picks
the ISA at run time. An inline function or template instantiated in two of these files
under the same mangled name becomes a weak symbol in both objects, and the linker keeps
one copy for every caller: the AVX-512 copy then runs on CPUs without AVX-512 (SIGILL).
This happened once (GCC 12 gave the generic lambdas of attend_row.h external linkage even
when instantiated with types of an unnamed namespace). Prints each weak symbol that two
of these objects define, with the objects, and exits 1 when there is one.
Usage: tools/check-isa-symbols.py [BUILD_DIR]   (default: build)
"""
import pathlib
import re
import subprocess
import sys

build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build")
objects = sorted(build.glob("engine/exec/CMakeFiles/lwb_exec.dir/cpu/*.o"))
isa_objects = [o for o in objects if re.search(r"_(avx2|avx512|scalar)\.cpp\.o$", o.name)]
if not isa_objects:
    sys.exit(f"check-isa-symbols: no ISA kernel objects under {build}/engine/exec/CMakeFiles/lwb_exec.dir/cpu (build first)")

defined = {}  # weak symbol -> objects defining it
for obj in isa_objects:
    out = subprocess.run(["nm", "--defined-only", str(obj)], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in ("W", "V", "u"):
            defined.setdefault(parts[2], []).append(obj.name)

def isa(obj):
    return re.search(r"_(avx2|avx512|scalar)\.cpp\.o$", obj).group(1)


# A clash matters when objects of two ISAs define the symbol (two files of one ISA compile
# it alike). Library code (std::, __gnu_cxx::) is compiled
# outside the regions (the kernel files include standard headers first), so its weak
# copies are the same portable code; DW.ref.* are data (the personality routine's address).
clashes = {
    s: objs
    for s, objs in defined.items()
    if len({isa(o) for o in objs}) > 1 and not re.match(r"_ZN?K?(St|9__gnu_cxx)|DW\.ref\.", s)
}
for sym, objs in sorted(clashes.items()):
    name = subprocess.run(["c++filt", sym], capture_output=True, text=True).stdout.strip() or sym
    print(f"{name}\n    defined weak in {', '.join(objs)}")
if clashes:
    print(f"check-isa-symbols: {len(clashes)} symbol(s) compiled for more than one ISA; give the types or "
          "functions each kernel file instantiates them with a name of its own ISA", file=sys.stderr)
    sys.exit(1)
print(f"check-isa-symbols: {len(isa_objects)} kernel objects, no weak symbol shared between ISAs")
