#!/usr/bin/env bash
# Installs what is missing and shows a GGUF file: the built-in sample when no file is given.
# Usage: scripts/run.sh [FILE.gguf]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

cargo build --release --quiet -p gguf-cli
file=${1:-}
if [ -z "$file" ]; then
  mkdir -p dist
  cargo run --release --quiet -p gguf-core --features testkit --example write_sample -- dist/sample.gguf
  file=dist/sample.gguf
fi
exec target/release/ggufscope info "$file"
