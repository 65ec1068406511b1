#!/usr/bin/env python3
"""Tokenizer benchmark (a measurement, not a test): tokens per second on a 1 MB text for a
SentencePiece and a byte-level BPE vocabulary — ggufscope's CLI against llama.cpp 0c1e570's
llama-tokenize, against Hugging Face `tokenizers` (PyPI, in its own venv) and against
ggufscope's wasm module under Node — and the time to build the tokenizer of 262,144-token
vocabularies (Gemma 3's SentencePiece, Gemma 4's BPE with 514,906 merges), which a page waits for
before its first tokenization, under Node and in headless Chromium
(scripts/bench-tokenize-page.mjs).

Times are CPU time (user + system: the machine is shared and noisy), medians of RUNS. A
command's tokenization is its time on the text less its time on an empty text (loading the
vocabulary and starting up), so the table compares tokenizers, not start-ups. In Chromium the
times are wall-clock (a page has no CPU clock), medians too. The text is the
first 1,000,000 bytes of llama.cpp's own Markdown files (sorted by path): English prose, code
blocks, tables and commands. Each peer's ids are compared with ggufscope's.

Usage: python3 scripts/bench-tokenize.py [RUNS] [--write-docs]
  (after scripts/build-web.sh and `cargo build --release -p gguf-cli`; GGUF_GEMMA as
  fetch-gemma.sh prints it; the venv ~/.cache/ggufscope/bench-tokenize-venv is made on first use
  with tokenizers and gguf from PyPI). --write-docs writes the tables into docs/performance.md,
  its block bench:tokenize.
"""

import glob
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(os.path.dirname(ROOT), "shared", "fixtures")
VENV = os.path.expanduser("~/.cache/ggufscope/bench-tokenize-venv")
TEXT_BYTES = 1_000_000
VOCABS = [
    ("Llama 2 (SPM, 32,000)", "real/ggml-vocab-llama-spm.gguf"),
    ("Llama 3 (BPE, 128,256)", "real/ggml-vocab-llama-bpe.gguf"),
]
LLAMA3 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def in_venv():
    """Runs this script again in the venv with tokenizers and gguf, made when missing."""
    python = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", "tokenizers==0.23.3", "gguf==0.19.0"], check=True)
    os.execv(python, [python, *sys.argv])


