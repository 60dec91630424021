#!/usr/bin/env bash
# Installs the Debian 12 packages llm-workbench needs to build, test and run.
# Installs only what is missing; safe to run repeatedly. Needs root or sudo.
set -euo pipefail
pkgs=(build-essential cmake pkg-config ninja-build
      qt6-base-dev libqt6svg6-dev libgl-dev libqcustomplot-dev
      libsentencepiece-dev sentencepiece nlohmann-json3-dev libxxhash-dev
      xvfb xauth dpkg-dev file desktop-file-utils appstream
      clang libclang-rt-14-dev)
if [ "${1:-}" = "--training" ]; then
  pkgs+=(python3-torch python3-numpy python3-sentencepiece)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}" >&2
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
