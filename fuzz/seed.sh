#!/bin/sh
# Seeds each fuzz target's corpus with the fixtures' headers (not committed: corpus/*/ is
# gitignored except corpus/*/regressions, where minimized crashers are kept as regression tests).
# Usage: fuzz/seed.sh   then   cargo +nightly fuzz run TARGET -- -max_total_time=1800
set -eu
here=$(cd "$(dirname "$0")" && pwd)
fixtures=${GGUF_FIXTURES:-$here/../../shared/fixtures}
for target in oneshot chunked validate dequant; do
  mkdir -p "$here/corpus/$target"
  for f in "$fixtures"/synth/*.gguf "$fixtures"/real/*.gguf "$fixtures"/synth/sparse/*.gguf; do
    # Keep the first 64 KiB: headers are where the parser works; libFuzzer caps input size anyway.
    head -c 65536 "$f" > "$here/corpus/$target/$(basename "$f")"
  done
done
echo "seeded $(ls "$here/corpus/oneshot" | wc -l) files per target"
