"""Truncated and hostile files raise ``GgufError`` with the CLI's codes; the header budget bounds
what a hostile file costs; what is not a regular file is never read."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import fixtures, test_fixtures

import ggufscope


@pytest.mark.parametrize(
    "name,code,section",
    [
        ("truncated-in-header.gguf", "truncated", "header"),
        ("truncated-in-kv.gguf", "truncated", "kv"),
        ("truncated-in-tensor-info.gguf", "truncated", "tensor"),
    ],
)
def test_truncated_files_raise_with_code_offset_and_context(name: str, code: str, section: str) -> None:
    path = fixtures() / "synth" / name
    with pytest.raises(ggufscope.GgufError) as caught:
        ggufscope.open(path)
    e = caught.value
    assert e.code == code and e.context is not None and e.context["section"] == section
    assert e.offset is not None and 0 < e.offset <= path.stat().st_size


def test_every_prefix_of_a_file_raises_truncated_or_decodes() -> None:
    data = (fixtures() / "synth/unicode-keys.gguf").read_bytes()
    header_size = ggufscope.open(data)["header_size"]
    for end in range(header_size):
        with pytest.raises(ggufscope.GgufError) as caught:
            ggufscope.open(data[:end])
        assert caught.value.code == "truncated", end
    for end in range(header_size, len(data) + 1):
        assert ggufscope.open(data[:end])["kv_count"] == 14


@pytest.mark.parametrize(
    "name,code",
    [
        ("counts-2^64-1.gguf", "too-many-tensors"),
        ("string-length-2^63.gguf", "string-too-long"),
        ("array-length-2^63.gguf", "array-too-long"),
        ("nesting-depth-1M.gguf", "array-too-deep"),
    ],
)
def test_hostile_counts_are_refused_before_anything_is_allocated(name: str, code: str) -> None:
    with pytest.raises(ggufscope.GgufError) as caught:
        ggufscope.open(test_fixtures() / "hostile-headers" / name)
    assert caught.value.code == code


def test_not_gguf_and_errors_cross_processes() -> None:
    with pytest.raises(ggufscope.GgufError) as caught:
        ggufscope.open(b"GGML" + bytes(100))
    e = caught.value
    assert (e.code, e.offset) == ("not-gguf", 0)
    again = pickle.loads(pickle.dumps(e))
    assert (again.code, again.offset, again.context, str(again)) == (e.code, e.offset, e.context, str(e))
    assert e.document()["code"] == "not-gguf"


def test_what_is_not_a_regular_file_is_never_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.gguf"
    os.mkfifo(fifo)
    for path, code in ((fifo, "not-read"), (tmp_path, "not-read"), (tmp_path / "none.gguf", "not-found")):
        with pytest.raises(ggufscope.GgufError) as caught:
            ggufscope.open(path)
        assert caught.value.code == code


def test_decoder_raises_past_the_budget_and_after_a_malformed_feed() -> None:
    data = (fixtures() / "real/ggml-vocab-qwen2.gguf").read_bytes()
    decoder = ggufscope.Decoder(len(data), max_header_bytes=8 * 100_000)
    offset, length = decoder.next_read()
    assert offset + length <= 100_000
    with pytest.raises(ggufscope.GgufError) as caught:
        decoder.feed(data)
    assert (caught.value.code, caught.value.offset) == ("header-budget", 100_000)
    with pytest.raises(ggufscope.GgufError):
        decoder.next_read()
    broken = ggufscope.Decoder(100)
    with pytest.raises(ggufscope.GgufError):
        broken.feed(b"GGUF\x09" + bytes(95))
    with pytest.raises(ggufscope.GgufError) as again:
        broken.report()
    assert again.value.code == "unsupported-version"


PEAK = """
import resource, sys, ggufscope
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    ggufscope.decode_header(sys.argv[1], max_header_bytes=int(sys.argv[2]))
    code = None
except ggufscope.GgufError as e:
    code = e.code
print(code, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024)
"""


@pytest.mark.parametrize(
    "name",
    ["heavy-headers/empty-arrays.gguf", "heavy-headers/tensors-300k.gguf",
     "hostile-headers/1M-empty-inner-arrays.gguf", "hostile-headers/4M-empty-strings.gguf"],
)
def test_a_hostile_file_costs_at_most_its_budget(name: str) -> None:
    budget = 64 << 20
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PEAK), str(test_fixtures() / name), str(budget)],
        capture_output=True, text=True, check=True,
    )
    code, grown = done.stdout.split()
    assert code in ("header-budget", "None")
    assert int(grown) <= budget, f"{name}: {int(grown) >> 20} MiB for a budget of {budget >> 20} MiB"
