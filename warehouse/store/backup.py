"""Backup and restore of the warehouse file, and raw-page retention.

Backup (`gpuprice backup DIR`): a private in-memory DuckDB ATTACHes the warehouse READ_ONLY
(waiting, with bounded retry, while the pipeline holds the write lock) and copies every table,
view and constraint into a new file ``DIR/gpuprice.duckdb`` (``COPY FROM DATABASE``). A
read-only attach sees only committed transactions and keeps writers out until it is done, so
the copy is one consistent state even while the pipeline runs (the writer waits, it does not
fail: its own lock retry is longer). ``DIR/manifest.json`` lists every table's row count; the
copy is checked against it before the backup counts as made.

Restore (`gpuprice restore DIR`): checks the backup against its manifest, then, only while no
process holds the warehouse, moves the current file aside (``*.before-restore-<time>``) and
puts a copy of the backup in its place.

Retention (`[retention] raw_page_days`): the bodies of raw pages older than that are emptied
(``body = ''``, listed in ``raw_page_pruned``); the page's row and every parsed row stay.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import duckdb

from warehouse.store.config import current
from warehouse.store.db import (
    WarehouseMissing,
    attach_read_only,
    is_lock_conflict,
    utcnow,
    warehouse_exists,
    write_connection,
)
from warehouse.store.lake import is_lake, sql_string
from warehouse.store.serving import remove as remove_serving_copy
from warehouse.store.serving import serving_path

BACKUP_FILE = "gpuprice.duckdb"
MANIFEST = "manifest.json"


class BackupError(RuntimeError):
    """A backup or restore that cannot be done; the message says why."""


def _counts(con: duckdb.DuckDBPyConnection, catalog: str) -> dict[str, int]:
    tables = con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_catalog = ? "
        "AND table_type = 'BASE TABLE' ORDER BY table_name",
        [catalog],
    ).fetchall()
    return {
        t: con.execute(f'SELECT count(*) FROM "{catalog}".main."{t}"').fetchone()[0]
        for (t,) in tables
    }


@dataclass(frozen=True, slots=True)
class BackupSummary:
    directory: Path
    tables: dict[str, int]
    seconds: float

    def line(self) -> str:
        rows = sum(self.tables.values())
        return (
            f"backup in {self.directory}: {len(self.tables)} tables, {rows} rows, "
            f"{self.seconds:.1f} s"
        )


def backup(path: Path, directory: Path, *, wait_s: float = 60.0) -> BackupSummary:
    if not warehouse_exists(path):
        raise WarehouseMissing(f"no warehouse at {path} yet: nothing to back up")
    target = directory / BACKUP_FILE
    if target.exists():
        raise BackupError(f"{target} exists already; back up into a new or empty directory")
    directory.mkdir(parents=True, exist_ok=True)
    partial = directory / (BACKUP_FILE + ".partial")
    partial.unlink(missing_ok=True)
    started = utcnow()
    con = duckdb.connect(":memory:")
    try:
        attach_read_only(con, path, wait_s=wait_s)
        con.execute(f"ATTACH {sql_string(str(partial))} AS backup")
        con.execute("COPY FROM DATABASE warehouse TO backup")
        source_counts = _counts(con, "warehouse")
        copied = _counts(con, "backup")
        con.execute("DETACH backup")
        con.execute("DETACH warehouse")
    finally:
        con.close()
    if copied != source_counts:
        partial.unlink(missing_ok=True)
        raise BackupError(f"the copy does not match the warehouse: {copied} vs {source_counts}")
    partial.rename(target)
    seconds = (utcnow() - started).total_seconds()
    manifest = {
        "created_at": started.isoformat(),
        "source": str(path),
        "tables": source_counts,
        "format": "duckdb file (COPY FROM DATABASE)",
    }
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return BackupSummary(directory, source_counts, seconds)


def verify(directory: Path) -> dict[str, int]:
    """The backup's table counts, checked against its manifest."""
    target, manifest_path = directory / BACKUP_FILE, directory / MANIFEST
    if not target.exists() or not manifest_path.exists():
        raise BackupError(f"{directory} holds no backup ({BACKUP_FILE} and {MANIFEST})")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    con = duckdb.connect(":memory:")
    try:
        con.execute(f"ATTACH {sql_string(str(target))} AS backup (READ_ONLY)")
        counts = _counts(con, "backup")
    finally:
        con.close()
    if counts != manifest["tables"]:
        raise BackupError(f"backup in {directory} does not match its manifest; not restoring")
    return counts


