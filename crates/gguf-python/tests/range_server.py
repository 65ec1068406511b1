"""A loopback HTTP server for the tests and the benchmark: serves files with Range requests,
ETags and keep-alive on 127.0.0.1 only, counts what it sends, and can misbehave on purpose
(latency, 503s before success, a status, HTML, no Range support)."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: dict[str, int] = {}
        self.bytes: dict[str, int] = {}
        self.authorization: list[str | None] = []

    def count(self, path: str, sent: int, authorization: str | None) -> None:
        with self.lock:
            self.requests[path] = self.requests.get(path, 0) + 1
            self.bytes[path] = self.bytes.get(path, 0) + sent
            self.authorization.append(authorization)

    def uncount(self, path: str) -> None:
        with self.lock:
            self.requests[path] -= 1
            self.authorization.pop()

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()
            self.bytes.clear()
            self.authorization.clear()


class RangeServer:
    """``RangeServer(resolve)`` serves ``resolve(path) -> file path | None``; ``url(path)``;
    ``behaviour[path]`` a callable ``(handler, attempt) -> bool`` that answers instead (True)."""

    def __init__(self, resolve: Callable[[str], str | None], latency: float = 0.0) -> None:
        self.resolve = resolve
        self.latency = latency
        self.stats = Stats()
        self.behaviour: dict[str, Callable[[BaseHTTPRequestHandler, int], bool]] = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802
                path = self.path.split("?", 1)[0]
                attempt = server.stats.requests.get(path, 0)
                if server.latency:
                    time.sleep(server.latency)
                special = server.behaviour.get(path)
                if special is not None:
                    server.stats.count(path, 0, self.headers.get("Authorization"))
                    if special(self, attempt):
                        return
                    server.stats.uncount(path)
                target = server.resolve(path)
                if target is None or not os.path.isfile(target):
                    self._answer(404, b"not found", path)
                    return
                size = os.path.getsize(target)
                etag = '"' + hashlib.sha1(f"{target}:{size}:{os.path.getmtime(target)}".encode()).hexdigest()[:16] + '"'
                wanted = self.headers.get("Range")
                start, end = 0, size - 1
                status = 200
                if wanted and wanted.startswith("bytes="):
                    a, _, b = wanted[6:].partition("-")
                    start = int(a)
                    end = min(int(b) if b else size - 1, size - 1)
                    if start >= size:
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{size}")
                        self.send_header("Content-Length", "0")
                        server.stats.count(path, 0, self.headers.get("Authorization"))
                        self.end_headers()
                        return
                    status = 206
                length = end - start + 1
                self.send_response(status)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(length))
                self.send_header("ETag", etag)
                self.send_header("Accept-Ranges", "bytes")
                if status == 206:
                    self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
                # Counted before the body goes: the client may have it all before this thread
                # would count after it.
                server.stats.count(path, length, self.headers.get("Authorization"))
                self.end_headers()
                sent = 0
                with open(target, "rb") as f:
                    f.seek(start)
                    while sent < length:
                        chunk = f.read(min(1 << 20, length - sent))
                        if not chunk:
                            break
                        try:
                            self.wfile.write(chunk)
                        except (BrokenPipeError, ConnectionResetError):
                            break
                        sent += len(chunk)

            def _answer(self, status: int, body: bytes, path: str, kind: str = "text/plain", headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

        self.Handler = Handler
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def answer(handler: BaseHTTPRequestHandler, status: int, body: bytes = b"", kind: str = "text/plain", headers: dict[str, str] | None = None) -> None:
    """A whole answer from a ``behaviour``."""
    handler._answer(status, body, handler.path, kind, headers)  # type: ignore[attr-defined]
