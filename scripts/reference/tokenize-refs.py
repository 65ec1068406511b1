#!/usr/bin/env python3
"""Writes crates/gguf-tokenizer/tests/reference/llama-tokenize.json: the ids llama.cpp 0c1e570's
llama-tokenize gives for a set of texts, over every vocabulary file of its source tree, the
shared fixtures' real vocabularies that the tree lacks, the Gemma 3 model, and the builder-made
vocabularies of the types no real file has (`write-fixtures`: PLaMo-2, HybridDNA,
llama.cpp's dummy `test`, `none`, and a byte-level BPE vocabulary for every `tokenizer.ggml.pre`;
labelled `builder/NAME`).

Each case is run as `llama-tokenize -m FILE -f TEXT --no-escape --ids --log-disable` (the text
byte for byte), and some also with `--no-parse-special` and with `--no-bos` (which, in
llama-tokenize, turns off add_special altogether: it passes add_bos as add_special). A run that
fails is `{"error": STATUS}` (a negative status: the signal that ended it).

The document has one case a line. Pre-tokenizer vocabularies whose cases all come out as another
one's are written once: `same_as` names, for each left out, the one whose cases it has.

    scripts/reference/tokenize-refs.py [--only LABEL-PREFIX]...
        # builds llama.cpp first if needed (build-llama-cpp.sh); --only reruns those files and
        # keeps the rest of the document
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
build = os.path.join(root, "scripts/reference/build-llama-cpp.sh")
tree = subprocess.check_output([build, "--fetch-only"], text=True).strip()
bindir = subprocess.check_output([build], text=True).strip()
tokenize = os.path.join(bindir, "llama-tokenize")
fixtures = os.environ.get("GGUF_FIXTURES", os.path.join(root, "../shared/fixtures"))
gemma = os.environ.get("GGUF_GEMMA", os.path.expanduser("~/.cache/gguf-fixtures/gemma-3-270m-q4_k_m.gguf"))

# (name, text, every mode?): the modes are default, --no-parse-special and --no-bos.
CASES = [
    ("empty", "", True),
    ("english", "Hello world! How are you doing today?", False),
    ("contractions", "I'm sure they'll say it's what we'd've done, isn't it? DON'T", False),
    ("numbers", "1 12 123 1234 12345 3.14159 1,000,000 0x1F 2024-12-03", False),
    ("whitespace runs", "a  b   c\t\td\n\ne \n \n  f   ", False),
    ("leading and trailing spaces", "   spaced out   ", False),
    ("code with tabs", "def f(x):\n\tif x:\n\t\treturn [i**2 for i in range(x)]  # square\n    return None\n", False),
    ("multilingual", "Привет мир. 你好，世界。こんにちは世界。안녕하세요. مرحبا بالعالم. नमस्ते दुनिया. Ελληνικά. ไทย", False),
    ("accents", "café naïve Ångström résumé ñandú Zürich façade", False),
    ("combining marks", "e\u0301 a\u0308 n\u0303 \u0915\u094d\u0937 \u0e01\u0e34", False),
    ("emoji", "I 💜 llamas 🦙🦙 👍🏽", False),
    ("emoji zwj and flags", "👨‍👩‍👧‍👦 🏳️‍🌈 🇩🇪🇯🇵🇺🇸 ❤️‍🔥", False),
    ("punctuation", "Wait... what?!? (yes) [no] {maybe} <tag> \"quoted\" 'single' — – … «»", False),
    ("unicode spaces", "a\u00a0b\u2003c\u3000d\u200be\u2028f", False),
    ("newlines only", "\n\n\n\n", False),
    ("long paragraph", ("The quick brown fox jumps over the lazy dog. " * 3
                        + "Pack my box with five dozen liquor jugs; sphinx of black quartz, judge my vow! ") * 4, False),
    ("special tokens", "<s>hello</s> <|endoftext|><|im_start|>user\nhi<|im_end|>", True),
    ("special tokens 2", "<bos><start_of_turn>user\nhi<end_of_turn>\n[CLS] x [SEP] <mask> <unk>", True),
    ("space after special", "<|im_start|> hello <s> world", True),
    ("single space", " ", True),
    ("dna", "Gene <dna>ACGTACGTTGCAacgtnA</dna> and <dna>GATTACA", True),
    ("markdown", "# Title\n\n* item one\n* item two\n\n```rust\nfn main() { println!(\"hi\"); }\n```\n", False),
]
MODES = [("default", []), ("no_parse_special", ["--no-parse-special"]), ("no_bos", ["--no-bos"])]


# The builder-made vocabularies (gguf_core::testkit), written by write-fixtures; a folder's files
# are run in the default mode alone (the pre-tokenizers' byte-level BPE vocabularies, one per
# name llama.cpp accepts: their splitting is what they test).
BUILT = ["vocab-plamo2.gguf", "vocab-hybriddna.gguf", "vocab-test.gguf", "vocab-none.gguf", "pre-tokenizers"]


def files(built_dir):
    """(label, path, every mode?) of each vocabulary file."""
    out = []
    for name in sorted(os.listdir(os.path.join(tree, "models"))):
        if name.endswith(".gguf"):
            out.append(("llama.cpp/models/" + name, os.path.join(tree, "models", name), True))
    have = {os.path.basename(p) for _, p, _ in out}
    real = os.path.join(fixtures, "real")
    for name in sorted(os.listdir(real)):
        if name.endswith(".gguf") and name not in have:
            out.append(("fixtures/real/" + name, os.path.join(real, name), True))
    out.append(("gemma", gemma, True))
    subprocess.run(["cargo", "run", "-q", "--profile", "ci", "-p", "gguf-test-support", "--bin", "write-fixtures",
                    "--", built_dir, *BUILT], check=True, cwd=root)
    for name in BUILT:
        path = os.path.join(built_dir, name)
        if os.path.isdir(path):
            out.extend((f"builder/{name}/{f}", os.path.join(path, f), False) for f in sorted(os.listdir(path)))
        else:
            out.append(("builder/" + name, path, True))
    return out


def run(path, text, flags):
    with tempfile.NamedTemporaryFile(delete=False) as f:
        f.write(text.encode())
    try:
        r = subprocess.run([tokenize, "-m", path, "-f", f.name, "--no-escape", "--ids", "--log-disable", *flags],
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if r.returncode != 0:
        return {"error": r.returncode}
    return {"ids": json.loads(r.stdout.strip().splitlines()[-1])}


OUT = os.path.join(root, "crates/gguf-tokenizer/tests/reference/llama-tokenize.json")


def read_doc():
    """The document written before, with every file's cases (`same_as` resolved)."""
    with open(OUT) as f:
        doc = json.load(f)
    for label, like in doc.pop("same_as", {}).items():
        doc["files"][label] = doc["files"][like]
    return doc


