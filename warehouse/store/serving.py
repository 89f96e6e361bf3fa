"""The serving copy: a small second DuckDB file the dashboard's hot queries read.

Opening the warehouse read-only costs ~150 ms by itself at five years of hourly history
(27 GB: DuckDB reads the catalog and the metadata of every row group), more than the trend
query's whole budget, and the dashboard opens a file for every query so it never holds the
lock the pipeline needs. The serving file holds only what those queries read, a few hundred
MB at most, and opens in a few milliseconds:

- ``offer_daily`` and ``offer_monthly`` (the rollups, warehouse.derive.rollup: real and
  simulated apart, real rows with their origin) and ``spot_quote`` (market quotes, a few
  dozen a day, with their citations), copied per (source, day) the derive step changed;
- ``offer_latest``, ``card_value_latest`` and ``breakeven_latest``: the newest row of each
  listing, card value line and breakeven line, merged from the rows since the oldest
  changed day and the copy's own rows before it (so the work grows with the new data);
- ``breakeven_daily``: per day, line and card, the mean breakeven (the breakeven page's
  chart over a long history), aggregated again from the oldest changed day on;
- ``gpu_spec`` (tiny, copied whole) and ``serving_state`` (layout, when it was copied, and
  the newest observation it holds).

Protocol (an outbox): the derive step writes the changed (source, day) keys to
``serving_outbox`` in the warehouse inside its own transaction; ``sync`` copies those days
in one transaction on the serving file and only then deletes the keys it copied. A copy that
fails (the file locked by readers for too long, a full disk) leaves the keys, and the next
run copies them. The file is a cache: deleting it is always safe (the next sync rebuilds it
and, until then, readers fall back to the warehouse).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import duckdb

from warehouse.public import PUBLIC
from warehouse.store.db import (
    WarehouseBusy,
    drop_work_tables,
    is_lock_conflict,
    lock_retrying,
    read_connection,
    records,
    utcnow,
    with_more_memory,
)
from warehouse.store.faults import WarehouseCorrupt
from warehouse.store.handle import Warehouse
from warehouse.store.lake import sql_string

if TYPE_CHECKING:
    import polars as pl

T = TypeVar("T")

# Bump when the serving tables change shape: a file of another layout is rebuilt whole (3:
# the rollups keep real and simulated apart and carry their origin, migration 012; 4: offers
# carry their price tier, and offer_latest holds public prices only, migration 013).
LAYOUT = 4
ALIAS = "serving"
# How long a sync waits for dashboard readers to let go of the file (each holds it for one
# query, milliseconds); past it the days stay queued for the next run.
SYNC_WAIT_S = 60.0
FULL = "*"

# (table, the row's line key, the source table, a filter on it) of the newest-row tables.
LATEST = (
    ("offer_latest", "source, offer_id, billing", "offer", f"gpu <> 'unknown' AND {PUBLIC}"),
    ("card_value_latest", "source, gpu, billing", "card_value", "true"),
    ("breakeven_latest", "source, gpu", "breakeven", "true"),
)


# The breakeven page's chart over a long history: per day, line and card, the mean of each
# snapshot's breakeven (the page's own daily downsampling, done once here).
BREAKEVEN_DAILY = """
    SELECT observed_at::DATE AS day, source, gpu,
           avg(breakeven_hours_vs_hourly) AS breakeven_hours_vs_hourly,
           avg(breakeven_hours_vs_monthly) AS breakeven_hours_vs_monthly,
           bool_or(simulated) AS simulated, count(*) AS snapshots
    FROM breakeven WHERE {where}
    GROUP BY ALL
