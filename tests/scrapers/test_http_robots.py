"""robots.txt goes through the same bounds as a page (issue 31.2): at most 500 KiB on the wire
and once decoded (RFC 9309 §2.5: the rules in them are kept, the rest is not read), and the
fetch's deadline. A gzip bomb, an endless or a trickling robots.txt no longer takes the
process's memory or time."""

from __future__ import annotations

import tracemalloc

import pytest

from configuration.schema import HttpConfig
from scrapers.http import ROBOTS_MAX_BYTES, FetchError, PoliteClient
from tests.scrapers.hostile_http import Sent, endless, gzip_bomb, serve, slow_headers
from tests.support.loopback import reply

FAST = HttpConfig(
    connect_timeout_s=1, read_timeout_s=1, retries=0, backoff_s=0.01, min_interval_s=0
)  # fmt: skip
RULES = b"User-agent: *\nDisallow: /private\n"


@pytest.fixture(scope="module")
def bomb() -> bytes:
    """The rules, then 256 MB of blank lines, gzipped to about 250 KB."""
    return gzip_bomb(RULES, b"\n", 256)


def assert_rules_kept(url: str) -> None:
    with PoliteClient(FAST, respect_robots=True) as client:
        assert client.get(f"{url}/public").body == b"ok"
        with pytest.raises(FetchError) as blocked:
            client.get(f"{url}/private/x")
    assert (blocked.value.kind, blocked.value.reason) == ("blocked", "disallowed by robots.txt")


def test_a_gzip_bombed_robots_txt_is_read_to_500_kib_in_bounded_memory(bomb: bytes) -> None:
    with serve() as server:
        server.routes["/robots.txt"] = reply(200, bomb, {"Content-Encoding": "gzip"})
        server.routes["/public"] = reply(200, b"ok")
        tracemalloc.start()
        try:
            assert_rules_kept(server.url)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    # 256 MB once decoded; read here: the 500 KiB limit, what one network read inflates to
    # at most, and the bomb itself held by the server thread
    assert peak < 16 * 2**20, peak


def test_an_endless_robots_txt_is_read_to_500_kib_and_its_rules_kept() -> None:
    sent = Sent()
    with serve() as server:
        server.routes["/robots.txt"] = endless(sent, RULES, b"# more\n", most=200 * 2**20)
        server.routes["/public"] = reply(200, b"ok")
        assert_rules_kept(server.url)
    assert not sent.finished and sent.bytes < 200 * 2**20


def test_a_robots_txt_cut_at_the_limit_drops_its_last_half_line() -> None:
    # the limit falls inside "Disallow: /public", after "Disallow: /p", which read as a rule
    # would disallow /public too
    pad = b"# " + b"x" * (ROBOTS_MAX_BYTES - len(RULES) - 15) + b"\n"
    with serve() as server:
        server.routes["/robots.txt"] = reply(200, RULES + pad + b"Disallow: /public\n")
        server.routes["/public"] = reply(200, b"ok")
        assert_rules_kept(server.url)


def test_a_trickling_robots_txt_ends_at_the_fetch_deadline_and_the_page_is_not_fetched() -> None:
    sent = Sent()
    quick = FAST.model_copy(update={"total_deadline_s": 0.5})
    with serve() as server:
        server.routes["/robots.txt"] = slow_headers(sent)
        server.routes["/public"] = reply(200, b"ok")
        with PoliteClient(quick, respect_robots=True) as client, pytest.raises(FetchError) as err:
            client.get(f"{server.url}/public")
        assert server.paths() == ["/robots.txt"]
    assert err.value.kind == "timeout" and err.value.reason.startswith("robots.txt: ")
    assert not sent.finished
