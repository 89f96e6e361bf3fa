"""Working within DuckDB's memory limit (``GPUPRICE_DUCKDB_MEMORY_LIMIT``, 128MB by default).

Two ways, for two kinds of work:

- :func:`with_more_memory`: a one-off step that must be one transaction (a derive backlog, a
  full serving copy, a migration's DDL) runs again with a larger limit when it runs out.
- :func:`in_slices`: work that can be split by rows (copying a table into a backup or into
  its rebuilt self, checksumming it) runs over slices of rowids, halved when one does not
  fit. DuckDB reads a table in vectors of 2,048 rows whatever the query, so 2,048 archived
  pages of 100 KB are one 200 MB allocation, more than the default limit on their own; and
  a transaction that inserts millions of rows keeps every new primary-key entry in memory
  until it commits (DuckDB cannot spill index entries that are not checkpointed yet). At
  1 M offers the unsliced rebuild of migration 007 ended in a DuckDB FATAL error at commit
  ("database invalidated", issue 31), which no retry can catch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import duckdb

T = TypeVar("T")

# Tried in turn when a big one-off step (a derive backlog, a full serving copy) runs out
# of the configured limit; see with_more_memory.
LARGER_MEMORY_LIMITS = ("512MB", "2GB", "8GB")

# Rows in a slice at first: 65,536 offers take ~20 MB of index and row data, which fits the
# 64MB minimum limit; wider rows halve it until a slice fits.
FIRST_SLICE_ROWS = 65_536


def with_more_memory(
    con: duckdb.DuckDBPyConnection, step: Callable[[], T], *, configured: str
) -> tuple[T, str | None]:
    """Run ``step`` (one transaction on ``con``, rolled back when it fails); when DuckDB runs
    out of memory, run it again with the next larger limit. Returns its result and the
    limit it needed (None: ``configured``, the warehouse's own limit, sufficed); the last
    ``OutOfMemoryException`` when even the largest is not enough.

    An hourly run fits the configured limit many times over. A backlog (the first derive
    after a long backfill, a full recompute, a first serving copy of years of history)
    inserts every new row's primary-key entry in one transaction, and DuckDB cannot spill
    index entries that are not checkpointed yet.

    The configured limit is set back afterwards: the setting belongs to the database
    instance, which a PostgreSQL-catalog lake's attachment keeps for the process's life."""
    limits = (None, *LARGER_MEMORY_LIMITS)
    raised = False
    try:
        for n, limit in enumerate(limits):
            if limit is not None:
                con.execute(f"SET memory_limit = '{limit}'")
                raised = True
            try:
                return step(), limit
            except duckdb.Error as exc:
                if n == len(limits) - 1 or not is_out_of_memory(exc):
                    raise
        raise AssertionError("unreachable")
    finally:
        if raised:
            con.execute(f"SET memory_limit = '{configured}'")


def is_out_of_memory(exc: BaseException) -> bool:
    """DuckDB ran out of memory: in a statement, or while committing (a TransactionException
    "Failed to commit: could not allocate", after which no transaction is open)."""
    if isinstance(exc, duckdb.OutOfMemoryException):
        return True
    return isinstance(exc, duckdb.TransactionException) and "could not allocate" in str(exc)


def current_limit(con: duckdb.DuckDBPyConnection) -> str:
    """The connection's memory limit as DuckDB states it (``122.0 MiB``), which SET takes."""
    return con.execute("SELECT current_setting('memory_limit')").fetchone()[0]


def in_slices(
    con: duckdb.DuckDBPyConnection,
    relation: str,
    work: Callable[[str], None],
    *,
    rows: int = FIRST_SLICE_ROWS,
) -> int:
    """Call ``work(where)`` for consecutive slices that together cover every row of
    ``relation`` (a table name as SQL), ``where`` a condition on its ``rowid``. ``work``
    must leave nothing behind when it raises (one statement, or a transaction it rolls
    back): a slice that runs out of memory is halved and done again, and a single row that
    does not fit raises DuckDB's error. Returns the slices done."""
    last = con.execute(f"SELECT max(rowid) FROM {relation}").fetchone()[0]
    start, done = 0, 0
    while last is not None and start <= last:
        try:
            work(f"rowid >= {start} AND rowid < {start + rows}")
        except duckdb.Error as exc:
            if rows == 1 or not is_out_of_memory(exc):
                raise
            rows //= 2
            continue
        start += rows
        done += 1
    return done
