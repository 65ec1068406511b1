"""The scan on Ray Data: ``from_items`` → ``map_batches`` over ``scan_batch`` (the package's one
Arrow-in/Arrow-out function) → a Dataset in the scan's fixed schema, materialized once (so that
writing it and taking its rows never reads a file twice), written as Parquet with ``out``. The
same call runs on a laptop and on a cluster (``ray.init(address=…)`` first)."""

from __future__ import annotations

from typing import Any, Iterable

from ._scan import arrow_schema, scan_batch


def scan(
    sources: Iterable[str],
    *,
    out: str | None = None,
    concurrency: int = 8,
    batch_size: int = 64,
    **options: Any,
) -> Any:
    """A ``ray.data.Dataset`` with one row per source (errors as rows), each batch of
    ``batch_size`` sources read ``concurrency`` at a time by one task; written to ``out`` as
    Parquet when given. Options are ``ggufscope.scan``'s (``max_header_bytes``, ``timeout``)."""
    import ray.data

    items = [{"source": s} for s in sources]
    if not items:
        return ray.data.from_arrow(arrow_schema().empty_table())
    dataset = ray.data.from_items(items, override_num_blocks=max(1, -(-len(items) // batch_size)))
    dataset = dataset.map_batches(
        scan_batch,
        batch_format="pyarrow",
        batch_size=batch_size,
        fn_kwargs={"concurrency": concurrency, **options},
    ).materialize()
    if out is not None:
        dataset.write_parquet(out)
    return dataset
