#!/usr/bin/env python3
"""llama.cpp's own memory figures, the reference for gguf-core's `memory` module.

Runs llama-server (llama.cpp 0c1e570, CPU only, listening on 127.0.0.1 only) on real and
synthetic models over a grid of its options, reads the buffer lines it logs while it loads
(model buffers, KV cache per layer group with its cells, recurrent state, output, compute) and
writes them as JSON (default tests/reference/memory/llama-cpp-0c1e570.json). Each server is
stopped, by its pid, as soon as it has logged its compute buffers: nothing is ever sent to it.

The models load with zero weights: sparse copies, a header followed by zeros to the real size.
- Gemma 3 270M Q4_K_M (sliding-window attention; ../shared/fixtures/fetch-gemma.sh);
- the shared sparse files gqa-llama-1.1b (GQA) and moe-llama-8x (MoE), restored by
  ../shared/fixtures/synth/sparse/restore.sh;
- `write-fixtures DIR memory-models` (gguf-core's testkit): one small model of each architecture
  whose memory llama.cpp sizes by a rule of its own — DeepSeek 2 and 3 (MLA; 3 with grouped
  experts and an MTP layer), Qwen 3 and Qwen 3 MoE, Command-R, Phi 3 (its sliding window turned
  off), Gemma 2 (the default window), Gemma 4 (shared KV layers, `key_length_swa`), GPT-OSS
  (sliding window, sinks), Llama 4 (chunked attention), BERT (an encoder: no KV cache), Mamba,
  RWKV 6 and 7 (recurrent), LFM2, Qwen 3 Next, Granite 4 hybrid and Falcon-H1 (hybrids).

The server's defaults are kept but for what a case sets: memory-mapped weights (what a user
gets; the model buffer is the mapped size), llama-server's `--fit on` (with `-c 0` and
`-np N` without `--kv-unified` it gives each sequence the trained context), no warm-up run
(`--no-warmup`: it logs nothing the figures need and costs a decode).

Usage: scripts/reference/memory-refs.py [--bin DIR] [--out FILE] [--only MODEL]...
  --bin   llama.cpp's bin folder (default: $LLAMA_CPP_BIN or what build-llama-cpp.sh built)
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(os.environ.get("GGUF_FIXTURES", ROOT.parent / "shared" / "fixtures"))
DEFAULT_BIN = Path(os.environ.get("GGUFSCOPE_CACHE", Path.home() / ".cache" / "ggufscope")) / "llama.cpp-0c1e570" / "build" / "bin"
OUT = ROOT / "tests" / "reference" / "memory" / "llama-cpp-0c1e570.json"
TIMEOUT = 600  # seconds for one server to log its buffers (a 262k vocabulary loads in a few)

# Option sets shared by the builder's models: a model's case list is its kind's.
ATTENTION = [
    ["-c", "4096"],
    ["-c", "4096", "-np", "1"],
    ["-c", "4096", "-np", "1", "-fa", "off"],
    ["-c", "0", "-np", "1"],
    ["-c", "8192", "-np", "2"],
    ["-c", "8192", "-np", "2", "--kv-unified", "-fa", "off"],
    ["-c", "4096", "-np", "1", "-ctk", "q8_0", "-ctv", "q8_0"],
    ["-c", "4096", "-np", "1", "-ub", "256"],
    ["-c", "4096", "-np", "1", "-ub", "1024", "-fa", "off"],
]
SLIDING = ATTENTION + [
    ["-c", "16384", "-np", "1"],
    ["-c", "16384", "-np", "1", "-fa", "off"],
    ["-c", "16384", "-np", "3", "--kv-unified"],
    ["-c", "4096", "-np", "1", "-ctk", "q8_0", "-ctv", "q8_0", "-fa", "off"],
]
RECURRENT = [
    ["-c", "4096"],
    ["-c", "4096", "-np", "1"],
    ["-c", "4096", "-np", "1", "-fa", "off"],
    ["-c", "0", "-np", "1"],
    ["-c", "8192", "-np", "8"],
    ["-c", "4096", "-np", "1", "-ub", "256"],
    ["-c", "4096", "-np", "1", "-ub", "1024"],
]
HYBRID = ATTENTION + [
    ["-c", "16384", "-np", "4", "-ctk", "q4_0", "-ctv", "q4_0"],
    ["-c", "2048", "-np", "8", "--kv-unified"],
]
MLA = ATTENTION + [
    ["-c", "4096", "-np", "1", "-ctk", "q8_0"],
    ["-c", "16384", "-np", "4", "--kv-unified", "-fa", "off"],
]
ENCODER = [
    ["-c", "512"],
    ["-c", "512", "-np", "1"],
    ["-c", "512", "-np", "1", "-fa", "off"],
    ["-c", "0", "-np", "1"],
    ["-c", "512", "-np", "1", "-ub", "256"],
    ["-c", "2048", "-np", "2"],
    ["-c", "512", "-np", "1", "-b", "512", "-ub", "512", "-fa", "off"],
]

# (model, options): each a case. Options are llama-server's flags; absent ones keep its defaults.
GRID = {
    "gemma-3-270m-q4_k_m.gguf": [
        ["-c", "4096"],
        ["-c", "4096", "-np", "1"],
        ["-c", "4096", "-np", "1", "-fa", "off"],
        ["-c", "4096", "-np", "1", "-fa", "on"],
        ["-c", "0", "-np", "1"],
        ["-c", "0", "-np", "1", "-fa", "off"],
        ["-c", "8192", "-np", "2"],
        ["-c", "8192", "-np", "2", "--kv-unified"],
        ["-c", "8192", "-np", "2", "-fa", "off"],
        ["-c", "8192", "-np", "2", "--kv-unified", "-fa", "off"],
        ["-c", "0", "-np", "2"],
        ["-c", "32768", "-np", "1"],
        ["-c", "32768", "-np", "1", "-fa", "off"],
        ["-c", "4096", "-np", "1", "-ctk", "q8_0", "-ctv", "q8_0"],
        ["-c", "4096", "-np", "1", "-ctk", "q4_0", "-ctv", "q4_0"],
        ["-c", "4096", "-np", "1", "-ctk", "f32", "-ctv", "f32"],
        ["-c", "4096", "-np", "1", "-ctk", "q8_0", "-ctv", "f16"],
        ["-c", "4096", "-np", "1", "-ctk", "q8_0", "-fa", "off"],
        ["-c", "4096", "-np", "1", "-ctk", "bf16", "-ctv", "bf16"],
        ["-c", "4096", "-np", "1", "-ctk", "q4_1", "-ctv", "q5_0"],
        ["-c", "4096", "-np", "1", "-ctk", "iq4_nl", "-ctv", "q5_1"],
        ["-c", "4096", "-np", "1", "-ub", "256"],
        ["-c", "4096", "-np", "1", "-ub", "1024", "-b", "2048"],
        ["-c", "4096", "-np", "1", "-ub", "2048", "-b", "2048", "-fa", "off"],
        ["-c", "4096", "-np", "1", "-ub", "128", "-fa", "off"],
        ["-c", "1000", "-np", "1"],
        ["-c", "300", "-np", "1", "-fa", "off"],
        ["-c", "10000", "-np", "3"],
        ["-c", "10000", "-np", "3", "--kv-unified"],
        ["-c", "16384", "-np", "4", "--kv-unified", "-ctk", "q8_0", "-ctv", "q8_0"],
        ["-c", "4096", "-np", "1", "-ctk", "q8_0", "-ctv", "q8_0", "-fa", "off"],
        ["-c", "65536", "-np", "1", "-ub", "1024"],
    ],
    "gqa-llama-1.1b.gguf": [
        ["-c", "4096"],
        ["-c", "2048", "-np", "1"],
        ["-c", "2048", "-np", "1", "-fa", "off"],
        ["-c", "0", "-np", "1"],
        ["-c", "0", "-np", "1", "-fa", "off"],
        ["-c", "0", "-np", "2"],
        ["-c", "8192", "-np", "4"],
        ["-c", "8192", "-np", "4", "--kv-unified"],
        ["-c", "8192", "-np", "4", "-fa", "off"],
        ["-c", "2048", "-np", "1", "-ctk", "q8_0", "-ctv", "q8_0"],
        ["-c", "2048", "-np", "1", "-ctk", "q4_0", "-ctv", "q4_0"],
        ["-c", "2048", "-np", "1", "-ctk", "f32", "-ctv", "f32", "-fa", "off"],
        ["-c", "2048", "-np", "1", "-ctk", "q5_1", "-ctv", "iq4_nl"],
        ["-c", "2048", "-np", "1", "-ub", "256"],
        ["-c", "2048", "-np", "1", "-ub", "1024", "-fa", "off"],
        ["-c", "2048", "-np", "1", "-ub", "2048", "-b", "2048"],
        ["-c", "16384", "-np", "1", "-fa", "off"],
        ["-c", "16384", "-np", "1"],
        ["-c", "3000", "-np", "1"],
        ["-c", "3000", "-np", "2", "-fa", "off"],
    ],
    "moe-llama-8x.gguf": [
        ["-c", "4096"],
        ["-c", "2048", "-np", "1"],
        ["-c", "2048", "-np", "1", "-fa", "off"],
        ["-c", "0", "-np", "1"],
        ["-c", "8192", "-np", "2"],
        ["-c", "8192", "-np", "2", "--kv-unified", "-fa", "off"],
        ["-c", "2048", "-np", "1", "-ctk", "q8_0", "-ctv", "q8_0"],
        ["-c", "2048", "-np", "1", "-ub", "256"],
        ["-c", "2048", "-np", "1", "-ub", "1024", "-fa", "off"],
        ["-c", "0", "-np", "1", "-fa", "off"],
        ["-c", "16384", "-np", "1", "-ctk", "q4_0", "-ctv", "q4_0"],
    ],
    "deepseek2-mla.gguf": [
        ["-c", "4096"],
        ["-c", "4096", "-np", "1"],
        ["-c", "4096", "-np", "1", "-fa", "off"],
        ["-c", "0", "-np", "1"],
        ["-c", "0", "-np", "1", "-fa", "off"],
        ["-c", "8192", "-np", "2"],
        ["-c", "8192", "-np", "2", "--kv-unified"],
        ["-c", "4096", "-np", "1", "-ctk", "q8_0"],
        ["-c", "4096", "-np", "1", "-ctk", "q8_0", "-ctv", "q8_0"],
        ["-c", "4096", "-np", "1", "-ctk", "q4_0", "-ctv", "q4_0"],
        ["-c", "16384", "-np", "4", "--kv-unified", "-fa", "off"],
        ["-c", "4096", "-np", "1", "-ctk", "f32", "-fa", "off"],
        ["-c", "4096", "-np", "1", "-ub", "256"],
        ["-c", "4096", "-np", "1", "-ub", "1024", "-fa", "off"],
    ],
    "mamba.gguf": [
        ["-c", "4096"],
        ["-c", "4096", "-np", "1"],
        ["-c", "4096", "-np", "1", "-fa", "off"],
        ["-c", "0", "-np", "1"],
        ["-c", "8192", "-np", "2"],
        ["-c", "8192", "-np", "3", "--kv-unified"],
        ["-c", "4096", "-np", "1", "-ub", "256"],
        ["-c", "4096", "-np", "1", "-ub", "1024"],
        ["-c", "4096", "-np", "16"],
    ],
    "lfm2-hybrid.gguf": [
        ["-c", "4096"],
        ["-c", "4096", "-np", "1"],
        ["-c", "4096", "-np", "1", "-fa", "off"],
        ["-c", "0", "-np", "1"],
        ["-c", "0", "-np", "1", "-fa", "off"],
        ["-c", "8192", "-np", "2"],
        ["-c", "8192", "-np", "2", "--kv-unified", "-fa", "off"],
        ["-c", "4096", "-np", "1", "-ctk", "q8_0", "-ctv", "q8_0"],
        ["-c", "4096", "-np", "1", "-ub", "256"],
        ["-c", "4096", "-np", "1", "-ub", "1024", "-fa", "off"],
        ["-c", "16384", "-np", "3", "-ctk", "q4_0", "-ctv", "q4_0"],
        ["-c", "2048", "-np", "8", "--kv-unified"],
    ],
    "deepseek3-mla-mtp.gguf": MLA,
    "qwen3.gguf": ATTENTION,
    "qwen3-moe.gguf": ATTENTION,
    "command-r.gguf": ATTENTION,
    "phi3-swa.gguf": ATTENTION,
    "gemma2-swa.gguf": SLIDING,
    "gemma4-shared-kv.gguf": SLIDING,
    "gpt-oss-swa.gguf": SLIDING,
    "llama4-chunked.gguf": SLIDING,
    "bert-encoder.gguf": ENCODER,
    "rwkv6.gguf": RECURRENT,
    "rwkv7.gguf": RECURRENT,
    "qwen3-next-hybrid.gguf": HYBRID,
    "granite-hybrid.gguf": HYBRID,
    "falcon-h1-hybrid.gguf": HYBRID,
}
BUILT = [name for name in GRID if name not in ("gemma-3-270m-q4_k_m.gguf", "gqa-llama-1.1b.gguf", "moe-llama-8x.gguf")]

NUM = r"([0-9]+(?:\.[0-9]+)?)"
PATTERNS = {
    "model_buffer": re.compile(r"load_tensors:\s+(\S+) model buffer size =\s+" + NUM + " MiB"),
    "kv_buffer": re.compile(r"llama_kv_cache:\s+(\S+) KV buffer size =\s+" + NUM + " MiB"),
    "kv_size": re.compile(
        r"llama_kv_cache: size =\s+" + NUM + r" MiB \(\s*(\d+) cells,\s+(\d+) layers,\s+(\d+)/\s*(\d+) seqs\), "
        r"K \((\w+)\):\s+" + NUM + r" MiB, V \((\w+)\):\s+" + NUM + " MiB"
    ),
    "rs_buffer": re.compile(r"llama_memory_recurrent:\s+(\S+) RS buffer size =\s+" + NUM + " MiB"),
    "rs_size": re.compile(
        r"llama_memory_recurrent: size =\s+" + NUM + r" MiB \(\s*(\d+) cells,\s+(\d+) layers,\s+(\d+) seqs\s+(\d+) rs_seq\), "
        r"R \((\w+)\):\s+" + NUM + r" MiB, S \((\w+)\):\s+" + NUM + " MiB"
    ),
    "swa_cells": re.compile(r"llama_kv_cache_iswa: creating\s+(non-SWA|SWA) KV cache, size = (\d+) cells"),
    "output": re.compile(r"llama_context:\s+(\S+)\s+output buffer size =\s+" + NUM + " MiB"),
    "compute": re.compile(r"sched_reserve:\s+(\S+) compute buffer size =\s+" + NUM + " MiB"),
    "cparam": re.compile(r"llama_context: (n_ctx|n_ctx_seq|n_seq_max|n_batch|n_ubatch|flash_attn|kv_unified)\s+= (\S+)"),
    "fa_resolved": re.compile(r"resolve_fused_ops: Flash Attention (enabled|not supported)"),
    "graph": re.compile(r"sched_reserve: graph: nodes = (\d+)"),
}
DONE = re.compile(r"sched_reserve: graph: nodes|llama_server: model loaded|error")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_case(server, model, options):
    """Starts llama-server, reads its log up to the compute buffers, stops it. The parsed figures."""
    cmd = [str(server), "-m", str(model), "--host", "127.0.0.1", "--port", str(free_port()),
           "-t", "1", "--no-warmup", "-lv", "4", *options]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace")
    lines = []
    deadline = time.monotonic() + TIMEOUT
    try:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if DONE.search(line) or time.monotonic() > deadline:
                break
    finally:
        stop(proc)
    return parse(lines, cmd)


def stop(proc):
    """Ends the server this script started, by its pid."""
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
    if proc.stdout:
        proc.stdout.close()


def parse(lines, cmd):
    out = {"model_buffers": {}, "kv_caches": [], "recurrent": [], "output": {}, "compute": {}, "context": {}}
    pending_cells = []
    kv_buffers = []
    rs_buffers = []
    for line in lines:
        if m := PATTERNS["model_buffer"].search(line):
            out["model_buffers"][m[1]] = float(m[2])
        elif m := PATTERNS["swa_cells"].search(line):
            pending_cells.append({"swa": m[1] == "SWA", "cells": int(m[2])})
        elif m := PATTERNS["kv_buffer"].search(line):
            kv_buffers.append({m[1]: float(m[2])})
        elif m := PATTERNS["kv_size"].search(line):
            cache = {
                "mib": float(m[1]), "cells": int(m[2]), "layers": int(m[3]), "seqs": int(m[4]),
                "streams": int(m[5]), "type_k": m[6], "k_mib": float(m[7]), "type_v": m[8],
                "v_mib": float(m[9]), "buffers": kv_buffers.pop(0) if kv_buffers else {},
            }
            if pending_cells:
                cache["swa"] = pending_cells.pop(0)["swa"]
            out["kv_caches"].append(cache)
        elif m := PATTERNS["rs_buffer"].search(line):
            rs_buffers.append({m[1]: float(m[2])})
        elif m := PATTERNS["rs_size"].search(line):
            out["recurrent"].append({
                "mib": float(m[1]), "cells": int(m[2]), "layers": int(m[3]), "seqs": int(m[4]),
                "rs_seq": int(m[5]), "type_r": m[6], "r_mib": float(m[7]), "type_s": m[8],
                "s_mib": float(m[9]), "buffers": rs_buffers.pop(0) if rs_buffers else {},
            })
        elif m := PATTERNS["output"].search(line):
            out["output"][m[1]] = float(m[2])
        elif m := PATTERNS["compute"].search(line):
            out["compute"][m[1]] = float(m[2])
        elif m := PATTERNS["cparam"].search(line):
            v = m[2]
            out["context"][m[1]] = int(v) if v.isdigit() else v
        elif m := PATTERNS["fa_resolved"].search(line):
            out["context"]["flash_attn_resolved"] = m[1] == "enabled"
        elif m := PATTERNS["graph"].search(line):
            out["context"]["graph_nodes"] = int(m[1])
    if not out["compute"]:
        # llama.cpp refused the options: the case records its error, which gguf-core must give too.
        errors = [line for line in lines if re.search(r"\d E ", line)]
        if not errors:
            tail = "\n".join(lines[-25:])
            raise RuntimeError(f"no compute buffer logged by: {' '.join(cmd)}\n{tail}")
        return {"error": errors[0].split(" E ", 1)[1].strip()}
    return out


def prepare_models(work):
    """Paths of every model of GRID, restored or written into `work`."""
    paths = {}
    gemma = subprocess.run(["sh", str(FIXTURES / "fetch-gemma.sh")], check=True, capture_output=True, text=True)
    paths["gemma-3-270m-q4_k_m.gguf"] = Path(gemma.stdout.strip().splitlines()[-1])
    sparse = work / "sparse"
    sparse.mkdir()
    for name in ["gqa-llama-1.1b.gguf", "moe-llama-8x.gguf"]:
        size = next(line.split("\t")[1] for line in (FIXTURES / "synth/sparse/SIZES.tsv").read_text().splitlines()
                    if line.startswith(name + "\t"))
        shutil.copyfile(FIXTURES / "synth/sparse" / name, sparse / name)
        os.truncate(sparse / name, int(size))
        paths[name] = sparse / name
    subprocess.run(["cargo", "run", "-q", "--profile", "ci", "-p", "gguf-test-support", "--bin", "write-fixtures",
                    "--", str(work), "memory-models"], check=True, cwd=ROOT)
    for name in BUILT:
        paths[name] = work / "memory-models" / name
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", type=Path, default=Path(os.environ.get("LLAMA_CPP_BIN", DEFAULT_BIN)))
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--only", action="append", help="models to run (default: all); merges into --out")
    args = ap.parse_args()
    server = args.bin / "llama-server"
    if not os.access(server, os.X_OK):
        sys.exit(f"memory-refs: no {server}: build it with scripts/reference/build-llama-cpp.sh")
    cases = []
    if args.only and args.out.exists():
        cases = [c for c in json.loads(args.out.read_text())["cases"] if c["model"] not in args.only]
    with tempfile.TemporaryDirectory(prefix="memory-refs-") as tmp:
        paths = prepare_models(Path(tmp))
        for model, grid in GRID.items():
            if args.only and model not in args.only:
                continue
            for options in grid:
                print(f"{model} {' '.join(options)}", file=sys.stderr, flush=True)
                figures = run_case(server, paths[model], options)
                cases.append({"model": model, "options": options, **figures})
    order = {m: i for i, m in enumerate(GRID)}
    cases.sort(key=lambda c: order[c["model"]])
    doc = {
        "llama_cpp": "0c1e570 (llama-cpp-python 0.3.36 sdist), CPU build",
        "made_by": "scripts/reference/memory-refs.py",
        "units": "MiB as llama.cpp logs them (2 decimals)",
        "server_defaults": "--no-warmup -t 1 -lv 4 (its buffer lines are logged at level 4), memory-mapped weights, --fit on; other flags as each case gives",
        "cases": cases,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{len(cases)} cases -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
