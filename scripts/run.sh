#!/usr/bin/env bash
# Installs what is missing, builds the browser viewer into dist/ and serves it on 127.0.0.1: it
# opens the built-in sample, or FILE when given (read by the page over HTTP Range requests).
# The command-line summary stays available: target/release/ggufscope info FILE.
# Usage: scripts/run.sh [FILE.gguf]     (PORT=8137 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

scripts/build-web.sh
args=(dist --port "${PORT:-8137}")
if [ -n "${1:-}" ]; then
  [ -f "$1" ] || { echo "no such file: $1" >&2; exit 1; }
  args+=(--file "$1")
fi
exec node scripts/serve.mjs "${args[@]}"
