# Installs what the project needs and is missing; sourced by scripts/run.sh and scripts/test.sh.
# Every step checks first, so a second run costs nothing.

have() { command -v "$1" >/dev/null 2>&1; }
note() { printf '  setup: %s\n' "$*" >&2; }

if ! have cargo; then
  echo "Rust is not installed: see https://rustup.rs (this project needs Rust 1.85 or newer)" >&2
  exit 1
fi

for target in x86_64-unknown-none; do
  if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
    note "adding Rust target $target"
    rustup target add "$target" >&2
  fi
done

# The browser viewer: the wasm target and the wasm-bindgen CLI at the exact version of the
# `wasm-bindgen` pin in Cargo.toml (the two must match), and Node.js to serve and test it.
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  note "adding Rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown >&2
fi
wasm_bindgen_version=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $wasm_bindgen_version" ]; then
  note "installing wasm-bindgen-cli $wasm_bindgen_version (a few minutes, once)"
  # --locked fails where the registry lacks a version its lockfile names; then resolve afresh.
  cargo install wasm-bindgen-cli --version "=$wasm_bindgen_version" --locked >&2 ||
    cargo install wasm-bindgen-cli --version "=$wasm_bindgen_version" >&2
fi
if ! have node; then
  note "installing Node.js"
  apt-get update >&2 && apt-get install -y nodejs npm >&2
fi

# The npm packages of package-lock.json: the build needs binaryen's wasm-opt (scripts/build-web.sh);
# the tests need the rest (playwright-core drives Chromium; send serves models to the URL tests;
# vite and typescript build and type-check the npm package).
if [ ! -x node_modules/.bin/wasm-opt ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  note "installing npm packages (npm ci)"
  npm ci --no-audit --no-fund >&2
fi

# Only the tests need this: Debian's Chromium.
setup_browser_tests() {
  if [ ! -x /usr/bin/chromium ]; then
    note "installing Debian's chromium"
    apt-get update >&2 && apt-get install -y chromium >&2
  fi
}

# Only the fuzz check needs this: a nightly toolchain (where it is missing the step is skipped).
# Returns 1 when there is no nightly toolchain. Running the fuzzers (fuzz/run.sh, by hand) also
# needs cargo-fuzz: `cargo install cargo-fuzz`.
setup_fuzzing() {
  cargo +nightly --version >/dev/null 2>&1
}
