"""CNY per card-hour, computed at load: the one place listed prices are converted.

Adapters give prices as listed (``per_card_hour`` in the row's ``currency``). The load,
reparse, backfill and any history import convert each row here, at the ``fx_rate`` of the
row's own day: the latest rate on or before it, or, before every stored rate, the configured
default passed in (its ``source`` says "configured default"). The lookup itself is
:class:`scrapers.fx.FxRates`; the rates are read inside the caller's connection and
transaction. :class:`PricedOffer` / :class:`PricedQuote` are the rows as the warehouse stores
them: the listed row, its CNY figure and the rate it was converted at.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import cache
from operator import attrgetter
from typing import Any

import duckdb

from scrapers.fx import CONFIGURED_DEFAULT, FxRate, FxRates
from scrapers.rows import (
    CNY_PER_CARD_HOUR_QUANTUM,
    MAX_PRICE,
    InvalidRow,
    OfferRow,
    ParseError,
    Row,
    SpotQuoteRow,
)
from warehouse.ingest.fx_rates import read_rates, store_rates

__all__ = [
    "PricedOffer",
    "PricedQuote",
    "PricedRow",
    "at_default",
    "convert",
    "convert_rows",
    "day_rates",
    "default_note",
    "column_names",
    "table_dict",
]


def _cny_problem(value: object) -> str | None:
    """What conversion can add that is wrong: a CNY figure that is no price (the listed row
    checked itself when it was built)."""
    if not isinstance(value, Decimal) or not value.is_finite() or value <= 0:
        return f"cny_per_card_hour {value!r} is not a positive number"
    if value > MAX_PRICE:
        return f"cny_per_card_hour {value} is above the plausible {MAX_PRICE:,}"
    return None


@dataclass(frozen=True, slots=True)
class PricedOffer(OfferRow):
    """An offer with its CNY per card-hour and the rate that gave it. Built by
    :func:`convert` only, from an offer that checked itself when it was built: only the CNY
    figure is checked here (checking the listed fields again was a sixth of a big import)."""

    cny_per_card_hour: Decimal = field(kw_only=True)
    fx: FxRate = field(kw_only=True)

    def __post_init__(self) -> None:
        if problem := _cny_problem(self.cny_per_card_hour):
            raise InvalidRow(f"{self.offer_id}: {problem}")


@dataclass(frozen=True, slots=True)
class PricedQuote(SpotQuoteRow):
    """A market quote with its CNY per card-hour and the rate that gave it (built by
    :func:`convert` only, as :class:`PricedOffer`)."""

    cny_per_card_hour: Decimal = field(kw_only=True)
    fx: FxRate = field(kw_only=True)

    def __post_init__(self) -> None:
        if problem := _cny_problem(self.cny_per_card_hour):
            raise InvalidRow(f"{self.gpu_name_raw}: {problem}")


PricedRow = PricedOffer | PricedQuote

# What a priced row adds to the listed one, and what of it is no column of offer/spot_quote.
_NOT_COLUMNS = ("per_card_hour", "fx")


def day_rates(con: duckdb.DuckDBPyConnection, defaults: Sequence[FxRate] = ()) -> FxRates:
    """The rates a load converts with, read in its own connection: every stored ``fx_rate``,
    and ``defaults`` (the configured ones) for days before them. The defaults are stored too,
    under their own dates, so that the rate a row was converted at stays readable
    (``warehouse.read.compare.fx_rates_on``)."""
    if defaults:
        store_rates(con, defaults)
    return FxRates(tuple(read_rates(con)), tuple(defaults))


def convert(row: Row, rates: FxRates) -> PricedRow:
    """``row`` with its CNY per card-hour at the rate of its own day (6 decimals, half-up).

    ``ParseError`` when its currency has no rate at all, or the figure is not a number."""
    if isinstance(row, PricedOffer | PricedQuote):
        return row
    rate = rates.rate(row.currency, row.observed_at.date())
    try:
        cny = (row.per_card_hour * rate.cny_per_unit).quantize(
            CNY_PER_CARD_HOUR_QUANTUM, rounding=ROUND_HALF_UP
        )
    except (InvalidOperation, TypeError):
        raise ParseError(f"per_card_hour {row.per_card_hour!r} is not a number") from None
    cls = PricedOffer if isinstance(row, OfferRow) else PricedQuote
    return cls(*_listed(type(row))(row), cny_per_card_hour=cny, fx=rate)


def convert_rows(rows: Sequence[Row], rates: FxRates) -> list[PricedRow]:
    return [convert(row, rates) for row in rows]


def at_default(row: PricedRow) -> bool:
    """Whether ``row`` was converted at the configured default rather than a known rate."""
    return row.fx.source.startswith(CONFIGURED_DEFAULT)


def default_note(rows: Sequence[PricedRow]) -> str | None:
    """A line saying how many rows were converted at the configured default, or ``None``."""
    defaulted = [r for r in rows if at_default(r)]
    if not defaulted:
        return None
    rates = sorted({(r.fx.currency, r.fx.cny_per_unit) for r in defaulted})
    said = ", ".join(f"{rate} CNY/{code}" for code, rate in rates)
    return f"{len(defaulted)} row(s) converted at the configured default {said}"


def table_dict(row: PricedRow) -> dict[str, Any]:
    """The row as the columns of ``offer`` / ``spot_quote``: the listed fields and the CNY
    figure (the listed per-card-hour figure and the rate object are no columns)."""
    return {name: getattr(row, name) for name in column_names(type(row))}


# Worked out once a class: dataclasses.fields() on every row, twice, was a tenth of a big
# tracker CSV import's time (bench/csv_import.py).
@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


@cache
def _listed(cls: type) -> Callable[[Row], tuple[Any, ...]]:
    """The row's fields in order, read in one call (a dict of them a row, to build its priced
    twin by keyword, was a quarter of the conversion)."""
    return attrgetter(*_field_names(cls))


@cache
def column_names(cls: type) -> tuple[str, ...]:
    return tuple(name for name in _field_names(cls) if name not in _NOT_COLUMNS)
