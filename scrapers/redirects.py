"""Which redirects a fetch follows, and what it sends there.

httpx follows redirects by itself, re-sends a POST body on 307 / 308 to any host and strips
only ``Authorization`` when the host changes. A fetch here may carry a signed body (优云智算's
PublicKey and Signature) or a secret header the caller added (a cookie, a token), and may be
steered by its server to an address inside the network it runs in (169.254.169.254, a
loopback service). So the client asks httpx for each redirect (``follow_redirects=False``;
httpx still builds the next request: method, cookies, ``Authorization``) and :class:`Redirects`
decides:

- a redirect to a scheme other than http(s) is refused;
- on a redirect to another origin, every header the caller supplied is dropped, and one that
  would re-send the request body is refused;
- unless private redirects are allowed, a redirect off the configured origin to a host that
  resolves to any loopback, link-local, private or otherwise non-global address is refused,
  and so is a connection that, once made, turns out to reach one (a name may resolve
  differently a moment later).

Written here because neither httpx nor a well-kept library offers these checks for httpx.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable

import httpx

from scrapers.http_limits import Trace

_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class RedirectRefused(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


def same_origin(a: httpx.URL, b: httpx.URL) -> bool:
    """Same scheme, host and port, or an upgrade of the same host from http to https on the
    default ports (which httpx, too, treats as the same site)."""
    upgrade = (a.scheme, b.scheme) == ("http", "https") and a.port is None and b.port is None
    return _origin(a) == _origin(b) or (upgrade and a.host == b.host)


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, 6to4, Teredo client, NAT64), if any."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def is_public(address: str) -> bool:
    """A globally routable unicast address: not loopback, link-local (169.254.169.254),
    private, shared (100.64/10), reserved, unspecified or multicast, also when carried in an
    IPv6 address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone id is not an address
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            return is_public(str(embedded))
    return ip.is_global and not ip.is_multicast


def _addresses(url: httpx.URL) -> list[str]:
    host = url.raw_host.decode("ascii")
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []  # unresolvable: the connection fails as unreachable (and is checked if not)
    return [str(info[4][0]) for info in found]


def _refuse_internal(url: httpx.URL, addresses: Iterable[str]) -> None:
    internal = sorted({a for a in addresses if not is_public(a)})
    if internal:
        raise RedirectRefused(
            f"redirect to {url.host} refused: it resolves to the internal address "
            f"{', '.join(internal[:3])} (allow_private_redirects is off)"
        )


class Redirects:
    """The redirects of one request. ``caller_headers`` are the names of the headers the
    caller supplied (they may carry secrets); ``private_ok`` allows internal addresses."""

    def __init__(self, first: httpx.URL, caller_headers: Iterable[str], private_ok: bool) -> None:
        self._configured = first
        self._caller_headers = {name.lower() for name in caller_headers}
        self._private_ok = private_ok

    def _checked(self, url: httpx.URL) -> bool:
        return not self._private_ok and not same_origin(self._configured, url)

    def follow(self, current: httpx.Request, proposed: httpx.Request) -> httpx.Request:
        """The request to send for a redirect httpx built, or :class:`RedirectRefused`."""
        url = proposed.url
        if url.scheme not in ("http", "https"):
            raise RedirectRefused(f"redirect to a {url.scheme[:20]!r} URL refused (http(s) only)")
        if not same_origin(current.url, url):
            if proposed.method not in ("GET", "HEAD") or "content-length" in proposed.headers:
                raise RedirectRefused(
                    f"redirect to another host ({url.host}) refused: it would re-send the "
                    "request body, which may carry a signature or credential"
                )
            for name in self._caller_headers:
                proposed.headers.pop(name, None)
        if self._checked(url):
            _refuse_internal(url, _addresses(url))
        return proposed

    def trace(self, url: httpx.URL, then: Trace) -> Trace:
        """The ``trace`` callback of one hop: ``then`` (the deadline's watch), and on a checked
        hop, the address the connection reached. Not when the connection went to a proxy:
        its address is the operator's choice, and it resolves the target itself."""
        if not self._checked(url):
            return then
        target = url.raw_host.decode("ascii")
        proxied = False

        def trace(event: str, info: dict) -> None:
            nonlocal proxied
            if event == "connection.connect_tcp.started":
                proxied = info.get("host") != target
            if event == "connection.connect_tcp.complete" and not proxied:
                stream = info["return_value"]
                peer = stream.get_extra_info("server_addr")
                if peer and not is_public(str(peer[0])):
                    stream.close()  # httpcore has not taken it yet: nothing else will close it
                    _refuse_internal(url, [str(peer[0])])
            then(event, info)

        return trace
