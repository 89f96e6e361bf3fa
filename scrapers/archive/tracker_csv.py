"""A public tracker's price CSV, read through a named column mapping.

A tracker publishes one row per provider, card and observation (e.g.
``krisjiang-matrix/gpu_price_track``, ``data/gpu_prices.csv``: ``observed_at_utc, provider,
market, gpu_model, price_usd_per_gpu_hour, source_url, availability_count, raw_label,
notes``). :class:`CsvMapping` says which column holds what (``[history.csv.<name>]`` in
``gpuprice.toml``); the rows of one provider at one moment become one snapshot of the
source named after the provider. Prices stay as listed; the card's name goes through
``scrapers.gpu_names`` (an unknown name stays ``unknown``). A snapshot with a row that cannot
be read (a price that is no number, too few cells, a card listed twice) is rejected alone,
with its line number, an excerpt and why (scrapers.parse.Rejected); the rest of its snapshot
loads, and the load judges the rejected share as for any page ([parse].max_rejected_share).
A snapshot whose time or provider cannot be read is refused whole: no row of it has a date.

The file is read one line at a time (:func:`stream_tracker_csv`): a file up to the import's
size limit never sits in memory whole, and each snapshot keeps the header and its own lines
(what is archived for it).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from typing import BinaryIO, Literal

from scrapers.gpu_names import canonical_gpu
from scrapers.parse import Rejected, excerpt_of, summary
from scrapers.rows import BILLING_MODES, Billing, NoPrice, OfferRow, ParseError
from scrapers.units import decimal_of, is_placeholder, nfkc, parse_period, per_card_hour, size_gb

__all__ = [
    "CsvMapping",
    "TrackerSnapshot",
    "read_tracker_csv",
    "source_name",
    "stream_tracker_csv",
]

PRICE_QUANTUM = Decimal("0.0001")
_SOURCE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
# The most rows one snapshot holds: a moment with more is given out in parts (its rows are
# then several snapshots of that moment), so that reading never holds more than this.
MAX_SNAPSHOT_ROWS = 50_000


@dataclass(frozen=True)
class CsvMapping:
    """Which column of a tracker's CSV holds what; constants where the file has no column."""

    time: str  # ISO 8601; a time without a zone is taken as UTC
    provider: str
    gpu: str  # the card's name as the tracker wrote it
    price: str
    vram: str | None = None  # a column whose first size ("80 GB VRAM") is the card's memory
    currency: str = "USD"
    currency_column: str | None = None
    unit: str = "/hr"  # the price's period (scrapers.units.parse_period)
    price_per: Literal["card", "machine"] = "card"
    gpu_count: str | None = None  # a column with the card count; 1 when None
    billing: Billing = "hourly"
    billing_column: str | None = None
    billing_values: Mapping[str, str] = field(default_factory=dict)  # column value → billing
    market: str | None = None  # a column naming the offer's market (part of its offer id)
    sources: Mapping[str, str] = field(default_factory=dict)  # provider → source name
    citation: str = ""  # where the file comes from (the rows' origin)

    def columns(self) -> list[str]:
        named = (self.time, self.provider, self.gpu, self.price, self.vram,
                 self.currency_column, self.gpu_count, self.billing_column, self.market)  # fmt: skip
        return [c for c in named if c]


@dataclass(frozen=True, slots=True)
class TrackerSnapshot:
    """The rows of one provider at one moment, or why they are refused."""

    source: str
    observed_at: datetime | None  # None when the time itself could not be read
    lines: tuple[int, int]  # first and last line of the file they come from
    rows: list[OfferRow]
    error: str | None = None
    body: bytes = b""  # the header and the lines the snapshot was read from
    rejected: tuple[Rejected, ...] = ()  # its lines that gave no row, and why


def source_name(provider: str, mapping: CsvMapping) -> str:
    """The source a provider's rows go to: the mapping's ``sources``, else the provider's
    name in lower case with ``_`` for anything else ("Lambda" → ``lambda``)."""
    given = mapping.sources.get(provider)
    name = given or re.sub(r"[^a-z0-9]+", "_", nfkc(provider).lower()).strip("_")
    if not _SOURCE.match(name):
        raise ParseError(
            f"provider {provider!r} gives no source name (lower-case letters, digits, _); "
            "name it in the mapping's sources table or with --source"
        )
    return name


def _moment(text: str, where: str) -> datetime:
    """A tracker's time as naive UTC; ``ParseError`` for one that is no time, or one that
    cannot be moved to UTC (year 1 with an offset, year 9999 ahead of UTC)."""
    try:
        moment = datetime.fromisoformat(text.strip())
        return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment
    except (ValueError, OverflowError):
        raise ParseError(f"{where}: {text[:40]!r} is not an ISO 8601 time") from None


_PLAIN = re.compile(r"^\d{1,12}(\.\d{1,8})?$")  # what trackers write: read without more checks


