#!/usr/bin/env bash
# The run command: installs what is missing, builds, and opens the workbench window on
# the bundled default model. Extra arguments go to the program (e.g. --demo).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
# The same configuration of build/ as tools/test.sh, so neither rebuilds the other's
# objects; only the program (and what it loads at run time) is built here.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1  # used when ccache is installed
tools/configure.sh build
cmake --build build -j"$(nproc)" --target llm-workbench
exec build/bin/llm-workbench "$@"