def write_doc(doc):
    """`doc` with one case a line, pre-tokenizer vocabularies of equal cases written once."""
    files, same_as, first_of = {}, {}, {}
    for label in sorted(doc["files"]):
        cases = doc["files"][label]
        if label.startswith("builder/pre-tokenizers/"):
            key = json.dumps(cases, sort_keys=True)
            if key in first_of:
                same_as[label] = first_of[key]
                continue
            first_of[key] = label
        files[label] = cases
    dump = lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":"))  # noqa: E731
    lines = ["{", f'"llama_cpp":{dump(doc["llama_cpp"])},', '"texts":{']
    lines.append(",\n".join(f"{dump(k)}:{dump(v)}" for k, v in doc["texts"].items()))
    lines.append("},")
    lines.append('"files":{')
    lines.append(
        ",\n".join(f"{dump(label)}:[\n" + ",\n".join(dump(c) for c in cases) + "\n]" for label, cases in files.items())
    )
    lines.append("},")
    lines.append(f'"same_as":{dump(same_as)}')
    lines.append("}")
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(files) + len(same_as)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=[], help="rerun the files whose label starts so")
    only = ap.parse_args().only
    built_dir = tempfile.mkdtemp(prefix="tokenize-refs-")
    jobs = []
    for label, path, file_modes in files(built_dir):
        if only and not any(label.startswith(o) for o in only):
            continue
        for name, text, all_modes in CASES:
            for mode, flags in (MODES if all_modes and file_modes else MODES[:1]):
                jobs.append((label, path, name, text, mode, flags))
    with concurrent.futures.ThreadPoolExecutor(max_workers=int(os.environ.get("JOBS", "2"))) as pool:
        results = list(pool.map(lambda j: run(j[1], j[3], j[5]), jobs))
    shutil.rmtree(built_dir)
    doc = read_doc() if only else {"llama_cpp": "0c1e570", "files": {}}
    doc["texts"] = {name: text for name, text, _ in CASES}
    for label in {j[0] for j in jobs}:
        doc["files"][label] = []
    for (label, _, name, _, mode, _), res in zip(jobs, results):
        doc["files"][label].append({"case": name, "mode": mode, **res})
    count = write_doc(doc)
    print(f"{len(jobs)} cases run; {count} files -> {OUT}", file=sys.stderr)


main()
