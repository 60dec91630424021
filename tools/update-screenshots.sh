#!/usr/bin/env bash
# Refreshes docs/images/ from the screenshot tests: runs tst_ui_window and
# tst_ui_translation of build/ (the test command builds them) on the offscreen platform
# and copies the windows they save with a load running (English, then Japanese: needs
# fonts-noto-cjk). Usage: tools/update-screenshots.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for t in tst_ui_window tst_ui_translation; do
  QT_QPA_PLATFORM=offscreen LWB_TEST_ARTIFACTS="$out" "$build/tests/$t" >"$out/$t.log" 2>&1 ||
    { tail -20 "$out/$t.log" >&2; exit 1; }
done
mkdir -p docs/images
cp "$out/window-paused-with-load.png" docs/images/window.png
cp "$out/window-ja.png" docs/images/window-ja.png
for f in docs/images/window.png docs/images/window-ja.png; do echo "$f: $(file -b "$f")"; done
