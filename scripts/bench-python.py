#!/usr/bin/env python3
"""The Python package against its peer, and the scan over a slow server. A benchmark, not a test.

1. `ggufscope.open()` against gguf-py's `GGUFReader` (PyPI `gguf` 0.19, the reference reader) on
   the fixtures' large-vocabulary files, in one process, in the same run: the median of several
   runs each, and the ratio.
2. A scan of many files served by a loopback Range server (127.0.0.1) that waits before each
   answer (`--latency`, default 50 ms, as a hub across an ocean): files per second and bytes
   moved per file, at 1, 8 and 64 concurrent reads, locally (threads) and, with `--ray`, on a
   local Ray cluster (`ray.init(num_cpus=2)`).

Run it with the Python that has the wheel and the test dependencies (scripts/test-python.sh makes
target/python-test-venv):

    target/python-test-venv/bin/python scripts/bench-python.py [--ray] [--files N]
    target/python-test-venv/bin/python scripts/bench-python.py --ray --write-docs   # the table into docs/python.md
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import ggufscope

root = Path(__file__).resolve().parent.parent
fixtures = Path(os.environ.get("GGUF_FIXTURES") or root.parent / "shared" / "fixtures")
sys.path.insert(0, str(root / "crates" / "gguf-python" / "tests"))

from range_server import RangeServer  # noqa: E402

LARGE_VOCABULARIES = [
    "real/ggml-vocab-command-r.gguf",
    "synth/vocab-262k.gguf",
    "real/ggml-vocab-llama-bpe.gguf",
    "real/ggml-vocab-qwen2.gguf",
]


def median_seconds(work, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def versus_gguf_py(runs: int) -> list[str]:
    from gguf import GGUFReader

    rows = ["| file | header | `ggufscope.open` | gguf-py `GGUFReader` | faster |", "| --- | ---: | ---: | ---: | ---: |"]
    for name in LARGE_VOCABULARIES:
        path = fixtures / name
        header = ggufscope.open(path)["header_size"]
        ours = median_seconds(lambda: ggufscope.open(path), runs)
        # gguf-py takes seconds a file: three runs, or one when the first takes over 5 s.
        first = median_seconds(lambda: GGUFReader(str(path)), 1)
        peer = first if first > 5 else statistics.median([first, *(median_seconds(lambda: GGUFReader(str(path)), 1) for _ in range(2))])
        rows.append(
            f"| {path.name} | {header / 1e6:.1f} MB | {ours * 1e3:.1f} ms | {peer * 1e3:.0f} ms | {peer / ours:.0f}× |"
        )
        print(rows[-1], flush=True)
    return rows


def scan_table(files: int, latency: float, use_ray: bool) -> list[str]:
    small = sorted(p for p in (fixtures / "synth").glob("*.gguf") if p.stat().st_size < 1 << 20)
    small += [fixtures / "real/ggml-vocab-llama-spm.gguf", fixtures / "real/ggml-vocab-phi-3.gguf"]
    small = [p for p in small if not p.name.startswith("truncated-")]  # files that read cleanly

    def resolve(path: str) -> str | None:
        parts = path.lstrip("/").split("/")  # /N/NAME
        return str(fixtures / "synth" / parts[-1]) if (fixtures / "synth" / parts[-1]).exists() else str(fixtures / "real" / parts[-1])

    server = RangeServer(resolve, latency=latency)
    engines = [("local", None)]
    if use_ray:
        import ray

        started = time.monotonic()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        print(f"ray.init: {time.monotonic() - started:.1f} s", flush=True)
        import ggufscope.ray as gray

        engines.append(("Ray Data (2 CPUs)", gray))
    rows = [
        f"| engine | concurrent reads | files | files/s | requests/file | bytes moved/file | header bytes/file |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    try:
        for engine, module in engines:
            for concurrency in (1, 8, 64):
                # Fewer files where one at a time would take minutes; the rate is what is compared.
                n = min(files, max(50, int(files * concurrency / 64)))
                urls = [server.url(f"{i}/{small[i % len(small)].name}") for i in range(n)]
                server.stats.reset()
                started = time.monotonic()
                if module is None:
                    rows_ = ggufscope.scan(urls, concurrency=concurrency, progress=False)
                else:
                    rows_ = module.scan(urls, concurrency=max(1, concurrency // 2), batch_size=max(1, n // 2)).take_all()
                seconds = time.monotonic() - started
                assert len(rows_) == n and not any(r["error_code"] for r in rows_)
                moved = sum(server.stats.bytes.values())
                requests = sum(server.stats.requests.values())
                headers = sum(r["header_size"] for r in rows_)
                rows.append(
                    f"| {engine} | {concurrency} | {n:,} | {n / seconds:,.0f} | {requests / n:.2f} | {moved / n / 1e3:,.1f} kB | {headers / n / 1e3:,.1f} kB |"
                )
                print(rows[-1], flush=True)
    finally:
        server.close()
        if use_ray:
            import ray

            ray.shutdown()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--files", type=int, default=2000, help="files per scan at 64 concurrent reads")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds before each answer")
    parser.add_argument("--ray", action="store_true", help="also scan on a local Ray cluster")
    parser.add_argument("--write-docs", action="store_true", help="put the tables into docs/python.md")
    args = parser.parse_args()
    versus = versus_gguf_py(args.runs)
    scans = scan_table(args.files, args.latency, args.ray)
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    block = "\n".join(
        [
            "<!-- bench-python: generated by scripts/bench-python.py --write-docs; do not edit -->",
            f"Medians of {args.runs} runs (gguf-py: of 3, or 1 when one takes over 5 s), one process, same run; {machine}.",
            "",
            *versus,
            "",
            f"A scan over a loopback server answering each request after {args.latency * 1e3:.0f} ms:",
            "",
            *scans,
            "<!-- bench-python: end -->",
        ]
    )
    print(block)
    if args.write_docs:
        doc = root / "docs" / "python.md"
        text = doc.read_text()
        start = text.index("<!-- bench-python: generated")
        end = text.index("<!-- bench-python: end -->") + len("<!-- bench-python: end -->")
        doc.write_text(text[:start] + block + text[end:])
        print(f"wrote {doc.relative_to(root)}")


if __name__ == "__main__":
    main()
