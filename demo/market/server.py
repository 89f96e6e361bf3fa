"""The bundled demo market: real HTTP sites on 127.0.0.1 serving simulated prices.

* a 极智算-like GPU marketplace: ``/``, ``/market/container``, ``/market/baremetal``,
  ``/robots.txt``;
* an SMM-like quote board: ``/``, ``/compute/quotes``, ``/robots.txt``;
* every other source's platform on one more port, each under ``/<source>`` in the format its
  adapter reads (JSON APIs, GraphQL, CSV catalogs, a pricing table: :mod:`.platforms`), and
  ``/`` listing them.

Pages are Chinese HTML rendered from Jinja2 templates in ``templates/``, each carrying the
visible banner "模拟数据 SIMULATED …" and ``<meta name="gpuprice-simulated" content="true">``;
the JSON and CSV answers cannot say so, and the pipeline marks every row of the demo profile
simulated instead (scrapers.dated_market, chosen by the demo profile's settings). ``?as_of=YYYY-MM-DD`` serves that day (updated
10:00 Beijing time) on every site and platform; without it, today's prices, stamped with the
current hour, so two fetches in one hour get identical bytes.

The stdlib ``ThreadingHTTPServer`` is enough here: a handful of GET routes with no
middleware, sessions or async I/O; and it lets tests close the listening socket at an exact
moment (``fail_after``), which a framework's server would hide.
"""

from __future__ import annotations

import contextlib
import logging
import re
import signal
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Literal
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

from configuration.settings import DEMO_MARKET
from demo.market.archive import archive_answer
from demo.market.platforms import PLATFORMS, Ctx, PlatformRequest, find_route
from demo.market.prices import DEFAULT_SEED, FIRST_DAY, LAST_DAY, price_model
from demo.market.templating import TEMPLATES

__all__ = ["PLATFORM_SOURCES", "SITES", "DemoMarket", "render_page", "serve_forever"]

log = logging.getLogger(__name__)

Site = Literal["jygpu", "smm", "platforms"]
SITES: tuple[Site, ...] = ("jygpu", "smm", "platforms")
# The sources served on the platforms port, each at /<source>.
PLATFORM_SOURCES: tuple[str, ...] = tuple(PLATFORMS)
MAX_BODY_BYTES = 1_000_000

BEIJING = ZoneInfo("Asia/Shanghai")
UPDATE_CLOCK = DEMO_MARKET.publication_clock  # the time of day an ``as_of`` page is of

# path -> template, per site
PAGES: dict[str, dict[str, str]] = {
    "jygpu": {
        "/": "jygpu_index.html",
        "/market/container": "jygpu_container.html",
        "/market/baremetal": "jygpu_baremetal.html",
    },
    "smm": {"/": "smm_index.html", "/compute/quotes": "smm_quotes.html"},
}

ROBOTS_TXT = b"""User-agent: *
Disallow: /console
Disallow: /api/
Allow: /
"""

_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def render_page(
    site: Site,
    path: str,
    as_of: date | None = None,
    *,
    seed: int = DEFAULT_SEED,
    now: datetime | None = None,
) -> bytes:
    """The exact bytes the demo market serves for ``path`` (no HTTP involved).

    With ``as_of`` the page is that day's, updated 10:00 Beijing time; without it, the page
    of ``now`` (default: the current time) with the update time truncated to the hour.
    Raises ``KeyError`` for an unknown site or path, ``ValueError`` for a day outside the
    simulated range.
    """
    template = PAGES[site][path]
    updated = market_moment(as_of, now)
    snapshot = price_model(seed).day(updated.date())
    html = TEMPLATES.get_template(template).render(
        active=path.rsplit("/", 1)[-1],
        updated=updated.strftime("%Y-%m-%d %H:%M"),
        day=snapshot.day.isoformat(),
        offers=snapshot.bare_metal if path == "/market/baremetal" else snapshot.containers,
        quotes=snapshot.quotes,
    )
    return html.encode("utf-8")


def _error_page(status: HTTPStatus, message: str) -> bytes:
    html = TEMPLATES.get_template("error.html").render(
        status=status.value, reason=status.phrase, message=message
    )
    return html.encode("utf-8")


class _SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    site: _Site


