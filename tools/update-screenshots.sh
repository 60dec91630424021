#!/usr/bin/env bash
# Refreshes docs/images/ from the screenshot test: runs tst_ui_window of build/ (the test
# command builds it) on the offscreen platform and copies the window it saves with a load
# running. Usage: tools/update-screenshots.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
QT_QPA_PLATFORM=offscreen LWB_TEST_ARTIFACTS="$out" "$build/tests/tst_ui_window" >"$out/log.txt" 2>&1 ||
  { tail -20 "$out/log.txt" >&2; exit 1; }
mkdir -p docs/images
cp "$out/window-paused-with-load.png" docs/images/window.png
echo "docs/images/window.png: $(file -b docs/images/window.png)"
