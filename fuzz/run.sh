#!/bin/sh
# Runs fuzz targets one after the other (nightly + cargo-fuzz), each for SECONDS, and prints
# libFuzzer's totals. Crashers land in artifacts/TARGET/; minimize them with
# `cargo +nightly fuzz tmin TARGET FILE` and copy the result to corpus/TARGET/regressions/,
# which the normal test suite replays on stable (crates/gguf-core/tests/it/regressions.rs).
# Usage: fuzz/run.sh SECONDS [TARGET...]   (default: every target)
set -eu
cd "$(dirname "$0")"
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
targets=${*:-$(cargo +nightly fuzz list)}
./seed.sh >/dev/null
for t in $targets; do
  mkdir -p "corpus/$t" "logs"
  cargo +nightly fuzz run -O "$t" "corpus/$t" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    > "logs/$t.log" 2>&1 || echo "$t: stopped with a finding, see fuzz/logs/$t.log"
  printf '%s: ' "$t"
  grep -E '^Done [0-9]+ runs' "logs/$t.log" || tail -n 3 "logs/$t.log"
done
