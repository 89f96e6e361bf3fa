"""What a source adapter is: a fetch plan plus a pure parser."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal, Protocol

from scrapers.rows import Row


class SourceAdapter(Protocol):
    name: str
    kind: Literal["offers", "quotes"]

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str]:
        """The URLs to fetch for one snapshot, in order. No I/O."""
        ...

    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[Row]:
        """Rows of one page. Pure; raises ``ParseError`` on anything it does not recognise."""
        ...
