"""Reading a URL is careful with a hub: one request gives the size and the first bytes (redirects
followed once), then forward Range reads; 429 and 5xx are retried with back-off; the token is
sent to the host named only and never printed; each failure has the CLI's code."""

from __future__ import annotations

import pytest
from conftest import fixtures, url_of
from range_server import answer

import ggufscope

SPM = "real/ggml-vocab-llama-spm.gguf"


def reads_of(path) -> list[tuple[int, int]]:
    """The reads the decoder asks for, file by file the same for every reader."""
    data = path.read_bytes()
    decoder = ggufscope.Decoder(len(data))
    reads = []
    while (r := decoder.next_read()) is not None:
        decoder.feed(data[r[0] : r[0] + r[1]])
        reads.append(r)
    return reads
BIG = "real/ggml-vocab-command-r.gguf"


def test_a_url_is_read_with_forward_range_requests_only_once(server) -> None:
    path = fixtures() / BIG
    url = url_of(server, path)
    server.stats.reset()
    report = ggufscope.open(url)
    assert report == ggufscope.open(path)
    route = url.split(str(server.port), 1)[1]
    reads = reads_of(path)
    assert server.stats.requests[route] == len(reads)  # the first read is the request that gave the size
    assert server.stats.bytes[route] == sum(n for _, n in reads) <= 1.3 * report["header_size"]


def test_429_and_503_are_retried_with_back_off(server) -> None:
    path = fixtures() / SPM
    url = url_of(server, path) + "?retry"
    route = url.split(str(server.port), 1)[1].split("?")[0]

    def flaky(handler, attempt: int) -> bool:
        if attempt == 0:
            answer(handler, 429, b"slow down", headers={"Retry-After": "0"})
            return True
        if attempt == 1:
            answer(handler, 503, b"busy")
            return True
        return False

    server.behaviour[route] = flaky
    server.stats.reset()
    try:
        assert ggufscope.open(url) == ggufscope.open(path)
    finally:
        del server.behaviour[route]
    # Two refused, then one request per read.
    assert server.stats.requests[route] == 2 + len(reads_of(path))


@pytest.mark.parametrize(
    "status,kind,code",
    [(404, "text/plain", "not-found"), (410, "text/plain", "not-found"), (401, "text/plain", "access-denied"),
     (403, "text/plain", "access-denied"), (500, "text/plain", "http-status"), (418, "text/plain", "http-status"),
     (200, "text/html", "web-page")],
)
def test_failures_have_the_cli_codes(server, status: int, kind: str, code: str) -> None:
    route = f"/failing/{status}/{kind.replace('/', '-')}.gguf"
    server.behaviour[route] = lambda h, attempt: answer(h, status, b"<html>no</html>", kind) or True
    try:
        with pytest.raises(ggufscope.GgufError) as caught:
            ggufscope.open(server.url(route), timeout=20)
        assert caught.value.code == code
    finally:
        del server.behaviour[route]


def test_redirects_are_followed_once_and_the_token_stays_with_its_host(server, monkeypatch) -> None:
    path = fixtures() / BIG
    target = url_of(server, path).replace("127.0.0.1", "localhost")
    route = "/resolve/main/model.gguf"
    server.behaviour[route] = lambda h, attempt: answer(h, 302, b"", headers={"Location": target}) or True
    monkeypatch.setenv("HF_TOKEN", "hf_secret_token_value")
    server.stats.reset()
    try:
        assert ggufscope.open(server.url(route)) == ggufscope.open(path)
    finally:
        del server.behaviour[route]
    assert server.stats.requests[route] == 1  # later reads go where the redirect led
    sent = server.stats.authorization
    assert sent[0] == "Bearer hf_secret_token_value"  # the host named
    assert all(a is None for a in sent[1:])  # never to the host it redirected to


def test_the_token_is_never_printed(server, monkeypatch) -> None:
    monkeypatch.setenv("HF_TOKEN", "hf_secret_token_value")
    route = "/denied.gguf"
    server.behaviour[route] = lambda h, attempt: answer(h, 403, b"gated") or True
    try:
        with pytest.raises(ggufscope.GgufError) as caught:
            ggufscope.open("http://user:password@" + server.url(route)[len("http://"):])
    finally:
        del server.behaviour[route]
    text = str(caught.value) + repr(caught.value) + repr(caught.value.document())
    assert "hf_secret" not in text and "password" not in text
    assert caught.value.code == "access-denied"


def test_a_server_that_ignores_range_works_for_a_small_header(server) -> None:
    path = fixtures() / "synth/unicode-keys.gguf"
    route = "/no-range/unicode-keys.gguf"
    data = path.read_bytes()
    server.behaviour[route] = lambda h, attempt: answer(h, 200, data, "application/octet-stream") or True
    try:
        assert ggufscope.open(server.url(route)) == ggufscope.open(path)
    finally:
        del server.behaviour[route]


def test_unreachable_and_timeout() -> None:
    with pytest.raises(ggufscope.GgufError) as caught:
        ggufscope.open("http://127.0.0.1:9/none.gguf", timeout=5)
    assert caught.value.code in ("unreachable", "timeout")
