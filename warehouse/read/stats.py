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


@dataclass(frozen=True, slots=True)
class LastRun:
    """A source's newest scrape_run: when it finished (naive UTC), how it ended, its rows."""

    finished_at: datetime
    status: str
    rows: int
    reason: str | None
    error: str | None


def last_runs(warehouse: Warehouse, profile: str, *, wait_s: float = 15.0) -> dict[str, LastRun]:
    """Per source, its newest scrape_run in ``profile`` (``gpuprice sources``); read-only.
    ``WarehouseMissing`` when there is no warehouse yet, ``WarehouseBusy`` when a writer
    holds it longer than ``wait_s``."""
    with read_connection(warehouse, wait_s=wait_s) as con:
        found = con.execute(
            """
            SELECT source, finished_at, status, rows, reason, error FROM scrape_run
            WHERE profile = $profile
            QUALIFY row_number() OVER (PARTITION BY source ORDER BY finished_at DESC) = 1
            """,
            {"profile": profile},
        ).fetchall()
    return {source: LastRun(*rest) for source, *rest in found}
