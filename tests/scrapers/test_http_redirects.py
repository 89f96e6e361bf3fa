"""Redirects the client follows, and what it sends there (issue 31.4 and 31.5): a request body
(优云智算's signed PublicKey and Signature) is never re-sent to another host, the headers a
caller supplied are dropped there, and with private redirects off a redirect to a loopback,
link-local or private address, or to a scheme other than http(s), fails as ``blocked``
before anything is asked of it."""

from __future__ import annotations

import pytest

from configuration.schema import HttpConfig
from scrapers import redirects
from scrapers.http import FetchError, PoliteClient, Request
from tests.scrapers.hostile_http import serve
from tests.support.loopback import reply

FAST = HttpConfig(
    connect_timeout_s=1, read_timeout_s=1, retries=0, backoff_s=0.01, min_interval_s=0
)  # fmt: skip
SIGNED = {"Action": "DescribeInstances", "PublicKey": "pub-key-1", "Signature": "sig-0123456789"}


def to(location: str, status: int = 302):
    return reply(status, headers={"Location": location})


@pytest.mark.parametrize("status", [307, 308])
def test_a_post_body_is_never_re_sent_to_another_host(status: int) -> None:
    with serve() as a, serve() as b:
        a.routes["/api"] = to(f"{b.url}/api", status)
        b.routes["/api"] = reply(200, b"{}")
        with PoliteClient(FAST, respect_robots=False) as client, pytest.raises(FetchError) as err:
            client.fetch(Request(f"{a.url}/api", "POST", SIGNED))
        assert b.seen == []  # not even asked: the signed body stayed with its host
    assert err.value.kind == "blocked" and "re-send the request body" in err.value.reason


def test_a_post_redirected_on_its_own_host_keeps_its_body() -> None:
    with serve() as a, PoliteClient(FAST, respect_robots=False, private_redirects=False) as c:
        a.routes["/old"] = to("/new", 308)
        a.routes["/new"] = reply(200, b"{}")
        assert c.fetch(Request(f"{a.url}/old", "POST", SIGNED)).body == b"{}"
        assert [(s.method, s.path) for s in a.seen] == [("POST", "/old"), ("POST", "/new")]
        assert a.seen[0].body == a.seen[1].body and b"sig-0123456789" in a.seen[1].body


def test_a_303_after_a_post_goes_to_another_host_as_a_get_without_the_body() -> None:
    with serve() as a, serve() as b, PoliteClient(FAST, respect_robots=False) as client:
        a.routes["/api"] = to(f"{b.url}/done", 303)
        b.routes["/done"] = reply(200, b"done")
        assert client.fetch(Request(f"{a.url}/api", "POST", SIGNED)).body == b"done"
        assert [(s.method, s.body) for s in b.seen] == [("GET", b"")]


def test_headers_the_caller_supplied_stay_with_their_host() -> None:
    secret = {"Cookie": "SESSION=abc123", "Authorization": "tok-123456"}
    request = Request("", headers=(("X-Api-Key", "key-123456"),))
    with serve() as a, serve() as b, PoliteClient(FAST, respect_robots=False) as client:
        a.routes["/p"] = to("/q")  # same host: kept
        a.routes["/q"] = to(f"{b.url}/r")  # another host: dropped
        b.routes["/r"] = reply(200, b"ok")
        assert client.fetch(Request(f"{a.url}/p", headers=request.headers), secret).body == b"ok"
        names = {"cookie", "authorization", "x-api-key"}
        kept = [{k.lower() for k in s.headers} & names for s in [*a.seen, *b.seen]]
        # (httpx itself sends a Cookie header on no redirect: its cookie jar decides)
        assert kept == [names, names - {"cookie"}, set()]
        assert b.seen[0].headers["User-Agent"].startswith("gpuprice/")


INTERNAL = [
    "http://127.0.0.1:{port}/x",  # another service on loopback
    "http://localhost:{port}/x",
    "http://169.254.169.254/latest/meta-data/",  # the cloud metadata service
    "http://[::1]:{port}/x",
    "http://[::ffff:127.0.0.1]:{port}/x",  # IPv4-mapped IPv6
    "http://[::ffff:169.254.169.254]/x",
    "http://[fe80::1]/x",
    "http://10.0.0.1/x",
    "http://192.168.1.1/x",
    "http://0.0.0.0:{port}/x",
    "http://2130706433:{port}/x",  # 127.0.0.1 as one number
    "http://[64:ff9b::a9fe:a9fe]/x",  # 169.254.169.254 through NAT64
]


@pytest.mark.parametrize("location", INTERNAL)
def test_a_redirect_to_an_internal_address_is_refused(location: str) -> None:
    with serve() as a, serve() as b:
        internal = location.format(port=b.url.rsplit(":", 1)[1])
        a.routes["/p"] = to(internal)
        b.routes["/x"] = reply(200, b"internal answer")
        with (
            PoliteClient(FAST, respect_robots=False, private_redirects=False) as client,
            pytest.raises(FetchError) as err,
        ):
            client.get(f"{a.url}/p")
        assert b.seen == []
    assert err.value.kind == "blocked" and "internal address" in err.value.reason


def test_with_private_redirects_allowed_the_redirect_is_followed() -> None:
    with serve() as a, serve() as b, PoliteClient(FAST, respect_robots=False) as client:
        a.routes["/p"] = to(f"http://localhost:{b.url.rsplit(':', 1)[1]}/x")
        b.routes["/x"] = reply(200, b"internal answer")
        assert client.get(f"{a.url}/p").body == b"internal answer"


def test_a_redirect_within_the_configured_origin_is_followed_on_loopback() -> None:
    with serve() as a, PoliteClient(FAST, respect_robots=False, private_redirects=False) as c:
        a.routes["/p"] = to("/q")
        a.routes["/q"] = reply(200, b"ok")
        assert c.get(f"{a.url}/p").body == b"ok"


@pytest.mark.parametrize("location", ["file:///etc/passwd", "gopher://127.0.0.1:70/x"])
@pytest.mark.parametrize("private", [True, False])
def test_a_redirect_to_another_scheme_is_refused(location: str, private: bool) -> None:
    with serve() as a:
        a.routes["/p"] = to(location)
        with (
            PoliteClient(FAST, respect_robots=False, private_redirects=private) as client,
            pytest.raises(FetchError) as err,
        ):
            client.get(f"{a.url}/p")
    assert err.value.kind == "blocked" and "http(s) only" in err.value.reason


def test_a_connection_that_reaches_an_internal_address_is_refused_whatever_dns_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # DNS rebinding: the name resolved to a public address when checked, and the connection
    # then reached a loopback one; the address connected to is checked before any request
    monkeypatch.setattr(redirects, "_addresses", lambda url: ["93.184.216.34"])
    with serve() as a, serve() as b:
        a.routes["/p"] = to(f"{b.url}/x")
        b.routes["/x"] = reply(200, b"internal answer")
        with (
            PoliteClient(FAST, respect_robots=False, private_redirects=False) as client,
            pytest.raises(FetchError) as err,
        ):
            client.get(f"{a.url}/p")
        assert b.seen == []
    assert err.value.kind == "blocked" and "127.0.0.1" in err.value.reason


@pytest.mark.parametrize(
    "address, public",
    [
        ("8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("100.64.0.1", False),  # shared (carrier-grade NAT)
        ("224.0.0.1", False),  # multicast
        ("2002:7f00:1::", False),  # 6to4 of 127.0.0.1
        ("fc00::1", False),
        ("fe80::1%eth0", False),
    ],
)
def test_what_counts_as_internal(address: str, public: bool) -> None:
    assert redirects.is_public(address) is public
