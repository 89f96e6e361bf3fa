"""The ``fx_rate`` table: daily CNY rates, the configured default and the optional source.

``fx_rate(day, currency, cny_per_unit, source)``: one rate per day and currency. The
configured default (``[fx] usd_cny`` with its ``as_of`` date) is stored under its date with
``source`` starting "configured default"; a fetched rate (``[fx] source_url``) names its URL.
A fetched rate replaces a default of the same day, never the other way round. Rows are
converted at load by :mod:`warehouse.ingest.money` (the latest rate on or before the row's
day, the default before the first one, looked up by :class:`scrapers.fx.FxRates`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

import duckdb

from scrapers.fx import CONFIGURED_DEFAULT, FxRate
from warehouse.store.db import WarehouseMissing, read_connection
from warehouse.store.handle import Warehouse


def store_rates(con: duckdb.DuckDBPyConnection, rates: Iterable[FxRate]) -> int:
    """Insert or update rates; a configured default never overwrites a fetched rate.

    Read, then UPDATE or INSERT (not ON CONFLICT DO UPDATE, which a DuckLake refuses: it
    has no key; warehouse.store.lake). The caller holds the one writer connection."""
    n = 0
    for rate in rates:
        found = con.execute(
            "SELECT source FROM fx_rate WHERE day = ? AND currency = ?", [rate.day, rate.currency]
        ).fetchall()
        if not found:
            con.execute(
                "INSERT INTO fx_rate VALUES (?, ?, ?, ?)",
                [rate.day, rate.currency, rate.cny_per_unit, rate.source],
            )
        elif found[0][0].startswith(CONFIGURED_DEFAULT) or not rate.source.startswith(
            CONFIGURED_DEFAULT
        ):
            con.execute(
                "UPDATE fx_rate SET cny_per_unit = ?, source = ? WHERE day = ? AND currency = ?",
                [rate.cny_per_unit, rate.source, rate.day, rate.currency],
            )
        n += 1
    return n


def read_rates(con: duckdb.DuckDBPyConnection) -> list[FxRate]:
    """Every stored rate, by currency and day (read in the caller's connection)."""
    return [
        FxRate(day, currency, rate, source)
        for day, currency, rate, source in con.execute(
            "SELECT day, currency, cny_per_unit, source FROM fx_rate ORDER BY currency, day"
        ).fetchall()
    ]


def has_recent_rate(warehouse: Warehouse, currency: str, since: date, source: str) -> bool:
    """Whether ``source`` already gave a rate for ``since`` or later (fetch once a day)."""
    try:
        with read_connection(warehouse) as con:
            return bool(
                con.execute(
                    "SELECT count(*) FROM fx_rate WHERE day >= ? AND currency = ? AND source = ?",
                    [since, currency, source],
                ).fetchone()[0]
            )
    except WarehouseMissing:
        return False
