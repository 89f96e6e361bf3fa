"""The shared parse path: a page read into rows one listing at a time, for every adapter.

An adapter says two things (:class:`Reader`): how a page splits into listings (``read``: the
page's own facts and its :class:`Item` s; a :class:`~scrapers.rows.ParseError` there refuses
the page) and how one listing becomes rows (``rows``: any failure there refuses that listing
alone). :func:`read_page` runs the two, so tolerance is written here once and nowhere else:

* a listing that fails is kept as a :class:`Rejected` (where it was, an excerpt of its raw
  text, why), and the rest of the page is kept;
* a row built invalid never exists (:class:`~scrapers.rows.InvalidRow`): its listing is
  rejected;
* a row listed twice on one page (the same offer and billing mode, or the same quote) is
  rejected the second time;
* a page fails only when no row is left, or when more than ``max_rejected_share`` of its
  listings were rejected (:meth:`PageRead.failure`; ``[parse].max_rejected_share`` in
  ``gpuprice.toml``, default 0.2): that many rejected listings means the layout changed. A
  listing that publishes no price ("面议", "Contact sales": :class:`~scrapers.rows.NoPrice`)
  is rejected and reported too, but counts in neither side of that share.

JSON answers are described by pydantic models; a ``ValidationError`` becomes a one-line reason
here too (:func:`reason_of`), a page error when the envelope fails, a rejected listing when
one listing does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from pydantic import ValidationError

from scrapers.limits import check_size
from scrapers.rows import NoPrice, OfferRow, ParseError, Row

# More rejected listings than this share fail the page (and count for the drift detector).
DEFAULT_MAX_REJECTED_SHARE = 0.2
# How much of a listing's raw text a rejection keeps: enough to find it on the page.
EXCERPT_CHARS = 160
# What reading one listing may raise besides ParseError (a ValueError): pydantic's
# ValidationError is a ValueError too; arithmetic on a garbled number (decimal's
# InvalidOperation) an ArithmeticError; a shape the adapter did not expect (a list where it
# read a mapping) a LookupError or TypeError. Each refuses that listing, not the page.
_LISTING_ERRORS = (ValueError, ArithmeticError, LookupError, TypeError)


@dataclass(frozen=True, slots=True)
class Item:
    """One listing of a page before it becomes rows: where it is ("line 6", "machine 17"),
    the raw data the adapter's ``rows`` reads, and a short excerpt of its text."""

    where: str
    data: Any
    excerpt: str = ""


@dataclass(frozen=True, slots=True)
class Page:
    """What ``read`` makes of a page: its listings and the facts every row of it shares."""

    url: str
    observed_at: datetime  # naive UTC: the page's stated time, else when it was fetched
    items: Sequence[Item]
    simulated: bool = False
    facts: Any = None  # anything else the adapter's rows need (a stated unit, the cloud)


@dataclass(frozen=True, slots=True)
class Rejected:
    """A listing of a page that gave no row, with where it was, its raw text and why; refused
    by its parser (``stage`` "parse") or by the load (``"load"``: no rate to convert it, a
    price implausible for its card, a date after the fetch)."""

    where: str
    excerpt: str
    reason: str
    stage: str = "parse"
    # It publishes no price (scrapers.rows.NoPrice): reported, but no sign of a changed layout.
    unpriced: bool = False

    def line(self) -> str:
        return f"{self.where}: {self.reason}"


class Reader(Protocol):
    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page: ...

    def rows(self, item: Item, page: Page) -> Iterable[Row]: ...

    def finish(self, rows: list[Row], page: Page) -> list[Row]: ...


@dataclass(frozen=True, slots=True)
class PageRead:
    """The rows a page gave and the listings it rejected."""

    url: str
    rows: list[Row]
    rejected: list[Rejected] = field(default_factory=list)
    listings: int = 0  # listings read, rejected ones included

    def failure(self, max_rejected_share: float = DEFAULT_MAX_REJECTED_SHARE) -> str | None:
        """Why the page fails as a whole, or ``None``."""
        return page_failure(len(self.rows), self.rejected, self.listings, max_rejected_share)

    def accepted(self, max_rejected_share: float = DEFAULT_MAX_REJECTED_SHARE) -> list[Row]:
        """The rows, or ``ParseError`` when the page fails (:meth:`failure`); a page that lists
        nothing (an empty market) is no rows, which the collector records as a failed page."""
        if not self.rows and not self.rejected:
            return []
        problem = self.failure(max_rejected_share)
        if problem:
            raise ParseError(f"{self.url}: {problem}")
        return self.rows


