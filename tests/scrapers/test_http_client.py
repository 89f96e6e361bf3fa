import time

import pytest

from configuration.schema import HttpConfig
from scrapers.http import FetchError, PoliteClient
from tests.support.client_record import record_client, stop_client_clock
from tests.support.loopback import LoopbackServer, reply

FAST = HttpConfig(
    connect_timeout_s=1,
    read_timeout_s=1,
    retries=2,
    backoff_s=0.01,
    min_interval_s=0,
    max_retry_after_s=2,
)


def client(settings: HttpConfig = FAST, robots: bool = False) -> PoliteClient:
    return PoliteClient(settings, respect_robots=robots)


def test_fetches_body_status_and_sends_user_agent(loopback: LoopbackServer) -> None:
    seen = {}

    def capture(handler):
        seen["ua"] = handler.headers["User-Agent"]
        reply(200, "价格".encode(), {"Content-Type": "text/html; charset=utf-8"})(handler)

    loopback.script("/p", capture)
    with client() as c:
        page = c.get(f"{loopback.url}/p")
    assert page.status == 200 and page.body == "价格".encode()
    assert page.content_type.startswith("text/html")
    assert seen["ua"].startswith("gpuprice/")


def test_retries_5xx_then_succeeds(loopback: LoopbackServer) -> None:
    loopback.script("/p", reply(503), reply(502), reply(200, b"ok"))
    with client() as c:
        assert c.get(f"{loopback.url}/p").body == b"ok"
    assert len(loopback.hits) == 3


def test_gives_up_after_bounded_retries(loopback: LoopbackServer) -> None:
    loopback.script("/p", reply(500))
    with client() as c, pytest.raises(FetchError, match="HTTP 500 after 3 attempts"):
        c.get(f"{loopback.url}/p")
    assert len(loopback.hits) == 3


def test_honours_retry_after_on_429(
    loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    loopback.script("/p", reply(429, headers={"Retry-After": "1"}), reply(200, b"ok"))
    record = record_client(monkeypatch)
    with client() as c:
        assert c.get(f"{loopback.url}/p").body == b"ok"
    assert record.waits == [1.0]  # the server's Retry-After, not the 0.01 s backoff
    assert len(loopback.hits) == 2


def test_404_is_not_retried(loopback: LoopbackServer) -> None:
    with client() as c, pytest.raises(FetchError, match="HTTP 404"):
        c.get(f"{loopback.url}/missing")
    assert len(loopback.hits) == 1


def test_read_timeout_fails_within_bounded_time(loopback: LoopbackServer) -> None:
    def stall(handler):
        time.sleep(3)
        reply(200, b"late")(handler)

    loopback.script("/slow", stall)
    with (
        client(FAST.model_copy(update={"retries": 0})) as c,
        pytest.raises(FetchError, match="timed out"),
    ):
        c.get(f"{loopback.url}/slow")
    # bounded: the 1 s read timeout ended the one attempt before the 3 s reply came
    assert len(loopback.hits) == 1


def test_connection_refused_is_a_fetch_error() -> None:
    with client() as c, pytest.raises(FetchError, match="ConnectError"):
        c.get("http://127.0.0.1:9/")


def test_oversized_page_is_refused(loopback: LoopbackServer) -> None:
    loopback.script("/big", reply(200, b"x" * 5000))
    small = FAST.model_copy(update={"max_page_bytes": 1000})
    with client(small) as c, pytest.raises(FetchError, match="larger than 1000 bytes"):
        c.get(f"{loopback.url}/big")


def test_minimum_interval_per_host(
    loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    loopback.script("/p", reply(200, b"ok"))
    paced = FAST.model_copy(update={"min_interval_s": 0.3})
    clock = stop_client_clock(monkeypatch)
    with client(paced) as c:
        for _ in range(3):
            c.get(f"{loopback.url}/p")
    assert len(loopback.hits) == 3
    assert clock.sleeps == pytest.approx([0.3, 0.3])  # before the second and the third


def test_robots_txt_is_honoured_when_asked(loopback: LoopbackServer) -> None:
    loopback.script("/robots.txt", reply(200, b"User-agent: *\nDisallow: /private\n"))
    loopback.script("/private/x", reply(200, b"secret"))
    loopback.script("/public", reply(200, b"ok"))
    with client(robots=True) as c:
        assert c.get(f"{loopback.url}/public").body == b"ok"
        with pytest.raises(FetchError, match="robots.txt"):
            c.get(f"{loopback.url}/private/x")
    with client(robots=False) as c:
        assert c.get(f"{loopback.url}/private/x").body == b"secret"