"""


def serving_path(path: Path) -> Path:
    """Where the serving copy of the warehouse file ``path`` lives: beside it."""
    return path.with_name(f"{path.stem}-serving.duckdb")


@dataclass(frozen=True, slots=True)
class SyncSummary:
    full: bool
    days: int  # (source, day) keys copied
    seconds: float

    def line(self) -> str:
        what = "full copy" if self.full else f"{self.days} source-day(s)"
        return f"serving copy: {what}; {self.seconds:.3f} s"


def mark_changed(con: duckdb.DuckDBPyConnection, *pending: str) -> None:
    """Record the (source, day) of every snapshot in the temp tables ``pending`` (columns
    source, observed_at): their serving rows are out of date. Runs in the caller's
    transaction, so a derive that rolls back marks nothing. (EXCEPT, not INSERT OR IGNORE:
    a DuckLake has no key to ignore on.)"""
    for table in pending:
        con.execute(
            f"INSERT INTO serving_outbox SELECT source, observed_at::DATE FROM {table} "
            "EXCEPT SELECT source, day FROM serving_outbox"
        )


def mark_all(con: duckdb.DuckDBPyConnection) -> None:
    """Everything is out of date (a full recompute)."""
    con.execute(
        f"INSERT INTO serving_outbox SELECT '{FULL}', DATE '1970-01-01' "
        "EXCEPT SELECT source, day FROM serving_outbox"
    )


def sync(
    con: duckdb.DuckDBPyConnection, warehouse: Warehouse, *, wait_s: float | None = None
) -> SyncSummary:
    """Bring the serving copy up to date from ``warehouse``, open on ``con`` (the writer)."""
    started = time.perf_counter()
    target = serving_path(warehouse.path)
    wait_s = SYNC_WAIT_S if wait_s is None else wait_s
    _attach(con, target, wait_s)
    try:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE sync_key AS SELECT source, day FROM serving_outbox"
        )
        full = _state_layout(con) != LAYOUT or bool(
            con.execute(f"SELECT count(*) FROM sync_key WHERE source = '{FULL}'").fetchone()[0]
        )
        days = con.execute("SELECT count(*) FROM sync_key").fetchone()[0]
        if full:
            # A fresh file: whatever an older layout or a damaged copy held is gone.
            con.execute(f"DETACH {ALIAS}")
            remove(target)
            _attach(con, target, wait_s)
        if days or full:
            with_more_memory(con, lambda: _copy(con, full), configured=warehouse.memory_limit)
            con.execute(
                "DELETE FROM serving_outbox o USING sync_key k "
                "WHERE o.source = k.source AND o.day = k.day"
            )
        return SyncSummary(full, days, time.perf_counter() - started)
    finally:
        drop_work_tables(con, "sync_key")
        con.execute(f"DETACH DATABASE IF EXISTS {ALIAS}")


def _copy(con: duckdb.DuckDBPyConnection, full: bool) -> None:
    """One transaction on the copy: the queued days (or everything) and its state."""
    con.execute("BEGIN TRANSACTION")
    try:
        _copy_all(con) if full else _copy_days(con)
        con.execute(f"CREATE OR REPLACE TABLE {ALIAS}.gpu_spec AS SELECT * FROM gpu_spec")
        con.execute(
            f"""
            CREATE OR REPLACE TABLE {ALIAS}.serving_state AS
            SELECT {LAYOUT} AS layout, $now::TIMESTAMP AS synced_at,
                   (SELECT max(last_observed_at) FROM {ALIAS}.offer_daily) AS watermark
            """,
            {"now": utcnow()},
        )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def _attach(con: duckdb.DuckDBPyConnection, target: Path, wait_s: float) -> None:
    """Attach the serving file for writing, waiting while dashboard readers hold it; a file
    DuckDB cannot open (damaged, not a database) is a cache: it is removed and rebuilt.
    On a DuckLake nothing else writes to the home, so its folder may not be there yet."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        lock_retrying(wait_s)(con.execute, f"ATTACH {sql_string(str(target))} AS {ALIAS}")
    except duckdb.Error as exc:
        if is_lock_conflict(exc):
            raise WarehouseBusy(
                f"serving copy {target} stayed locked by readers for more than {wait_s:.0f} s; "
                "its days stay queued and the next run copies them"
            ) from None
        remove(target)
        con.execute(f"ATTACH {sql_string(str(target))} AS {ALIAS}")


def remove(target: Path) -> None:
    """Delete a serving file and its write-ahead log (a restore, or a damaged file)."""
    for path in (target, target.with_name(target.name + ".wal")):
        path.unlink(missing_ok=True)