def _price(text: str, where: str) -> Decimal:
    plain = text.strip()
    if _PLAIN.match(plain):
        value: Decimal | None = Decimal(plain)
    elif is_placeholder(plain):  # "", "N/A", "-": the tracker saw no price (not a bad line)
        raise NoPrice(f"{where}: no price given: {text[:40]!r}")
    else:
        value = decimal_of(plain, where)
    if value is None or not value.is_finite() or value <= 0:
        raise ParseError(f"{where}: price {text[:40]!r} is not a positive number")
    return value.quantize(PRICE_QUANTUM, ROUND_HALF_UP)


def _count(text: str | None, where: str) -> int:
    if text is None or not text.strip():
        return 1
    if not text.strip().isdigit() or int(text) < 1:
        raise ParseError(f"{where}: card count {text[:20]!r} is not a whole number ≥ 1")
    return int(text)


def _billing(record: dict[str, str], mapping: CsvMapping, where: str) -> Billing:
    if mapping.billing_column is None:
        return mapping.billing
    value = record[mapping.billing_column].strip()
    billing = mapping.billing_values.get(value, value)
    if billing not in BILLING_MODES:
        raise ParseError(f"{where}: billing {value!r} is none of {', '.join(BILLING_MODES)}")
    return billing  # type: ignore[return-value]


@lru_cache(maxsize=4096)
def _card(name: str, vram_text: str | None) -> tuple[str, int | None]:
    """The canonical id and memory of a tracker's card name (cached: a tracker repeats the
    same few dozen names on every line, and the name rules are regular expressions)."""
    size = size_gb(vram_text) if vram_text is not None else None
    vram = int(size) if size is not None and size == size.to_integral_value() else None
    return canonical_gpu(name, vram), vram


def _row(
    record: dict[str, str],
    mapping: CsvMapping,
    group: tuple[str, datetime, int],
    where: str,
) -> OfferRow:
    """One line's offer; ``group``: its source, moment and the hours of the mapping's unit
    (the same for every line of a snapshot: worked out once)."""
    source, moment, hours = group
    name = " ".join(record[mapping.gpu].split())
    if not name:
        raise ParseError(f"{where}: no card name in column {mapping.gpu}")
    gpu, vram = _card(name, record[mapping.vram] if mapping.vram else None)
    price = _price(record[mapping.price], where)
    currency = record[mapping.currency_column] if mapping.currency_column else mapping.currency
    count = _count(record[mapping.gpu_count] if mapping.gpu_count else None, where)
    code = currency.strip().upper()
    unit, native = per_card_hour(price, code, hours, count, mapping.price_per)
    market = record[mapping.market].strip() if mapping.market else ""
    provider = record[mapping.provider].strip()
    return OfferRow(
        observed_at=moment,
        source=source,
        offer_id="/".join(part for part in (provider, market, name) if part),
        gpu=gpu,
        gpu_name_raw=name,
        gpu_count=count,
        vram_gb=vram,
        billing=_billing(record, mapping, where),
        price=price,
        currency=code,
        unit=unit,
        unit_raw=f"{code} {mapping.unit} per {mapping.price_per} (tracker column {mapping.price})",
        per_card_hour=native,
    )


