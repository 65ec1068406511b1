#!/usr/bin/env bash
# Runs every test. Installs what it needs first (idempotent), so it works on a fresh machine.
# Usage: scripts/test.sh            everything (what .ci/run runs)
#        scripts/test.sh --quick    the edit loop: format, lints, the core's and the CLI's tests
# Rust builds use the `ci` profile (Cargo.toml): optimized at level 1, without release's fat LTO.
# Each step's time is printed at the end, with the total.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=false
case "${1:-}" in
  "") ;;
  --quick) quick=true ;;
  *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac

source scripts/setup.sh
# rustfmt and clippy (rustup's minimal profile leaves them out).
for component in rustfmt clippy; do
  rustup component list --installed 2>/dev/null | grep -q "^$component-" || rustup component add "$component"
done

steps=()
started=$SECONDS
step_started=$SECONDS
step() {
  end_step
  children_cpu
  step_cpu=$cpu_now
  steps+=("$*")
  step_started=$SECONDS
  printf '\n==> %s\n' "$*"
}
durations=()
cpu_times=()
# The CPU time (user and system, in clock ticks) of every process this shell has waited for: its
# own /proc entry's cutime and cstime. A step's CPU time beside its wall time shows how much of
# the machine it kept busy.
ticks=$(getconf CLK_TCK)
cpu_now=0
children_cpu() {
  local stat
  read -r -a stat </proc/$$/stat
  cpu_now=$((stat[15] + stat[16]))
}
step_cpu=0
end_step() {
  if [ "${#durations[@]}" -lt "${#steps[@]}" ]; then
    durations+=($((SECONDS - step_started)))
    children_cpu
    cpu_times+=($(((cpu_now - step_cpu) / ticks)))
  fi
}
# Work run beside the steps (the Python wheel's build, the fuzz check): each in a session of its
# own, so that a failure ends it, its output in target/NAME.log until a step waits for it.
declare -A background=()
in_background() {
  local name=$1
  shift
  mkdir -p target
  setsid "$@" >"target/$name.log" 2>&1 &
  background[$name]=$!
}
# Waits for the work started as NAME, prints its output, and fails the run if it failed.
waited() {
  local name=$1 status=0
  wait "${background[$name]}" || status=$?
  unset "background[$name]"
  cat "target/$name.log"
  [ "$status" -eq 0 ] || { echo "$name failed (above)" >&2; exit 1; }
}
report_times() {
  local status=$?
  # What runs in the background, if the run stopped before a step waited for it.
  local job
  for job in "${background[@]}"; do kill -- "-$job" 2>/dev/null || true; done
  end_step
  printf '\nStep times (wall, then CPU: user and system, all cores):\n'
  local i
  for i in "${!steps[@]}"; do
    printf '  %3dm%02ds  %3dm%02ds  %s\n' $((durations[i] / 60)) $((durations[i] % 60)) \
      $((cpu_times[i] / 60)) $((cpu_times[i] % 60)) "${steps[i]%%:*}"
  done
  local total=$((SECONDS - started))
  children_cpu
  local cpu=$((cpu_now / ticks))
  printf '  %3dm%02ds  %3dm%02ds  total%s\n' $((total / 60)) $((total % 60)) $((cpu / 60)) $((cpu % 60)) \
    "$([ "$status" -eq 0 ] || echo ", FAILED")"
}
trap report_times EXIT

# The fuzz targets' check (nightly, in a build folder of its own: fuzz/target) runs beside the
# steps below from the first, filling what they leave of the cores; its step at the end waits for
# it. Not in --quick.
if ! $quick && setup_fuzzing; then
  # `cargo check` of the targets proves they compile without building libFuzzer's instrumented
  # binaries, and without its default feature, without compiling libFuzzer's C++ either (which
  # only a link needs); the fuzzers themselves are run by hand: fuzz/run.sh.
  in_background fuzz-check cargo +nightly check --quiet --manifest-path fuzz/Cargo.toml --bins --no-default-features
fi

step "format: Rust (cargo fmt) and the front end (prettier: web/, www/, scripts/*.mjs; npm run format)"
cargo fmt --all --check
node_modules/.bin/prettier --check --log-level warn web www "scripts/*.mjs"

export GGUF_GEMMA="${GGUF_GEMMA:-$(sh ../shared/fixtures/fetch-gemma.sh)}"
# llama.cpp 0c1e570's source tree (downloaded once, sha256-checked): the tokenizer's tests run
# its vocabulary files' test pairs.
export GGUF_LLAMA_CPP="${GGUF_LLAMA_CPP:-$(scripts/reference/build-llama-cpp.sh --fetch-only)}"

if $quick; then
  # clippy's check, then the two crates' tests alone: the least to build after an edit.
  step "lints"
  cargo clippy --profile ci --workspace --all-targets --all-features -- -D warnings
  step "Rust tests: gguf-core and the CLI"
  cargo test --profile ci -p gguf-core -p gguf-cli --all-features
  echo
  echo "Quick tests passed (scripts/test.sh without --quick runs everything)."
  exit 0
