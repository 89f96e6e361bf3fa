"""Parsed rows into the two price tables, ``offer`` and ``spot_quote``: only rows whose key
is not there yet (the same page loaded twice adds nothing)."""

from __future__ import annotations

from typing import Any

import duckdb
import polars as pl

from scrapers.fx import FxRates
from scrapers.rows import OfferRow, Row, SpotQuoteRow
from warehouse.ingest.money import PricedRow, column_names, convert_rows
from warehouse.store.lake import insert_new_frame

# No rates: a row in CNY is priced at 1, any other is refused (FxRates raises ParseError).
_CNY_ONLY = FxRates()

# The primary keys of the two price tables (warehouse/store/migrations/001_core.sql).
_KEYS = {
    "offer": ("source", "offer_id", "billing", "observed_at"),
    "spot_quote": ("source", "gpu_name_raw", "region", "basis", "observed_at"),
}


def _insert(
    con: duckdb.DuckDBPyConnection, table: str, rows: list[PricedRow], extra: dict[str, Any]
) -> int:
    """``rows`` (all of one type) as a frame built column by column: a dict a row, then
    the frame read from the dicts, was a fifth of a big import's time."""
    if not rows:
        return 0
    columns = {name: [getattr(r, name) for r in rows] for name in column_names(type(rows[0]))}
    frame = pl.DataFrame(columns | {name: [value] * len(rows) for name, value in extra.items()})
    return insert_new_frame(con, table, frame, key=_KEYS[table], time_column="observed_at")


def insert_rows(
    con: duckdb.DuckDBPyConnection,
    rows: list[Row],
    *,
    page: str | None,
    run_id: str | None,
    citation: str | None = None,
) -> int:
    """Insert ``rows`` priced in CNY (warehouse.ingest.money). A row not priced yet is priced
    here only when it is listed in CNY (the rate is 1); any other currency must be converted
    by the caller at the rate of its day, so that is a ``ParseError``."""
    extra = {"page_id": page, "run_id": run_id, "citation": citation}
    priced = convert_rows(rows, _CNY_ONLY)
    offers = [r for r in priced if isinstance(r, OfferRow)]
    quotes = [r for r in priced if isinstance(r, SpotQuoteRow)]
    return _insert(con, "offer", offers, extra) + _insert(con, "spot_quote", quotes, extra)
