"""The polite HTTP client every source fetches through.

Retries use tenacity; robots.txt uses the standard library's parser. Written here: the
per-host minimum interval, which neither httpx nor tenacity offers; a fetch's bounds in time
and bytes (scrapers/http_limits.py) and the redirect rules (scrapers/redirects.py), which
httpx does not enforce.
"""

from __future__ import annotations

import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

import httpx
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from scrapers.error_body import READ_BYTES, excerpt
from scrapers.fetch_failures import (
    FAILURES,
    FetchFailure,
    HttpStatus,
    TooLarge,
    describe,
    retry_after_seconds,
)
from scrapers.http_limits import (
    ACCEPT_ENCODING,
    BadEncoding,
    Body,
    Deadline,
    FetchTimeout,
    RateMeter,
    read_limited,
)
from scrapers.redaction import NO_SECRETS, Redactor
from scrapers.redirects import RedirectRefused, Redirects
from scrapers.request import FetchedPage, Request

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_REDIRECTS = 5
# RFC 9309 §2.5: a crawler parses at least the first 500 KiB of a robots.txt; the rest of a
# longer one (or of an endless or gzip-bombed one) is neither read nor parsed.
ROBOTS_MAX_BYTES = 500 * 1024


class HttpSettings(Protocol):
    connect_timeout_s: float
    read_timeout_s: float
    total_deadline_s: float
    min_bytes_per_s: int
    rate_window_s: float
    retries: int
    connect_retries: int
    backoff_s: float
    max_retry_after_s: float
    min_interval_s: float
    max_page_bytes: int
    user_agent: str


class FetchError(RuntimeError):
    """A page could not be fetched; ``reason`` is short and fit for a run record, ``kind``
    says which sort of failure it was (``unreachable``: DNS, refused, no answer in time;
    ``timeout``: the fetch's deadline passed or the server sent too slowly; ``blocked``:
    robots.txt or a refused redirect)."""

    def __init__(self, url: str, reason: str, kind: FetchFailure = "http_error") -> None:
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.reason = reason
        self.kind: FetchFailure = kind


@dataclass(frozen=True, slots=True)
class _Answer:
    url: str
    status: int
    content_type: str
    body: Body


# The deadline of the fetch under way in this thread: the retry policy and each attempt
# read it (an attempt's signature is what tests/support/client_record.py wraps).
_DEADLINE: ContextVar[Deadline] = ContextVar("fetch_deadline")


def _is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, HttpStatus):
        return exc.status in RETRY_STATUSES
    return isinstance(
        exc,
        httpx.ConnectError
        | httpx.ConnectTimeout
        | httpx.ReadTimeout
        | httpx.RemoteProtocolError
        | httpx.ReadError,
    )


def _is_connection_failure(exc: BaseException | None) -> bool:
    """No connection at all (DNS, refused, unroutable): retried only ``connect_retries`` times."""
    return isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)


def _url_problem(url: str) -> str | None:
    """Why ``url`` cannot be asked for at all (control characters, a broken host or port), or
    None; httpx and urllib would raise their own errors from deep inside a fetch."""
    try:
        parsed = httpx.URL(url)
        urlsplit(url).port  # noqa: B018  (a port that is no number raises here)
    except (httpx.InvalidURL, ValueError) as exc:
        return f"not a URL that can be asked for ({exc})"
    if parsed.scheme not in ("http", "https") or not parsed.host:
        return "not an http(s) URL"
    return None


def _robots_parser(body: Body) -> RobotFileParser:
    lines = body.data.decode("utf-8", errors="replace").splitlines()
    if body.over:
        lines = lines[:-1]  # cut at the limit: its last line may be half a rule
    parser = RobotFileParser()
    parser.parse(lines)
    return parser