def restore(path: Path, directory: Path) -> Path | None:
    """Put the backup in place of the warehouse; returns where the old file went (or None).
    Refused while any process holds the warehouse, and for a DuckLake."""
    lake = current().lake
    if lake is not None:
        raise BackupError(
            f"the warehouse is the DuckLake {lake.describe()} (GPUPRICE_DUCKLAKE): restore its "
            "catalog database and data path with their own tools (pg_restore, the object "
            "store's versions); `gpuprice restore` replaces the DuckDB file only"
        )
    verify(directory)
    moved: Path | None = None
    if path.exists():
        try:
            probe = duckdb.connect(str(path))  # read-write: fails while anyone holds it
            probe.execute("CHECKPOINT")
            probe.close()
        except duckdb.IOException as exc:
            if is_lock_conflict(exc):
                raise BackupError(
                    f"warehouse {path} is in use; stop the pipeline and the dashboard "
                    "(`make up`) and restore again"
                ) from None
            raise
        stamp = utcnow().strftime("%Y%m%dT%H%M%S")
        moved = path.with_name(f"{path.name}.before-restore-{stamp}")
        path.rename(moved)
        wal = path.with_name(path.name + ".wal")
        if wal.exists():
            wal.rename(moved.with_name(moved.name + ".wal"))
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(path.name + ".restoring")
    shutil.copyfile(directory / BACKUP_FILE, staging)
    staging.replace(path)
    # The serving copy reflects the replaced warehouse: readers fall back to the restored
    # file until the next derive rebuilds the copy from it.
    remove_serving_copy(serving_path(path))
    return moved


@dataclass(frozen=True, slots=True)
class PruneSummary:
    pages: int
    bytes_freed: int
    before: datetime


def prune_raw_pages(path: Path, days: int, *, now: datetime | None = None) -> PruneSummary:
    """Empty the bodies of raw pages fetched more than ``days`` days ago; parsed rows and the
    pages' metadata stay."""
    before = (now or utcnow()) - timedelta(days=days)
    with write_connection(path) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute(
                "INSERT INTO raw_page_pruned SELECT page_id, ?, octet_length(body) FROM raw_page "
                "WHERE fetched_at < ? AND page_id NOT IN (SELECT page_id FROM raw_page_pruned)",
                [utcnow(), before],
            )
            pages, size = con.execute(
                "SELECT count(*), coalesce(sum(p.body_bytes), 0) FROM raw_page_pruned p "
                "JOIN raw_page r USING (page_id) WHERE octet_length(r.body) > 0"
            ).fetchone()
            con.execute(
                "UPDATE raw_page SET body = ''::BLOB WHERE octet_length(body) > 0 "
                "AND page_id IN (SELECT page_id FROM raw_page_pruned)"
            )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        # On the file a CHECKPOINT gives the emptied bodies' space back. On a DuckLake it is
        # maintenance (flushing inlined rows to Parquet drops the catalog tables that held
        # them), which other processes' attachments do not survive: DuckLake 1.5.5 then fails
        # their reads with "relation ducklake_inlined_data_… does not exist" (found by the
        # retention test on a lake). docs/SCALING.md says when to run it.
        if pages and not is_lake(con):
            con.execute("CHECKPOINT")
    return PruneSummary(pages, size, before)
