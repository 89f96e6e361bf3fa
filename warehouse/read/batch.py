"""Several read queries in one read-only connection.

A page that needs five tables of the warehouse opened the file five times, and while the
pipeline writes (the first start's history seeding) each open waited for the writer's lock
on its own: five waits for one page. Here the page waits once, and opens the file (~150 ms
at five years of history) once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb
import polars as pl

from warehouse.store.db import read_connection
from warehouse.store.handle import Warehouse

Query = tuple[str, Mapping[str, Any] | None]
# As warehouse.store.db.read_connection waits by default; a page's first render passes less.
WAIT_S = 15.0


def read_frames(
    warehouse: Warehouse,
    queries: Mapping[str, Query],
    optional: tuple[str, ...] = (),
    *,
    wait_s: float = WAIT_S,
) -> dict[str, pl.DataFrame | None]:
    """Each of ``queries`` (name: (sql, params)) as a frame, read in one connection, waiting
    up to ``wait_s`` for a writer's lock. A query named in ``optional`` whose table the
    warehouse lacks (a migration not applied yet) gives None; any other error is raised as
    reading it alone would."""
    found: dict[str, pl.DataFrame | None] = {}
    with read_connection(warehouse, wait_s=wait_s) as con:
        for name, (sql, params) in queries.items():
            try:
                found[name] = con.sql(sql, params=dict(params) if params else None).pl()
            except duckdb.CatalogException:
                if name not in optional:
                    raise
                found[name] = None
    return found
