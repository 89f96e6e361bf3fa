"""What the shared parse path made of a page: its rows and the listings it rejected."""

from __future__ import annotations

import re
from datetime import datetime

from scrapers.parse import PageRead, Rejected, read_page
from scrapers.rows import Row
from scrapers.sources.base import SourceAdapter


def read(adapter: SourceAdapter, body: bytes, url: str, when: datetime) -> PageRead:
    return read_page(adapter, body, url, when)


def one_rejected(
    adapter: SourceAdapter, body: bytes, url: str, when: datetime, reason: str
) -> tuple[Rejected, list[Row]]:
    """The one listing the page rejected (``where: reason`` matching ``reason``) and the rows kept;
    the page itself still passes (the default share of rejected listings)."""
    page = read_page(adapter, body, url, when)
    assert len(page.rejected) == 1, [r.line() for r in page.rejected]
    rejected = page.rejected[0]
    assert re.search(reason, rejected.line()), rejected.line()
    assert page.failure() is None, page.failure()
    return rejected, page.rows
