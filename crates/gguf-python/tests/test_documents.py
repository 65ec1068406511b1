"""``validate``, ``diff`` and ``tokenize`` return the CLI's ``--json`` documents; ``memory`` the
core's buffers, in the shape the CLI's memory estimate comes from."""

from __future__ import annotations

import pytest
from conftest import cli_json, fixtures, test_fixtures

import ggufscope


def validated() -> list[str]:
    shared, built = fixtures(), test_fixtures()
    return [
        str(shared / "real/ggml-vocab-dbrx.gguf"),
        str(shared / "synth/truncated-in-data.gguf"),
        str(shared / "synth/truncated-in-kv.gguf"),
        str(shared / "synth/sharded-00002-of-00003.gguf"),
        str(built / "many-findings.gguf"),
        str(built / "hostile.gguf"),
        str(built / "hostile-templates.gguf"),
        str(built / "layout-gap.gguf"),
        str(built / "hostile-headers/alignment-48.gguf"),
        str(built / "nowhere.gguf"),
    ]


def without_reader_messages(entries: list[dict]) -> list[dict]:
    """The entries with the message of a reader's error left out: the Python readers say it in
    their words (a decoder's message is the core's, and compared)."""
    for e in entries:
        if e["error"] is not None and e["error"]["context"] is None:
            e["error"]["message"] = "…"
    return entries


def test_validate_is_the_cli_document() -> None:
    files = validated()
    assert without_reader_messages(ggufscope.validate(*files)) == without_reader_messages(
        cli_json("validate", "--json", "--no-siblings", *files)
    )


def test_validate_reports_what_cannot_be_read_as_an_entry() -> None:
    [entry] = ggufscope.validate(str(test_fixtures() / "nowhere.gguf"))
    assert entry["error"]["code"] == "not-found"
    [entry] = ggufscope.validate(str(fixtures() / "synth/truncated-in-kv.gguf"))
    assert entry["error"]["code"] == "truncated" and entry["error"]["context"]["section"] == "kv"


@pytest.mark.parametrize(
    "a,b",
    [
        ("real/ggml-vocab-llama-spm.gguf", "synth/vocab-llama-spm-be.gguf"),
        ("real/ggml-vocab-phi-3.gguf", "real/ggml-vocab-stablelm.gguf"),
        ("synth/quants.gguf", "synth/all-types.gguf"),
        ("synth/all-types.gguf", "synth/all-types.gguf"),
    ],
)
def test_diff_is_the_cli_document(a: str, b: str) -> None:
    pa, pb = str(fixtures() / a), str(fixtures() / b)
    assert ggufscope.diff(pa, pb) == cli_json("diff", "--json", "--no-siblings", pa, pb)


TEXTS = ["Hello world", "  two  spaces\n\nand lines\t", "<|im_start|>user\nhé 😀<|im_end|>", ""]


@pytest.mark.parametrize("model", ["real/ggml-vocab-llama-bpe.gguf", "real/ggml-vocab-qwen2.gguf",
                                   "real/ggml-vocab-llama-spm.gguf", "real/ggml-vocab-bert-bge.gguf"])
def test_tokenize_is_the_cli_document(model: str) -> None:
    path = str(fixtures() / model)
    decoder = ggufscope.decode_header(path)
    for text in TEXTS:
        assert ggufscope.tokenize(decoder, text) == cli_json("tokenize", "--json", path, text)
        assert ggufscope.tokenize(decoder, text, add_special=False, parse_special=False) == cli_json(
            "tokenize", "--json", "--no-add-special", "--no-parse-special", path, text
        )
    ids = ggufscope.tokenize(decoder, "Hello world")["ids"]
    assert ggufscope.tokenize(decoder, ids=ids) == cli_json(
        "tokenize", "--json", path, "--ids", ",".join(map(str, ids))
    )
    with pytest.raises(ValueError):
        ggufscope.tokenize(decoder, ids=[10**9])


def test_memory_gives_llama_cpp_buffers() -> None:
    path = str(fixtures() / "synth/sparse/gqa-llama-1.1b.gguf")
    report = ggufscope.open(path)
    decoder = ggufscope.decode_header(path)
    buffers = ggufscope.memory(decoder, ctx=4096)
    assert set(buffers) == {"context", "kind", "model", "kv", "recurrent", "output", "compute"}
    assert buffers["context"]["n_ctx"] == 4096 and buffers["kind"] == "kv_cache"
    # K and V per layer and cell: the KV heads times the head size, in f16 (llama.cpp's default).
    a = report["attention"]
    row = a["kv_heads"] * (report["embedding_length"] // a["heads"])
    [kv] = buffers["kv"]
    assert kv["layers"] == report["block_count"] and kv["cells"] == 4096
    assert kv["k_bytes"] == kv["v_bytes"] == report["block_count"] * 4096 * row * 2
    q8 = ggufscope.memory(decoder, ctx=4096, cache_type_k="q8_0", cache_type_v="q8_0", flash_attn="on")
    assert q8["kv"][0]["k_bytes"] == report["block_count"] * 4096 * row // 32 * 34
    assert ggufscope.memory(decoder, ctx=8192)["kv"][0]["k_bytes"] == 2 * kv["k_bytes"]
    with pytest.raises(ValueError):
        ggufscope.memory(decoder, cache_type_k="q3")


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("unknown-architecture.gguf", 'llama.cpp (0c1e570) does not know the architecture "llama5"'),
        ("clip.gguf", "llama.cpp refuses it: CLIP cannot be used as main model, use it with --mmproj instead"),
        ("t5.gguf", "not sized: llama.cpp runs t5, but it is an encoder-decoder"),
    ],
)
def test_memory_says_why_a_model_has_no_figure(name: str, says: str) -> None:
    path = str(test_fixtures() / "memory-refusals" / name)
    with pytest.raises(ValueError, match="^no memory estimate: ") as raised:
        ggufscope.memory(ggufscope.decode_header(path))
    assert says in str(raised.value)
    # The report has everything else, and no figure rather than a wrong one: as the CLI's.
    report = ggufscope.open(path)
    assert "memory" not in report and report == cli_json("info", "--json", "--no-siblings", path)
