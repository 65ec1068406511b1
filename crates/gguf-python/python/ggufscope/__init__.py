"""ggufscope: what is inside a GGUF model file, read from its header alone.

``open(source)`` reads a path, ``bytes``, an http(s) URL (Range requests) or a file on an fsspec
file system, and returns the document ``ggufscope info --json`` prints, as a dict. ``validate``,
``diff``, ``tokenize`` and ``memory`` return the CLI's other documents; ``Decoder`` is the
sans-IO decoder for any other I/O; ``scan`` reads many files concurrently into rows (and
Parquet), locally or on Ray Data (``ggufscope.ray``). A file that cannot be read or decoded
raises ``GgufError`` with the CLI's error ``code``, ``offset`` and ``context``.
"""

from __future__ import annotations

import time
from typing import Any

from . import _native
from ._errors import GgufError
from ._native import DEFAULT_MAX_HEADER_BYTES, SCHEMA_VERSION, Decoder
from ._scan import SCAN_SCHEMA_VERSION, arrow_schema, scan, scan_batch, scan_one
from ._sources import Source, decode, decode_bytes, open_reader

__all__ = [
    "DEFAULT_MAX_HEADER_BYTES",
    "DEFAULT_TIMEOUT",
    "SCAN_SCHEMA_VERSION",
    "SCHEMA_VERSION",
    "Decoder",
    "arrow_schema",
    "GgufError",
    "decode_header",
    "diff",
    "memory",
    "open",
    "scan",
    "scan_batch",
    "scan_one",
    "tokenize",
    "validate",
]

__version__ = "0.1.0"

#: Default ``timeout``, in seconds: the CLI's ``--timeout``.
DEFAULT_TIMEOUT = 300.0


def decode_header(
    source: Source,
    *,
    filesystem: Any = None,
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> Decoder:
    """Reads and decodes the header of ``source``: the ``Decoder``, done, which the documents
    are made from (``Decoder.report()``; ``validate``, ``tokenize`` and ``memory`` take one too)."""
    if isinstance(source, (bytes, bytearray, memoryview)) and filesystem is None:
        return decode_bytes(source, "", max_header_bytes)
    deadline = None if not timeout else time.monotonic() + timeout
    reader = open_reader(source, filesystem, deadline)
    try:
        return decode(reader, max_header_bytes, deadline)
    finally:
        reader.close()


def open(  # noqa: A001 - the package's verb, as `ggufscope info`
    source: Source,
    *,
    filesystem: Any = None,
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> dict[str, Any]:
    """The report of ``source`` — a path, ``bytes``, an http(s) URL, or a path on the fsspec file
    system ``filesystem`` — as ``ggufscope info --json --no-siblings`` prints it (one file; a
    shard's report names the shards it did not read). Only the header is read: at most
    ``max_header_bytes`` of it, within ``timeout`` seconds (``None``: no deadline).

    Raises ``GgufError`` (``code``, ``offset``, ``context``) when the file cannot be read or
    decoded."""
    decoder = decode_header(
        source, filesystem=filesystem, max_header_bytes=max_header_bytes, timeout=timeout
    )
    return decoder.report()


def _decoded(source: Source | Decoder, options: dict[str, Any]) -> Decoder:
    return source if isinstance(source, Decoder) else decode_header(source, **options)


def _name(source: Source | Decoder) -> str:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return "<bytes>"
    if isinstance(source, Decoder):
        return "<decoder>"
    from ._http import describe

    return describe(source if isinstance(source, str) else str(source))


def validate(
    *sources: Source,
    filesystem: Any = None,
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> list[dict[str, Any]]:
    """``ggufscope validate --json --no-siblings SOURCES…``: one entry per file, ``{file, error,
    findings, findings_omitted, counts}``. A file that cannot be read is an entry with its
    ``error``, not an exception."""
    options = dict(filesystem=filesystem, max_header_bytes=max_header_bytes, timeout=timeout)
    entries: list[dict[str, Any]] = []
    for source in sources:
        name = _name(source)
        try:
            decoder = _decoded(source, options)
        except GgufError as e:
            entries.append(_native.error_document(name, e.code, e.message, e.offset, e.context))
            continue
        entries.extend(_native.validate(name, decoder))
    return entries


def diff(
    a: Source | Decoder,
    b: Source | Decoder,
    *,
    filesystem: Any = None,
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> dict[str, Any]:
    """``ggufscope diff --json --no-siblings A B``: what differs between A (the reference) and B
    — summary, metadata, tensor infos."""
    options = dict(filesystem=filesystem, max_header_bytes=max_header_bytes, timeout=timeout)
    return _native.diff(_name(a), _decoded(a, options), _name(b), _decoded(b, options))


def tokenize(
    source: Source | Decoder,
    text: str | bytes | None = None,
    *,
    ids: list[int] | None = None,
    add_special: bool = True,
    parse_special: bool = True,
    filesystem: Any = None,
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> dict[str, Any]:
    """``ggufscope tokenize --json``: the ids llama.cpp's tokenizer gives ``text`` (``{ids,
    pieces, count}``), or, with ``ids``, their ``text``. As llama-tokenize, BOS (and the like)
    is added when the vocabulary adds one, unless ``add_special`` is false, and special-token
    text is that token unless ``parse_special`` is false. Raises ``ValueError`` for a tokenizer
    llama.cpp refuses."""
    options = dict(filesystem=filesystem, max_header_bytes=max_header_bytes, timeout=timeout)
    decoder = _decoded(source, options)
    data = text.encode() if isinstance(text, str) else text
    return _native.tokenize(
        decoder, data, ids=ids, add_special=add_special, parse_special=parse_special
    )


def memory(
    source: Source | Decoder,
    *,
    ctx: int | None = None,
    parallel: int | None = None,
    kv_unified: bool | None = None,
    cache_type_k: str | None = None,
    cache_type_v: str | None = None,
    flash_attn: str | None = None,
    ubatch: int | None = None,
    batch: int | None = None,
    filesystem: Any = None,
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> dict[str, Any]:
    """The buffers llama.cpp allocates for the model run by llama-server with these options (its
    flags and defaults: ``-c``, ``-np``, ``--kv-unified``, ``-ctk``, ``-ctv``, ``-fa``, ``-ub``,
    ``-b``) on a CPU: model, KV cache groups, recurrent state, output and compute, in bytes.
    Raises ``ValueError`` when the header cannot give them."""
    options = dict(filesystem=filesystem, max_header_bytes=max_header_bytes, timeout=timeout)
    return _native.memory(
        _decoded(source, options),
        ctx=ctx,
        parallel=parallel,
        kv_unified=kv_unified,
        cache_type_k=cache_type_k,
        cache_type_v=cache_type_v,
        flash_attn=flash_attn,
        ubatch=ubatch,
        batch=batch,
    )