def _state_layout(con: duckdb.DuckDBPyConnection) -> int | None:
    try:
        row = con.execute(f"SELECT max(layout) FROM {ALIAS}.serving_state").fetchone()
    except duckdb.CatalogException:
        return None
    return row[0]


def _copy_all(con: duckdb.DuckDBPyConnection) -> None:
    for table, order in (("offer_daily", "day"), ("offer_monthly", "month")):
        con.execute(
            f"CREATE OR REPLACE TABLE {ALIAS}.{table} AS "
            f"SELECT * FROM {table} ORDER BY {order}, source"
        )
    con.execute(
        f"CREATE OR REPLACE TABLE {ALIAS}.spot_quote AS "
        "SELECT * FROM spot_quote ORDER BY observed_at, source"
    )
    con.execute(
        f"CREATE OR REPLACE TABLE {ALIAS}.breakeven_daily AS "
        + BREAKEVEN_DAILY.format(where="true")
        + " ORDER BY day"
    )
    for table, key, source, where in LATEST:
        # arg_max per line is one streaming hash aggregate with a few thousand groups; a
        # row_number() window would sort the whole history.
        con.execute(
            f"CREATE OR REPLACE TABLE {ALIAS}.{table} AS SELECT unnest(r) FROM "
            f"(SELECT arg_max(t, t.observed_at) AS r FROM {source} t WHERE {where} GROUP BY {key})"
        )


def _copy_days(con: duckdb.DuckDBPyConnection) -> None:
    low, high = con.execute("SELECT min(day), max(day) FROM sync_key").fetchone()
    bounds = {"low": low, "high": high}
    # Literal day bounds first so DuckDB skips every row group outside them (zone maps).
    for table, column, key in (
        ("offer_daily", "day", "day"),
        ("offer_monthly", "month", "date_trunc('month', day)::DATE"),
    ):
        lo = "date_trunc('month', $low::DATE)::DATE" if column == "month" else "$low::DATE"
        keys = f"(SELECT DISTINCT source, {key} AS k FROM sync_key)"
        con.execute(
            f"DELETE FROM {ALIAS}.{table} t USING {keys} k WHERE t.{column} >= {lo} "
            f"AND t.{column} <= $high::DATE AND t.source = k.source AND t.{column} = k.k",
            bounds,
        )
        con.execute(
            f"INSERT INTO {ALIAS}.{table} BY NAME SELECT t.* FROM {table} t "
            f"SEMI JOIN {keys} k ON t.source = k.source AND t.{column} = k.k "
            f"WHERE t.{column} >= {lo} AND t.{column} <= $high::DATE ORDER BY t.{column}",
            bounds,
        )
    days = "observed_at >= $low::TIMESTAMP AND observed_at < $high::TIMESTAMP + INTERVAL 1 DAY"
    con.execute(
        f"DELETE FROM {ALIAS}.spot_quote t USING sync_key k WHERE t.{days} "
        "AND t.source = k.source AND t.observed_at::DATE = k.day",
        bounds,
    )
    con.execute(
        f"INSERT INTO {ALIAS}.spot_quote BY NAME SELECT t.* FROM spot_quote t "
        f"SEMI JOIN sync_key k ON t.source = k.source AND t.observed_at::DATE = k.day "
        f"WHERE t.{days} ORDER BY t.observed_at",
        bounds,
    )
    # The cheapest line at a time t uses every platform's newest snapshot before it, so a
    # derived snapshot can change breakeven rows of later days: every day from the oldest
    # queued one on (at steady state, today) is aggregated again.
    con.execute(f"DELETE FROM {ALIAS}.breakeven_daily WHERE day >= $low::DATE", {"low": low})
    con.execute(
        f"INSERT INTO {ALIAS}.breakeven_daily BY NAME "
        + BREAKEVEN_DAILY.format(where="observed_at >= $low::TIMESTAMP")
        + " ORDER BY day",
        {"low": low},
    )
    for table, key, source, where in LATEST:
        _merge_latest(con, table, key, source, where, low)


