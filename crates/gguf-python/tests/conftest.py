"""Where the tests find what they compare against: the shared fixtures (``../shared/fixtures``
beside the repository, or ``$GGUF_FIXTURES``), the builder-made files (``$GGUF_TEST_FIXTURES``,
written by scripts/test.sh) and the CLI (``$GGUFSCOPE_BIN``, else target/ci/ggufscope). What is
missing fails the test, never skips it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(Path(__file__).parent))

from range_server import RangeServer  # noqa: E402


def fixtures() -> Path:
    path = Path(os.environ.get("GGUF_FIXTURES") or REPO.parent / "shared" / "fixtures")
    assert (path / "README.md").is_file(), f"no shared fixtures at {path} (see ../shared/fixtures/README.md)"
    return path


def test_fixtures() -> Path:
    path = Path(os.environ.get("GGUF_TEST_FIXTURES") or REPO / "target" / "test-fixtures")
    assert (path / "sample.gguf").is_file(), (
        f"no builder-made fixtures at {path}: target/ci/write-fixtures {path} (scripts/test.sh does)"
    )
    return path


test_fixtures.__test__ = False  # type: ignore[attr-defined]


def cli_bin() -> str:
    path = os.environ.get("GGUFSCOPE_BIN") or str(REPO / "target" / "ci" / "ggufscope")
    assert os.access(path, os.X_OK), f"no CLI at {path}: cargo build --profile ci -p gguf-cli"
    return path


def cli_json(*args: str) -> Any:
    """The CLI's JSON document for ``args`` (its exit status is the CLI's business)."""
    done = subprocess.run([cli_bin(), *args], capture_output=True, timeout=120)
    assert done.stdout, f"ggufscope {' '.join(args)}: no output; {done.stderr.decode(errors='replace')}"
    return json.loads(done.stdout)


def gguf_files() -> list[Path]:
    """Every fixture file: the real ones, the synthetic ones, the sparse prefixes, the builder's."""
    shared = fixtures()
    files = sorted(shared.glob("real/*.gguf")) + sorted(shared.glob("synth/*.gguf"))
    files += sorted(shared.glob("synth/sparse/*.gguf"))
    built = test_fixtures()
    files += sorted(p for p in built.rglob("*.gguf"))
    return files


@pytest.fixture(scope="session")
def server() -> Any:
    """A loopback Range server whose paths are the fixtures': ``/shared/…`` and ``/built/…``,
    and ``/copies/N/…`` for the same files again under other names."""
    shared, built = fixtures(), test_fixtures()

    def resolve(path: str) -> str | None:
        parts = path.lstrip("/").split("/")
        if parts[0] == "copies" and len(parts) > 2:
            parts = parts[2:]
        root = {"shared": shared, "built": built}.get(parts[0])
        if root is None or ".." in parts:
            return None
        return str(root.joinpath(*parts[1:]))

    s = RangeServer(resolve)
    yield s
    s.close()


def url_of(server: RangeServer, path: Path) -> str:
    shared, built = fixtures(), test_fixtures()
    for prefix, root in (("shared", shared), ("built", built)):
        try:
            return server.url(f"{prefix}/{path.relative_to(root)}")
        except ValueError:
            continue
    raise AssertionError(f"{path} is not a fixture")
