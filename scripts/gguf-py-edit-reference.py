#!/usr/bin/env python3
"""What gguf-py, the reference reader, reads in files that `ggufscope edit` wrote.

Run once (and again whenever the cases change) to make the reference the CLI's test
`edits_read_back_in_gguf_py` checks against, after `cargo build --release`:

    pip install gguf==0.19.0 numpy
    python3 scripts/gguf-py-edit-reference.py > crates/gguf-cli/tests/data/edit-gguf-py.json

For each case it runs `ggufscope edit IN -o OUT` with the case's edits, and records gguf-py's
reading of IN and of OUT: every key with its types and value, every tensor info, the data offset
and the alignment, plus an FNV-1a hash of OUT's header so the test knows the dump is of the very
bytes the CLI writes today.
"""

import json
import os
import subprocess
import sys
import tempfile

import gguf
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FIXTURES = os.path.join(os.path.dirname(REPO), "shared", "fixtures")
GGUFSCOPE = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target")), "release", "ggufscope")
TEMPLATE = "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}<|end|>\n{% endfor %}"

# name, input (under ../shared/fixtures), edits as `ggufscope edit` arguments ({template}: a file
# holding TEMPLATE), the keys they change (set, added or deleted).
CASES = [
    (
        "phi-3",
        "real/ggml-vocab-phi-3.gguf",
        [
            "--set-file", "tokenizer.chat_template={template}",
            "--set", "tokenizer.ggml.eos_token_id=32007",
            "--set", "tokenizer.ggml.eos_token_ids:arr[u32]=[32000,32007]",
            "--set", "general.name:str=phi-3 edited",
            "--set", "x.scale:f32=0.125",
            "--set", "x.flag:bool=true",
            "--delete", "tokenizer.ggml.padding_token_id",
        ],
    ),
    (
        "big-endian",
        "synth/big-endian.gguf",
        [
            "--set", "general.name:str=big-endian, edited",
            "--set", "x.ids:arr[u64]=[1,18446744073709551615]",
            "--set", "x.words:arr[str]=[\"a\",\"é\",\"\"]",
        ],
    ),
    (
        "all-types",
        "synth/all-types.gguf",
        [
            "--set", "a.string=[\"one\",\"two\"]",
            "--set", "a.i8=[-128,127]",
            "--set", "t.f64:f64=2.5",
            "--delete", "t.string.empty",
        ],
    ),
]


# Arrays longer than this are recorded by length and hash (a vocabulary would make megabytes).
WHOLE_ARRAYS_UP_TO = 16
# Strings longer than this, likewise.
WHOLE_STRINGS_UP_TO = 1024


def value_of(field):
    """A field's value as gguf-py gives it: scalars, strings, arrays (of scalars or strings)."""
    types = field.types
    if types[0] == gguf.GGUFValueType.ARRAY:
        if types[-1] == gguf.GGUFValueType.ARRAY:
            return {"nested": len(field.data)}
        values = [plain(field.parts[i], types[-1]) for i in field.data]
        if len(values) <= WHOLE_ARRAYS_UP_TO:
            return values
        text = json.dumps(values, ensure_ascii=False).encode("utf-8", errors="surrogateescape")
        return {"len": len(values), "fnv1a": fnv1a(text)}
    value = plain(field.parts[field.data[0]], types[0])
    if isinstance(value, str) and len(value) > WHOLE_STRINGS_UP_TO:
        return {"chars": len(value), "fnv1a": fnv1a(value.encode("utf-8", errors="surrogateescape"))}
    return value


def plain(part, vtype):
    if vtype == gguf.GGUFValueType.STRING:
        return bytes(part).decode("utf-8", errors="surrogateescape")
    item = part.tolist()[0]
    if vtype in (gguf.GGUFValueType.FLOAT32, gguf.GGUFValueType.FLOAT64):
        # JSON has no NaN or infinities: those as text.
        return float(item) if np.isfinite(item) else str(float(item))
    if vtype == gguf.GGUFValueType.BOOL:
        return bool(item)
    # 64-bit integers as strings: JSON readers may not keep them exact.
    return str(int(item))


def dump(path):
    reader = gguf.GGUFReader(path)
    fields = [
        {"key": f.name, "types": [t.name for t in f.types], "value": value_of(f)}
        for f in reader.fields.values()
        if not f.name.startswith("GGUF.")
    ]
    tensors = [
        {
            "name": t.name,
            "type": t.tensor_type.name,
            "shape": [int(d) for d in t.shape],
            "offset": int(t.data_offset - reader.data_offset),
            "n_bytes": int(t.n_bytes),
        }
        for t in reader.tensors
    ]
    return {
        "byte_order": reader.byte_order,
        "data_offset": int(reader.data_offset),
        "alignment": int(reader.alignment),
        "fields": fields,
        "tensors": tensors,
    }


def fnv1a(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def main():
    out = {"gguf_py": gguf.__version__ if hasattr(gguf, "__version__") else "0.19.0", "cases": []}
    with tempfile.TemporaryDirectory() as tmp:
        template = os.path.join(tmp, "template.jinja")
        with open(template, "w", encoding="utf-8") as f:
            f.write(TEMPLATE)
        for name, rel, args in CASES:
            src = os.path.join(FIXTURES, rel)
            dst = os.path.join(tmp, f"{name}.gguf")
            args = [a.replace("{template}", template) for a in args]
            subprocess.run([GGUFSCOPE, "edit", src, "-o", dst, *args], check=True, stdout=subprocess.DEVNULL)
            after = dump(dst)
            with open(dst, "rb") as f:
                header = f.read(after["data_offset"])
            out["cases"].append({
                "name": name,
                "input": rel,
                "args": [a.replace(template, "{template}") for a in args],
                "header_fnv1a": fnv1a(header),
                "before": dump(src),
                "after": after,
            })
    out["template"] = TEMPLATE
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False, allow_nan=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
