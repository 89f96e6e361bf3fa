"""Small read helpers shared by the pipeline's metadata and the health views."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from warehouse.store.db import read_connection
from warehouse.store.handle import Warehouse

TABLES_WITH_TIME = {"offer": "observed_at", "spot_quote": "observed_at", "raw_page": "fetched_at"}


def table_stats(warehouse: Warehouse, table: str) -> dict[str, int | str]:
    if table not in TABLES_WITH_TIME:
        raise ValueError(f"no stats for table {table!r}; known: {sorted(TABLES_WITH_TIME)}")
    column = TABLES_WITH_TIME[table]
    with read_connection(warehouse) as con:
        rows, latest, simulated = con.execute(
            f"SELECT count(*), max({column}), count(*) FILTER (WHERE simulated) FROM {table}"
        ).fetchone()
    return {
        "rows": int(rows),
        "simulated_rows": int(simulated),
        f"latest_{column}_utc": str(latest) if latest else "none",
    }


# Each source's runs in one profile ($profile; NULL: every profile), judged by the day their
# data is about, not by when they were loaded: a backfill or the first start's seeding loads
# past days after today's live run, and the newest *load* is then a day older than the newest
# *data* (a seeded demo day that failed on purpose read as the source's latest run after a
# live success). ``about`` is the day asked for when it was a past day (as_of), else when the
# run started: the observation warehouse.ingest.drift judges a parser on; ``how``: live (a
# scheduled or `gpuprice run`) or backfill (a day asked for: `gpuprice backfill`, seeding).
SOURCE_RUNS = """
    WITH runs AS (
        SELECT source, status, rows, reason, error, finished_at,
               CASE WHEN as_of IS NOT NULL AND as_of < CAST(started_at AS DATE)
                    THEN CAST(as_of AS TIMESTAMP) ELSE started_at END AS about,
               CASE WHEN as_of IS NULL THEN 'live' ELSE 'backfill' END AS how
        FROM scrape_run WHERE $profile IS NULL OR profile = $profile
    ), newest AS (
        SELECT source, about AS last_run_at, finished_at AS last_run_loaded_at,
               how AS last_run_how, status AS last_status, rows AS last_rows,
               reason AS last_reason, error AS last_error
        FROM runs
        QUALIFY row_number() OVER (PARTITION BY source ORDER BY about DESC, finished_at DESC) = 1
    ), success AS (
        SELECT source, about AS last_ok_at, finished_at AS last_ok_loaded_at, how AS last_ok_how
        FROM runs WHERE status = 'ok'
        QUALIFY row_number() OVER (PARTITION BY source ORDER BY about DESC, finished_at DESC) = 1
    ), counts AS (
        SELECT source, count(*) AS runs,
               count(*) FILTER (WHERE status = 'failed') AS failed_runs,
               count(*) FILTER (WHERE status = 'partial') AS partial_runs
        FROM runs GROUP BY source
    )
    SELECT c.source, s.last_ok_at, s.last_ok_loaded_at, s.last_ok_how,
           n.last_run_at, n.last_run_loaded_at, n.last_run_how, n.last_status, n.last_rows,
           n.last_reason, n.last_error, c.runs, c.failed_runs, c.partial_runs
    FROM counts c JOIN newest n USING (source) LEFT JOIN success s USING (source)
    ORDER BY c.source
"""


@dataclass(frozen=True, slots=True)
class LastRun:
    """A source's newest data (naive UTC): ``about`` the moment its data is about, ``loaded``
    when it was loaded, ``how`` live or backfill, how it ended and its rows; and its newest
    success (``ok_*``, None when it never loaded whole)."""

    about: datetime
    loaded: datetime
    how: str
    status: str
    rows: int
    reason: str | None
    error: str | None
    ok_about: datetime | None = None
    ok_loaded: datetime | None = None
    ok_how: str | None = None


def last_runs(warehouse: Warehouse, profile: str, *, wait_s: float = 15.0) -> dict[str, LastRun]:
    """Per source, its newest data in ``profile`` by the day it is about, and its newest
    success (``gpuprice sources``); read-only. ``WarehouseMissing`` when there is no
    warehouse yet, ``WarehouseBusy`` when a writer holds it longer than ``wait_s``."""
    with read_connection(warehouse, wait_s=wait_s) as con:
        found = con.execute(SOURCE_RUNS, {"profile": profile}).fetchall()
    return {
        source: LastRun(run_at, loaded, how, status, rows, reason, error, ok_at, ok_loaded, ok_how)
        for (source, ok_at, ok_loaded, ok_how, run_at, loaded, how, status, rows, reason, error,
             *_counts) in found
    }  # fmt: skip
