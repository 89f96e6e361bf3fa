"""What a failed fetch records (issue 32.5.3 and 31.4): the first KB of an HTTP >= 400 answer
in the reason, on one line, and every configured secret masked in the reason and the URL,
whatever the server echoed; bodies stay within their limits on the wire and once decoded."""

from __future__ import annotations

import json
import tracemalloc
import zlib
from urllib.parse import quote

import pytest

from configuration.schema import HttpConfig
from scrapers.error_body import EXCERPT_CHARS
from scrapers.http import FetchError, PoliteClient, Request
from scrapers.redaction import MARKER, Redactor
from tests.scrapers.hostile_http import Sent, endless, gzip_bomb, serve
from tests.support.loopback import reply

FAST = HttpConfig(
    connect_timeout_s=1, read_timeout_s=1, retries=0, backoff_s=0.01, min_interval_s=0
)  # fmt: skip
TOKEN = "tok/Zq81+xPw0=LmN3vB7c"
REDACTOR = Redactor([TOKEN])


def failure(url: str, request: Request | None = None, settings: HttpConfig = FAST) -> FetchError:
    with (
        PoliteClient(settings, respect_robots=False, redactor=REDACTOR) as client,
        pytest.raises(FetchError) as err,
    ):
        client.fetch(request or Request(url), {"Authorization": TOKEN})
    return err.value


def test_a_graphql_400_shows_its_message() -> None:
    answer = {"errors": [{"message": 'Cannot query field "gpuTypez" on type "Query".'}]}
    with serve() as server:
        server.routes["/graphql"] = reply(400, json.dumps(answer, indent=2).encode())
        error = failure(f"{server.url}/graphql", Request(f"{server.url}/graphql", "POST", {}))
    assert error.kind == "http_error"
    assert error.reason.startswith("HTTP 400: {")
    assert 'Cannot query field \\"gpuTypez\\" on type \\"Query\\".' in error.reason
    assert "\n" not in error.reason


def test_a_retried_5xx_shows_the_last_answer_after_its_attempts() -> None:
    with serve() as server:
        server.routes["/p"] = reply(503, b"<h1>Service\r\nUnavailable</h1>\n")
        error = failure(f"{server.url}/p", settings=FAST.model_copy(update={"retries": 1}))
    assert error.reason == "HTTP 503 after 2 attempts: <h1>Service Unavailable</h1>"


def test_an_echoed_secret_is_masked_in_the_reason_and_the_url() -> None:
    echoed = f'bad token {TOKEN}; sent as {quote(TOKEN, safe="")} in {{"auth": "{TOKEN}"}}'
    with serve() as server:
        server.routes["/p"] = reply(401, echoed.encode())
        error = failure(f"{server.url}/p?key={quote(TOKEN, safe='')}")
    assert (
        error.reason == f'HTTP 401: bad token {MARKER}; sent as {MARKER} in {{"auth": "{MARKER}"}}'
    )
    assert error.url == f"{server.url}/p?key={MARKER}" and TOKEN not in str(error)


def test_a_secret_across_the_excerpts_end_is_masked_whole() -> None:
    body = b"x" * (EXCERPT_CHARS - 6) + TOKEN.encode() + b" and more"
    with serve() as server:
        server.routes["/p"] = reply(403, body)
        error = failure(f"{server.url}/p")
    assert TOKEN[:6] not in error.reason  # its first 6 characters fit before the cut


def test_a_huge_error_page_is_one_bounded_line_and_not_read_whole() -> None:
    sent = Sent()
    with serve() as server:
        server.routes["/p"] = endless(sent, b"", b"<p>error</p>\n", 100 * 2**20, status=500)
        error = failure(f"{server.url}/p")
    assert len(error.reason) <= len("HTTP 500: ") + EXCERPT_CHARS
    assert "\n" not in error.reason and "<p>error</p> <p>error</p>" in error.reason
    assert not sent.finished


def test_a_gzip_bombed_page_stops_at_the_limit_in_bounded_memory() -> None:
    bomb = gzip_bomb(b"<html>", b"\0", 128)
    limit = FAST.model_copy(update={"max_page_bytes": 1_000_000})
    with serve() as server:
        server.routes["/p"] = reply(200, bomb, {"Content-Encoding": "gzip"})
        tracemalloc.start()
        try:
            error = failure(f"{server.url}/p", settings=limit)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert error.kind == "too_large"
    assert error.reason == "page larger than 1000000 bytes (once decoded)"
    assert peak < 8 * 2**20, peak  # 128 MB once decoded; httpx inflated 64 KiB reads whole


def test_a_gzipped_page_within_the_limit_is_decoded() -> None:
    page = "价格 ¥1.99/卡时".encode() * 1000
    with serve() as server, PoliteClient(FAST, respect_robots=False) as client:
        server.routes["/p"] = reply(200, gzip_bomb(page, b" ", 0), {"Content-Encoding": "gzip"})
        assert client.get(f"{server.url}/p").body == page
        assert server.seen[0].headers["Accept-Encoding"] == "gzip, deflate"


def test_an_encoding_not_asked_for_is_a_clear_error() -> None:
    with serve() as server:
        server.routes["/p"] = reply(200, b"\x1b\x00", {"Content-Encoding": "br"})
        error = failure(f"{server.url}/p")
    assert (error.kind, error.reason) == ("http_error", "Content-Encoding 'br' was not asked for")


def test_a_body_that_is_not_the_gzip_it_names_is_a_clear_error() -> None:
    with serve() as server:
        server.routes["/p"] = reply(200, b"plain text", {"Content-Encoding": "gzip"})
        error = failure(f"{server.url}/p")
    assert error.kind == "http_error" and error.reason.startswith("body is not valid gzip: ")


@pytest.mark.parametrize("wbits", [zlib.MAX_WBITS, -zlib.MAX_WBITS])  # zlib-wrapped and raw
def test_a_deflated_page_is_decoded(wbits: int) -> None:
    packer = zlib.compressobj(6, zlib.DEFLATED, wbits)
    page = b"<td>RTX 4090</td><td>1.99</td>" * 500
    with serve() as server, PoliteClient(FAST, respect_robots=False) as client:
        deflated = packer.compress(page) + packer.flush()
        server.routes["/p"] = reply(200, deflated, {"Content-Encoding": "deflate"})
        assert client.get(f"{server.url}/p").body == page
