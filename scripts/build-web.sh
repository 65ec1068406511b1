#!/usr/bin/env bash
# Builds the browser viewer into dist/: every wasm module that wasm-pack.toml declares (the one
# crate crates/gguf-wasm built once per module with that module's feature, each an ES-module
# package a page can import as is, its memory capped by the crate's build script from the same
# file), the engine (web/*.js), the page (www/: with its manifest, icons and service worker) and
# the built-in sample model, and the glossary page written from www/glossary.js
# (scripts/glossary-page.mjs). The worker is bundled into one file with no imports and the viewer's
# stylesheet written as a module (scripts/bundle-web.mjs, esbuild), and each page's
# Content-Security-Policy <meta> is filled from www/csp.json (scripts/csp.mjs). Then the npm
# package `ggufscope` is laid out from dist/ into dist-npm/ (scripts/build-npm.mjs; `npm pack
# ./dist-npm` makes its tarball), with the files' plain names; then every file the site loads
# after its page (the worker, the wasm modules, a module imported on demand) is named by its
# content (scripts/version-lazy-files.mjs), so that a tab left open across a deploy loads its own
# build's; last, the service worker is stamped with the build's files and version
# (scripts/stamp-service-worker.mjs), which is how an installed copy updates.
# Usage: scripts/build-web.sh   (expects scripts/setup.sh to have run: wasm32 target, wasm-bindgen; and Node.js
# with `npm ci`: smol-toml, wasm-opt)
set -euo pipefail
cd "$(dirname "$0")/.."

modules=$(node scripts/wasm-modules.mjs)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' crates/gguf-wasm/Cargo.toml | head -n1)

# A module is rebuilt only when its inputs changed: their hash, kept beside cargo's cache in
# target/web-stamps/ (so a fresh clone builds everything), is what the module was last built from.
# The inputs: the sources, build scripts and manifests of every workspace crate the module's
# feature builds gguf-wasm from (cargo tree, so a new dependency counts), Cargo.lock, the
# workspace's Cargo.toml (its profiles), wasm-pack.toml, this script, the licences copied in, the
# tools (rustc, wasm-bindgen, wasm-opt) and RUSTFLAGS; and the module's own entry.
# GGUF_WEB_REBUILD=1 rebuilds every module regardless.
stamps=target/web-stamps
inputs_hash() {
  local crates
  crates=$(cargo tree -p gguf-wasm --no-default-features --features "$1" -e normal,build --prefix none \
    --target wasm32-unknown-unknown | sed -n 's/.*(\(\/[^)]*\)).*/\1/p' | sort -u)
  {
    # shellcheck disable=SC2086 # one path a word
    for dir in $crates; do find "$dir" -path "$dir/target" -prune -o \( -path "$dir/src/*" -o \
      -path "$dir/build.rs" -o -path "$dir/Cargo.toml" \) -type f -print; done |
      LC_ALL=C sort | xargs sha256sum
    sha256sum Cargo.lock Cargo.toml wasm-pack.toml scripts/build-web.sh LICENSE-MIT LICENSE-APACHE
    rustc -vV
    wasm-bindgen --version
    node_modules/.bin/wasm-opt --version
    echo "RUSTFLAGS=${RUSTFLAGS:-}"
  } | sha256sum | cut -d' ' -f1
}
mkdir -p "$stamps"