fi

# The lints are run by the build: clippy's driver, as cargo's wrapper of rustc for the workspace's
# own crates (RUSTC_WORKSPACE_WRAPPER), compiles them as rustc does and lints them as it goes,
# with the arguments `cargo clippy -- -D warnings` passes it (CLIPPY_ARGS, in its separator). One
# compile of the workspace, not clippy's check and then the tests' build; the tests run under it
# too, so that nothing is built again.
linted() {
  RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver" \
    CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" "$@"
}
# Every target, the benchmarks too, so that every one is linted; the tests run below.
step "lints: every target of the workspace built by clippy's driver (ci profile), warnings denied"
linted cargo test --profile ci --workspace --all-targets --all-features --no-run

step "docs: rustdoc; the Markdown's links, sizes and paths"
RUSTDOCFLAGS="-D warnings" cargo doc --profile ci -p gguf-core -p gguf-values --no-deps --all-features --quiet
node scripts/check-docs.mjs

# One check for every no_std crate: with serde on, which is the one feature that brings
# dependencies (serde, serde_json with alloc only), so every dependency is checked there too.
step "no_std: gguf-core, gguf-values, gguf-diff and gguf-upstream build for x86_64-unknown-none; gguf-core depends on nothing"
cargo check --profile ci --quiet --target x86_64-unknown-none \
  -p gguf-core -p gguf-values -p gguf-diff -p gguf-upstream --features gguf-values/serde,gguf-diff/serde
deps=$(cargo tree -p gguf-core -e normal --prefix none | sort -u | wc -l)
[ "$deps" -eq 1 ] || { echo "gguf-core has dependencies:"; cargo tree -p gguf-core -e normal; exit 1; }

step "Rust tests (with the complete Gemma model, fetched once into ~/.cache/gguf-fixtures)"
# Chromium (the npm packages are installed by setup.sh): the CLI's URL tests serve files with
# scripts/model-server.mjs (send), as the web and browser tests below do.
setup_browser_tests
# The Python wheel builds meanwhile (the tests leave a core partly idle); the python step below
# waits for it.
in_background python-wheel scripts/test-python.sh --build-wheel
linted cargo test --profile ci --workspace --all-features

# What the JavaScript tests run and open, built above and written once (web/test/paths.mjs).
export GGUFSCOPE_BIN="$PWD/target/ci/ggufscope"
export GGUF_WRITE_FIXTURES="$PWD/target/ci/write-fixtures"
export GGUF_TEST_FIXTURES="$PWD/target/test-fixtures"
step "fixtures: the builder-made files, into target/test-fixtures"
rm -rf "$GGUF_TEST_FIXTURES"
"$GGUF_WRITE_FIXTURES" "$GGUF_TEST_FIXTURES"

# The wheel built beside the Rust tests (maturin, `ci` profile; its output here) is installed
# into a fresh venv and tested beside the wasm build below, which needs none of it: each leaves
# the cores partly idle (pytest waits on the CLI, servers and Ray; the build on its single-unit
# links). The tests' own packages (pytest, fsspec, pyarrow, Ray, gguf-py) come from PyPI once,
# into a cached venv.
step "python: the ggufscope wheel built; its tests start beside the wasm build"
waited python-wheel
in_background python-tests scripts/test-python.sh --built-wheel

step "benchmarks run (one run on small fixtures; the peers only if already installed, no network)"
scripts/bench-vs-peers --smoke

# gguf-wasm's source has no code of its own for wasm32: the lints above (every feature, natively)
# are its lints, and each module's build below compiles it for wasm32.
step "wasm: build the modules and the site into dist/ (the Python tests beside it)"
scripts/build-web.sh
if grep -rnE 'innerHTML|outerHTML|insertAdjacentHTML|document\.write' web/*.js www/*.js www/*.html; then
  echo "web/ and www/ must put file text into the page with textContent only" >&2
  exit 1
fi

step "python tests: pytest against the CLI, a loopback Range server and a local Ray cluster (run beside the wasm build)"
waited python-tests

# The page's and the engine's modules against their JSDoc, with the wasm modules' declarations
# just built (tsconfig.json says what is checked and how; tsconfig.sw.json, the service worker).
step "types: tsc --checkJs over web/ and www/"
node_modules/.bin/tsc -p tsconfig.json
node_modules/.bin/tsc -p tsconfig.sw.json

step "web: the read loop over Node's Blob and over HTTP (send), with the real wasm"
# Two files at a time: node:test's default is one fewer than the cores, one on a 2-core machine,
# and most of a file's time is spent waiting on a server or a child process.
node --test --test-concurrency=2 web/test/*.test.mjs

step "browser: end-to-end in headless Chromium"
node www/e2e/run.mjs

step "fuzz targets compile (nightly; checked beside the steps above)"
if [ -n "${background[fuzz-check]:-}" ]; then
  waited fuzz-check
else
  echo "skipped: no nightly toolchain (rustup toolchain install nightly to check the fuzz targets)"
fi

echo
echo "All tests passed."
