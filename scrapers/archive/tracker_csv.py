"""A public tracker's price CSV, read through a named column mapping.

A tracker publishes one row per provider, card and observation (e.g.
``krisjiang-matrix/gpu_price_track``, ``data/gpu_prices.csv``: ``observed_at_utc, provider,
market, gpu_model, price_usd_per_gpu_hour, source_url, availability_count, raw_label,
notes``). :class:`CsvMapping` says which column holds what (``[history.csv.<name>]`` in
``gpuprice.toml``); the rows of one provider at one moment become one snapshot of the
source named after the provider. Prices stay as listed; the card's name goes through
``scrapers.gpu_names`` (an unknown name stays ``unknown``). A snapshot with a row that cannot
be read (a price that is no number, a time that is no time, a card listed twice) is refused
whole, with the line that broke it; the other snapshots of the file still load.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from scrapers.gpu_names import canonical_gpu
from scrapers.rows import BILLING_MODES, Billing, OfferRow, ParseError
from scrapers.units import decimal_of, nfkc, parse_period, per_card_hour, size_gb

__all__ = ["CsvMapping", "TrackerSnapshot", "read_tracker_csv", "source_name"]

PRICE_QUANTUM = Decimal("0.0001")
_SOURCE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


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
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ParseError(f"{where}: {text[:40]!r} is not an ISO 8601 time") from None
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def _price(text: str, where: str) -> Decimal:
    value = decimal_of(text.strip(), where) if text.strip() else None
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


def _row(record: dict[str, str], mapping: CsvMapping, source: str, where: str) -> OfferRow:
    name = " ".join(record[mapping.gpu].split())
    if not name:
        raise ParseError(f"{where}: no card name in column {mapping.gpu}")
    size = size_gb(record[mapping.vram]) if mapping.vram else None
    vram = int(size) if size is not None and size == size.to_integral_value() else None
    price = _price(record[mapping.price], where)
    currency = record[mapping.currency_column] if mapping.currency_column else mapping.currency
    count = _count(record[mapping.gpu_count] if mapping.gpu_count else None, where)
    hours, _ = parse_period(mapping.unit)
    unit, native = per_card_hour(price, currency.strip().upper(), hours, count, mapping.price_per)
    market = record[mapping.market].strip() if mapping.market else ""
    provider = record[mapping.provider].strip()
    return OfferRow(
        observed_at=_moment(record[mapping.time], where),
        source=source,
        offer_id="/".join(part for part in (provider, market, name) if part),
        gpu=canonical_gpu(name, vram),
        gpu_name_raw=name,
        gpu_count=count,
        vram_gb=vram,
        billing=_billing(record, mapping, where),
        price=price,
        currency=currency.strip().upper(),
        unit=unit,
        unit_raw=f"{currency.strip().upper()} {mapping.unit} per {mapping.price_per} "
        f"(tracker column {mapping.price})",
        per_card_hour=native,
    )


def _records(body: bytes, mapping: CsvMapping, where: str) -> list[tuple[int, dict[str, str]]]:
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(f"{where}: not UTF-8 text ({exc})") from None
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    missing = [c for c in mapping.columns() if c not in header]
    if missing:
        raise ParseError(
            f"{where}: no column {', '.join(missing)} (header: {', '.join(header)[:200]}); "
            "is it the file this mapping is for?"
        )
    try:
        return [(reader.line_num, record) for record in reader]
    except csv.Error as exc:
        raise ParseError(f"{where}: not a readable CSV ({exc})") from None


def read_tracker_csv(
    body: bytes, mapping: CsvMapping, where: str, *, source: str | None = None
) -> list[TrackerSnapshot]:
    """The file's snapshots, oldest first: one per source and moment. ``source`` puts every
    row in that source instead of the provider's. ``ParseError`` for a file the mapping does
    not fit (a column missing, not CSV)."""
    groups: dict[tuple[str, str], dict] = {}
    for line, record in _records(body, mapping, where):
        at = f"{where}: line {line}"
        provider = (record.get(mapping.provider) or "").strip()
        key = (source or provider, (record.get(mapping.time) or "").strip())
        group = groups.setdefault(key, {"lines": [line, line], "rows": [], "error": None})
        group["lines"][1] = line
        if group["error"]:
            continue
        try:
            name = source or source_name(provider, mapping)
            row = _row(record, mapping, name, at)
            if any(r.offer_id == row.offer_id and r.billing == row.billing for r in group["rows"]):
                raise ParseError(f"{at}: {row.offer_id} ({row.billing}) is listed twice")
            group["rows"].append(row)
        except (ParseError, KeyError, ArithmeticError) as exc:
            group["error"] = str(exc)
    return sorted(
        (_snapshot(key, group, mapping, source) for key, group in groups.items()),
        key=lambda s: (s.observed_at or datetime.min, s.source),
    )


def _snapshot(
    key: tuple[str, str], group: dict, mapping: CsvMapping, source: str | None
) -> TrackerSnapshot:
    rows = group["rows"]
    lines = (group["lines"][0], group["lines"][1])
    if group["error"] or not rows:
        try:
            name = source or source_name(key[0], mapping)
        except ParseError:
            name = "unknown"
        try:
            moment: datetime | None = _moment(key[1], "time")
        except ParseError:
            moment = None
        return TrackerSnapshot(name, moment, lines, [], group["error"] or "no rows")
    return TrackerSnapshot(rows[0].source, rows[0].observed_at, lines, rows)
