"""Faults while fetching, through a real server on loopback, with the real Dagster job
in-process: jygpu points at a fault server (which relays the demo market when healthy), smm
at the demo market. Every fault is retried or fails cleanly within bounded time, is
recorded in scrape_run, and smm is unaffected."""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from configuration.settings import load_settings
from demo.market import DemoMarket
from gpuprice.jobs import JobRunner
from scrapers.sources import build_adapter
from tests.support.client_record import record_client
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e

Fault = Callable[[BaseHTTPRequestHandler, "FaultServer"], None]


@dataclass
class FaultServer:
    upstream: str
    faults: list[Fault] = field(default_factory=list)  # one per request, then healthy
    hits: int = 0
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def relay(self, handler: BaseHTTPRequestHandler) -> tuple[int, str, bytes]:
        got = httpx.get(self.upstream + handler.path, timeout=5)
        return got.status_code, got.headers.get("content-type", ""), got.content


def send(handler: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict) -> None:
    handler.send_response(status)
    for key, value in headers.items():
        handler.send_header(key, value)
    if "Content-Length" not in headers:
        handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def healthy(handler: BaseHTTPRequestHandler, server: FaultServer) -> None:
    status, ctype, body = server.relay(handler)
    send(handler, status, body, {"Content-Type": ctype})


def status(code: int, headers: dict | None = None) -> Fault:
    return lambda h, s: send(h, code, b"<html>busy</html>", headers or {})


def stall(seconds: float) -> Fault:
    def fault(handler: BaseHTTPRequestHandler, server: FaultServer) -> None:
        time.sleep(seconds)
        healthy(handler, server)

    return fault


def reset(handler: BaseHTTPRequestHandler, server: FaultServer) -> None:
    handler.rfile.read(0)
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.connection.close()
    handler.close_connection = True


