#!/usr/bin/env bash
# Builds llama.cpp's reference tools (CPU only) from the llama-cpp-python 0.3.36 sdist on PyPI
# (vendor/llama.cpp, commit 0c1e570), with cmake from PyPI, into $GGUFSCOPE_CACHE
# (default ~/.cache/ggufscope). Prints the bin folder. Used only to (re)generate the reference
# data committed under tests/reference/ and crates/*/tests/reference/; the tests never build it.
#   scripts/reference/build-llama-cpp.sh [--fetch-only]   # --fetch-only: the sdist tree, no build
set -euo pipefail
cache="${GGUFSCOPE_CACHE:-$HOME/.cache/ggufscope}"
version=0.3.36
sha256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
url=https://files.pythonhosted.org/packages/ec/e9/e7de2b0463ea3ffbf0ede6cb21b58c1258a8f6521aae45ca773a59fe7cf3/llama_cpp_python-$version.tar.gz
tree="$cache/llama_cpp_python-$version"
mkdir -p "$cache"
if [ ! -d "$tree/vendor/llama.cpp" ]; then
  tarball="$cache/llama_cpp_python-$version.tar.gz"
  [ -f "$tarball" ] || curl -fsSL -o "$tarball" "$url"
  echo "$sha256  $tarball" | sha256sum -c --quiet -
  tar xzf "$tarball" -C "$cache"
fi
[ "${1:-}" = --fetch-only ] && { echo "$tree/vendor/llama.cpp"; exit 0; }
build="$cache/llama.cpp-0c1e570"
if [ ! -x "$build/build/bin/llama-server" ]; then
  [ -x "$cache/cmake-venv/bin/cmake" ] || { python3 -m venv "$cache/cmake-venv"; "$cache/cmake-venv/bin/pip" install -q cmake; }
  "$cache/cmake-venv/bin/cmake" -S "$tree/vendor/llama.cpp" -B "$build/build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DGGML_OPENMP=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=ON >&2
  "$cache/cmake-venv/bin/cmake" --build "$build/build" -j "$(nproc)" \
    --target llama-tokenize llama-server llama-fit-params llama-quantize >&2
fi
echo "$build/build/bin"
