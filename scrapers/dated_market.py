"""A market that answers for a day asked in the query (``?as_of=YYYY-MM-DD``), read through
any source's adapter, unchanged, behind :class:`DatedMarketAdapter`, which

* asks for the day: every request of the adapter's plan carries ``as_of`` in its query
  (jygpu's and smm's adapters already pass it, and are left as they are);
* marks every row ``simulated`` when the market says it is (a JSON answer or a CSV file
  cannot carry a ``<meta name="gpuprice-simulated">``);
* stamps the rows with the time the answer is of: the day at its publication clock (in the
  market's time zone), else the current hour, so a backfilled day's rows are that day's and
  two snapshots in one hour load the same rows once.

The demo profile's settings say which market this is (configuration.settings).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, tzinfo
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from scrapers.parse import Item, Page, read_page
from scrapers.request import Request
from scrapers.rows import Row
from scrapers.sources.base import SourceAdapter

__all__ = ["DatedMarket", "DatedMarketAdapter", "with_as_of"]


def with_as_of(url: str, as_of: date) -> str:
    """``url`` asking for ``as_of``: the parameter added to its query (replacing one already
    there), its path and fragment kept (优云智算's parser reads the fragment)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "as_of"]
    query.append(("as_of", as_of.isoformat()))
    return urlunsplit(parts._replace(query=urlencode(query, safe="/")))


@dataclass(frozen=True)
class DatedMarket:
    """How a dated market answers: the time of day its answer for a past day is of, in its
    time zone, and whether what it serves is simulated."""

    publication_clock: time
    timezone: tzinfo
    simulated: bool

    def answer_moment(self, as_of: date | None, now: datetime) -> datetime:
        """The market-local time (naive) an answer is of: the as_of day at the publication
        clock, else the current hour of ``now`` (aware). Never later than the current hour:
        today's answer asked before its publication clock is of now, not of a time to come
        (the load refuses rows dated ahead of their fetch)."""
        local = now.astimezone(self.timezone)
        hour = local.replace(minute=0, second=0, microsecond=0, tzinfo=None)
        if as_of is None:
            return hour
        return min(datetime.combine(as_of, self.publication_clock), hour)


class DatedMarketAdapter:
    """``adapter`` reading ``market`` for ``as_of`` (``None``: today)."""

    def __init__(
        self, adapter: SourceAdapter, market: DatedMarket, as_of: date | None = None
    ) -> None:
        self.adapter = adapter
        self.market = market
        self.as_of = as_of
        self.name = adapter.name
        self.kind = adapter.kind
        self.currency = adapter.currency
        self.secret = adapter.secret
        self.key_pair = adapter.key_pair

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        day = as_of or self.as_of
        plan = self.adapter.fetch_plan(base_url, day)
        if day is None:
            return plan
        return [
            replace(step, url=with_as_of(step.url, day))
            if isinstance(step, Request)
            else with_as_of(step, day)
            for step in plan
        ]

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        return self.adapter.read(body, url, self.answer_time(fetched_at))

    def rows(self, item: Item, page: Page) -> Iterable[Row]:
        rows = self.adapter.rows(item, page)
        if not self.market.simulated:
            return rows
        return [replace(row, simulated=True) for row in rows]

    def finish(self, rows: list[Row], page: Page) -> list[Row]:
        return self.adapter.finish(rows, page)

    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[Row]:
        return read_page(self, body, url, fetched_at).accepted()

    def answer_time(self, fetched_at: datetime) -> datetime:
        """The time (naive UTC) the market's answer is of (see the module docstring)."""
        now = fetched_at.replace(tzinfo=UTC) if fetched_at.tzinfo is None else fetched_at
        local = self.market.answer_moment(self.as_of, now).replace(tzinfo=self.market.timezone)
        return local.astimezone(UTC).replace(tzinfo=None)
