"""``python -m ggufscope scan SOURCES… --out DIR``: the scan from a shell."""

from __future__ import annotations

import argparse
import sys

from ._scan import scan


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ggufscope")
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("scan", help="read many files' headers into Parquet rows")
    p.add_argument("sources", nargs="*", help="paths and http(s) URLs")
    p.add_argument("--from", dest="listing", metavar="FILE", help="a file of sources, one a line")
    p.add_argument("--out", required=True, metavar="DIR", help="where the Parquet files go")
    p.add_argument("--engine", choices=["local", "ray"], default="local")
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--jsonl", action="store_true", help="also write the rows as JSONL")
    p.add_argument("--max-header-bytes", type=int, default=1 << 30)
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per file (0: none)")
    args = parser.parse_args(argv)
    sources = list(args.sources)
    if args.listing:
        with open(args.listing, encoding="utf-8") as f:
            sources += [line.strip() for line in f if line.strip() and not line.startswith("#")]
    rows = scan(
        sources,
        out=args.out,
        engine=args.engine,
        concurrency=args.concurrency,
        jsonl=args.jsonl,
        max_header_bytes=args.max_header_bytes,
        timeout=args.timeout or None,
    )
    errors = sum(1 for r in rows if r["error_code"])
    print(f"{len(rows)} files scanned, {errors} with errors; rows in {args.out}", file=sys.stderr)
    return 2 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
