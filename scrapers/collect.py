"""One snapshot of one source: fetch every page of its plan, then parse each page.

Fetching and parsing stay separate steps: a fetch failure stops the snapshot (so
nothing partial is loaded), a parse failure only marks its own page, and a listing that does
not parse only itself (:mod:`scrapers.parse`: the page keeps its other rows, the listing is
kept as a :class:`~scrapers.parse.Rejected`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from scrapers.http import FetchedPage, FetchError, FetchFailure, PoliteClient, Request
from scrapers.parse import Rejected, read_page
from scrapers.rows import ParseError, Row
from scrapers.sources.base import SourceAdapter


@dataclass(frozen=True, slots=True)
class ParsedPage:
    page: FetchedPage
    rows: list[Row]
    error: str | None  # set when the page gave zero rows because it could not be parsed
    rejected: tuple[Rejected, ...] = ()  # its listings that gave no row, and why
    listings: int = 0  # listings read, rejected ones included


@dataclass(slots=True)
class Snapshot:
    source: str
    kind: str
    started_at: datetime
    as_of: date | None
    pages: list[ParsedPage] = field(default_factory=list)
    fetch_error: str | None = None
    fetch_failure: FetchFailure | None = None  # why the fetch failed (unreachable, http_error …)

    @property
    def parse_errors(self) -> list[str]:
        return [f"{p.page.url}: {p.error}" for p in self.pages if p.error]


def parse_page(adapter: SourceAdapter, page: FetchedPage) -> ParsedPage:
    """Parse one fetched page through the shared parse path: its rows and its rejected
    listings. A page that cannot be read at all, or gives no row, is a recorded error with
    zero rows; whether too many rejected listings fail it is the load's to decide, with the
    configured share (``warehouse.ingest.load.validate_page``)."""
    try:
        read = read_page(adapter, page.body, page.url, page.fetched_at)
    except ParseError as exc:
        # the page's error is kept with its URL: the adapter's own "URL: " is not repeated
        return ParsedPage(page, [], f"parse error: {str(exc).removeprefix(f'{page.url}: ')}")
    except Exception as exc:  # a parser bug must not take the other pages or sources down
        return ParsedPage(page, [], f"parser crashed: {type(exc).__name__}: {exc}")
    rejected = tuple(read.rejected)
    if not read.rows:
        return ParsedPage(page, [], f"parse error: {read.failure()}", rejected, read.listings)
    return ParsedPage(page, read.rows, None, rejected, read.listings)


def collect(
    adapter: SourceAdapter,
    client: PoliteClient,
    base_url: str,
    started_at: datetime,
    as_of: date | None = None,
    *,
    headers: dict[str, str] | None = None,
    plan: list[str | Request] | None = None,
) -> Snapshot:
    """Fetch every request of ``plan`` (default: the adapter's ``fetch_plan``), then parse
    each page. ``headers`` (a cookie, a token) go with every request and nowhere else."""
    snapshot = Snapshot(adapter.name, adapter.kind, started_at, as_of)
    fetched: list[FetchedPage] = []
    steps = adapter.fetch_plan(base_url, as_of) if plan is None else plan
    for step in steps:
        request = step if isinstance(step, Request) else Request(step)
        try:
            fetched.append(client.fetch(request, headers))
        except FetchError as exc:
            snapshot.fetch_error = (
                f"fetch failed after {len(fetched)} page(s) ({exc.kind.replace('_', ' ')}): {exc}"
            )
            snapshot.fetch_failure = exc.kind
            return snapshot
    snapshot.pages = [parse_page(adapter, page) for page in fetched]
    return snapshot
