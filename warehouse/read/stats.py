"""Small read helpers shared by the pipeline's metadata and the health views."""

from __future__ import annotations

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
