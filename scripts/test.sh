#!/usr/bin/env bash
# Runs every test. Installs what it needs first (idempotent), so it works on a fresh machine.
# Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

step() { printf '\n==> %s\n' "$*"; }

step "format"
cargo fmt --all --check

step "lints"
cargo clippy --workspace --all-targets --all-features -- -D warnings

step "docs"
RUSTDOCFLAGS="-D warnings" cargo doc -p gguf-core -p gguf-dequant-avx2 --no-deps --all-features --quiet

step "no_std: gguf-core builds for x86_64-unknown-none and depends on nothing; gguf-diff builds there too"
cargo check -p gguf-core --target x86_64-unknown-none --quiet
cargo check -p gguf-diff --features serde --target x86_64-unknown-none --quiet
deps=$(cargo tree -p gguf-core -e normal --prefix none | sort -u | wc -l)
[ "$deps" -eq 1 ] || { echo "gguf-core has dependencies:"; cargo tree -p gguf-core -e normal; exit 1; }

step "no_std: gguf-upstream builds for x86_64-unknown-none (serde_json with alloc only)"
cargo check -p gguf-upstream --target x86_64-unknown-none --quiet

step "Rust tests (the complete Gemma model is fetched once into ~/.cache/gguf-fixtures)"
# Chromium (the npm packages are installed by setup.sh): the CLI's URL tests serve files with
# scripts/model-server.mjs (send), as the web and browser tests below do.
setup_browser_tests
export GGUF_GEMMA="${GGUF_GEMMA:-$(sh ../shared/fixtures/fetch-gemma.sh)}"
cargo test --workspace --all-features --release

step "benchmarks run (one run on small fixtures; the peers only if already installed, no network)"
scripts/bench-vs-peers --smoke

step "wasm: gguf-wasm's modules lint for wasm32 (all together); build the modules and the site into dist/"
cargo clippy --quiet -p gguf-wasm --all-features --target wasm32-unknown-unknown -- -D warnings
scripts/build-web.sh
if grep -rnE 'innerHTML|outerHTML|insertAdjacentHTML|document\.write' web/*.js www/*.js www/*.html; then
  echo "web/ and www/ must put file text into the page with textContent only" >&2
  exit 1
fi

step "web: the read loop over Node's Blob and over HTTP (send), with the real wasm"
node --test web/test/*.test.mjs

step "browser: end-to-end in headless Chromium"
node --test www/e2e/

step "fuzz targets build (nightly; the fuzzers themselves are run by hand: fuzz/run.sh)"
if setup_fuzzing; then
  (cd fuzz && cargo +nightly fuzz build)
else
  echo "skipped: no nightly toolchain (rustup toolchain install nightly to build the fuzz targets)"
fi

echo
echo "All tests passed."
