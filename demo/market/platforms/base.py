"""The pieces a simulated platform is made of: its routes and the answers they give."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from demo.market.platforms.model import Ctx

__all__ = ["Answer", "Platform", "PlatformRequest", "Route", "json_answer"]

JSON = "application/json; charset=utf-8"


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    content_type: str
    body: bytes


@dataclass(frozen=True, slots=True)
class PlatformRequest:
    """One request to a platform: ``path`` is the part after ``/<platform>``."""

    method: str
    path: str
    query: dict[str, list[str]]
    body: bytes
    match: re.Match[str] | None = None

    def json_body(self) -> Any:
        """The JSON body, or ``None`` when there is none or it is not JSON."""
        try:
            return json.loads(self.body.decode("utf-8")) if self.body.strip() else None
        except (UnicodeDecodeError, ValueError):
            return None


Handler = Callable[[Ctx, PlatformRequest], Answer]


@dataclass(frozen=True, slots=True)
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler


@dataclass(frozen=True, slots=True)
class Platform:
    """A simulated platform: where it is (``/<name>``), what it answers, and how often its
    prices step (``gaps``: days between step changes, drawn from this range)."""

    name: str
    title: str
    gaps: tuple[int, int]
    routes: tuple[Route, ...]
    example: str  # a path to print, relative to the platform's URL


def route(method: str, path: str, handler: Handler) -> Route:
    """A route for exactly ``path``, or a regular expression when it starts with ``^``."""
    pattern = path if path.startswith("^") else f"^{re.escape(path)}$"
    return Route(method, re.compile(pattern), handler)


def json_answer(document: Any, status: int = 200) -> Answer:
    text = json.dumps(document, ensure_ascii=False, indent=1)
    return Answer(status, JSON, (text + "\n").encode("utf-8"))
