"""What a fetch plan asks for and what a fetch brings back: plain values, so that the adapters
(which only plan requests and parse answers) need not import the HTTP client."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal


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