class _Lines:
    """The file's lines as text for :mod:`csv`, keeping the raw bytes of the lines each
    record was read from (its snapshot archives them). Read one line at a time, so a file
    of any size is never in memory whole."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.raw: list[bytes] = []
        self.undecodable = False
        self._first = True

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        line = self._stream.readline()
        if not line:
            raise StopIteration
        if self._first:
            line, self._first = line.removeprefix(b"\xef\xbb\xbf"), False
        self.raw.append(line)
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError:
            self.undecodable = True
            return line.decode("utf-8", errors="replace")

    def take(self) -> tuple[bytes, bool]:
        """The raw lines read since the last take, and whether one was not UTF-8."""
        raw, bad = b"".join(self.raw), self.undecodable
        self.raw, self.undecodable = [], False
        return raw, bad


@dataclass
class _Group:
    """The rows of one source at one moment, as they are read."""

    key: tuple[str, str]
    first: int
    last: int = 0
    rows: list[OfferRow] = field(default_factory=list)
    lines: list[bytes] = field(default_factory=list)
    listed: set[tuple[str, str]] = field(default_factory=set)
    rejected: list[Rejected] = field(default_factory=list)
    error: str | None = None
    # its source, moment and unit hours, or why they cannot be had (worked out once)
    shared: tuple[str, datetime, int] | str | None = None


def _header(
    reader: Iterator[list[str]], lines: _Lines, mapping: CsvMapping, where: str
) -> tuple[list[str], bytes]:
    try:
        header = next(reader, [])
    except csv.Error as exc:
        raise ParseError(f"{where}: not a readable CSV ({exc})") from None
    raw, undecodable = lines.take()
    if undecodable:
        raise ParseError(f"{where}: not UTF-8 text (the header line)")
    missing = [c for c in mapping.columns() if c not in header]
    if missing:
        raise ParseError(
            f"{where}: no column {', '.join(missing)} (header: {', '.join(header)[:200]}); "
            "is it the file this mapping is for?"
        )
    return header, raw


def stream_tracker_csv(
    stream: BinaryIO,
    mapping: CsvMapping,
    where: str,
    *,
    source: str | None = None,
    max_rows: int = MAX_SNAPSHOT_ROWS,
) -> Iterator[TrackerSnapshot]:
    """The file's snapshots in the order it lists them, read one line at a time: one per
    source and moment, each with the header and the lines it came from. The rows of one
    moment are one snapshot when they are adjacent, as trackers append them; a moment's
    group is given out when the next moment starts (or at ``max_rows`` rows, the rest in
    another snapshot of the same moment). ``source`` puts every row in that source.
    ``ParseError`` for a file the mapping does not fit (a column missing, not CSV)."""
    lines = _Lines(stream)
    reader = csv.reader(lines)
    header, head = _header(reader, lines, mapping, where)  # the header line as it is
    groups: dict[tuple[str, str], _Group] = {}
    moment_text: str | None = None
    while True:
        try:
            values = next(reader, None)
        except csv.Error as exc:
            raise ParseError(
                f"{where}: line {reader.line_num}: not a readable CSV ({exc})"
            ) from None
        raw, bad = lines.take()
        if values is None:
            break
        if not values:
            continue  # a blank line
        record = dict(zip(header, values, strict=False))
        provider = (record.get(mapping.provider) or "").strip()
        text = (record.get(mapping.time) or "").strip()
        if text != moment_text:
            yield from (_snapshot(g, head, mapping, source) for g in groups.values())
            groups, moment_text = {}, text
        key = (source or provider, text)
        group = groups.get(key)
        if group is None or len(group.lines) >= max_rows:
            if group is not None:
                yield _snapshot(group, head, mapping, source)
            group = groups[key] = _Group(key, reader.line_num)
        group.last = reader.line_num
        group.lines.append(raw)
        if group.error is None:
            at = f"line {reader.line_num}"
            problem = _add(group, record, values, header, mapping, source, bad, f"{where}: {at}")
            if isinstance(group.shared, str):  # no time or provider: no row of it has a date
                group.error = group.shared
            elif problem is not None:
                excerpt = excerpt_of(raw.decode("utf-8", "replace"))
                reason = str(problem).removeprefix(f"{where}: {at}: ")
                unpriced = isinstance(problem, NoPrice)
                group.rejected.append(Rejected(at, excerpt, reason, unpriced=unpriced))
    yield from (_snapshot(g, head, mapping, source) for g in groups.values())


def _shared(
    group: _Group, mapping: CsvMapping, source: str | None, at: str
) -> tuple[str, datetime, int]:
    """What every line of ``group`` has in common, worked out on its first line (a tracker
    CSV repeats the provider and the time on every line); ``ParseError`` when it cannot be."""
    if group.shared is None:
        try:
            name = source or source_name(group.key[0], mapping)
            hours, _ = parse_period(mapping.unit)
            group.shared = (name, _moment(group.key[1], at), hours)
        except ParseError as exc:
            group.shared = str(exc)
    if isinstance(group.shared, str):
        raise ParseError(group.shared)
    return group.shared


def _add(
    group: _Group, record: dict[str, str], values: list[str], header: list[str],
    mapping: CsvMapping, source: str | None, undecodable: bool, at: str,
) -> Exception | None:  # fmt: skip
    """Read one line into its group; what is wrong with it, if anything."""
    try:
        if undecodable:
            raise ParseError(f"{at}: not UTF-8 text")
        if len(values) < len(header):
            raise ParseError(f"{at}: {len(values)} cells, the header has {len(header)}")
        row = _row(record, mapping, _shared(group, mapping, source, at), at)
        listing = (row.offer_id, row.billing)
        if listing in group.listed:
            raise ParseError(f"{at}: {row.offer_id} ({row.billing}) is listed twice")
        group.listed.add(listing)
        group.rows.append(row)
    except (ParseError, KeyError, ArithmeticError) as exc:
        return exc
    return None


def read_tracker_csv(
    body: bytes, mapping: CsvMapping, where: str, *, source: str | None = None
) -> list[TrackerSnapshot]:
    """Every snapshot of a file held in memory (:func:`stream_tracker_csv`), oldest first."""
    snapshots = stream_tracker_csv(io.BytesIO(body), mapping, where, source=source)
    return sorted(snapshots, key=lambda s: (s.observed_at or datetime.min, s.source))


def _snapshot(
    group: _Group, head: bytes, mapping: CsvMapping, source: str | None
) -> TrackerSnapshot:
    body = head + b"".join(group.lines)
    lines = (group.first, group.last)
    if group.error or not group.rows:
        try:
            name = source or source_name(group.key[0], mapping)
        except ParseError:
            name = "unknown"
        try:
            moment: datetime | None = _moment(group.key[1], "time")
        except ParseError:
            moment = None
        error = group.error or (summary(group.rejected) if group.rejected else "no rows")
        return TrackerSnapshot(name, moment, lines, [], error, body, tuple(group.rejected))
    first = group.rows[0]
    return TrackerSnapshot(
        first.source, first.observed_at, lines, group.rows, None, body, tuple(group.rejected)
    )
