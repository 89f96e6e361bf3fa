"""Every fetch ends in bounded time (issue 31.3): a total deadline over connect, headers and
body, across redirects and retries, and a minimum transfer rate; both fail as ``timeout``.

No clock is asserted: each server would finish its answer (and the fetch would succeed)
if the client waited for it, so the outcome says whether the bound held."""

from __future__ import annotations

import pytest

from configuration.schema import HttpConfig
from scrapers.http import FetchError, PoliteClient
from tests.scrapers.hostile_http import Sent, serve, slow_body, slow_headers
from tests.support.client_record import record_client
from tests.support.loopback import reply

# read_timeout_s = 1: no single read of the trickling servers waits that long.
QUICK = HttpConfig(
    connect_timeout_s=1, read_timeout_s=1, retries=3, backoff_s=0.01, min_interval_s=0,
    total_deadline_s=0.5,
)  # fmt: skip


def fetch_failure(settings: HttpConfig, url: str) -> FetchError:
    with PoliteClient(settings, respect_robots=False) as client, pytest.raises(FetchError) as err:
        client.get(url)
    return err.value


def test_headers_at_a_byte_at_a_time_end_at_the_deadline() -> None:
    sent = Sent()
    with serve() as server:
        server.routes["/p"] = slow_headers(sent)
        error = fetch_failure(QUICK, f"{server.url}/p")
        assert (error.kind, len(server.seen)) == ("timeout", 1)  # not retried: no time left
    assert "within the 0.5 s deadline" in error.reason
    assert not sent.finished  # the client hung up; its 4 KB of headers were never all sent


def test_a_body_at_a_byte_at_a_time_ends_at_the_deadline() -> None:
    sent = Sent()
    with serve() as server:
        server.routes["/p"] = slow_body(sent)
        error = fetch_failure(QUICK.model_copy(update={"min_bytes_per_s": 0}), f"{server.url}/p")
    assert error.kind == "timeout" and "deadline" in error.reason
    assert not sent.finished


def test_a_body_below_the_minimum_rate_fails_before_the_deadline() -> None:
    sent = Sent()
    slow = QUICK.model_copy(
        update={"total_deadline_s": 600, "min_bytes_per_s": 1000, "rate_window_s": 0.2}
    )
    with serve() as server:
        server.routes["/p"] = slow_body(sent)
        error = fetch_failure(slow, f"{server.url}/p")
    assert error.kind == "timeout" and "slower than 1000 bytes/s over 0.2 s" in error.reason
    assert not sent.finished


def test_the_deadline_spans_redirects() -> None:
    sent = Sent()
    with serve() as server:
        # each hop answers at once; only the last is slow, and the deadline still counts
        server.routes["/a"] = reply(302, headers={"Location": "/b"})
        server.routes["/b"] = reply(302, headers={"Location": "/c"})
        server.routes["/c"] = slow_headers(sent)
        error = fetch_failure(QUICK.model_copy(update={"total_deadline_s": 2}), f"{server.url}/a")
        assert server.paths() == ["/a", "/b", "/c"]
    assert error.kind == "timeout" and not sent.finished


def test_a_retry_that_would_wait_past_the_deadline_is_not_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    record = record_client(monkeypatch)
    # retries = 3 with Retry-After 30 s would take 90 s; the deadline is 5 s
    patient = QUICK.model_copy(update={"total_deadline_s": 5, "max_retry_after_s": 60})
    with serve() as server:
        server.routes["/p"] = reply(503, b"busy", {"Retry-After": "30"})
        error = fetch_failure(patient, f"{server.url}/p")
        assert len(server.seen) == 1
    assert (error.kind, error.reason) == ("http_error", "HTTP 503: busy")
    assert record.attempts == [f"{server.url}/p"]


def test_retries_within_the_deadline_still_happen() -> None:
    with serve() as server:
        server.routes["/p"] = reply(503)
        error = fetch_failure(QUICK.model_copy(update={"total_deadline_s": 30}), f"{server.url}/p")
        assert len(server.seen) == 4  # retries = 3, 0.01 s backoff
    assert error.reason == "HTTP 503 after 4 attempts"


def test_a_fast_answer_is_not_affected() -> None:
    with serve() as server, PoliteClient(QUICK, respect_robots=False) as client:
        server.routes["/p"] = reply(200, b"x" * 100_000)
        assert len(client.get(f"{server.url}/p").body) == 100_000
