"""The scan: many files' headers, read concurrently, one row each in a fixed, versioned schema
(``SCAN_SCHEMA_VERSION``, ``arrow_schema()``), an error as a row with its code. ``scan_batch`` is
the one Arrow-in/Arrow-out function: the local engine runs it over a thread pool, Ray Data's
``map_batches`` runs it on the cluster (``ggufscope.ray``), Spark's ``mapInArrow`` can too. Each
file is read once, header only; decoding releases the GIL, so threads overlap reads and decoding.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterable, Iterator

from . import _native
from ._errors import GgufError
from ._sources import decode, decode_bytes, open_reader

#: The version of the row's shape: raised when a column changes meaning or goes away.
SCAN_SCHEMA_VERSION = 1

#: The special token ids a row carries, from their ``tokenizer.ggml.*`` keys.
_SPECIAL_IDS = ("bos", "eos", "eot", "padding", "unknown", "separator")

#: The columns, in order, with their Arrow types (as ``pyarrow`` names them).
COLUMNS: tuple[tuple[str, str], ...] = (
    ("scan_schema_version", "int32"),
    ("source", "string"),
    ("size", "uint64"),
    ("etag", "string"),
    ("error_code", "string"),
    ("error_message", "string"),
    ("error_offset", "uint64"),
    ("architecture", "string"),
    ("name", "string"),
    ("gguf_version", "uint32"),
    ("parameters", "uint64"),
    ("active_parameters", "uint64"),
    ("bits_per_weight", "float64"),
    ("file_type", "string"),
    ("type_mix", "string"),
    ("context_length", "uint64"),
    ("block_count", "uint64"),
    ("embedding_length", "uint64"),
    ("attention", "string"),
    ("heads", "uint64"),
    ("kv_heads", "uint64"),
    ("experts", "uint64"),
    ("experts_used", "uint64"),
    ("tokenizer_model", "string"),
    ("tokenizer_pre", "string"),
    ("vocab_size", "uint64"),
    *((f"{k}_token_id", "uint64") for k in _SPECIAL_IDS),
    ("template_sha256", "string"),
    ("finding_codes", "list<string>"),
    ("tensor_count", "uint64"),
    ("header_size", "uint64"),
    ("bytes_read", "uint64"),
    ("reads", "uint32"),
    ("seconds", "float64"),
    ("report", "string"),
)


def arrow_schema() -> Any:
    """The rows' ``pyarrow.Schema``."""
    import pyarrow as pa

    types = {
        "int32": pa.int32(),
        "uint32": pa.uint32(),
        "uint64": pa.uint64(),
        "float64": pa.float64(),
        "string": pa.string(),
        "list<string>": pa.list_(pa.string()),
    }
    return pa.schema(
        [pa.field(name, types[kind]) for name, kind in COLUMNS],
        metadata={"ggufscope.scan_schema_version": str(SCAN_SCHEMA_VERSION)},
    )


def _metadata_value(report: dict[str, Any], key: str) -> Any:
    for entry in report["metadata"]:
        if entry["key"] == key:
            return entry["value"]
    return None


def _row_of(source: str, report: dict[str, Any]) -> dict[str, Any]:
    attention = report.get("attention") or {}
    experts = report.get("experts") or {}
    file_type = report.get("file_type") or {}
    template = _metadata_value(report, "tokenizer.chat_template")
    if isinstance(template, dict):  # a string that is not UTF-8, shown escaped
        template = template.get("text")
    row: dict[str, Any] = {
        "architecture": report.get("architecture"),
        "name": report.get("name"),
        "gguf_version": report.get("version"),
        "parameters": report.get("parameters"),
        "active_parameters": report.get("active_parameters"),
        "bits_per_weight": report.get("bits_per_weight"),
        "file_type": file_type.get("label"),
        "type_mix": json.dumps(report.get("type_mix"), separators=(",", ":")),
        "context_length": report.get("context_length"),
        "block_count": report.get("block_count"),
        "embedding_length": report.get("embedding_length"),
        "attention": attention.get("kind"),
        "heads": attention.get("heads"),
        "kv_heads": attention.get("kv_heads"),
        "experts": experts.get("count"),
        "experts_used": experts.get("used"),
        "tokenizer_model": report.get("tokenizer_model"),
        "tokenizer_pre": report.get("tokenizer_pre"),
        "vocab_size": report.get("vocab_size"),
        "template_sha256": hashlib.sha256(template.encode()).hexdigest() if isinstance(template, str) else None,
        "finding_codes": sorted({f["code"] for f in report["findings"]}),
        "tensor_count": report.get("tensor_count"),
        "header_size": report.get("header_size"),
        "report": json.dumps(report, separators=(",", ":")),
    }
    for k in _SPECIAL_IDS:
        value = _metadata_value(report, f"tokenizer.ggml.{k}_token_id")
        row[f"{k}_token_id"] = value if isinstance(value, int) and value >= 0 else None
    return row


