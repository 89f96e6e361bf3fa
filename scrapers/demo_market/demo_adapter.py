"""How a snapshot of the demo profile reads the demo market: any source's adapter, unchanged,
behind :class:`DemoAdapter`, which

* asks for the day: every request of the adapter's plan carries ``as_of=YYYY-MM-DD`` in its
  query (the adapters of the JSON, GraphQL and CSV sources do not pass ``as_of`` themselves;
  jygpu and smm already do, and are left as they are), so a backfill fetches past days from
  every platform;
* marks every row ``simulated``: a JSON answer or a CSV file cannot carry the demo market's
  ``<meta name="gpuprice-simulated">``, and everything the demo profile fetches is simulated;
* stamps the rows with the time the market's answer is of, as jygpu's pages state it: the
  as_of day at 10:00 Beijing time, else the current hour. So a backfilled day's rows are that
  day's (not the day the backfill ran), and two snapshots in one hour load the same rows once.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from scrapers.demo_market.server import BEIJING, market_moment
from scrapers.http import Request
from scrapers.rows import Row
from scrapers.sources.base import SourceAdapter

__all__ = ["DemoAdapter", "with_as_of"]


def with_as_of(url: str, as_of: date) -> str:
    """``url`` asking for ``as_of``: the parameter added to its query (replacing one already
    there), its path and fragment kept (优云智算's parser reads the fragment)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "as_of"]
    query.append(("as_of", as_of.isoformat()))
    return urlunsplit(parts._replace(query=urlencode(query, safe="/")))


class DemoAdapter:
    """``adapter`` reading the demo market for ``as_of`` (``None``: today)."""

    def __init__(self, adapter: SourceAdapter, as_of: date | None = None) -> None:
        self.adapter = adapter
        self.as_of = as_of
        self.name = adapter.name
        self.kind = adapter.kind
        self.currency = adapter.currency
        self.secret = adapter.secret

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

    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[Row]:
        rows = self.adapter.parse(body, url, self.answer_time(fetched_at))
        return [replace(row, simulated=True) for row in rows]

    def answer_time(self, fetched_at: datetime) -> datetime:
        """The time (naive UTC) the market's answer is of (see the module docstring)."""
        now = fetched_at.replace(tzinfo=UTC) if fetched_at.tzinfo is None else fetched_at
        beijing = market_moment(self.as_of, now).replace(tzinfo=BEIJING)
        return beijing.astimezone(UTC).replace(tzinfo=None)
