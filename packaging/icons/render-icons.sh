#!/usr/bin/env bash
# Renders the committed PNG icons from llm-workbench.svg (run after editing the SVG;
# builds use the committed PNGs and need no renderer). Needs rsvg-convert (librsvg2-bin).
set -euo pipefail
cd "$(dirname "$0")"
for size in 16 22 24 32 48 64 128 256; do
  rsvg-convert -w "$size" -h "$size" llm-workbench.svg -o "png/llm-workbench-$size.png"
done
