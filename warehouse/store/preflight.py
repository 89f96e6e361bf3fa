"""Before a long writer starts (a run, a backfill): the faults that would stop it part-way.

A run's steps write the warehouse in Dagster, which logs each failed step with its stack
trace: a read-only home printed 11 of them (issue 31). :func:`check_writable` finds the
storage faults first, as one :class:`~warehouse.store.faults.WarehouseFault` whose message
says what to do: the warehouse lost (its marker, warehouse.store.marker), a directory that
cannot be written, a disk without room, a damaged or truncated file, migrations that do not
fit the memory limit (it opens the writer, which migrates).
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from warehouse.store.db import write_connection
from warehouse.store.faults import corrupt, disk_full, fault_of
from warehouse.store.handle import Warehouse

# Room a run needs: its pages (at most 8 MB each, a few per source), their rows, DuckDB's WAL
# and the checkpoint that follows. Below this a write fails part-way in some step.
MIN_FREE_BYTES = 64 * 10**6
_HEADER_BYTES = 3 * 4096  # DuckDB's file header and its two database headers


def check_writable(warehouse: Warehouse, *, min_free: int = MIN_FREE_BYTES) -> None:
    """Raise the WarehouseFault a writer would meet; return when the warehouse can be
    written. On a DuckLake only the writer's open and migrations are checked."""
    with write_connection(warehouse) as con:
        if warehouse.lake is not None:
            return
        try:
            _whole(con, warehouse.path)
        except duckdb.Error as exc:  # a block that cannot be read
            fault = fault_of(exc, warehouse.path)
            if fault is None:
                raise
            raise fault from exc
    _room(warehouse.path.parent, min_free)


def _room(directory: Path, min_free: int) -> None:
    stat = os.statvfs(directory)
    free = stat.f_bavail * stat.f_frsize
    if free < min_free:
        raise disk_full(
            directory, f"{free / 1e6:.1f} MB free, a run needs at least {min_free / 1e6:.0f} MB"
        )


def _whole(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """A file cut short (a copy interrupted, a full disk while it was copied) opens, and
    fails only when a query reaches a block past its end: compare the end of the last block
    any table uses with the file's size."""
    block_size = con.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
    tables = [t for (t,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
    last = -1
    for table in tables:
        found = con.execute("SELECT max(block_id) FROM pragma_storage_info(?)", [table]).fetchone()[
            0
        ]
        last = max(last, found if found is not None else -1)
    needed = _HEADER_BYTES + (last + 1) * block_size
    size = path.stat().st_size
    if size < needed:
        raise corrupt(path, f"the file ends at byte {size:,}, its tables reach byte {needed:,}")