def _merge_latest(
    con: duckdb.DuckDBPyConnection, table: str, key: str, source: str, where: str, low: date
) -> None:
    """The newest row per line: the warehouse's rows since ``low`` (the truth for those
    days) and the copy's rows before it."""
    since = {"low": datetime.combine(low, datetime.min.time())}
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE merged AS
        SELECT unnest(r) FROM (
            SELECT arg_max(t, t.observed_at) AS r FROM (
                SELECT * FROM {source} WHERE {where} AND observed_at >= $low
                UNION ALL BY NAME
                SELECT * FROM {ALIAS}.{table} WHERE observed_at < $low
            ) t GROUP BY {key}
        )
        """,
        since,
    )
    # A line whose newest copied row was re-derived away keeps its older warehouse row:
    # rare (a late page dropped a card), so the full-table lookup runs only then.
    lost = con.execute(
        f"SELECT count(*) FROM (SELECT {key} FROM {ALIAS}.{table} WHERE observed_at >= $low "
        f"EXCEPT SELECT {key} FROM merged)",
        since,
    ).fetchone()[0]
    if lost:
        con.execute(
            f"""
            INSERT INTO merged BY NAME
            SELECT unnest(r) FROM (
                SELECT arg_max(t, t.observed_at) AS r FROM {source} t
                SEMI JOIN (SELECT {key} FROM {ALIAS}.{table} WHERE observed_at >= $low
                           EXCEPT SELECT {key} FROM merged) l USING ({key})
                WHERE {where} GROUP BY {key}
            )
            """,
            since,
        )
    con.execute(f"DELETE FROM {ALIAS}.{table}")
    con.execute(f"INSERT INTO {ALIAS}.{table} BY NAME SELECT * FROM merged")
    con.execute("DROP TABLE merged")


@dataclass(frozen=True, slots=True)
class ServingState:
    synced_at: datetime
    watermark: datetime | None  # the newest observation the rollups hold


@contextmanager
def serving_connection(
    warehouse: Warehouse, *, wait_s: float = 15.0
) -> Iterator[tuple[duckdb.DuckDBPyConnection, ServingState] | None]:
    """A read-only connection to the serving copy and its state, or None when there is no
    usable copy (never synced, another layout, damaged): the caller then reads the
    warehouse itself."""
    target = serving_path(warehouse.path)
    with ExitStack() as stack:
        row = None
        if target.exists():
            try:
                local = warehouse.local(target)  # a file beside the dashboard, also on a lake
                con = stack.enter_context(read_connection(local, wait_s=wait_s))
                # fetchall: a half-read result would block the caller's query on this con.
                rows = con.execute(
                    "SELECT synced_at, watermark FROM serving_state WHERE layout = ?", [LAYOUT]
                ).fetchall()
                row = rows[0] if rows else None
            # no state table yet, or not a database file (a cache: fall back, rebuilt later)
            except (duckdb.Error, WarehouseCorrupt):
                row = None
        yield (con, ServingState(*row)) if row else None


def read_served(warehouse: Warehouse, sql: str, params: dict | None = None) -> pl.DataFrame:
    """Run ``sql`` on the serving copy when there is one, else on the warehouse.

    ``sql`` may only read tables the copy holds; ``{latest}`` after offer, card_value or
    breakeven names its newest-row table in the copy (``card_value{latest}``), so the query
    must give the same rows on both: a newest-per-line QUALIFY over a table that already
    holds only the newest row of each line does."""
    return _read_served(warehouse, sql, params, _frame)


def read_served_records(
    warehouse: Warehouse, sql: str, params: dict | None = None
) -> list[dict[str, Any]]:
    """``read_served``'s rows as dicts (warehouse.store.db.records)."""
    return _read_served(warehouse, sql, params, records)


def _frame(con: duckdb.DuckDBPyConnection, sql: str, params: dict | None) -> pl.DataFrame:
    return con.sql(sql, params=params or None).pl()


def _read_served(
    warehouse: Warehouse,
    sql: str,
    params: dict | None,
    fetch: Callable[[duckdb.DuckDBPyConnection, str, dict | None], T],
) -> T:
    """``fetch`` of ``sql`` on the serving copy, or on the warehouse without one."""
    with serving_connection(warehouse) as served:
        if served is not None:
            return fetch(served[0], sql.format(latest="_latest"), params)
    with read_connection(warehouse) as con:
        return fetch(con, sql.format(latest=""), params)