def cpu_of(args, **kw):
    """CPU milliseconds of a child process, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(args, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, **kw).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    ms = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return ms, out


def median_cpu(args, runs):
    times, out = [], None
    for _ in range(runs):
        ms, out = cpu_of(args)
        times.append(ms)
    return statistics.median(times), out


def text_file(tree, tmp):
    files = sorted(glob.glob(os.path.join(tree, "**", "*.md"), recursive=True))
    data = b"".join(open(f, "rb").read() for f in files)[:TEXT_BYTES]
    text = data.decode("utf-8", "ignore")  # a character cut at the end is dropped
    path = os.path.join(tmp, "text.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    empty = os.path.join(tmp, "empty.txt")
    open(empty, "w").close()
    return path, empty, len(text.encode())


def hf_tokenizer(path):
    """The file's vocabulary as Hugging Face's tokenizer.json files have it (transformers'
    converters' recipe): SentencePiece (`llama`) as a byte-fallback BPE whose merges come from
    the scores, `▁` for spaces and one put first; byte-level BPE with its merges and Llama 3's
    split regex."""
    from gguf import GGUFReader
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

    reader = GGUFReader(path)
    field = lambda key: reader.fields[key].contents()  # noqa: E731
    vocab = {}
    for i, t in enumerate(field("tokenizer.ggml.tokens")):
        vocab.setdefault(t, i)
    if field("tokenizer.ggml.model") == "llama":
        scores = field("tokenizer.ggml.scores")
        merges = sorted(
            (-scores[pid], vocab[p[:i]], vocab[p[i:]], p[:i], p[i:])
            for p, pid in vocab.items()
            for i in range(1, len(p))
            if p[:i] in vocab and p[i:] in vocab
        )
        tok = Tokenizer(
            models.BPE(vocab, [(m[3], m[4]) for m in merges], unk_token="<unk>", fuse_unk=True, byte_fallback=True)
        )
        tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
        return tok
    merges = [tuple(m.split(" ", 1)) for m in field("tokenizer.ggml.merges")]
    tok = Tokenizer(models.BPE(vocab, merges, ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(LLAMA3), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    return tok


def hf(path, text, runs):
    started = time.process_time()
    tok = hf_tokenizer(path)
    build = (time.process_time() - started) * 1000
    times = []
    for _ in range(runs):
        started = time.process_time()
        ids = tok.encode(text, add_special_tokens=False).ids
        times.append((time.process_time() - started) * 1000)
    return build, statistics.median(times), ids


def agreement(ours, theirs):
    if ours == theirs:
        return "same ids"
    same = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
    return f"differ from token {same:,} ({len(theirs):,} tokens)"


def main():
    in_venv()
    args = [a for a in sys.argv[1:] if a != "--write-docs"]
    runs = int(args[0]) if args else 5
    write = "--write-docs" in sys.argv
    cli = os.environ.get("GGUFSCOPE_BIN", os.path.join(ROOT, "target/release/ggufscope"))
    bindir = subprocess.run(
        [os.path.join(ROOT, "scripts/reference/build-llama-cpp.sh")], check=True, capture_output=True, text=True
    ).stdout.strip()
    tree = subprocess.run(
        [os.path.join(ROOT, "scripts/reference/build-llama-cpp.sh"), "--fetch-only"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    llama_tokenize = os.path.join(bindir, "llama-tokenize")
    gemma = os.environ.get("GGUF_GEMMA") or subprocess.run(
        ["sh", os.path.join(FIXTURES, "fetch-gemma.sh")], check=True, capture_output=True, text=True
    ).stdout.strip()

    rows, builds = [], []
    with tempfile.TemporaryDirectory() as tmp:
        text_path, empty, size = text_file(tree, tmp)
        text = open(text_path, encoding="utf-8").read()
        for name, rel in VOCABS:
            path = os.path.join(FIXTURES, rel)
            ours_cmd = [cli, "tokenize", path, "--file"]
            # --no-escape: the text as it is (llama-tokenize reads `\n` in it as a newline).
            llama_cmd = [llama_tokenize, "-m", path, "--ids", "--log-disable", "--no-escape", "-f"]
            _, out = cpu_of([*ours_cmd, text_path, "--json", "--no-add-special"])
            ids = json.loads(out)["ids"]
            _, out = cpu_of([*llama_cmd, text_path, "--no-bos"])
            llama_ids = [int(x) for x in re.findall(rb"\d+", out)]
            ours = median_cpu([*ours_cmd, text_path], runs)[0] - median_cpu([*ours_cmd, empty], runs)[0]
            llama = median_cpu([*llama_cmd, text_path], runs)[0] - median_cpu([*llama_cmd, empty], runs)[0]
            hf_build, hf_ms, hf_ids = hf(path, text, runs)
            _, out = cpu_of(["node", os.path.join(ROOT, "scripts/bench-tokenize-wasm.mjs"), path, text_path, str(runs)])
            wasm = json.loads(out)
            wasm_ms = statistics.median(wasm["tokenize_ms"])
            rate = lambda ms: f"{len(ids) / ms * 1000 / 1e6:.2f} M/s"  # noqa: E731
            rows.append(
                [
                    name,
                    f"{len(ids):,}",
                    f"{rate(ours)}",
                    f"{rate(llama)} ({llama / ours:.2f}×; {agreement(ids, llama_ids)})",
                    f"{rate(hf_ms)} ({hf_ms / ours:.2f}×; {agreement(ids, hf_ids)})",
                    f"{rate(wasm_ms)} ({ours / wasm_ms:.2f} of native)",
                ]
            )
        built = [
            *((n, os.path.join(FIXTURES, r)) for n, r in VOCABS),
            ("Gemma 3 (SPM, 262,144)", gemma),
            ("Gemma 4 (BPE, 262,144)", os.path.join(tree, "models/ggml-vocab-gemma-4.gguf")),
        ]
        _, out = cpu_of(
            ["node", os.path.join(ROOT, "scripts/bench-tokenize-page.mjs"), str(runs), *(p for _, p in built)]
        )
        page = json.loads(out)
        for name, path in built:
            _, out = cpu_of(["node", os.path.join(ROOT, "scripts/bench-tokenize-wasm.mjs"), path, empty, str(runs)])
            wasm = json.loads(out)
            ms = lambda xs: f"{statistics.median(xs):.0f} ms"  # noqa: E731
            chromium = page[path]
            # From the header read to the first tokenization's ids: decoded, built, tokenized.
            wall = [sum(t) for t in zip(chromium["decode_ms"], chromium["build_ms"], chromium["first_ms"])]
            cpu = [sum(t) for t in zip(chromium["decode_cpu_ms"], chromium["build_cpu_ms"], chromium["first_cpu_ms"])]
            builds.append(
                [
                    name,
                    ms(wasm["decode_ms"]),
                    ms(wasm["build_ms"]),
                    f"{chromium['load_ms'][0]:.0f} ms",
                    f"{wall[0]:.0f} ms / {cpu[0]:.0f} ms",
                    f"{ms(wall[1:])} / {ms(cpu[1:])}",
                ]
            )

    table = [
        f"Measured {time.strftime('%Y-%m-%d')}: CPU time, medians of {runs} runs; {size:,} bytes of text, no BOS.",
        "",
        "| vocabulary | tokens | ggufscope (CLI) | llama-tokenize (× ggufscope's time) | HF tokenizers | ggufscope wasm (Node) |",
        "| --- | --- | --- | --- | --- | --- |",
        *("| " + " | ".join(r) + " |" for r in rows),
        "",
        "Building the tokenizer in wasm, after the header is read: the page's wait before its first tokenization."
        " Under Node, CPU time of decoding the header again (in the tokenizer module) and of building the"
        " tokenizer. In headless Chromium, a browser per vocabulary, from the header bytes to the ids of a short"
        " text (decoded, built, tokenized) as wall-clock / the page's main-thread CPU (CDP's ThreadTime): on first"
        f" use (the browser's first code for the module), and the median of the {runs - 1} runs after it; the"
        " module's fetch and compile on first use apart (the page starts both when the Tokenize box is focused).",
        "",
        "| vocabulary | Node: decoded | Node: built | Chromium: module loaded | Chromium: first use"
        " | Chromium: after |",
        "| --- | --- | --- | --- | --- | --- |",
        *("| " + " | ".join(r) + " |" for r in builds),
    ]
    text = "\n".join(table) + "\n"
    print(text)
    if write:
        doc = os.path.join(ROOT, "docs/performance.md")
        old = open(doc, encoding="utf-8").read()
        block = re.compile(r"(<!-- BEGIN bench:tokenize -->\n).*?(<!-- END bench:tokenize -->)", re.S)
        if not block.search(old):
            raise SystemExit(f"{doc}: no block bench:tokenize")
        open(doc, "w", encoding="utf-8").write(block.sub(lambda m: m.group(1) + text + m.group(2), old))


if __name__ == "__main__":
    main()
