"""Where a file's bytes come from: a path, ``bytes``, an http(s) URL, or an fsspec file system
and a path. Each reader only moves bytes; what to read is the decoder's read rule
(``Decoder.next_read``), so every reader makes the same reads of the same file as the CLI."""

from __future__ import annotations

import os
import stat
import time
from typing import Any, Protocol, Union

from . import _native
from ._errors import GgufError
from ._http import HttpSource

#: What ``open`` and the other functions read: a path, the file's bytes, or its URL.
Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]


class Reader(Protocol):
    """A file being read: its name and size, and forward reads of its bytes."""

    name: str
    size: int
    etag: str | None
    bytes_read: int
    reads: int

    def read(self, offset: int, length: int) -> bytes: ...

    def close(self) -> None: ...


class FileReader:
    """A regular file on disk (a FIFO, a device or a folder is refused, never read)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.name = os.path.basename(self.path) or self.path
        self.etag: str | None = None
        self.bytes_read = 0
        self.reads = 0
        try:
            # O_NONBLOCK: a FIFO cannot hold the open before it is refused.
            self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            raise GgufError(f"{self.path}: no such file", "not-found") from None
        except PermissionError:
            raise GgufError(f"{self.path}: permission denied", "access-denied") from None
        except OSError as e:
            raise GgufError(f"{self.path}: cannot read: {e.strerror}", "read-failed") from None
        info = os.fstat(self._fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(self._fd)
            raise GgufError(f"{self.path}: not a regular file", "not-read")
        self.size = info.st_size

    def read(self, offset: int, length: int) -> bytes:
        try:
            data = os.pread(self._fd, length, offset)
        except OSError as e:
            raise GgufError(f"{self.path}: cannot read: {e.strerror}", "read-failed", offset) from None
        if len(data) != length:
            raise GgufError(f"{self.path}: the file got shorter while it was read", "file-changed", offset)
        self.reads += 1
        self.bytes_read += length
        return data

    def close(self) -> None:
        os.close(self._fd)


class FsspecReader:
    """A file on an fsspec file system: its size from ``fs.size``, each read one ranged
    ``fs.cat_file`` (no read-ahead cache)."""

    def __init__(self, fs: Any, path: str) -> None:
        self.fs = fs
        self.path = path
        self.name = path.rstrip("/").rsplit("/", 1)[-1]
        self.bytes_read = 0
        self.reads = 0
        try:
            info = fs.info(path)
        except FileNotFoundError:
            raise GgufError(f"{path}: no such file", "not-found") from None
        except PermissionError:
            raise GgufError(f"{path}: permission denied", "access-denied") from None
        if info.get("type", "file") != "file":
            raise GgufError(f"{path}: not a regular file", "not-read")
        self.size = int(info["size"])
        # An object store's ETag; on a Hugging Face file system, the LFS file's sha256, else its blob id.
        lfs = info.get("lfs")
        oid = lfs.get("sha256") or lfs.get("oid") if isinstance(lfs, dict) else None
        self.etag = info.get("ETag") or info.get("etag") or oid or info.get("blob_id")

    def read(self, offset: int, length: int) -> bytes:
        try:
            data = bytes(self.fs.cat_file(self.path, start=offset, end=offset + length))
        except OSError as e:
            raise GgufError(f"{self.path}: cannot read: {e}", "read-failed", offset) from None
        if len(data) != length:
            raise GgufError(f"{self.path}: {len(data)} bytes came where {length} were asked for", "file-changed", offset)
        self.reads += 1
        self.bytes_read += length
        return data

    def close(self) -> None:
        pass


def is_url(source: object) -> bool:
    return isinstance(source, str) and source[:8].lower().startswith(("http://", "https://"))


def open_reader(source: Source, filesystem: Any, deadline: float | None) -> Reader:
    """The reader of ``source`` (bytes are decoded in place, not through a reader)."""
    if filesystem is not None:
        return FsspecReader(filesystem, os.fspath(source))  # type: ignore[arg-type]
    if is_url(source):
        return HttpSource(str(source), deadline=deadline, first_read=_native.FIRST_READ)
    if isinstance(source, (str, os.PathLike)):
        return FileReader(source)
    raise TypeError(f"not a path, URL or bytes: {type(source).__name__}")


def decode(reader: Reader, max_header_bytes: int, deadline: float | None) -> _native.Decoder:
    """Reads and decodes the header of ``reader``, read by read."""
    decoder = _native.Decoder(reader.size, name=reader.name, max_header_bytes=max_header_bytes)
    while (read := decoder.next_read()) is not None:
        if deadline is not None and time.monotonic() > deadline:
            raise GgufError(f"{reader.name}: past the timeout", "timeout", decoder.bytes_fed)
        decoder.feed(reader.read(*read))
    return decoder


def decode_bytes(data: bytes | bytearray | memoryview, name: str, max_header_bytes: int) -> _native.Decoder:
    """Decodes the header of a file held in memory: one feed, as the core's ``parse``."""
    data = data if isinstance(data, bytes) else bytes(data)
    decoder = _native.Decoder(len(data), name=name, max_header_bytes=max_header_bytes)
    decoder.feed(data)
    if not decoder.done:
        decoder.next_read()  # raises: the budget (a file always ends in done or an error)
    return decoder