class PoliteClient:
    """httpx with explicit timeouts, a total deadline per fetch, bounded bodies and retries,
    Retry-After, a per-host interval, robots.txt and checked redirects. ``redactor`` masks
    secrets in every error it builds; ``private_redirects=False`` refuses redirects to
    internal addresses (the live profile)."""

    def __init__(
        self,
        settings: HttpSettings,
        *,
        respect_robots: bool,
        redactor: Redactor = NO_SECRETS,
        private_redirects: bool = True,
    ) -> None:
        self._settings = settings
        self._respect_robots = respect_robots
        self._redactor = redactor
        self._private_redirects = private_redirects
        self._client = httpx.Client(
            timeout=httpx.Timeout(
                settings.read_timeout_s,
                connect=settings.connect_timeout_s,
                pool=settings.connect_timeout_s,
            ),
            headers={
                "User-Agent": settings.user_agent,
                "Accept-Language": "zh-CN,zh;q=0.9",
                "Accept-Encoding": ACCEPT_ENCODING,
            },
            follow_redirects=False,  # each redirect is checked first (scrapers/redirects.py)
            # No connection is kept for a later request: the deadline's watch learns each
            # request's socket when it connects, and a reused one would escape it.
            limits=httpx.Limits(max_keepalive_connections=0),
        )
        self._last_request: dict[str, float] = {}
        self._robots: dict[str, RobotFileParser | None] = {}
        self._lock = threading.Lock()

    def __enter__(self) -> PoliteClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def get(self, url: str, headers: dict[str, str] | None = None) -> FetchedPage:
        """Fetch one page or raise FetchError; retries are bounded in count and in time."""
        return self.fetch(Request(url), headers)

    def fetch(self, request: Request, headers: dict[str, str] | None = None) -> FetchedPage:
        """Send one request of a fetch plan (``headers`` add to the request's own, e.g. a
        cookie); raise FetchError with its ``kind``. Retries: ``retries`` on 5xx / 429 / read
        errors, ``connect_retries`` when no connection could be made at all; all of it,
        robots.txt included, within one ``total_deadline_s``."""
        retrying = Retrying(
            stop=self._stop,
            wait=self._wait,
            retry=retry_if_exception(_is_retryable),
            reraise=True,
        )
        problem = _url_problem(request.url)
        if problem is not None:  # one a hostile listing named: one line, like any failure
            raise self._error(request.url.encode("unicode_escape").decode(), problem, "http_error")
        token = _DEADLINE.set(Deadline(self._settings.total_deadline_s))
        try:
            if self._respect_robots and not self._allowed(request.url):
                raise self._error(request.url, "disallowed by robots.txt", "blocked")
            return retrying(self._get_once, request, dict(request.headers) | (headers or {}))
        except FAILURES as exc:
            attempts = retrying.statistics.get("attempt_number", 1)
            raise self._error(request.url, *describe(exc, attempts)) from None
        finally:
            _DEADLINE.reset(token)

    def _error(self, url: str, reason: str, kind: FetchFailure) -> FetchError:
        """Every error this client raises: one line, secrets masked (a URL may be signed, a
        reason may quote what a server echoed)."""
        line = " ".join(self._redactor.text(reason).split())
        return FetchError(self._redactor.text(url), line, kind)

    def _stop(self, state: RetryCallState) -> bool:
        exc = state.outcome.exception() if state.outcome else None
        s = self._settings
        allowed = s.connect_retries if _is_connection_failure(exc) else s.retries
        if stop_after_attempt(min(allowed, s.retries) + 1)(state):
            return True
        # no time left for the wait and another attempt: give up with this attempt's error
        return self._wait_for(state) >= _DEADLINE.get().remaining()

    def _wait(self, state: RetryCallState) -> float:
        return self._wait_for(state)

    def _wait_for(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, HttpStatus) and exc.retry_after is not None:
            return min(exc.retry_after, self._settings.max_retry_after_s)
        return wait_exponential(multiplier=self._settings.backoff_s, max=10)(state)

    def _pace(self, host: str) -> float | None:
        """Wait until ``host`` may be asked again; returns the previous request time, for
        :meth:`_unpace`. The wait is ours, so it extends the fetch's deadline."""
        with self._lock:
            last = self._last_request.get(host)
            now = time.monotonic()
            delay = 0.0 if last is None else self._settings.min_interval_s - (now - last)
            self._last_request[host] = now + max(delay, 0.0)
        if delay > 0:
            time.sleep(delay)
            _DEADLINE.get().extend(delay)
        return last

    def _unpace(self, host: str, previous: float | None) -> None:
        """No connection was made (DNS failure, refused): nothing reached the host, so the
        interval does not start from this attempt."""
        with self._lock:
            if previous is None:
                self._last_request.pop(host, None)
            else:
                self._last_request[host] = previous

    def _get_once(self, request: Request, headers: dict[str, str]) -> FetchedPage:
        host = urlsplit(request.url).netloc
        previous = self._pace(host)
        limit = self._settings.max_page_bytes
        try:
            answer = self._send(request, headers, limit)
        except (httpx.ConnectError, httpx.ConnectTimeout):
            self._unpace(host, previous)
            raise
        if answer.body.over:
            raise TooLarge(f"page larger than {limit} bytes ({answer.body.over})")
        return FetchedPage(
            url=answer.url,
            status=answer.status,
            body=answer.body.data,
            content_type=answer.content_type,
            fetched_at=datetime.now(UTC).replace(tzinfo=None),
        )

    def _send(self, request: Request, headers: dict[str, str], limit: int) -> _Answer:
        """One request and its redirects, within the fetch's deadline; an HTTP error status
        raises :class:`HttpStatus`."""
        body: dict[str, Any] = {"json": request.json_body} if request.method == "POST" else {}
        sent = self._client.build_request(request.method, request.url, headers=headers, **body)
        hops = Redirects(sent.url, headers, self._private_redirects)
        with _DEADLINE.get().watch() as watch:
            for _ in range(MAX_REDIRECTS + 1):
                sent.extensions = {**sent.extensions, "trace": hops.trace(sent.url, watch)}
                response = self._client.send(sent, stream=True, follow_redirects=False)
                try:
                    if response.next_request is None:
                        return self._read(response, limit)
                    sent = hops.follow(sent, response.next_request)
                finally:
                    response.close()
        raise httpx.TooManyRedirects(f"too many redirects (more than {MAX_REDIRECTS})")

    def _read(self, response: httpx.Response, limit: int) -> _Answer:
        s = self._settings
        meter = RateMeter(s.min_bytes_per_s, s.rate_window_s)
        encoding = response.headers.get("Content-Encoding", "")
        if response.status_code >= 400:
            try:
                start = read_limited(response.iter_raw(), encoding, READ_BYTES, meter.add).data
            except BadEncoding:
                start = b""
            raise HttpStatus(
                response.status_code,
                retry_after_seconds(response.headers.get("Retry-After")),
                excerpt(start, response.charset_encoding, self._redactor),
            )
        return _Answer(
            url=str(response.url),
            status=response.status_code,
            content_type=response.headers.get("Content-Type", ""),
            body=read_limited(response.iter_raw(), encoding, limit, meter.add),
        )

    def _allowed(self, url: str) -> bool:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self._robots:
            self._robots[origin] = self._load_robots(origin)
        parser = self._robots[origin]
        return parser is None or parser.can_fetch(self._settings.user_agent, url)

    def _load_robots(self, origin: str) -> RobotFileParser | None:
        """robots.txt through the same bounds as a page, at most :data:`ROBOTS_MAX_BYTES`.
        ``None`` (everything allowed) when there is none (an error status), when it cannot be
        reached (the page fetch then reports the outage itself) or when its redirect is
        refused (the page's own redirects are checked too). When the fetch's deadline or
        the minimum rate is passed on the way, the fetch fails as ``timeout``: RFC 9309
        §2.3.1.4 says an unreachable robots.txt allows nothing, and no time is left anyway."""
        host = urlsplit(origin).netloc
        previous = self._pace(host)
        try:
            answer = self._send(Request(f"{origin}/robots.txt"), {}, ROBOTS_MAX_BYTES)
        except FetchTimeout as exc:
            raise FetchTimeout(f"robots.txt: {exc.reason}") from None
        except (httpx.HTTPError, HttpStatus, RedirectRefused, BadEncoding) as exc:
            if _is_connection_failure(exc):
                self._unpace(host, previous)
            return None
        return _robots_parser(answer.body)
