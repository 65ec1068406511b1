#!/usr/bin/env bash
# Builds the browser viewer into dist/: the wasm package (web/pkg, an ES-module package a page can
# import as is), the engine (web/*.js), the page (www/) and the built-in sample model.
# Usage: scripts/build-web.sh   (expects scripts/setup.sh to have run: wasm32 target, wasm-bindgen)
set -euo pipefail
cd "$(dirname "$0")/.."

# Two modules: the header parser, loaded with the page, and the dequantizers (web/pkg-dequant),
# which the worker fetches once the first header is shown. The parser's memory is capped at
# 512 MiB by its crate's build script (crates/gguf-wasm/src/max_memory.rs says why), so that a
# hostile header traps — and the page says so — instead of growing without end.
cargo build --quiet -p gguf-wasm --target wasm32-unknown-unknown --profile viewer-wasm
cargo build --quiet -p gguf-dequant-wasm --target wasm32-unknown-unknown --release
rm -rf web/pkg web/pkg-dequant
wasm-bindgen --target web --out-dir web/pkg --remove-name-section --remove-producers-section \
  target/wasm32-unknown-unknown/viewer-wasm/gguf_wasm.wasm
wasm-bindgen --target web --out-dir web/pkg-dequant --remove-name-section --remove-producers-section \
  target/wasm32-unknown-unknown/release/gguf_dequant_wasm.wasm

# A third, the chat template preview (web/pkg-template), which its own worker fetches when a
# preview is asked for: built for size, its memory capped at 256 MiB so a template that escapes
# the engine's fuel accounting traps instead of growing without end.
cargo rustc --quiet -p gguf-template-wasm --lib --target wasm32-unknown-unknown --profile template-wasm \
  -- -C link-arg=--max-memory=268435456
rm -rf web/pkg-template
wasm-bindgen --target web --out-dir web/pkg-template --remove-name-section --remove-producers-section \
  target/wasm32-unknown-unknown/template-wasm/gguf_template_wasm.wasm

# wasm-bindgen writes no package.json (wasm-pack does): write the same fields wasm-pack would.
version=$(sed -n 's/^version = "\(.*\)"/\1/p' crates/gguf-wasm/Cargo.toml | head -n1)
cat > web/pkg/package.json <<JSON
{
  "name": "gguf-wasm",
  "version": "$version",
  "description": "GGUF header parser (ggufscope) compiled to WebAssembly: feed a file's bytes, get its metadata, tensors and summary.",
  "license": "MIT OR Apache-2.0",
  "type": "module",
  "main": "gguf_wasm.js",
  "types": "gguf_wasm.d.ts",
  "files": ["gguf_wasm.js", "gguf_wasm.d.ts", "gguf_wasm_bg.wasm", "gguf_wasm_bg.wasm.d.ts", "LICENSE-MIT", "LICENSE-APACHE"],
  "sideEffects": false
}
JSON
cp LICENSE-MIT LICENSE-APACHE web/pkg/

rm -rf dist
mkdir -p dist/web
cp www/*.html www/*.css www/*.js www/*.svg dist/
cp web/*.js dist/web/
cp -r web/pkg web/pkg-dequant web/pkg-template dist/web/
cargo run --quiet --release -p gguf-core --features testkit --example write_sample -- dist/sample.gguf
