"""The scan over a loopback Range server: the fixtures and a few hundred copies, one row per
file, errors only where ``open()`` raises, each file read once and at most 1.3× its header —
locally, and on a local Ray cluster (``ray.init(num_cpus=2)``) with the same rows."""

from __future__ import annotations

import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import fixtures, url_of

import ggufscope
from ggufscope._scan import arrow_schema

COPIES = 30


def sources(server) -> tuple[list[str], dict[str, Path]]:
    shared = fixtures()
    files = sorted(shared.glob("real/*.gguf")) + sorted(shared.glob("synth/*.gguf"))
    files += sorted(shared.glob("synth/sparse/*.gguf"))
    urls = {url_of(server, p): p for p in files}
    small = [p for p in files if p.stat().st_size < 1 << 20]
    for n in range(COPIES):
        for p in small:
            urls[url_of(server, p).replace("/shared/", f"/copies/{n}/shared/")] = p
    return list(urls), urls


def expected_error(path: Path) -> str | None:
    try:
        ggufscope.open(path)
        return None
    except ggufscope.GgufError as e:
        return e.code


def check(rows: list[dict], urls: list[str], files: dict[str, Path], server, route_of) -> None:
    assert [r["source"] for r in rows] == urls
    errors = {p: expected_error(p) for p in set(files.values())}
    for row in rows:
        path = files[row["source"]]
        assert row["error_code"] == errors[path], row["source"]
        assert row["size"] == path.stat().st_size
        if row["error_code"] is None:
            assert row["architecture"] == ggufscope.open(path)["architecture"] or row["architecture"] is None
            assert row["bytes_read"] == server.stats.bytes[route_of(row["source"])]
    headers = sum(r["header_size"] or 0 for r in rows if r["error_code"] is None)
    read = sum(r["bytes_read"] for r in rows if r["error_code"] is None)
    assert read <= 1.3 * headers, (read, headers)
    # Nothing read twice: one request for every read the decoder asked for.
    for row in rows:
        assert server.stats.requests[route_of(row["source"])] == row["reads"]


def route(server):
    return lambda url: url.split(str(server.port), 1)[1]


def test_scan_locally_into_parquet(server, tmp_path: Path) -> None:
    urls, files = sources(server)
    server.stats.reset()
    started = time.monotonic()
    rows = ggufscope.scan(urls, concurrency=16, out=str(tmp_path), jsonl=True)
    print(f"local scan: {len(rows)} files in {time.monotonic() - started:.2f} s")
    check(rows, urls, files, server, route(server))
    [parquet] = tmp_path.glob("*.parquet")
    table = pq.read_table(parquet)
    assert table.schema.equals(arrow_schema(), check_metadata=False) and table.num_rows == len(urls)
    # Resumed: what is already there without error is not read again.
    server.stats.reset()
    again = ggufscope.scan(urls, concurrency=16, out=str(tmp_path))
    assert {r["source"] for r in again} == {r["source"] for r in rows if r["error_code"]}
    assert sum(server.stats.requests.values()) == len(again)


def test_scan_on_ray(server, tmp_path: Path) -> None:
    import ray  # installed by scripts/test.sh
    urls, files = sources(server)
    started = time.monotonic()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        print(f"ray.init: {time.monotonic() - started:.2f} s")
        server.stats.reset()
        started = time.monotonic()
        import ggufscope.ray as gray

        dataset = gray.scan(urls, out=str(tmp_path / "out"), concurrency=8, batch_size=100)
        rows = sorted(dataset.take_all(), key=lambda r: urls.index(r["source"]))
        print(f"ray scan: {len(rows)} files in {time.monotonic() - started:.2f} s")
        check(rows, urls, files, server, route(server))
        assert pq.read_table(tmp_path / "out").num_rows == len(urls)
    finally:
        ray.shutdown()
    local = {r["source"]: r for r in ggufscope.scan(urls, concurrency=16)}
    for row in rows:
        mine = dict(local[row["source"]])
        for key in ("seconds",):
            mine.pop(key), row.pop(key)
        assert dict(row) == mine


def test_python_m_ggufscope_scan(tmp_path: Path) -> None:
    import subprocess
    import sys

    listing = tmp_path / "sources.txt"
    good = fixtures() / "synth/minimal.gguf"
    bad = fixtures() / "synth/truncated-in-kv.gguf"
    listing.write_text(f"# a comment\n{bad}\n")
    done = subprocess.run(
        [sys.executable, "-m", "ggufscope", "scan", str(good), "--from", str(listing), "--out", str(tmp_path / "out"), "--jsonl"],
        capture_output=True, text=True,
    )
    assert done.returncode == 2, done.stderr  # a file with an error
    [parquet] = (tmp_path / "out").glob("*.parquet")
    table = pq.read_table(parquet)
    assert table["source"].to_pylist() == [str(good), str(bad)]
    assert table["error_code"].to_pylist() == [None, "truncated"]
    assert len(list((tmp_path / "out").glob("*.jsonl"))) == 1