def truncated(handler: BaseHTTPRequestHandler, server: FaultServer) -> None:
    _, ctype, body = server.relay(handler)
    handler.send_response(200)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body[: len(body) // 3])
    handler.wfile.flush()
    handler.connection.shutdown(socket.SHUT_RDWR)
    handler.close_connection = True


def trickle(handler: BaseHTTPRequestHandler, server: FaultServer) -> None:
    """Headers a byte at a time, never finished: each byte restarts a per-read timeout, so
    only the fetch's total deadline ends it."""
    try:
        for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 100_000:
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            time.sleep(0.05)
    except OSError:
        pass  # the client gave up at its deadline
    handler.close_connection = True


def wrong_type(handler: BaseHTTPRequestHandler, server: FaultServer) -> None:
    send(handler, 200, b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8, {"Content-Type": "image/png"})


def huge(handler: BaseHTTPRequestHandler, server: FaultServer) -> None:
    size = 20_000_000
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Length", str(size))
    handler.end_headers()
    chunk = b"<p>" + b"x" * 65_533
    try:
        for _ in range(size // len(chunk)):
            handler.wfile.write(chunk)
    except OSError:
        pass  # the client stopped reading at its limit


def redirect_loop(handler: BaseHTTPRequestHandler, server: FaultServer) -> None:
    send(handler, 302, b"", {"Location": handler.path})


def gbk(handler: BaseHTTPRequestHandler, server: FaultServer) -> None:
    _, _, body = server.relay(handler)
    text = body.decode("utf-8").replace('<meta charset="utf-8">', '<meta charset="gbk">')
    send(handler, 200, text.encode("gb18030"), {"Content-Type": "text/html; charset=GBK"})


@pytest.fixture(scope="module")
def market() -> Iterator[DemoMarket]:
    with DemoMarket(jygpu_port=0, smm_port=0).start() as running:
        yield running


@pytest.fixture(scope="module")
def faults(market: DemoMarket) -> Iterator[FaultServer]:
    state = FaultServer(market.jygpu_url)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.hits += 1
            fault = state.faults.pop(0) if state.faults else healthy
            fault(self, state)

        def log_message(self, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address) -> None:
            pass  # resets and truncations end the handler abruptly on purpose

    state.server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=state.server.serve_forever, daemon=True).start()
    yield state
    state.server.shutdown()
    state.server.server_close()


@pytest.fixture(scope="module")
def runner(market: DemoMarket, faults: FaultServer, tmp_path_factory) -> JobRunner:
    tmp = tmp_path_factory.mktemp("faults")
    config = tmp / "gpuprice.toml"
    config.write_text(
        f"""
[http]
connect_timeout_s = 1
read_timeout_s = 1
retries = 1
connect_retries = 1
backoff_s = 0.05
max_retry_after_s = 2
min_interval_s = 0
max_page_bytes = 8000000
total_deadline_s = 4

[sources.jygpu]
demo_url = "{faults.url}"
[sources.smm]
demo_url = "{market.smm_url}"
""",
        encoding="utf-8",
    )
    return JobRunner(load_settings(config, home=tmp / "home", profile="demo"))


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits the HTTP client chose before each retry: with the hits and the configured
    timeouts, what bounds the run's time, on any machine."""
    return record_client(monkeypatch).waits


def run_with(runner: JobRunner, faults: FaultServer, *scripted: Fault):
    faults.faults = list(scripted)
    faults.hits = 0
    result = runner.run()
    by = {s.source: s for s in result.sources}
    assert by["smm"].status == "ok", by["smm"]  # the other source is unaffected
    return by["jygpu"]


# The first page's two attempts, and the source stops; a redirect loop is one request and the
# client's five redirects (scrapers/http.py max_redirects).
MAX_HITS = 6
PERSISTENT = {
    # fault, expected reason(s), text in the recorded error
    "timeout": (stall(2.5), {"unreachable"}, "timed out"),
    "connection reset": (reset, {"unreachable", "http_error"}, "fetch failed"),
    "500": (status(500), {"http_error"}, "HTTP 500 after 2 attempts"),
    "502": (status(502), {"http_error"}, "HTTP 502 after 2 attempts"),
    "503": (status(503), {"http_error"}, "HTTP 503 after 2 attempts"),
    "429 (Retry-After too long, capped)": (
        status(429, {"Retry-After": "3600"}),
        {"http_error"},
        "HTTP 429",
    ),
    "truncated body": (truncated, {"http_error", "unreachable"}, "fetch failed"),
    "20 MB page": (huge, {"too_large"}, "larger than 8000000 bytes"),
    "redirect loop": (redirect_loop, {"http_error"}, "too many redirects"),
    "headers a byte at a time": (trickle, {"timeout"}, "deadline"),
}


@pytest.mark.parametrize("name", list(PERSISTENT))
def test_persistent_fault_fails_cleanly_in_bounded_time(
    name: str, runner: JobRunner, faults: FaultServer, waits: list[float]
) -> None:
    fault, reasons, text = PERSISTENT[name]
    jygpu = run_with(runner, faults, *[fault] * 20)
    assert jygpu.status == "failed" and jygpu.reason in reasons, jygpu
    assert text in jygpu.error and jygpu.rows_added == 0
    # Bounded time: a bounded number of requests (one retry, retries = 1; a redirect loop
    # stops at the client's limit), each under the 1 s timeouts, and every wait at most
    # max_retry_after_s (2 s), however long the server asks for. (The client is asked for a
    # wait after each failed attempt, the last one's unused: two attempts, two waits.)
    assert faults.hits <= MAX_HITS, faults.hits
    assert len(waits) <= 2 and all(w <= 2 for w in waits), waits
    recorded = read_frame(
        runner.settings.warehouse,
        "SELECT status, reason, error FROM scrape_run WHERE source = 'jygpu' "
        "ORDER BY finished_at DESC LIMIT 1",
    ).row(0, named=True)
    assert recorded["status"] == "failed" and recorded["reason"] in reasons
    faults.faults = []


@pytest.mark.parametrize(
    "name, fault",
    [
        ("timeout once", stall(2.5)),
        ("connection reset once", reset),
        ("503 once", status(503)),
        ("502 once", status(502)),
        ("truncated once", truncated),
    ],
)
def test_transient_fault_is_retried_and_the_snapshot_loads(
    name: str, fault: Fault, runner: JobRunner, faults: FaultServer, waits: list[float]
) -> None:
    jygpu = run_with(runner, faults, fault)
    assert jygpu.status == "ok", jygpu
    assert faults.hits == 3  # the faulty attempt, its retry, the second page
    assert len(waits) == 1 and waits[0] <= 2, waits  # one backoff before the retry


def test_429_with_retry_after_waits_then_loads(
    runner: JobRunner, faults: FaultServer, waits: list[float]
) -> None:
    jygpu = run_with(runner, faults, status(429, {"Retry-After": "1"}))
    assert jygpu.status == "ok"
    assert waits == [1.0]  # the wait the server asked for, before the one retry


def test_wrong_content_type_is_a_recorded_parse_error(
    runner: JobRunner, faults: FaultServer
) -> None:
    jygpu = run_with(runner, faults, wrong_type, wrong_type)
    assert jygpu.status == "failed" and jygpu.reason == "drift"
    assert "not" in jygpu.error  # "body is not utf-8" / "not an HTML document"
    pages = read_frame(
        runner.settings.warehouse,
        "SELECT parse_status, content_type FROM raw_page WHERE content_type = 'image/png'",
    )
    assert pages.height >= 1 and set(pages["parse_status"]) == {"error"}


def test_gbk_pages_are_decoded_by_their_declared_charset(
    runner: JobRunner, faults: FaultServer, market: DemoMarket
) -> None:
    jygpu = run_with(runner, faults, gbk, gbk)
    assert jygpu.status == "ok", jygpu
    pages = read_frame(
        runner.settings.warehouse,
        "SELECT url, parse_status, rows, body FROM raw_page WHERE content_type ILIKE '%gbk%'",
    )
    assert pages.height == 2 and set(pages["parse_status"]) == {"ok"}
    utf8 = httpx.get(f"{market.jygpu_url}/market/container").content
    url = "http://x/market/container"
    when = datetime(2026, 9, 4)
    expected = build_adapter("jygpu").parse(utf8, url, when)
    container = next(
        b for u, b in zip(pages["url"], pages["body"], strict=True) if "container" in u
    )
    assert not container.isascii()  # Chinese text, GB18030 bytes
    got = build_adapter("jygpu").parse(container, url, when)
    assert [(r.gpu_name_raw, r.region, r.price) for r in got] == [
        (r.gpu_name_raw, r.region, r.price) for r in expected
    ]
    assert any(not r.gpu_name_raw.isascii() for r in got)


def test_smm_never_failed(runner: JobRunner) -> None:
    smm = read_frame(
        runner.settings.warehouse,
        "SELECT count(*) AS n FROM scrape_run WHERE source = 'smm' AND status <> 'ok'",
    )
    assert smm["n"][0] == 0
