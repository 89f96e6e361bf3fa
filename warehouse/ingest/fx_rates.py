"""The ``fx_rate`` table: daily CNY rates, the configured default and the optional source.

``fx_rate(day, currency, cny_per_unit, source)``: one rate per day and currency. The
configured default (``[fx] usd_cny`` with its ``as_of`` date) is stored under its date with
``source`` starting "configured default"; a fetched rate (``[fx] source_url``) names its URL.
A fetched rate replaces a default of the same day, never the other way round. A history
import (:func:`import_rates`, ``gpuprice fx import``: the ECB's daily series) fills the days
without a rate and replaces defaults, and keeps every fetched rate already stored. Rows are
converted at load by :mod:`warehouse.ingest.money` (the latest rate on or before the row's
day, the default before the first one, looked up by :class:`scrapers.fx.FxRates`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

import duckdb

from scrapers.fx import CONFIGURED_DEFAULT, FxRate
from warehouse.store.db import WarehouseMissing, read_connection, write_connection
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


@dataclass(frozen=True, slots=True)
class ImportedRates:
    """What :func:`import_rates` did: rates added, configured defaults replaced, and rates
    already stored (kept as they are)."""

    added: int
    replaced_default: int
    already_stored: int


def import_rates(warehouse: Warehouse, rates: Sequence[FxRate]) -> ImportedRates:
    """Store a history of rates in one write transaction (``gpuprice fx import``).

    A day with no rate gets it; a day whose stored rate is the configured default gets the
    imported one (as :func:`store_rates` does); a day that already has a fetched rate keeps
    it, because rows may have been converted at it. Re-importing adds nothing."""
    with write_connection(warehouse) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            stored = {
                (day, currency): source
                for day, currency, source in con.execute(
                    "SELECT day, currency, source FROM fx_rate"
                ).fetchall()
            }
            fresh, defaults, kept = [], [], 0
            for rate in rates:
                source = stored.get((rate.day, rate.currency))
                if source is None:
                    fresh.append(rate)
                elif source.startswith(CONFIGURED_DEFAULT):
                    defaults.append(rate)
                else:
                    kept += 1
            if fresh:  # new keys only: a plain bulk insert
                con.execute(
                    "INSERT INTO fx_rate SELECT unnest(?::DATE[]), unnest(?::VARCHAR[]), "
                    "unnest(?::VARCHAR[])::DECIMAL(12, 6), unnest(?::VARCHAR[])",
                    [
                        [r.day for r in fresh],
                        [r.currency for r in fresh],
                        [str(r.cny_per_unit) for r in fresh],
                        [r.source for r in fresh],
                    ],
                )
            store_rates(con, defaults)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    return ImportedRates(len(fresh), len(defaults), kept)
