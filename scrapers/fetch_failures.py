"""What a failed fetch is recorded as: a one-line reason and its kind (scrape_run.reason)."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Literal

import httpx

from scrapers.http_limits import BadEncoding, FetchTimeout
from scrapers.redirects import RedirectRefused

# Why a fetch failed, for the run record (scrape_run.reason) and the data-health page.
FetchFailure = Literal["unreachable", "http_error", "blocked", "too_large", "timeout"]


class HttpStatus(Exception):
    """An answer with an error status; ``start`` is its body's first KB as one line."""

    def __init__(self, status: int, retry_after: float | None, start: str) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.retry_after = retry_after
        self.start = start


class TooLarge(Exception):
    pass


# What an attempt may end with: describe() turns each into a reason and a kind.
FAILURES = (httpx.HTTPError, HttpStatus, TooLarge, FetchTimeout, RedirectRefused, BadEncoding)


def retry_after_seconds(value: str | None) -> float | None:
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


def _status_reason(exc: HttpStatus, attempts: int) -> str:
    reason = f"HTTP {exc.status}" + (f" after {attempts} attempts" if attempts > 1 else "")
    return f"{reason}: {exc.start}" if exc.start else reason


def describe(exc: Exception, attempts: int) -> tuple[str, FetchFailure]:
    """The reason and kind of a fetch that ended with ``exc`` after ``attempts`` attempts."""
    if isinstance(exc, FetchTimeout):
        return exc.reason, "timeout"
    if isinstance(exc, RedirectRefused):
        return exc.reason, "blocked"
    if isinstance(exc, TooLarge):
        return str(exc), "too_large"
    if isinstance(exc, HttpStatus):
        return _status_reason(exc, attempts), "http_error"
    if isinstance(exc, httpx.TooManyRedirects | BadEncoding):
        return str(exc), "http_error"
    if isinstance(exc, httpx.TimeoutException):
        # no answer within read_timeout_s (or no connection within connect_timeout_s)
        return f"timed out ({type(exc).__name__})", "unreachable"
    if isinstance(exc, httpx.ConnectError | httpx.NetworkError):
        return f"{type(exc).__name__}: {exc}", "unreachable"
    return f"{type(exc).__name__}: {exc}", "http_error"
