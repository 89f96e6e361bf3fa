"""Connections to the warehouse, and its migrations.

The warehouse is the DuckDB file ``$GPUPRICE_HOME/gpuprice.duckdb``, or a DuckLake when
``GPUPRICE_DUCKLAKE`` is set (warehouse.store.lake); every function here takes the
:class:`~warehouse.store.handle.Warehouse` handle that says which, and how it opens. DuckDB allows one writing process or many reading
ones, never both. So the pipeline writes in short transactions, every reader opens
read-only per query, and both retry for a bounded time while the other side holds the lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_random_exponential

from warehouse.store import lake as ducklake
from warehouse.store.config import LakeTarget
from warehouse.store.faults import fault_of
from warehouse.store.handle import Warehouse
from warehouse.store.marker import lost, mark_created, marker_path, refuse_if_lost
from warehouse.store.memory import LARGER_MEMORY_LIMITS, with_more_memory
from warehouse.store.migrating import migrate
from warehouse.store.migrations import migration_files

# Polars is imported by DuckDB's .pl() when a frame is asked for: a command that reads
# records (gpuprice recommend) never pays for it.
if TYPE_CHECKING:
    import polars as pl

# re-exported: callers and tests import them from here
__all__ = ["LARGER_MEMORY_LIMITS", "migrate", "migration_files", "with_more_memory"]


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


class WarehouseUnreachable(WarehouseBusy):
    """The warehouse cannot be opened at all (a DuckLake whose extension will not load or
    whose catalog does not answer). A WarehouseBusy so that every command and page that
    handles a busy warehouse shows this message, which says what to fix, and exits."""


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


def duckdb_config(warehouse: Warehouse) -> dict[str, str]:
    """The settings every connection to ``warehouse`` opens with (the same for readers and
    the writer: DuckDB refuses two connections to one file with different settings).

    No checkpoint vacuum: DuckDB 2.0.1's vacuum merges the small row groups that many commits
    of archived page bodies leave, and at the default 128MB it ran out of memory mid-checkpoint
    and invalidated the database (FATAL) after about 2,000 pages of 100 KB, about 500 at
    32MB; the writer then failed every later step. Without it the warehouse keeps the space
    of deleted rows (derive's replaced rows, the emptied serving outbox) until a later
    checkpoint rewrites their row group: a slower-growing file, not a lost one."""
    return {"memory_limit": warehouse.memory_limit, "max_vacuum_tasks": "0"}


def _connect(warehouse: Warehouse, read_only: bool) -> duckdb.DuckDBPyConnection:
    lake = warehouse.lake
    if lake is None:
        config = duckdb_config(warehouse)
        return duckdb.connect(str(warehouse.path), read_only=read_only, config=config)
    if lake.postgres:
        con = _lake_instance(warehouse, read_only).cursor()
    else:
        con = _attach_lake(warehouse, read_only)
    con.execute(f"USE {ducklake.ALIAS}")
    return con


def memory_connection(
    memory_limit: str, spill_to: Path | None, **settings: str | bool
) -> duckdb.DuckDBPyConnection:
    """A private in-memory DuckDB under ``memory_limit`` (a warehouse's), for work that
    ATTACHes the warehouse (a DuckLake's attachment, the SQL sandbox, backup). ``spill_to``:
    the directory it spills to beyond the limit (an in-memory database would spill to ./.tmp,
    wherever the process runs); None: it never spills, and what does not fit fails with
    ``duckdb.OutOfMemoryException``. ``settings``: more DuckDB settings."""
    config: dict[str, str | bool] = {"memory_limit": memory_limit, **settings}
    config["temp_directory"] = "" if spill_to is None else str(spill_to)
    return duckdb.connect(":memory:", config=config)


def _attach_lake(warehouse: Warehouse, read_only: bool) -> duckdb.DuckDBPyConnection:
    lake = warehouse.lake
    assert lake is not None
    con = memory_connection(warehouse.memory_limit, warehouse.path.parent / ".duckdb-lake.tmp")
    try:
        ducklake.attach(con, lake, read_only=read_only)
    except BaseException:
        con.close()
        raise
    return con


# This process's attachments of a PostgreSQL-catalog lake, one read-only and one read-write,
# each connection a cursor on them. Loading the extensions and ATTACHing cost ~0.5 s here
# (docs/SCALING.md), more than most queries, and such a lake holds no lock while attached.
# A DuckDB-file catalog is attached per connection instead: an attachment holds its lock.
_LAKES: dict[tuple[Warehouse, bool], duckdb.DuckDBPyConnection] = {}
_LAKES_LOCK = threading.Lock()


def _lake_instance(warehouse: Warehouse, read_only: bool) -> duckdb.DuckDBPyConnection:
    with _LAKES_LOCK:
        for key in [k for k in _LAKES if k[0] != warehouse]:  # another handle: let go
            _LAKES.pop(key).close()
        if (warehouse, read_only) not in _LAKES:
            _LAKES[warehouse, read_only] = _attach_lake(warehouse, read_only)
        return _LAKES[warehouse, read_only]


def warehouse_exists(warehouse: Warehouse) -> bool:
    """Whether there is a warehouse to read: the file, or a DuckLake (whose tables
    :func:`read_connection` checks when it opens it)."""
    return warehouse.lake is not None or warehouse.path.exists()


@contextmanager
def _as_warehouse_errors(
    path: Path, wait_s: float, *, keep: tuple[type[Exception], ...] = ()
) -> Iterator[None]:
    """What opening or attaching the warehouse raises, as the product's errors: a lake that
    cannot be reached, a file another process still holds after ``wait_s``, a damaged file,
    a directory that cannot be written, a full disk (warehouse.store.faults). ``keep``:
    raised as they are (for the caller to say better)."""
    try:
        yield
    except keep:
        raise
    except ducklake.LakeUnavailable as exc:
        raise WarehouseUnreachable(str(exc)) from None
    except (duckdb.Error, OSError) as exc:
        if is_lock_conflict(exc):
            raise WarehouseBusy.waited(path, wait_s) from None
        fault = fault_of(exc, path)
        if fault is None:
            raise
        raise fault from exc


def _open(warehouse: Warehouse, *, read_only: bool, wait_s: float) -> duckdb.DuckDBPyConnection:
    # LakeNotCreated kept: read_connection says "nothing loaded yet"
    with _as_warehouse_errors(warehouse.path, wait_s, keep=(ducklake.LakeNotCreated,)):
        return lock_retrying(wait_s)(_connect, warehouse, read_only)


def attach_read_only(
    con: duckdb.DuckDBPyConnection, warehouse: Warehouse, *, wait_s: float
) -> None:
    """Attach the warehouse read-only as ``warehouse`` on a private in-memory connection
    (backup, the SQL sandbox), waiting up to ``wait_s`` while a writer holds it."""
    lake = warehouse.lake
    with _as_warehouse_errors(warehouse.path, wait_s):
        if lake is None:
            where = ducklake.sql_string(str(warehouse.path))
            statement = f"ATTACH {where} AS warehouse (READ_ONLY)"
            lock_retrying(wait_s)(con.execute, statement)
        else:
            lock_retrying(wait_s)(ducklake.attach, con, lake, read_only=True)


@contextmanager
def write_connection(
    warehouse: Warehouse, *, wait_s: float = 120.0
) -> Iterator[duckdb.DuckDBPyConnection]:
    """The one writer: migrated on open, closed as soon as the block ends. A file whose
    marker says it existed and that is gone, or has no tables, is refused (WarehouseLost),
    never created again empty (warehouse.store.marker)."""
    lake = warehouse.lake
    with ExitStack() as held:
        if lake is None:
            refuse_if_lost(warehouse.path)
            with _as_warehouse_errors(warehouse.path, wait_s):
                warehouse.path.parent.mkdir(parents=True, exist_ok=True)
        else:
            try:
                held.enter_context(ducklake.writer_lock(lake, wait_s))
            except ducklake.LakeBusy as exc:
                raise WarehouseBusy(str(exc)) from None
            except ducklake.LakeUnavailable as exc:
                raise WarehouseUnreachable(str(exc)) from None
        con = _open(warehouse, read_only=False, wait_s=wait_s)
        try:
            with _as_warehouse_errors(warehouse.path, wait_s):
                _migrate_file(con, warehouse)
            yield con
        finally:
            con.close()


def _migrate_file(con: duckdb.DuckDBPyConnection, warehouse: Warehouse) -> None:
    """Migrate the warehouse just opened for writing; a file is marked as created once it
    holds the tables, and a table-less one where the marker says a warehouse was is refused."""
    if warehouse.lake is not None:
        migrate(con, memory_limit=warehouse.memory_limit)
        return
    if not _migrated(con) and marker_path(warehouse.path).exists():
        raise lost(warehouse.path, "has no tables")
    migrate(con, memory_limit=warehouse.memory_limit)
    mark_created(warehouse.path)


@contextmanager
def read_connection(
    warehouse: Warehouse, *, wait_s: float = 15.0
) -> Iterator[duckdb.DuckDBPyConnection]:
    """Read-only (the serving copy beside each dashboard, a local file also when the
    warehouse is a DuckLake, is read through ``warehouse.local(path)``)."""
    lake, path = warehouse.lake, warehouse.path
    if lake is None and not path.exists():
        refuse_if_lost(path)
        raise WarehouseMissing(f"no warehouse at {path} yet: run `gpuprice run` or `make up` first")
    if lake is not None and not ducklake.catalog_exists(lake):
        raise _empty_lake(lake)
    try:
        con = _open(warehouse, read_only=True, wait_s=wait_s)
    except ducklake.LakeNotCreated:
        raise _empty_lake(lake) from None
    try:
        if lake is not None and not _migrated(con):
            raise _empty_lake(lake)
        yield con
    except duckdb.CatalogException:
        # a table not found: in a file that lost every table where one was kept, say so
        if lake is None and marker_path(path).exists() and not _tables_in(con):
            raise lost(path, "has no tables") from None
        raise
    finally:
        con.close()


def read_frame(
    warehouse: Warehouse,
    sql: str,
    params: list[Any] | dict[str, Any] | None = None,
    *,
    wait_s: float = 15.0,
) -> pl.DataFrame:
    """Run one read-only query and return a Polars frame; the connection is closed at once."""
    with read_connection(warehouse, wait_s=wait_s) as con:
        return con.sql(sql, params=params or None).pl()


def records(
    con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """``sql``'s rows as dicts, without Polars and PyArrow (0.17 s of imports a command that
    only walks a few rows, `gpuprice recommend`, need not pay)."""
    cursor = con.execute(sql, params or None)
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def read_records(
    warehouse: Warehouse, sql: str, params: list[Any] | dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """``read_frame``'s rows as dicts (``records``)."""
    with read_connection(warehouse) as con:
        return records(con, sql, params)


def drop_work_tables(con: duckdb.DuckDBPyConnection, *tables: str) -> None:
    """Drop temp work tables in a ``finally``. After a failed statement DuckDB refuses every
    statement of the aborted transaction; the caller's ROLLBACK removes the tables then, and
    the original error (not this one) must reach the caller."""
    for table in tables:
        try:
            con.execute(f"DROP TABLE IF EXISTS {table}")
        except duckdb.TransactionException:
            return


def _empty_lake(lake: LakeTarget | None) -> WarehouseMissing:
    where = lake.describe() if lake else "warehouse"
    return WarehouseMissing(
        f"the DuckLake {where} has no tables yet: run `gpuprice run` or `make up` first"
    )


def _tables_in(con: duckdb.DuckDBPyConnection) -> int:
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database()"
    )
    return found.fetchall()[0][0]


def _migrated(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether a writer made the warehouse's tables (a reader cannot open a file that was
    never written, but it can attach an empty lake, and a file can lose its tables)."""
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        "AND table_name = 'schema_migration'"
    )
    return found.fetchall()[0][0] > 0