def page_failure(
    rows: int, rejected: Sequence[Rejected], listings: int, max_rejected_share: float
) -> str | None:
    """Why a page with ``rows`` rows and these rejections of ``listings`` fails, or ``None``:
    no row at all, or a rejected share above ``max_rejected_share``."""
    if rows == 0:
        if rejected:
            return f"no row; {summary(rejected)}"
        return (
            f"no row: none of its {listings} listing(s) states a price"
            if listings
            else ("no row: no listing on the page")
        )
    # A listing that publishes no price is no failure of the parser: the share is of the
    # listings that state one ("Contact sales" on two of four rows fails no page).
    failed = [r for r in rejected if not r.unpriced]
    unpriced = len(rejected) - len(failed)
    share = len(failed) / max(listings - unpriced, 1)
    if share > max_rejected_share:
        besides = f" (and {unpriced} stating no price)" if unpriced else ""
        return (
            f"{len(failed)} of {listings - unpriced} listing(s) rejected{besides} ({share:.0%}, "
            f"above the {max_rejected_share:.0%} a page may lose: [parse].max_rejected_share): "
            f"{summary(failed)}"
        )
    return None


def summary(rejected: Sequence[Rejected], *, examples: int = 3) -> str:
    """One line: how many listings were rejected, and the first few with their reasons."""
    if not rejected:
        return "no listing rejected"
    shown = "; ".join(r.line() for r in rejected[:examples])
    more = f"; and {len(rejected) - examples} more" if len(rejected) > examples else ""
    return f"{len(rejected)} rejected: {shown}{more}"


def reason_of(exc: BaseException) -> str:
    """A failure as one line: a pydantic error by its field, anything else by its message."""
    if isinstance(exc, ValidationError):
        errors = exc.errors(include_url=False)
        first = errors[0]
        where = ".".join(str(part) for part in first["loc"]) or "value"
        got = first.get("input")
        text = f"{where}: {first['msg']}"
        if first["type"] != "missing":
            text += f" (got {_short(got)})"
        return text + (f", and {len(errors) - 1} more" if len(errors) > 1 else "")
    if isinstance(exc, ParseError):
        return str(exc)
    if isinstance(exc, ArithmeticError):
        return "a number on it is too large or garbled to compute with"
    return f"{type(exc).__name__}: {exc}"


def excerpt_of(data: Any) -> str:
    """A short text of a listing's raw data: JSON for a record, the text itself for text."""
    if isinstance(data, str):
        text = data
    else:
        try:
            text = json.dumps(data, ensure_ascii=False, default=str, separators=(",", ":"))
        except (TypeError, ValueError):
            text = repr(data)
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def read_page(reader: Reader, body: bytes, url: str, fetched_at: datetime) -> PageRead:
    """Every listing of one page read into rows, each failure kept as a :class:`Rejected`.

    ``ParseError`` when the page itself cannot be read (too large, not the format, an error
    answer, a changed layout): then no listing of it is trusted."""
    check_size(body, url)
    try:
        page = reader.read(body, url, fetched_at)
    except ValidationError as exc:
        raise ParseError(f"{url}: {reason_of(exc)}") from None
    except ArithmeticError:
        raise ParseError(f"{url}: a number on the page is too large to compute with") from None
    rows: list[Row] = []
    rejected: list[Rejected] = []
    origin: dict[int, Item] = {}  # id of a row -> the listing it came from
    for item in page.items:
        try:
            new = list(reader.rows(item, page))
        except _LISTING_ERRORS as exc:
            reason = reason_of(exc).removeprefix(f"{item.where}: ")  # said once, as where
            unpriced = isinstance(exc, NoPrice)
            rejected.append(Rejected(item.where, item.excerpt, reason, unpriced=unpriced))
            continue
        origin.update((id(row), item) for row in new)
        rows += new
    rows, twice = _once(reader.finish(rows, page), origin)
    return PageRead(url, rows, rejected + twice, len(page.items))


def _identity(row: Row) -> tuple[object, ...]:
    """What makes a row one listing on one page: its offer and billing mode (a quote: its
    card, region and basis at its time)."""
    if isinstance(row, OfferRow):
        return ("offer", row.offer_id, row.billing)
    return ("quote", row.gpu_name_raw, row.region, row.basis, row.observed_at)


def _once(rows: list[Row], origin: dict[int, Item]) -> tuple[list[Row], list[Rejected]]:
    """``rows`` without a listing that repeats one before it on the page (a row of it has the
    identity of an earlier listing's row): that listing is rejected, once, whole."""
    first: dict[tuple[object, ...], Item | None] = {}
    again: dict[int, tuple[Item | None, Row, Item | None]] = {}  # the later listings
    for row in rows:
        key, item = _identity(row), origin.get(id(row))
        if key not in first:
            first[key] = item
        elif item is None or first[key] is not item:
            again.setdefault(id(item) if item else id(row), (item, row, first[key]))
    if not again:
        return rows, []
    dropped = {id(item) for item, _, _ in again.values() if item is not None}
    kept = [r for r in rows if id(origin.get(id(r))) not in dropped and id(r) not in again]
    twice = []
    for item, row, earlier in again.values():
        name = getattr(row, "offer_id", None) or f"{row.gpu_name_raw} {row.region}"
        also = f" as {earlier.where}" if earlier is not None else ""
        where, excerpt = (item.where, item.excerpt) if item else (name, "")
        twice.append(Rejected(where, excerpt, f"listed twice: {name} is on the page{also}"))
    return kept, twice
