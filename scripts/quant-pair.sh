#!/usr/bin/env bash
# Makes a real quantization pair for `ggufscope diff --values` (docs/cli.md's example and
# scripts/bench-diff.sh): Gemma 3 270M as F16 — the Q4_K_M fixture dequantized by gguf-py
# (scripts/dequant-to-f16.py) — and that F16 file quantized to Q8_0 and Q4_0 by llama.cpp's own
# llama-quantize, built once from the llama-cpp-python source package on PyPI (vendor/llama.cpp;
# cmake from PyPI). Everything goes to a cache folder, which the script prints; nothing into the repository.
# Usage: scripts/quant-pair.sh          (about 20 minutes the first time on 2 cores; seconds after)
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${GGUF_QUANT_PAIR:-$HOME/.cache/gguf-fixtures/quant-pair}"
llama_cpp_python=0.3.36
mkdir -p "$cache"
gemma="${GGUF_GEMMA:-$(sh ../shared/fixtures/fetch-gemma.sh)}"

venv="$cache/venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet gguf numpy cmake scikit-build-core >&2
fi

quantize="$cache/llama.cpp/build/bin/llama-quantize"
if [ ! -x "$quantize" ]; then
  # --no-build-isolation: pip reads the package's metadata with the scikit-build-core above
  # instead of building its build dependencies (cmake) from source.
  "$venv/bin/pip" download --quiet "llama-cpp-python==$llama_cpp_python" --no-deps \
    --no-binary llama-cpp-python --no-build-isolation -d "$cache" >&2
  tar -xzf "$cache/llama_cpp_python-$llama_cpp_python.tar.gz" -C "$cache"
  rm -rf "$cache/llama.cpp"
  mv "$cache/llama_cpp_python-$llama_cpp_python/vendor/llama.cpp" "$cache/llama.cpp"
  rm -rf "$cache/llama_cpp_python-$llama_cpp_python"
  "$venv/bin/cmake" -S "$cache/llama.cpp" -B "$cache/llama.cpp/build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF >&2
  "$venv/bin/cmake" --build "$cache/llama.cpp/build" --target llama-quantize -j "$(nproc)" >&2
fi

[ -s "$cache/gemma-f16.gguf" ] || "$venv/bin/python" scripts/dequant-to-f16.py "$gemma" "$cache/gemma-f16.gguf"
for type in Q8_0 Q4_0; do
  [ -s "$cache/gemma-$type.gguf" ] ||
    LD_LIBRARY_PATH="$(dirname "$quantize")" "$quantize" "$cache/gemma-f16.gguf" "$cache/gemma-$type.gguf" "$type" >&2
done
echo "$cache"
