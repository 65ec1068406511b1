#!/usr/bin/env bash
# Builds the browser viewer into dist/: every wasm package that wasm-pack.toml declares (each an
# ES-module package a page can import as is, its memory capped by its crate's build script from
# the same file), the engine (web/*.js), the page (www/: with its manifest, icons and service
# worker) and the built-in sample model; last, the service worker is stamped with the build's
# files and version (scripts/stamp-service-worker.mjs), which is how an installed copy updates.
# Each page's Content-Security-Policy <meta> is filled from www/csp.json (scripts/csp.mjs) first.
# Then the npm package `ggufscope` is laid out from dist/ into dist-npm/ (scripts/build-npm.mjs;
# `npm pack ./dist-npm` makes its tarball).
# Usage: scripts/build-web.sh   (expects scripts/setup.sh to have run: wasm32 target, wasm-bindgen; and Node.js
# with `npm ci`: wasm-opt)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=$(cargo run --quiet -p gguf-wasm-build --bin wasm-packages)
while IFS=$'\t' read -r crate profile out_dir rustflags; do
  # A package's own rustc flags (the dequantizers' SIMD build): its profile keeps them apart in
  # cargo's cache, so the two builds of one crate do not rebuild each other.
  RUSTFLAGS="${rustflags:-${RUSTFLAGS:-}}" \
    cargo build --quiet -p "$crate" --lib --target wasm32-unknown-unknown --profile "$profile"
  # cargo's "dev" profile builds into target/…/debug; every other profile into its own name.
  [ "$profile" = dev ] && dir=debug || dir=$profile
  rm -rf "$out_dir"
  wasm-bindgen --target web --out-dir "$out_dir" --remove-name-section --remove-producers-section \
    "target/wasm32-unknown-unknown/$dir/${crate//-/_}.wasm"
  # The viewer's module is held under 100 KB gzipped: binaryen's wasm-opt (the npm package, pinned
  # in package.json; never Debian's binaryen 108, whose modules are broken) takes 3 KB off it.
  # -O1 and a few size passes, the smallest gzipped of those measured (docs/performance.md): its
  # -O2, -Os, -Oz and -O3 make the module smaller but compress worse (105–110 KB gzipped), and so
  # does inlining every function with one caller (`-ocimfs 0` keeps that off); inlining the
  # tiniest ones (`-aimfs 4`), `--rse` and dropping the target-features section take 1 KB off.
  if [ "$crate" = gguf-wasm ]; then
    node_modules/.bin/wasm-opt -O1 --converge --dae-optimizing --code-folding --optimize-instructions \
      --precompute-propagate --inlining -aimfs 4 -fimfs 0 -ocimfs 0 --rse --strip-target-features \
      "$out_dir/${crate//-/_}_bg.wasm" -o "$out_dir/${crate//-/_}_bg.wasm"
  fi
  # wasm-bindgen writes no package.json (wasm-pack does): write the fields wasm-pack would.
  name=${crate//-/_}
  version=$(sed -n 's/^version = "\(.*\)"/\1/p' "crates/$crate/Cargo.toml" | head -n1)
  description=$(sed -n 's/^description = "\(.*\)"/\1/p' "crates/$crate/Cargo.toml" | head -n1)
  cat > "$out_dir/package.json" <<JSON
{
  "name": "$crate",
  "version": "$version",
  "description": "$description",
  "license": "MIT OR Apache-2.0",
  "type": "module",
  "main": "$name.js",
  "types": "$name.d.ts",
  "files": ["$name.js", "$name.d.ts", "${name}_bg.wasm", "${name}_bg.wasm.d.ts", "LICENSE-MIT", "LICENSE-APACHE"],
  "sideEffects": false
}
JSON
  cp LICENSE-MIT LICENSE-APACHE "$out_dir/"
done <<< "$packages"

rm -rf dist
mkdir -p dist/web
cp www/*.html www/*.css www/*.js www/*.svg www/*.png www/*.webmanifest dist/
cp web/*.js dist/web/
while IFS=$'\t' read -r _ _ out_dir _; do
  cp -r "$out_dir" "dist/$out_dir"
done <<< "$packages"
# The built-in sample, by the one writer of builder-made files (scripts/test.sh names the one it built).
if [ -n "${GGUF_WRITE_FIXTURES:-}" ]; then
  "$GGUF_WRITE_FIXTURES" dist sample.gguf
else
  cargo run --quiet --profile ci -p gguf-test-support --bin write-fixtures -- dist sample.gguf
fi
node scripts/csp.mjs stamp dist
node scripts/stamp-service-worker.mjs dist
node scripts/build-npm.mjs dist dist-npm
