"""Connections to the DuckDB warehouse file, and its migrations.

DuckDB allows one writing process or many reading ones, never both. So the
pipeline writes in short transactions, every reader opens read-only per query,
and both retry for a bounded time while the other side holds the lock.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import polars as pl
from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_random_exponential

from gpuprice.settings import duckdb_memory_limit

T = TypeVar("T")
MIGRATION_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


def utcnow() -> datetime:
    """Naive UTC, the warehouse's one time convention."""
    return datetime.now(UTC).replace(tzinfo=None)


class WarehouseMissing(FileNotFoundError):
    """No warehouse file yet: nothing has been loaded."""


class WarehouseBusy(RuntimeError):
    """The warehouse stayed locked by another process for longer than the retry budget."""

    @classmethod
    def waited(cls, path: Path, wait_s: float) -> WarehouseBusy:
        """The error a reader or the writer raises once its wait for the lock is spent."""
        return cls(
            f"warehouse {path} is locked by another process for more than {wait_s:.0f} s; "
            "try again when the running load finishes"
        )


def is_lock_conflict(exc: BaseException) -> bool:
    """DuckDB could not take the file's lock: another process holds it."""
    return isinstance(exc, duckdb.IOException) and "lock" in str(exc).lower()


def lock_retrying(wait_s: float) -> Retrying:
    """The one waiting policy for a file another process holds: jittered back-off, retried
    only on a lock conflict, for at most ``wait_s`` seconds, then the last error."""
    return Retrying(
        stop=stop_after_delay(wait_s),
        wait=wait_random_exponential(multiplier=0.05, max=1.0),
        retry=retry_if_exception(is_lock_conflict),
        reraise=True,
    )


def duckdb_config() -> dict[str, str]:
    """The settings every warehouse connection opens with (the same for readers and the
    writer: DuckDB refuses two connections to one file with different settings). A bad
    GPUPRICE_DUCKDB_MEMORY_LIMIT raises ConfigError (load_settings reports it at start)."""
    return {"memory_limit": duckdb_memory_limit()}


def _connect(path: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(path), read_only=read_only, config=duckdb_config())


def _open(path: Path, *, read_only: bool, wait_s: float) -> duckdb.DuckDBPyConnection:
    try:
        return lock_retrying(wait_s)(_connect, path, read_only)
    except duckdb.IOException as exc:
        if is_lock_conflict(exc):
            raise WarehouseBusy.waited(path, wait_s) from None
        raise


@contextmanager
def write_connection(path: Path, *, wait_s: float = 120.0) -> Iterator[duckdb.DuckDBPyConnection]:
    """The one writer: migrated on open, closed as soon as the block ends."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = _open(path, read_only=False, wait_s=wait_s)
    try:
        migrate(con)
        yield con
    finally:
        con.close()


@contextmanager
def read_connection(path: Path, *, wait_s: float = 15.0) -> Iterator[duckdb.DuckDBPyConnection]:
    if not path.exists():
        raise WarehouseMissing(f"no warehouse at {path} yet: run `gpuprice run` or `make up` first")
    con = _open(path, read_only=True, wait_s=wait_s)
    try:
        yield con
    finally:
        con.close()


def read_frame(
    path: Path, sql: str, params: list[Any] | dict[str, Any] | None = None, *, wait_s: float = 15.0
) -> pl.DataFrame:
    """Run one read-only query and return a Polars frame; the connection is closed at once."""
    with read_connection(path, wait_s=wait_s) as con:
        return con.sql(sql, params=params or None).pl()


# Tried in turn when a big one-off step (a derive backlog, a full serving copy) runs out
# of the configured limit; see with_more_memory.
LARGER_MEMORY_LIMITS = ("512MB", "2GB", "8GB")


def with_more_memory(con: duckdb.DuckDBPyConnection, step: Callable[[], T]) -> tuple[T, str | None]:
    """Run ``step`` (one transaction on ``con``, rolled back when it fails); when DuckDB runs
    out of memory, run it again with the next larger limit. Returns its result and the
    limit it needed (None: the configured one sufficed).

    An hourly run fits the configured limit many times over. A backlog (the first derive
    after a long backfill, a full recompute, a first serving copy of years of history)
    inserts every new row's primary-key entry in one transaction, and DuckDB cannot spill
    index entries that are not checkpointed yet."""
    for limit in (None, *LARGER_MEMORY_LIMITS):
        if limit is not None:
            con.execute(f"SET memory_limit = '{limit}'")
        try:
            return step(), limit
        except duckdb.OutOfMemoryException:
            if limit == LARGER_MEMORY_LIMITS[-1]:
                raise
    raise AssertionError("unreachable")


def drop_work_tables(con: duckdb.DuckDBPyConnection, *tables: str) -> None:
    """Drop temp work tables in a ``finally``. After a failed statement DuckDB refuses every
    statement of the aborted transaction; the caller's ROLLBACK removes the tables then, and
    the original error (not this one) must reach the caller."""
    for table in tables:
        try:
            con.execute(f"DROP TABLE IF EXISTS {table}")
        except duckdb.TransactionException:
            return


def migration_files() -> list[tuple[int, str, str]]:
    found = []
    for entry in resources.files("warehouse.migrations").iterdir():
        match = MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def migrate(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Apply the numbered migrations not yet applied, each in its own transaction."""
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_migration ("
        " version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)"
    )
    done = {row[0] for row in con.execute("SELECT version FROM schema_migration").fetchall()}
    applied = []
    for version, name, sql in migration_files():
        if version in done:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute(sql)
            con.execute("INSERT INTO schema_migration VALUES (?, ?, ?)", [version, name, utcnow()])
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
        applied.append(name)
    return applied
