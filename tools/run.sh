#!/usr/bin/env bash
# The run command: installs what is missing, builds, and opens the workbench window on
# the bundled default model. Extra arguments go to the program (e.g. --demo).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
exec build/bin/llm-workbench "$@"
