"""Restore (`gpuprice restore DIR`): put a backup (warehouse.store.backup) in place of the
warehouse file so that, whatever moment the process dies at, there is a warehouse: the old
one or the restored one, never none.

Before issue 31 a restore moved the old file aside and then copied the backup in; a SIGKILL
in between left no warehouse, and the next run created an empty one (exit 0). Now, in order:

1. the backup is checked against its manifest (rows and content checksums), before anything
   in the home is touched;
2. the "in use" lease is taken exclusively (warehouse.store.lease): refused while a run or
   backfill holds it; then DuckDB's own lock is probed (a dashboard query, `make up`'s
   daemon) and the old file checkpointed, so that it needs no write-ahead log;
3. ``_stage``: the backup is copied beside the warehouse (``<file>.restoring``, same
   directory, so same file system) and flushed to disk;
4. ``_check``: the copy opens as DuckDB and holds the manifest's tables and row counts;
5. ``_keep_old``: the old file gets a second name, ``<file>.before-restore-<time>`` (a hard
   link: the warehouse keeps its name meanwhile);
6. ``_swap``: ``os.replace`` puts the copy in the warehouse's place, one atomic rename, and
   the directory is flushed;
7. ``_finish``: the marker (warehouse.store.marker) is written; the serving copy, which
   reflected the old file, was removed before the swap (a cache: readers fall back to the
   warehouse until the next derive rebuilds it).

A ``.restoring`` file a killed restore left is removed by the next restore. The test kills a
restore before each step (tests/warehouse/test_restore_steps.py).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import duckdb

from warehouse.store.backup import BACKUP_FILE, BackupError, table_counts, verify
from warehouse.store.db import is_lock_conflict, memory_connection, utcnow
from warehouse.store.faults import WarehouseCorrupt, fault_of
from warehouse.store.handle import Warehouse
from warehouse.store.lake import sql_string
from warehouse.store.lease import exclusive
from warehouse.store.marker import mark_created
from warehouse.store.serving import remove as remove_serving_copy
from warehouse.store.serving import serving_path


def restore(warehouse: Warehouse, directory: Path) -> Path | None:
    """Put the backup in ``directory`` in place of the warehouse; returns where the old file
    is kept (None when there was none). BackupError when the backup does not check out, the
    warehouse is a DuckLake or another process holds it; a WarehouseFault when the home
    cannot be written."""
    lake, path = warehouse.lake, warehouse.path
    if lake is not None:
        raise BackupError(
            f"the warehouse is the DuckLake {lake.describe()} (GPUPRICE_DUCKLAKE): restore its "
            "catalog database and data path with their own tools (pg_restore, the object "
            "store's versions); `gpuprice restore` replaces the DuckDB file only"
        )
    tables = verify(directory, memory_limit=warehouse.memory_limit)
    try:
        with exclusive(warehouse):
            _release(path)
            staging = _stage(directory / BACKUP_FILE, path)
            _check(staging, tables, warehouse.memory_limit)
            remove_serving_copy(serving_path(path))
            kept = _keep_old(path)
            _swap(staging, path)
            _finish(path)
            return kept
    except OSError as exc:
        fault = fault_of(exc, path)
        if fault is None:
            raise BackupError(f"cannot restore into {path}: {exc.strerror or exc}") from None
        raise fault from None


def _release(path: Path) -> None:
    """Fail while another process holds the file; checkpoint it (its log merged in, so the
    old file is whole on its own when it is kept)."""
    if not path.exists():
        return
    try:
        with duckdb.connect(str(path)) as probe:  # read-write: fails while anyone holds it
            probe.execute("CHECKPOINT")
    except duckdb.Error as exc:
        if is_lock_conflict(exc):
            raise BackupError(
                f"warehouse {path} is in use; stop the pipeline and the dashboard "
                "(`make up`) and restore again"
            ) from None
        fault = fault_of(exc, path)
        if fault is not None and not isinstance(fault, WarehouseCorrupt):
            raise fault from None  # a home that cannot be written, a full disk
        # The file does not open (damaged, say): that is when a restore is wanted; it is
        # kept aside below, not deleted.


def _stage(backup: Path, path: Path) -> Path:
    staging = path.with_name(path.name + ".restoring")
    staging.unlink(missing_ok=True)  # a killed restore's
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        shutil.copyfile(backup, staging)
        with staging.open("rb") as copied:
            os.fsync(copied.fileno())
    except BaseException:
        staging.unlink(missing_ok=True)
        raise
    return staging


def _check(staging: Path, tables: dict[str, int], memory_limit: str) -> None:
    """The staged copy opens and holds the backup's tables with their rows (counts read
    from its metadata: the contents were checked in the backup itself)."""
    con = memory_connection(memory_limit, None)
    try:
        con.execute(f"ATTACH {sql_string(str(staging))} AS backup (READ_ONLY)")
        found = table_counts(con, "backup")
    except duckdb.Error as exc:
        found = str(exc).splitlines()[0]
    finally:
        con.close()
    if found != tables:
        staging.unlink(missing_ok=True)
        raise BackupError(
            f"the copy of the backup beside the warehouse ({staging}) does not match the "
            f"backup ({json.dumps(found)[:200]}); the warehouse is unchanged; not restoring"
        )


def _keep_old(path: Path) -> Path | None:
    """The old file under a second name (the one a restore killed after this step gave it,
    if any); its write-ahead log (only left when it did not open) moves with it."""
    if not path.exists():
        return None
    earlier = [p for p in path.parent.glob(f"{path.name}.before-restore-*") if p.suffix != ".wal"]
    kept = next((p for p in earlier if p.samefile(path)), None)
    if kept is None:
        stamp = f"{path.name}.before-restore-{utcnow():%Y%m%dT%H%M%S}"
        kept = path.with_name(stamp)
        for n in range(2, 100):  # two restores in one second
            if not kept.exists():
                break
            kept = path.with_name(f"{stamp}-{n}")
        try:
            os.link(path, kept)
        except OSError:  # a file system without hard links: a copy; the original stays
            shutil.copyfile(path, kept)
    wal = path.with_name(path.name + ".wal")
    if wal.exists():
        wal.rename(kept.with_name(kept.name + ".wal"))
    return kept


def _swap(staging: Path, path: Path) -> None:
    os.replace(staging, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)  # the rename itself on disk
    finally:
        os.close(directory)


def _finish(path: Path) -> None:
    mark_created(path)
