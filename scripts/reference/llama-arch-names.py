#!/usr/bin/env python3
"""The architecture names llama.cpp loads, the reference for gguf-core's `memory::architectures`.

Reads `LLM_ARCH_NAMES` from llama.cpp 0c1e570's src/llama-arch.cpp (the tree vendored in the
llama-cpp-python 0.3.36 sdist: `scripts/reference/build-llama-cpp.sh --fetch-only` unpacks it)
and writes its names in its order, one a line, without the "(unknown)" placeholder (default
tests/reference/memory/llama-arch-names-0c1e570.txt). A unit test holds the core's list to it.

Usage: scripts/reference/llama-arch-names.py [--tree DIR] [--out FILE]
  --tree  llama.cpp's source tree (default: $GGUF_LLAMA_CPP or the unpacked sdist's)
"""

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("GGUFSCOPE_CACHE", Path.home() / ".cache" / "ggufscope"))
DEFAULT_TREE = Path(os.environ.get("GGUF_LLAMA_CPP", CACHE / "llama_cpp_python-0.3.36" / "vendor" / "llama.cpp"))
OUT = ROOT / "tests" / "reference" / "memory" / "llama-arch-names-0c1e570.txt"


def names(source: str) -> list[str]:
    table = re.search(r"LLM_ARCH_NAMES\s*=\s*\{(.*?)\n\};", source, re.S)
    if not table:
        sys.exit("llama-arch-names: no LLM_ARCH_NAMES table in src/llama-arch.cpp")
    found = re.findall(r'\{\s*LLM_ARCH_\w+\s*,\s*"([^"]*)"\s*\}', table.group(1))
    return [n for n in found if n != "(unknown)"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=DEFAULT_TREE)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    source = (args.tree / "src" / "llama-arch.cpp").read_text()
    listed = names(source)
    args.out.write_text("".join(f"{n}\n" for n in listed))
    print(f"{len(listed)} architectures -> {args.out}")


if __name__ == "__main__":
    main()
