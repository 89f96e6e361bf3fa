"""The polite client for the live sources: POST plans with a secret header (AutoDL), failure
kinds for the run record, and fewer retries when no connection can be made at all."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from configuration.schema import HttpConfig
from scrapers.collect import collect
from scrapers.http import FetchError, PoliteClient
from scrapers.sources import autodl
from scrapers.sources.autodl import AutodlAdapter
from tests.support.client_record import record_client, stop_client_clock
from tests.support.live_fixtures import AUTODL, read
from tests.support.live_settings import closed_port
from tests.support.loopback import LoopbackServer, reply

FAST = HttpConfig(
    connect_timeout_s=1, read_timeout_s=1, retries=5, connect_retries=1, backoff_s=0.3,
    min_interval_s=0,
)  # fmt: skip


@pytest.fixture
def api() -> Iterator[tuple[str, list[dict]]]:
    """A loopback JSON API that records each POST (path, headers, body) and answers AutoDL's list."""
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            seen.append(
                {
                    "path": self.path,
                    "authorization": self.headers.get("Authorization"),
                    "body": json.loads(self.rfile.read(length) or b"null"),
                }
            )
            body = read(AUTODL)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()


def test_autodl_posts_its_query_with_the_token_header(api: tuple[str, list[dict]]) -> None:
    url, seen = api
    adapter = AutodlAdapter()
    assert adapter.secret is not None
    with PoliteClient(FAST, respect_robots=False) as client:
        snapshot = collect(
            adapter, client, url, datetime(2026, 9, 4, 3), headers=adapter.secret.headers("tok-1")
        )
    assert snapshot.fetch_error is None
    (page,) = snapshot.pages
    assert page.error is None and len(page.rows) == 12
    assert seen == [
        {"path": "/api/v1/machine/search", "authorization": "tok-1", "body": autodl.QUERY}
    ]
    assert autodl.QUERY["charge_type"] == "payg" and autodl.QUERY["page_size"] == 100


def test_failure_kinds(loopback: LoopbackServer) -> None:
    loopback.script("/robots.txt", reply(200, b"User-agent: *\nDisallow: /private\n"))
    with PoliteClient(FAST, respect_robots=True) as client:
        with pytest.raises(FetchError) as missing:
            client.get(f"{loopback.url}/missing")
        with pytest.raises(FetchError) as blocked:
            client.get(f"{loopback.url}/private/x")
        with pytest.raises(FetchError) as refused:
            client.get(f"http://127.0.0.1:{closed_port()}/x")
    assert (missing.value.kind, blocked.value.kind, refused.value.kind) == (
        "http_error", "blocked", "unreachable",
    )  # fmt: skip


def test_a_refused_connection_is_retried_connect_retries_times_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/x"
    for connect_retries in (0, 1):
        settings = FAST.model_copy(update={"connect_retries": connect_retries})
        with monkeypatch.context() as patch:
            record = record_client(patch)
            with PoliteClient(settings, respect_robots=False) as c, pytest.raises(FetchError):
                c.get(url)
        # not retries = 5 (six attempts, over 9 s of 0.3 s backoff)
        assert record.attempts == [url] * (connect_retries + 1), connect_retries


def test_an_attempt_that_reaches_no_one_does_not_start_the_host_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = FAST.model_copy(update={"min_interval_s": 2, "connect_retries": 0})
    url = f"http://127.0.0.1:{closed_port()}/x"
    clock = stop_client_clock(monkeypatch)
    with PoliteClient(settings, respect_robots=True) as client, pytest.raises(FetchError):
        client.get(url)  # robots.txt, then the page: both refused, no 2 s wait between
    assert clock.sleeps == []  # on a clock that stands still, any interval would be a sleep
