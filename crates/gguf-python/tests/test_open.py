"""``open()`` is ``ggufscope info --json``: on every fixture, the same document, or the same error
(code, offset, context) as the CLI's ``validate --json`` gives; and the same from a path, bytes,
a URL and an fsspec file system."""

from __future__ import annotations

import random
from pathlib import Path

import fsspec
import pytest
from conftest import cli_json, fixtures, gguf_files, url_of

import ggufscope

FILES = gguf_files()


def expected(path: Path) -> tuple[dict | None, dict | None]:
    """The CLI's report of ``path``, or its error document."""
    [entry] = cli_json("validate", "--json", "--no-siblings", str(path))
    if entry["error"] is not None:
        return None, entry["error"]
    return cli_json("info", "--json", "--no-siblings", str(path)), None


def error_of(e: ggufscope.GgufError) -> dict:
    return {"code": e.code, "offset": e.offset, "context": e.context}


def outcome(open_it) -> tuple[dict | None, dict | None]:
    try:
        return open_it(), None
    except ggufscope.GgufError as e:
        return None, error_of(e)


def test_there_are_fixtures_of_every_kind() -> None:
    names = {p.name for p in FILES}
    assert {"ggml-vocab-command-r.gguf", "vocab-262k.gguf", "big-endian.gguf", "truncated-in-kv.gguf"} <= names
    assert {"4M-empty-strings.gguf", "counts-2^64-1.gguf", "sample.gguf"} <= names
    assert len(FILES) > 50


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_open_equals_info_json(path: Path) -> None:
    report, error = expected(path)
    got, got_error = outcome(lambda: ggufscope.open(path))
    if error is not None and error["code"] == "header-budget":
        # The CLI counts its heap, the bindings the header's bytes (docs/python.md): the same
        # refusal, at another byte.
        assert got_error is not None and got_error["code"] == "header-budget"
    elif error is not None:
        assert got_error == {k: error[k] for k in ("code", "offset", "context")}
    else:
        assert got_error is None
        assert got == report


SOURCES = [
    "real/ggml-vocab-llama-spm.gguf",
    "real/ggml-vocab-aquila.gguf",
    "real/ggml-vocab-dbrx.gguf",
    "synth/all-types.gguf",
    "synth/big-endian.gguf",
    "synth/invalid-utf8.gguf",
    "synth/unicode-keys.gguf",
    "synth/truncated-in-tensor-info.gguf",
    "synth/truncated-in-data.gguf",
    "synth/quants.gguf",
]


@pytest.mark.parametrize("name", SOURCES)
def test_path_bytes_url_and_fsspec_agree(name: str, server) -> None:
    path = fixtures() / name
    by_path = outcome(lambda: ggufscope.open(path))
    by_str = outcome(lambda: ggufscope.open(str(path)))
    by_bytes = outcome(lambda: ggufscope.open(path.read_bytes()))
    by_url = outcome(lambda: ggufscope.open(url_of(server, path)))
    local = fsspec.filesystem("file")
    by_fsspec = outcome(lambda: ggufscope.open(str(path), filesystem=local))
    memory = fsspec.filesystem("memory")
    memory.pipe_file(f"/ggufscope-test/{path.name}", path.read_bytes())
    by_memory = outcome(lambda: ggufscope.open(f"/ggufscope-test/{path.name}", filesystem=memory))
    assert by_path == by_str == by_bytes == by_url == by_fsspec == by_memory


def chunkings(size: int, rng: random.Random) -> list[list[int]]:
    """Split points: one feed, every byte apart (small files), and random cuts."""
    cuts = [[]]
    if size <= 4096:
        cuts.append(list(range(1, size)))
    for _ in range(4):
        cuts.append(sorted(rng.sample(range(1, size), min(size - 1, rng.randint(1, 40)))))
    return cuts


@pytest.mark.parametrize(
    "name",
    ["synth/minimal.gguf", "synth/unicode-keys.gguf", "synth/all-types.gguf", "real/ggml-vocab-qwen2.gguf",
     "synth/truncated-in-kv.gguf", "synth/sharded-00002-of-00003.gguf"],
)
def test_any_chunking_of_the_decoder_equals_one_feed(name: str) -> None:
    data = (fixtures() / name).read_bytes()
    rng = random.Random(name)

    def run(cuts: list[int]):
        decoder = ggufscope.Decoder(len(data), name=Path(name).name)
        try:
            for a, b in zip([0, *cuts], [*cuts, len(data)]):
                if decoder.feed(data[a:b]):
                    break
            return decoder.report(), None
        except ggufscope.GgufError as e:
            return None, error_of(e)

    one = run([])
    for cuts in chunkings(len(data), rng):
        assert run(cuts) == one, f"cut at {cuts[:10]}…"


def test_decoder_next_read_drives_any_io() -> None:
    path = fixtures() / "real/ggml-vocab-command-r.gguf"
    data = path.read_bytes()
    decoder = ggufscope.Decoder(len(data), name=path.name)
    reads = []
    while (read := decoder.next_read()) is not None:
        offset, length = read
        assert offset == decoder.bytes_fed
        reads.append(read)
        decoder.feed(data[offset : offset + length])
    assert decoder.done and decoder.header_size == ggufscope.open(path)["header_size"]
    assert len(reads) > 1
    assert decoder.report() == ggufscope.open(path)
