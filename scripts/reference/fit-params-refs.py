#!/usr/bin/env python3
"""llama-fit-params's own answers, the reference for gguf-core's `memory::plan`.

llama.cpp 0c1e570's CPU build has no GPU, so what llama-fit-params can answer here is the
context that fits a memory target: with `-c` unset it gives the trained context when the
model fits the host's memory less the margin `-fitt`, else it reduces the context (not below
`-fitc`, 4096) and prints `-c N -ngl -1`. For each model and each target the script records
- the host total llama.cpp reads and the target it was given (total - fitt), in MiB;
- the context it chose (`null` when it refuses: "unable to fit");
- `-fitp`'s estimate at that context and at the least it reduces to: model, context and
  compute in MiB, the figures the choice was made from.

llama-fit-params sizes its compute buffer for every token of a batch to be an output (it
leaves `n_outputs_max` at the batch) where llama-server asks for one per sequence, so its
compute figure is larger than the one llama-server logs; the test compares model and context
figures directly and the chosen context after taking that difference out of the target.

The model: Gemma 3 270M Q4_K_M (sliding-window layers; ../shared/fixtures/fetch-gemma.sh), the
one real model at hand whose trained context is above the least `--fit` reduces to. Nothing
listens; no network. The host's "model" is its mapped weights less what the CPU repacks
(which `--fit` leaves out of the host's figures).

Usage: scripts/reference/fit-params-refs.py [--bin DIR] [--out FILE]
"""

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(os.environ.get("GGUF_FIXTURES", ROOT.parent / "shared" / "fixtures"))
DEFAULT_BIN = Path(os.environ.get("GGUFSCOPE_CACHE", Path.home() / ".cache" / "ggufscope")) / "llama.cpp-0c1e570" / "build" / "bin"
OUT = ROOT / "tests" / "reference" / "memory" / "fit-params-0c1e570.json"
TIMEOUT = 300

# (model, flags, targets in MiB of host memory to fit into)
GRID = [
    ("gemma-3-270m-q4_k_m.gguf", ["-np", "1"], [770, 790, 810, 830, 900]),
    ("gemma-3-270m-q4_k_m.gguf", ["-np", "1", "-ctk", "q8_0", "-ctv", "q8_0"], [780, 800]),
    ("gemma-3-270m-q4_k_m.gguf", ["-np", "1", "-fa", "off"], [780, 820]),
    ("gemma-3-270m-q4_k_m.gguf", ["-np", "2"], [770, 850, 950]),
]


def run(binary, args):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=TIMEOUT)


def host_total(binary, model):
    """The host memory llama.cpp reads, in MiB (what -fitt is taken from)."""
    out = run(binary, ["-m", str(model), "-fitt", "0", "-v"])
    m = re.search(r"vs\. (\d+) MiB of total host memory", out.stderr)
    if not m:
        sys.exit(f"fit-params-refs: no host total in {model}'s log:\n{out.stderr[-2000:]}")
    return int(m.group(1))


def estimate(binary, model, flags, ctx):
    """-fitp's figures at `-c ctx` in MiB: the host's model, context and compute."""
    out = run(binary, ["-m", str(model), *flags, "-c", str(ctx), "-fitp", "on"])
    lines = {p[0]: [int(x) for x in p[1:4]] for p in (line.split() for line in out.stdout.splitlines()) if len(p) >= 4}
    if "Host" not in lines:
        sys.exit(f"fit-params-refs: no estimate for {model} -c {ctx}:\n{out.stdout}{out.stderr[-2000:]}")
    model_mib, context_mib, compute_mib = lines["Host"]
    return {"model": model_mib, "context": context_mib, "compute": compute_mib}


def streams(flags):
    """KV streams: one per sequence (-np) unless unified."""
    return 1 if "--kv-unified" in flags else int(flags[flags.index("-np") + 1])


def prepare():
    paths = {}
    gemma = subprocess.run(["sh", str(FIXTURES / "fetch-gemma.sh")], check=True, capture_output=True, text=True)
    paths["gemma-3-270m-q4_k_m.gguf"] = Path(gemma.stdout.strip().splitlines()[-1])
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", type=Path, default=Path(os.environ.get("LLAMA_CPP_BIN", DEFAULT_BIN)))
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    binary = args.bin / "llama-fit-params"
    if not os.access(binary, os.X_OK):
        sys.exit(f"fit-params-refs: no {binary}: build it with scripts/reference/build-llama-cpp.sh")
    cases = []
    paths = prepare()
    for model, flags, targets in GRID:
        path = paths[model]
        total = host_total(binary, path)
        for target in targets:
            fitt = total - target
            out = run(binary, ["-m", str(path), *flags, "-fitt", str(fitt)])
            m = re.match(r"-c (\d+) -ngl (-?\d+)", out.stdout.strip())
            ctx = int(m.group(1)) if m and out.returncode == 0 else None
            case = {
                "model": model,
                "flags": flags,
                "host_total_mib": total,
                "target_mib": target,
                "ctx": ctx,
                "at_min": estimate(binary, path, flags, 4096 * streams(flags)),
            }
            if ctx is not None:
                case["at_ctx"] = estimate(binary, path, flags, ctx)
            print(json.dumps(case), file=sys.stderr)
            cases.append(case)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "llama_cpp": "0c1e570",
        "tool": "llama-fit-params (CPU build)",
        "made_by": "scripts/reference/fit-params-refs.py",
        "cases": cases,
    }
    args.out.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