class _Handler(BaseHTTPRequestHandler):
    server: _SiteServer
    server_version = "gpuprice-demo-market/0.1"
    sys_version = ""

    def log_message(self, format: str, *args: object) -> None:
        # Tests start these servers many times; request lines belong in debug logs only.
        log.debug("%s %s", self.server.site.name, format % args)

    def do_HEAD(self) -> None:
        self._serve(send_body=False)

    def do_GET(self) -> None:
        self._serve(send_body=True)

    def do_POST(self) -> None:
        self._serve(send_body=True)

    def do_PUT(self) -> None:
        self._serve(send_body=True)

    def do_DELETE(self) -> None:
        self._serve(send_body=True)

    def _request_body(self) -> bytes | None:
        """The request's body (empty without one); ``None`` when it is too large to read."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = 0
        if length > MAX_BODY_BYTES:
            return None
        return self.rfile.read(length) if length > 0 else b""

    def _serve(self, *, send_body: bool) -> None:
        site = self.server.site
        # robots.txt does not count against fail_after: "n" means n pages, whether or not
        # the client reads robots.txt first.
        counted = urlsplit(self.path).path != "/robots.txt"
        if counted and not site.admit():
            # The site is "dying": drop the connection without a response, as a crash would.
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        try:
            body = self._request_body()
            if body is None:
                self.close_connection = True
                answer = _Answer(
                    413, HTML, _error_page(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "请求体过大")
                )
            else:
                answer = site.respond(self.command, self.path, body)
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            self.send_header("Content-Length", str(len(answer.body)))
            self.send_header("Cache-Control", "no-cache")
            if answer.allow:
                self.send_header("Allow", answer.allow)
            self.end_headers()
            if send_body:
                self.wfile.write(answer.body)
            self.wfile.flush()
        finally:
            if counted:
                site.answered()


HTML = "text/html; charset=utf-8"


@dataclass(frozen=True, slots=True)
class _Answer:
    status: int
    content_type: str
    body: bytes
    allow: str | None = None  # the Allow header of a 405


def _error(status: HTTPStatus, message: str, allow: str | None = None) -> _Answer:
    return _Answer(status.value, HTML, _error_page(status, message), allow)


def _as_of(query: str) -> date | None | _Answer:
    """The ``as_of`` day of a query string, ``None`` without one, or the 400 to answer."""
    values = parse_qs(query, keep_blank_values=True).get("as_of")
    if values is None:
        return None
    if len(values) != 1 or not _ISO_DAY.match(values[0]):
        return _error(HTTPStatus.BAD_REQUEST, "as_of 参数格式应为 YYYY-MM-DD")
    try:
        return date.fromisoformat(values[0])
    except ValueError:
        return _error(HTTPStatus.BAD_REQUEST, f"as_of 不是有效日期:{values[0]}")


def _platforms_index() -> bytes:
    html = TEMPLATES.get_template("platforms_index.html").render(
        platforms=[(p.name, p.title, p.example) for p in PLATFORMS.values()]
    )
    return html.encode("utf-8")


class _Site:
    """One site's server, thread and request budget."""

    def __init__(self, name: Site, market: DemoMarket, port: int) -> None:
        self.name = name
        self.market = market
        self.port = port
        self.address: tuple[str, int] | None = None
        self._server: _SiteServer | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._budget: int | None = None
        self._dying = False

    # -- lifecycle -----------------------------------------------------------------------
    def start(self, host: str) -> None:
        server = _SiteServer((host, self.port), _Handler)
        server.site = self
        self.address = server.server_address[:2]  # type: ignore[assignment]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"demo-market-{self.name}",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        with self._lock:
            server, self._server = self._server, None
            thread, self._thread = self._thread, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    @property
    def running(self) -> bool:
        return self._server is not None

    # -- failure injection ---------------------------------------------------------------
    def fail_after(self, n_requests: int) -> None:
        if n_requests < 0:
            raise ValueError("n_requests must be >= 0")
        with self._lock:
            self._budget = n_requests
        if n_requests == 0:
            self._die()

    def admit(self) -> bool:
        with self._lock:
            if self._dying:
                return False
            if self._budget is None:
                return True
            if self._budget <= 0:
                return False
            self._budget -= 1
            return True

    def answered(self) -> None:
        with self._lock:
            exhausted = self._budget == 0 and not self._dying
        if exhausted:
            self._die()

    def _die(self) -> None:
        with self._lock:
            if self._dying:
                return
            self._dying = True
        # Off the handler thread: shutdown() blocks until the serve loop notices, and the
        # client of the request that used up the budget should get its response meanwhile.
        threading.Thread(target=self.stop, name=f"demo-market-{self.name}-die").start()

    # -- routing -------------------------------------------------------------------------
    def respond(self, method: str, raw_path: str, body: bytes = b"") -> _Answer:
        url = urlsplit(raw_path)
        if url.path == "/robots.txt":
            return _Answer(200, "text/plain; charset=utf-8", ROBOTS_TXT)
        if self.name == "platforms":
            # the archive of real captures (demo.market.archive) shares the platforms' port
            archived = archive_answer(method, url.path, url.query)
            if archived is not None:
                return _Answer(archived.status, archived.content_type, archived.body)
            return self._platform(method, url.path, url.query, body)
        if method not in ("GET", "HEAD"):
            return _error(HTTPStatus.METHOD_NOT_ALLOWED, f"不支持 {method} 请求", "GET, HEAD")
        if url.path not in PAGES[self.name]:
            return _error(HTTPStatus.NOT_FOUND, f"页面不存在:{url.path}")
        day = self._requested_day(url.query)
        if isinstance(day, _Answer):
            return day
        as_of, now = day
        page = render_page(self.name, url.path, as_of, seed=self.market.seed, now=now)
        return _Answer(200, HTML, page)

    def _requested_day(self, query: str) -> tuple[date | None, datetime] | _Answer:
        """The ``as_of`` asked for (None: today) and the market's clock, or the answer that
        refuses the request (a malformed day, one in the future or outside the model)."""
        as_of = _as_of(query)
        if isinstance(as_of, _Answer):
            return as_of
        now = self.market.clock()
        missing = self._missing_day(as_of, now)
        return (as_of, now) if missing is None else missing

    def _missing_day(self, as_of: date | None, now: datetime) -> _Answer | None:
        today = now.astimezone(BEIJING).date()
        day = as_of or today
        if day > today or not FIRST_DAY <= day <= LAST_DAY:
            return _error(HTTPStatus.NOT_FOUND, f"暂无 {day} 的数据")
        return None

    def _platform(self, method: str, path: str, query: str, body: bytes) -> _Answer:
        """``/`` lists the platforms; ``/<source>/...`` is that platform's route."""
        if path in ("", "/"):
            if method not in ("GET", "HEAD"):
                return _error(HTTPStatus.METHOD_NOT_ALLOWED, f"不支持 {method} 请求", "GET, HEAD")
            return _Answer(200, HTML, _platforms_index())
        name, _, rest = path.lstrip("/").partition("/")
        platform = PLATFORMS.get(name)
        if platform is None:
            return _error(HTTPStatus.NOT_FOUND, f"没有名为 {name} 的平台")
        sub_path = "/" + rest
        chosen, allowed = find_route(platform, method, sub_path)
        if chosen is None:
            if allowed:
                allow = ", ".join(sorted({*allowed, *(("HEAD",) if "GET" in allowed else ())}))
                return _error(HTTPStatus.METHOD_NOT_ALLOWED, f"{path} 不支持 {method}", allow)
            return _error(HTTPStatus.NOT_FOUND, f"页面不存在:{path}")
        day = self._requested_day(query)
        if isinstance(day, _Answer):
            return day
        as_of, now = day
        ctx = Ctx(
            self.market.seed,
            platform.name,
            market_moment(as_of, now),
            platform.gaps,
            dated=as_of is not None,
        )
        request = PlatformRequest(
            method, sub_path, parse_qs(query), body, chosen.pattern.match(sub_path)
        )
        answer = chosen.handler(ctx, request)
        return _Answer(answer.status, answer.content_type, answer.body)


