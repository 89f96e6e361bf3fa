"""Parsed rows into the two price tables, ``offer`` and ``spot_quote``: only rows whose key
is not there yet (the same page loaded twice adds nothing)."""

from __future__ import annotations

import duckdb
import polars as pl

from scrapers.rows import OfferRow, Row, SpotQuoteRow
from warehouse.store.lake import insert_new_frame

# The primary keys of the two price tables (warehouse/store/migrations/001_core.sql).
_KEYS = {
    "offer": ("source", "offer_id", "billing", "observed_at"),
    "spot_quote": ("source", "gpu_name_raw", "region", "basis", "observed_at"),
}


def _insert(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict]) -> int:
    if not rows:
        return 0
    frame = pl.DataFrame(rows, infer_schema_length=None)
    return insert_new_frame(con, table, frame, key=_KEYS[table], time_column="observed_at")


def insert_rows(
    con: duckdb.DuckDBPyConnection,
    rows: list[Row],
    *,
    page: str | None,
    run_id: str | None,
    citation: str | None = None,
) -> int:
    extra = {"page_id": page, "run_id": run_id, "citation": citation}
    offers = [r.to_dict() | extra for r in rows if isinstance(r, OfferRow)]
    quotes = [r.to_dict() | extra for r in rows if isinstance(r, SpotQuoteRow)]
    return _insert(con, "offer", offers) + _insert(con, "spot_quote", quotes)