def scan_one(
    source: str | bytes,
    *,
    filesystem: Any = None,
    max_header_bytes: int = _native.DEFAULT_MAX_HEADER_BYTES,
    timeout: float | None = 300.0,
) -> dict[str, Any]:
    """The row of one file: its figures, or its error (``error_code``, ``error_message``,
    ``error_offset``). Never raises for a file that cannot be read."""
    started = time.monotonic()
    deadline = None if not timeout else started + timeout
    row: dict[str, Any] = dict.fromkeys(name for name, _ in COLUMNS)
    row["scan_schema_version"] = SCAN_SCHEMA_VERSION
    row["source"] = source if isinstance(source, str) else "<bytes>"
    row["finding_codes"] = []
    reader = None
    try:
        if isinstance(source, (bytes, bytearray, memoryview)):
            decoder = decode_bytes(source, "", max_header_bytes)
            row["size"], row["bytes_read"], row["reads"] = decoder.file_size, decoder.bytes_fed, 1
        else:
            reader = open_reader(source, filesystem, deadline)
            row["size"], row["etag"] = reader.size, reader.etag
            decoder = decode(reader, max_header_bytes, deadline)
        row.update(_row_of(row["source"], decoder.report()))
    except GgufError as e:
        row["error_code"], row["error_message"], row["error_offset"] = e.code, e.message, e.offset
    except Exception as e:  # noqa: BLE001 - a row per file, whatever went wrong
        row["error_code"], row["error_message"] = "read-failed", f"{type(e).__name__}: {e}"
    finally:
        if reader is not None:
            row["bytes_read"], row["reads"] = reader.bytes_read, reader.reads
            try:
                reader.close()
            except Exception:  # noqa: BLE001
                pass
    row["seconds"] = time.monotonic() - started
    return row


def scan_rows(
    sources: Iterable[str],
    *,
    concurrency: int = 8,
    progress: bool | None = None,
    **options: Any,
) -> Iterator[dict[str, Any]]:
    """Rows of ``sources``, in their order, read ``concurrency`` at a time."""
    sources = list(sources)
    show = sys.stderr.isatty() if progress is None else progress
    done = 0
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        for row in pool.map(lambda s: scan_one(s, **options), sources):
            done += 1
            if show:
                print(f"\rggufscope scan: {done}/{len(sources)}", end="", file=sys.stderr, flush=True)
            yield row
    if show:
        print(file=sys.stderr)


def rows_to_table(rows: list[dict[str, Any]]) -> Any:
    """Rows as a ``pyarrow.Table`` of the scan's schema."""
    import pyarrow as pa

    schema = arrow_schema()
    return pa.Table.from_pylist(rows, schema=schema)


def scan_batch(batch: Any, **options: Any) -> Any:
    """The Arrow-in/Arrow-out function: a ``pyarrow.Table`` (or RecordBatch, or dict of columns)
    with a ``source`` column in, the table of their rows out (``arrow_schema()``). Options are
    ``scan_one``'s and ``concurrency`` (threads within the batch; default 8)."""
    sources = batch["source"]
    sources = sources.to_pylist() if hasattr(sources, "to_pylist") else list(sources)
    return rows_to_table(list(scan_rows(sources, progress=False, **options)))


def _already_scanned(out: str) -> set[str]:
    """The sources with a row without error in the Parquet files of ``out`` (a resumed scan
    skips them)."""
    if not os.path.isdir(out):
        return set()
    import pyarrow.parquet as pq

    done: set[str] = set()
    for name in sorted(os.listdir(out)):
        if name.endswith(".parquet"):
            table = pq.read_table(os.path.join(out, name), columns=["source", "error_code"])
            for source, code in zip(table["source"].to_pylist(), table["error_code"].to_pylist()):
                if code is None:
                    done.add(source)
    return done


def scan(
    sources: Iterable[str],
    *,
    out: str | None = None,
    engine: str = "local",
    concurrency: int = 8,
    jsonl: bool = False,
    progress: bool | None = None,
    filesystem: Any = None,
    max_header_bytes: int = _native.DEFAULT_MAX_HEADER_BYTES,
    timeout: float | None = 300.0,
) -> list[dict[str, Any]]:
    """Reads the header of every source (paths, URLs) — ``concurrency`` at a time, each within
    ``max_header_bytes`` and ``timeout`` — and returns one row per file, in order; an error is a
    row with its ``error_code``. With ``out``, the rows are also written to ``out/`` as Parquet
    (and JSONL with ``jsonl``), and sources already there without error are skipped (a scan
    resumes). ``engine="ray"`` runs on Ray Data (``ggufscope.ray.scan``)."""
    sources = list(dict.fromkeys(sources))  # a file named twice is read once
    if out is not None:
        skip = _already_scanned(out)
        sources = [s for s in sources if s not in skip]
    options = dict(max_header_bytes=max_header_bytes, timeout=timeout, filesystem=filesystem)
    if engine == "ray":
        from . import ray as ggufscope_ray

        dataset = ggufscope_ray.scan(sources, concurrency=concurrency, **options)
        rows = list(dataset.take_all())
    elif engine == "local":
        rows = list(scan_rows(sources, concurrency=concurrency, progress=progress, **options))
    else:
        raise ValueError(f"engine must be 'local' or 'ray', not {engine!r}")
    if out is not None and rows:
        _write(rows, out, jsonl)
    return rows


def _write(rows: list[dict[str, Any]], out: str, jsonl: bool) -> None:
    import pyarrow.parquet as pq

    os.makedirs(out, exist_ok=True)
    stamp = f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
    pq.write_table(rows_to_table(rows), os.path.join(out, f"scan-{stamp}.parquet"))
    if jsonl:
        with open(os.path.join(out, f"scan-{stamp}.jsonl"), "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, separators=(",", ":")) + "\n")