def market_moment(as_of: date | None, now: datetime | None = None) -> datetime:
    """The Beijing time (naive) an answer is of: the as_of day at 10:00, else the current
    hour of ``now`` (default: the wall clock)."""
    return DEMO_MARKET.answer_moment(as_of, now or datetime.now(UTC))


class DemoMarket:
    """All demo sites, each on its own port: ``with DemoMarket() as m: m.jygpu_url ...``;
    ``m.source_url(name)`` is the demo URL of any source (jygpu, smm, or a platform
    ``http://host:platforms_port/<name>``).

    ``clock`` (returns an aware datetime) stands in for the wall clock, for tests.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        jygpu_port: int = 0,
        smm_port: int = 0,
        seed: int = DEFAULT_SEED,
        *,
        platforms_port: int = 0,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.host = host
        self.seed = seed
        self.clock: Callable[[], datetime] = clock or (lambda: datetime.now(UTC))
        self._sites: dict[str, _Site] = {
            "jygpu": _Site("jygpu", self, jygpu_port),
            "smm": _Site("smm", self, smm_port),
            "platforms": _Site("platforms", self, platforms_port),
        }

    def _site(self, name: str) -> _Site:
        try:
            return self._sites[name]
        except KeyError:
            raise KeyError(f"unknown demo site {name!r}; known: {', '.join(SITES)}") from None

    def start(self) -> DemoMarket:
        """Bind every site and serve them on background daemon threads. Idempotent, so
        ``with DemoMarket().start() as m`` works too."""
        if any(site.address is not None for site in self._sites.values()):
            return self
        price_model(self.seed)  # build the walk now rather than inside the first request
        # (each platform's walks are built on its first request: a few ms each)
        started: list[_Site] = []
        try:
            for site in self._sites.values():
                site.start(self.host)
                started.append(site)
        except BaseException:
            for site in started:
                site.stop()
            raise
        return self

    def stop(self) -> None:
        for site in self._sites.values():
            site.stop()

    def stop_site(self, name: str) -> None:
        """Stop one site ("jygpu", "smm" or "platforms"); the others keep serving."""
        self._site(name).stop()

    def fail_after(self, name: str, n_requests: int) -> None:
        """After ``n_requests`` more answered page requests (any path but robots.txt), the
        site closes its listening socket; a request arriving meanwhile gets its connection
        dropped without a response. ``0`` kills it now."""
        self._site(name).fail_after(n_requests)

    def running(self, name: str) -> bool:
        return self._site(name).running

    def url(self, name: str) -> str:
        """The root URL of a site ("jygpu", "smm", "platforms")."""
        address = self._site(name).address
        if address is None:
            raise RuntimeError("DemoMarket is not started")
        host, port = address
        return f"http://{host}:{port}"

    def source_url(self, source: str) -> str:
        """The demo URL of a source: its own site (jygpu, smm) or its platform's path."""
        if source in ("jygpu", "smm"):
            return self.url(source)
        if source not in PLATFORMS:
            known = ", ".join(("jygpu", "smm", *PLATFORM_SOURCES))
            raise KeyError(f"no demo platform for source {source!r}; known: {known}")
        return f"{self.url('platforms')}/{source}"

    @property
    def jygpu_url(self) -> str:
        return self.url("jygpu")

    @property
    def smm_url(self) -> str:
        return self.url("smm")

    @property
    def platforms_url(self) -> str:
        return self.url("platforms")

    def __enter__(self) -> DemoMarket:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def serve_forever(
    host: str = "127.0.0.1",
    jygpu_port: int = 8701,
    smm_port: int = 8702,
    seed: int = DEFAULT_SEED,
    *,
    platforms_port: int = 8703,
) -> None:
    """Serve every site, print their URLs, and block until Ctrl-C."""
    if threading.current_thread() is threading.main_thread():
        # Python turns Ctrl-C into KeyboardInterrupt only when SIGINT was not ignored at
        # start, and a shell starts background jobs (`... &`, nohup) with it ignored: then
        # Ctrl-C or `kill -INT` would not stop the market.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    with DemoMarket(host, jygpu_port, smm_port, seed, platforms_port=platforms_port) as market:
        print("gpuprice demo market (模拟数据 SIMULATED)", flush=True)
        print(f"  jygpu:     {market.jygpu_url}/market/container", flush=True)
        print(f"             {market.jygpu_url}/market/baremetal", flush=True)
        print(f"  smm:       {market.smm_url}/compute/quotes", flush=True)
        for name, platform in PLATFORMS.items():
            print(f"  {name + ':':<10} {market.source_url(name)}{platform.example}", flush=True)
        print("Ctrl-C to stop.", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