# Builds one module (a line of wasm-pack.toml's, as scripts/wasm-modules.mjs prints it) unless its
# inputs are those of its last build.
build_module() {
  local feature profile out_dir out_name rustflags wasm_opt stamp want dir
  IFS='|' read -r feature profile out_dir out_name rustflags wasm_opt <<< "$1"
  stamp="$stamps/${out_dir//\//_}"
  want=$(printf '%s\n%s|%s|%s|%s|%s|%s\n' "$(inputs_hash "$feature")" "$feature" "$profile" "$out_dir" \
    "$out_name" "$rustflags" "$wasm_opt" | sha256sum | cut -d' ' -f1)
  if [ -z "${GGUF_WEB_REBUILD:-}" ] && [ -f "$out_dir/${out_name}_bg.wasm" ] && [ -f "$stamp" ] &&
    [ "$(cat "$stamp")" = "$want" ]; then
    echo "$out_dir: unchanged (its inputs are those of its last build), not rebuilt"
    return
  fi
  rm -f "$stamp"
  # A module's own rustc flags (the values module's SIMD build): its profile keeps them apart in
  # cargo's cache, so the two builds of one feature do not rebuild each other. Modules of one
  # profile differ in features, which cargo keeps apart too; each build leaves its module at the
  # profile's path, taken by wasm-bindgen before the next build.
  RUSTFLAGS="${rustflags:-${RUSTFLAGS:-}}" \
    cargo build --quiet -p gguf-wasm --lib --no-default-features --features "$feature" \
    --target wasm32-unknown-unknown --profile "$profile"
  # cargo's "dev" profile builds into target/…/debug; every other profile into its own name.
  [ "$profile" = dev ] && dir=debug || dir=$profile
  rm -rf "$out_dir"
  wasm-bindgen --target web --out-dir "$out_dir" --out-name "$out_name" --remove-name-section \
    --remove-producers-section "target/wasm32-unknown-unknown/$dir/gguf_wasm.wasm"
  # binaryen's wasm-opt (the npm package, pinned in package.json), with the module's flags.
  if [ -n "$wasm_opt" ]; then
    # shellcheck disable=SC2086 # the flags are words
    node_modules/.bin/wasm-opt $wasm_opt "$out_dir/${out_name}_bg.wasm" -o "$out_dir/${out_name}_bg.wasm"
  fi
  # wasm-bindgen writes no package.json (wasm-pack does): write the fields wasm-pack would.
  cat > "$out_dir/package.json" <<JSON
{
  "name": "${out_name//_/-}",
  "version": "$version",
  "description": "The $feature module of ggufscope's WebAssembly bindings (crates/gguf-wasm, feature $feature).",
  "license": "MIT OR Apache-2.0",
  "type": "module",
  "main": "$out_name.js",
  "types": "$out_name.d.ts",
  "files": ["$out_name.js", "$out_name.d.ts", "${out_name}_bg.wasm", "${out_name}_bg.wasm.d.ts", "LICENSE-MIT", "LICENSE-APACHE"],
  "sideEffects": false
}
JSON
  cp LICENSE-MIT LICENSE-APACHE "$out_dir/"
  echo "$want" > "$stamp"
}

# Modules of one profile share cargo's build directory, which one build holds at a time: the
# modules of a profile are built in turn, the profiles side by side, so that one module's
# single-codegen-unit link leaves the other core to another's compile. A failed build fails this
# script once the others have ended.
pids=()
for profile in $(cut -d'|' -f2 <<< "$modules" | sort -u); do
  (
    while IFS= read -r module; do
      if [ "$(cut -d'|' -f2 <<< "$module")" = "$profile" ]; then build_module "$module"; fi
    done <<< "$modules"
  ) &
  pids+=("$!")
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[ "$failed" -eq 0 ] || { echo "build-web.sh: a wasm module failed to build (above)" >&2; exit 1; }

rm -rf dist
mkdir -p dist/web
cp www/*.html www/*.css www/*.js www/*.svg www/*.png www/*.webmanifest dist/
cp web/*.js web/located.txt dist/web/
while IFS='|' read -r _ _ out_dir _; do
  cp -r "$out_dir" "dist/$out_dir"
done <<< "$modules"
# The built-in sample, by the one writer of builder-made files (scripts/test.sh names the one it built).
if [ -n "${GGUF_WRITE_FIXTURES:-}" ]; then
  "$GGUF_WRITE_FIXTURES" dist sample.gguf
else
  cargo run --quiet --profile ci -p gguf-test-support --bin write-fixtures -- dist sample.gguf
fi
# The worker as one file with no imports, and the viewer's stylesheet as a module (esbuild).
node scripts/bundle-web.mjs dist
# The glossary page, its terms from www/glossary.js.
node scripts/glossary-page.mjs dist
node scripts/csp.mjs stamp dist
node scripts/build-npm.mjs dist dist-npm
node scripts/version-lazy-files.mjs dist
node scripts/stamp-service-worker.mjs dist
