"""A file on an HTTP server, read as the CLI and the browser read one: the first request asks for
the file's first bytes with a Range header and gives its size (Content-Range), redirects are
followed once (each later read goes to where they led, on the same connection), and each later
read is one forward Range request. Every answer must be of the same file (its size and ETag,
else Last-Modified, those of the first: ``file-changed``). 429 and 5xx answers and dropped
connections are retried with exponential back-off (``Retry-After`` honoured), within the
deadline. A token (``token=``, else ``HF_TOKEN`` in the environment) is sent as a Bearer
authorization to the host named only — never to a host a redirect leads to — and never printed.
"""

from __future__ import annotations

import http.client
import os
import random
import socket
import ssl
import time
import urllib.parse
from typing import Any

from ._errors import GgufError

#: Most redirects followed from one URL, as browsers and curl do.
MAX_REDIRECTS = 10
#: Retries of a request answered 429 or 5xx, or whose connection broke.
RETRIES = 4
#: The first wait before a retry, in seconds; each next one doubles (with jitter).
BACKOFF = 0.25
#: Longest wait for one ``Retry-After``.
MAX_RETRY_AFTER = 30.0
RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
USER_AGENT = "ggufscope-python/0.1.0"


def without_user_info(url: str) -> str:
    """``url`` without ``user:password@``: credentials in a URL are never sent nor printed."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def token_from_environment() -> str | None:
    """The Hugging Face token the user set, if any (``HF_TOKEN``)."""
    return os.environ.get("HF_TOKEN") or None


class _Answer:
    """A response with its body read (at most the bytes asked for), or kept open as a stream."""

    def __init__(self, status: int, headers: http.client.HTTPMessage, body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body


class HttpSource:
    """A file on an HTTP(S) server, read by forward Range requests."""

    def __init__(
        self,
        url: str,
        *,
        deadline: float | None,
        first_read: int,
        token: str | None = None,
        retries: int = RETRIES,
    ) -> None:
        self.url = without_user_info(url)
        self.name = urllib.parse.unquote(urllib.parse.urlsplit(self.url).path.rsplit("/", 1)[-1])
        self._origin = urllib.parse.urlsplit(self.url).netloc
        self._token = token if token is not None else token_from_environment()
        self._deadline = deadline
        self._retries = retries
        self._conn: http.client.HTTPConnection | None = None
        self._conn_key: tuple[str, str] | None = None
        self._ignores_range = False
        self.requests = 0
        self.retried = 0
        self.bytes_read = 0
        self.reads = 0
        answer, self._final = self._get(self.url, 0, first_read, follow=True)
        self._prefetched = b""
        self.etag = answer.headers.get("ETag") or answer.headers.get("Last-Modified")
        if answer.status == 206:
            self.size = _total_size(answer.headers.get("Content-Range"), self.url)
            self._prefetched = answer.body
        elif answer.status == 416:
            # Nothing to give from byte 0: an empty file (`bytes */0`).
            self.size = _total_size(answer.headers.get("Content-Range"), self.url)
        else:  # 200: a server that ignores Range; its body is read in order, as far as needed.
            length = answer.headers.get("Content-Length")
            if length is None or not length.isdigit():
                raise GgufError(
                    f"{self.url}: the server ignores Range requests and gives no Content-Length",
                    "no-range",
                )
            self.size = int(length)
            self._prefetched = answer.body
            self._ignores_range = True

    def __repr__(self) -> str:
        return f"HttpSource({self.url!r}, size={self.size})"

    def read(self, offset: int, length: int) -> bytes:
        """``length`` bytes at ``offset``: the header's reads come in order, each from where the
        last ended."""
        self.reads += 1
        pre = self._prefetched
        if offset + length <= len(pre):
            data = pre[offset : offset + length]
        elif self._ignores_range:
            raise GgufError(
                f"{self.url}: the server ignores Range requests, and the header goes on past its first {len(pre)} bytes",
                "no-range",
                offset,
            )
        else:
            answer, _ = self._get(self._final, offset, length, follow=False)
            if answer.status != 206:
                raise GgufError(
                    f"{self.url}: answered {answer.status} to a Range request for bytes {offset}–",
                    "no-range",
                )
            size = _total_size(answer.headers.get("Content-Range"), self.url)
            etag = answer.headers.get("ETag") or answer.headers.get("Last-Modified")
            if size != self.size or etag != self.etag:
                raise GgufError(
                    f"{self.url}: the file changed between two requests (size or ETag)",
                    "file-changed",
                    offset,
                )
            data = answer.body
        if len(data) != length:
            raise GgufError(
                f"{self.url}: {len(data)} bytes came where {length} were asked for",
                "file-changed",
                offset,
            )
        self.bytes_read += len(data)
        return data

    def close(self) -> None:
        """Closes the connection (a stream left half read included)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- requests -------------------------------------------------------------------------------

    def _time_left(self) -> float | None:
        if self._deadline is None:
            return None
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise GgufError(f"{self.url}: past the timeout", "timeout")
        return left

    def _connection(self, parts: urllib.parse.SplitResult) -> http.client.HTTPConnection:
        key = (parts.scheme, parts.netloc)
        timeout = self._time_left()
        if self._conn is None or self._conn_key != key:
            self.close()
            host = parts.hostname or ""
            port = parts.port
            if parts.scheme == "https":
                self._conn = http.client.HTTPSConnection(
                    host, port, timeout=timeout, context=ssl.create_default_context()
                )
            else:
                self._conn = http.client.HTTPConnection(host, port, timeout=timeout)
            self._conn_key = key
        elif self._conn.sock is not None and timeout is not None:
            self._conn.sock.settimeout(timeout)
        return self._conn

    def _get(self, url: str, offset: int, length: int, *, follow: bool) -> tuple[_Answer, str]:
        """GET ``url`` for ``length`` bytes at ``offset``, following redirects when ``follow``
        (the URL they lead to is returned with the answer), retrying what is worth retrying."""
        for _ in range(MAX_REDIRECTS + 1):
            answer = self._request_with_retries(url, offset, length)
            if answer.status in (301, 302, 303, 307, 308):
                location = answer.headers.get("Location")
                if not follow or not location:
                    raise GgufError(f"{self.url}: a redirect without Location", "redirect")
                url = urllib.parse.urljoin(url, location)
                if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
                    raise GgufError(f"{self.url}: redirected to an address that is not http(s)", "redirect")
                continue
            self._check_status(answer, offset)
            return answer, url
        raise GgufError(f"{self.url}: more than {MAX_REDIRECTS} redirects", "redirect")

    def _check_status(self, answer: _Answer, offset: int) -> None:
        status = answer.status
        if status in (200, 206) or (status == 416 and offset == 0):
            kind = (answer.headers.get("Content-Type") or "").lower()
            if kind.startswith("text/html"):
                raise GgufError(f"{self.url}: the URL answers a web page, not the file", "web-page")
            return
        code = {404: "not-found", 410: "not-found", 401: "access-denied", 403: "access-denied"}.get(
            status, "http-status"
        )
        hint = " (a gated or private model: set HF_TOKEN)" if code == "access-denied" else ""
        raise GgufError(f"{self.url}: HTTP {status}{hint}", code)

    def _request_with_retries(self, url: str, offset: int, length: int) -> _Answer:
        attempt = 0
        while True:
            try:
                answer = self._request(url, offset, length)
            except GgufError:
                raise
            except (OSError, http.client.HTTPException) as e:
                self.close()
                if attempt >= self._retries:
                    raise _connection_error(self.url, e) from None
                self._wait(attempt, None)
            else:
                if answer.status not in RETRIED_STATUSES or attempt >= self._retries:
                    return answer
                self._wait(attempt, answer.headers.get("Retry-After"))
            attempt += 1
            self.retried += 1

    def _wait(self, attempt: int, retry_after: str | None) -> None:
        pause = BACKOFF * (2**attempt) * (0.5 + random.random())
        if retry_after is not None and retry_after.strip().isdigit():
            pause = max(pause, min(float(retry_after), MAX_RETRY_AFTER))
        left = self._time_left()
        if left is not None and pause >= left:
            raise GgufError(f"{self.url}: past the timeout while retrying", "timeout")
        time.sleep(pause)

    def _request(self, url: str, offset: int, length: int) -> _Answer:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise GgufError(f"{self.url}: not an http(s) URL", "unreachable")
        conn = self._connection(parts)
        path = urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))
        headers = {
            "Range": f"bytes={offset}-{offset + max(length, 1) - 1}",
            "Accept-Encoding": "identity",
            "User-Agent": USER_AGENT,
        }
        if self._token and parts.netloc == self._origin:
            headers["Authorization"] = f"Bearer {self._token}"
        self.requests += 1
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        if response.status in (200, 206):
            body = response.read(length)
            if not response.isclosed():
                # More than asked for (the whole file, from a server that ignores Range): the
                # rest is not wanted, so the connection goes.
                self.close()
        else:
            body = response.read(64 << 10)
            if not response.isclosed():
                self.close()
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        return _Answer(response.status, response.headers, body)


def _total_size(content_range: str | None, url: str) -> int:
    """The file's size from ``bytes a-b/SIZE`` (or ``bytes */SIZE``)."""
    if content_range and "/" in content_range:
        total = content_range.rsplit("/", 1)[1].strip()
        if total.isdigit():
            return int(total)
    raise GgufError(f"{url}: the answer's Content-Range does not give the file's size", "no-range")


def _connection_error(url: str, e: BaseException) -> GgufError:
    if isinstance(e, (socket.timeout, TimeoutError)):
        return GgufError(f"{url}: no answer in time", "timeout")
    if isinstance(e, (http.client.IncompleteRead, ConnectionResetError, http.client.RemoteDisconnected)):
        return GgufError(f"{url}: the download broke off ({type(e).__name__})", "interrupted")
    return GgufError(f"{url}: no answer ({type(e).__name__}: {e})", "unreachable")


def describe(source: Any) -> str:
    """How a source is named in messages and rows: a URL without its user information."""
    return without_user_info(source) if isinstance(source, str) else str(source)
