"""The polite HTTP client every source fetches through.

Retries use tenacity; robots.txt uses the standard library's parser. The one piece
written here is the per-host minimum interval, which neither httpx nor tenacity offers.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Literal, Protocol
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

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})

# Why a fetch failed, for the run record (scrape_run.reason) and the data-health page.
FetchFailure = Literal["unreachable", "http_error", "blocked", "too_large"]


class HttpSettings(Protocol):
    connect_timeout_s: float
    read_timeout_s: float
    retries: int
    connect_retries: int
    backoff_s: float
    max_retry_after_s: float
    min_interval_s: float
    max_page_bytes: int
    user_agent: str


class FetchError(RuntimeError):
    """A page could not be fetched; ``reason`` is short and fit for a run record, ``kind``
    says which sort of failure it was (``unreachable``: DNS, refused, no answer in time)."""

    def __init__(self, url: str, reason: str, kind: FetchFailure = "http_error") -> None:
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.reason = reason
        self.kind: FetchFailure = kind


@dataclass(frozen=True, slots=True)
class Request:
    """One request of a fetch plan: a GET by default; a JSON API may need a POST body.

    Headers carrying secrets (a cookie, a token) are added by the caller at fetch time,
    never put into a plan, a log line or an error message.
    """

    url: str
    method: Literal["GET", "POST"] = "GET"
    json_body: Any = None
    headers: tuple[tuple[str, str], ...] = field(default=())


@dataclass(frozen=True, slots=True)
class FetchedPage:
    url: str
    status: int
    body: bytes
    content_type: str
    fetched_at: datetime  # naive UTC


class _RetryableStatus(Exception):
    def __init__(self, status: int, retry_after: float | None) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.retry_after = retry_after


def _retry_after_seconds(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _is_retryable(exc: BaseException) -> bool:
    return isinstance(
        exc,
        _RetryableStatus
        | httpx.ConnectError
        | httpx.ConnectTimeout
        | httpx.ReadTimeout
        | httpx.RemoteProtocolError
        | httpx.ReadError,
    )


def _is_connection_failure(exc: BaseException | None) -> bool:
    """No connection at all (DNS, refused, unroutable): retried only ``connect_retries`` times."""
    return isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)


class PoliteClient:
    """httpx with explicit timeouts, bounded retries, Retry-After, a per-host interval and robots.txt."""

    def __init__(self, settings: HttpSettings, *, respect_robots: bool) -> None:
        self._settings = settings
        self._respect_robots = respect_robots
        self._client = httpx.Client(
            timeout=httpx.Timeout(
                settings.read_timeout_s,
                connect=settings.connect_timeout_s,
                pool=settings.connect_timeout_s,
            ),
            headers={"User-Agent": settings.user_agent, "Accept-Language": "zh-CN,zh;q=0.9"},
            follow_redirects=True,
            max_redirects=5,
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
        errors, ``connect_retries`` when no connection could be made at all."""
        url = request.url
        if self._respect_robots and not self._allowed(url):
            raise FetchError(url, "disallowed by robots.txt", "blocked")
        s = self._settings
        retrying = Retrying(
            stop=self._stop,
            wait=self._wait,
            retry=retry_if_exception(_is_retryable),
            reraise=True,
        )
        sent = dict(request.headers) | (headers or {})
        try:
            return retrying(self._get_once, request, sent)
        except _RetryableStatus as exc:
            raise FetchError(url, f"HTTP {exc.status} after {s.retries + 1} attempts") from None
        except httpx.TooManyRedirects:
            raise FetchError(url, "too many redirects") from None
        except httpx.TimeoutException as exc:
            raise FetchError(url, f"timed out ({type(exc).__name__})", "unreachable") from None
        except (httpx.ConnectError, httpx.NetworkError) as exc:
            raise FetchError(url, f"{type(exc).__name__}: {exc}", "unreachable") from None
        except httpx.HTTPError as exc:
            raise FetchError(url, f"{type(exc).__name__}: {exc}") from None

    def _stop(self, state: RetryCallState) -> bool:
        exc = state.outcome.exception() if state.outcome else None
        s = self._settings
        allowed = s.connect_retries if _is_connection_failure(exc) else s.retries
        return stop_after_attempt(min(allowed, s.retries) + 1)(state)

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, _RetryableStatus) and exc.retry_after is not None:
            return min(exc.retry_after, self._settings.max_retry_after_s)
        return wait_exponential(multiplier=self._settings.backoff_s, max=10)(state)

    def _pace(self, host: str) -> float | None:
        """Wait until ``host`` may be asked again; returns the previous request time, for
        :meth:`_unpace`."""
        with self._lock:
            last = self._last_request.get(host)
            now = time.monotonic()
            delay = 0.0 if last is None else self._settings.min_interval_s - (now - last)
            self._last_request[host] = now + max(delay, 0.0)
        if delay > 0:
            time.sleep(delay)
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
        url = request.url
        host = urlsplit(url).netloc
        previous = self._pace(host)
        try:
            return self._send(request, headers)
        except (httpx.ConnectError, httpx.ConnectTimeout):
            self._unpace(host, previous)
            raise

    def _send(self, request: Request, headers: dict[str, str]) -> FetchedPage:
        url = request.url
        body_args: dict[str, Any] = {}
        if request.method == "POST":
            body_args["json"] = request.json_body
        with self._client.stream(request.method, url, headers=headers, **body_args) as response:
            if response.status_code in RETRY_STATUSES:
                raise _RetryableStatus(
                    response.status_code, _retry_after_seconds(response.headers.get("Retry-After"))
                )
            if response.status_code >= 400:
                raise FetchError(url, f"HTTP {response.status_code}")
            body = bytearray()
            for chunk in response.iter_bytes():
                body.extend(chunk)
                if len(body) > self._settings.max_page_bytes:
                    raise FetchError(
                        url, f"page larger than {self._settings.max_page_bytes} bytes", "too_large"
                    )
            return FetchedPage(
                url=str(response.url),
                status=response.status_code,
                body=bytes(body),
                content_type=response.headers.get("Content-Type", ""),
                fetched_at=datetime.now(UTC).replace(tzinfo=None),
            )

    def _allowed(self, url: str) -> bool:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self._robots:
            self._robots[origin] = self._load_robots(origin)
        parser = self._robots[origin]
        return parser is None or parser.can_fetch(self._settings.user_agent, url)

    def _load_robots(self, origin: str) -> RobotFileParser | None:
        host = urlsplit(origin).netloc
        previous = self._pace(host)
        try:
            response = self._client.get(f"{origin}/robots.txt")
        except httpx.HTTPError as exc:
            if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
                self._unpace(host, previous)
            return None  # unreachable robots.txt: the page fetch itself will report the outage
        parser = RobotFileParser()
        if response.status_code >= 400:
            parser.parse([])  # no robots.txt means everything is allowed
        else:
            parser.parse(response.text.splitlines())
        return parser
