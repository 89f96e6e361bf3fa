"""The gpuprice rental price index (method v1, docs/INDEX.md), kept by the derive step.

``refresh_index`` runs inside the derive's transaction (warehouse.derive.metrics) on the
snapshots that derive found pending: it reads again the (source, day)s they belong to
(warehouse.derive.index_platforms), recomputes each series they touch from its first touched
day on and appends a revision wherever a published figure changed
(warehouse.derive.index_series). A late page, a re-parse, a released quarantine entry or a
history import makes its snapshot pending again, so the days it changes are revised. The
work follows the new snapshots, never the history.

Everything is computed again (each day read from ``offer``, revisions only where a figure
changed) when there is no index yet (the first derive after migration 014), on a full
derive, and when the gates differ from those the index was last computed with.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime

import duckdb

from warehouse.derive.index_method import METHOD, NOT_PUBLISHED
from warehouse.derive.index_platforms import refresh_platform_days
from warehouse.derive.index_series import compute_series
from warehouse.store.config import IndexGates
from warehouse.store.db import drop_work_tables


@dataclass(frozen=True, slots=True)
class IndexSummary:
    platform_days: int  # (source, day)s read again
    rows: int  # index_platform_day rows written
    series_days: int  # days of the index computed
    revisions: int  # price_index rows appended
    full: bool
    seconds: float

    def line(self) -> str:
        what = "full" if self.full else "incremental"
        return (
            f"price index ({what}): {self.platform_days} platform-day(s) read, "
            f"{self.series_days} day(s) computed, {self.revisions} revision(s); "
            f"{self.seconds:.3f} s"
        )


def refresh_index(
    con: duckdb.DuckDBPyConnection,
    pending: str | None,
    *,
    gates: IndexGates,
    now: datetime,
    full: bool = False,
) -> IndexSummary:
    """Bring the index up to date with the snapshots in the temp table ``pending`` (columns
    source, observed_at; None: none), in the caller's transaction."""
    started = time.perf_counter()
    stored = con.execute("SELECT gates FROM index_state WHERE method = ?", [METHOD]).fetchone()
    full = full or stored is None or stored[0] != gates.as_json()
    try:
        _keys(con, pending, full)
        con.execute(
            "CREATE OR REPLACE TEMP TABLE index_touched "
            "(kind VARCHAR, gpu VARCHAR, billing VARCHAR, day DATE)"
        )
        keys, rows = _platform_days(con, full)
        days, revisions = compute_series(con, METHOD, gates, now) if keys else (0, 0)
        if keys or full:
            con.execute("DELETE FROM index_state WHERE method = ?", [METHOD])
            con.execute("INSERT INTO index_state VALUES (?, ?, ?)", [METHOD, gates.as_json(), now])
    finally:
        drop_work_tables(con, "index_key", "index_all_keys", "index_touched")
    return IndexSummary(keys, rows, days, revisions, full, time.perf_counter() - started)


def _keys(con: duckdb.DuckDBPyConnection, pending: str | None, full: bool) -> None:
    """``index_all_keys``: the (source, day)s to read again: those of the pending snapshots,
    or (full) every one ``offer`` or the index holds."""
    if full:
        select = (
            f"SELECT DISTINCT source, observed_at::DATE AS day FROM offer WHERE {NOT_PUBLISHED} "
            "UNION SELECT DISTINCT source, day FROM index_platform_day"
        )
    elif pending is not None:
        select = (
            f"SELECT DISTINCT source, observed_at::DATE AS day FROM {pending} WHERE {NOT_PUBLISHED}"
        )
    else:
        select = "SELECT NULL::VARCHAR AS source, NULL::DATE AS day WHERE false"
    con.execute(f"CREATE OR REPLACE TEMP TABLE index_all_keys AS {select}")


def _platform_days(con: duckdb.DuckDBPyConnection, full: bool) -> tuple[int, int]:
    """Read the platform-days of ``index_all_keys`` again, a month of days at a time on a
    full recompute (a whole history's offers at once would not fit DuckDB's memory limit);
    returns (keys, rows written)."""
    keys = con.execute("SELECT count(*) FROM index_all_keys").fetchone()[0]
    if not keys:
        return 0, 0
    if not full:
        con.execute("CREATE OR REPLACE TEMP TABLE index_key AS SELECT * FROM index_all_keys")
        return keys, refresh_platform_days(con)
    months = con.execute(
        "SELECT DISTINCT date_trunc('month', day)::DATE AS m FROM index_all_keys ORDER BY m"
    ).fetchall()
    written = 0
    for (month,) in months:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE index_key AS SELECT * FROM index_all_keys "
            "WHERE date_trunc('month', day)::DATE = ?",
            [month],
        )
        written += refresh_platform_days(con)
    return keys, written
