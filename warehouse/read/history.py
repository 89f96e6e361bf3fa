"""What history the warehouse holds, and how it came in: the coverage of each source (real and
simulated days), and the history imports with their failures (migration 009). Read-only, one
query each (the dashboard's coverage and data-health pages, ``gpuprice sql`` users)."""

from __future__ import annotations

import polars as pl

from warehouse.store.db import read_frame
from warehouse.store.handle import Warehouse

__all__ = ["coverage", "coverage_weeks", "import_failures", "imports"]

# Every priced row once, with its day and whether a history import loaded it.
_ROWS = """
    WITH imported AS (SELECT run_id FROM history_capture WHERE status = 'ok'),
    rows AS (
        SELECT source, observed_at, simulated, run_id FROM offer
        UNION ALL
        SELECT source, observed_at, simulated, run_id FROM spot_quote
    ),
    days AS (
        SELECT source, observed_at::DATE AS day, simulated,
               count(*) AS n, bool_or(run_id IN (SELECT run_id FROM imported)) AS imported
        FROM rows GROUP BY ALL
    )
"""


def coverage(warehouse: Warehouse) -> pl.DataFrame:
    """Per source and kind of data (real, simulated): first and last day with a price, days
    with data, rows, and the days that came from a history import."""
    return read_frame(
        warehouse,
        _ROWS
        + """
        SELECT source, simulated, min(day) AS first_day, max(day) AS last_day,
               count(*) AS days, sum(n)::BIGINT AS rows,
               count(*) FILTER (WHERE imported) AS imported_days
        FROM days GROUP BY source, simulated ORDER BY source, simulated
        """,
    )


def coverage_weeks(warehouse: Warehouse) -> pl.DataFrame:
    """Per source, kind of data and ISO week (its Monday): the days with data in it."""
    return read_frame(
        warehouse,
        _ROWS
        + """
        SELECT source, simulated, date_trunc('week', day)::DATE AS week, count(*) AS days
        FROM days GROUP BY ALL ORDER BY source, simulated, week
        """,
    )


def imports(warehouse: Warehouse, limit: int = 100) -> pl.DataFrame:
    """The history imports, newest first: what, how many captures listed, kept, fetched,
    parsed and failed, rows added, the days covered, and the Dagster run."""
    return read_frame(
        warehouse,
        """
        SELECT started_at, kind, source, target, status, listed, kept, fetched, reused, parsed,
               failed, rows_added, first_observed::DATE AS first_day,
               last_observed::DATE AS last_day, fx_note, error, dagster_run_id, import_id
        FROM history_import ORDER BY started_at DESC LIMIT $limit
        """,
        {"limit": limit},
    )


def import_failures(warehouse: Warehouse, limit: int = 200) -> pl.DataFrame:
    """Captures a history import could not load, newest first, with their archive URL (the
    origin) and why; ``retry``: the next import tries them again."""
    return read_frame(
        warehouse,
        """
        SELECT loaded_at, kind, source, observed_at, origin, reason, error, retry, import_id
        FROM history_capture WHERE status = 'failed'
        ORDER BY loaded_at DESC, observed_at DESC LIMIT $limit
        """,
        {"limit": limit},
    )
