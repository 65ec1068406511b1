#!/bin/sh
# Benchmark (not a test): `ggufscope diff --values` of Gemma 3 270M against a copy of itself —
# every tensor of both files read and decoded — with its time, bytes read and peak memory.
set -eu
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
cargo build --release -p gguf-cli >&2
gemma=$(sh ../shared/fixtures/fetch-gemma.sh)
copy="$target/bench-diff/$(basename "$gemma")"
mkdir -p "$(dirname "$copy")"
[ -f "$copy" ] || cp "$gemma" "$copy"
sync
for run in 1 2 3; do
    /usr/bin/time -f "run $run: %e s, %M KB peak" "$target/release/ggufscope" diff --values "$gemma" "$copy" \
        > "$target/bench-diff/out.txt" || [ $? -eq 1 ]
done
grep -E "^(the same|[0-9]+ difference)|^values of B" "$target/bench-diff/out.txt"
