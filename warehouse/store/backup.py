"""Backup and restore of the warehouse file, and raw-page retention.

Backup (`gpuprice backup DIR`): a private in-memory DuckDB ATTACHes the warehouse READ_ONLY
(waiting, with bounded retry, while the pipeline holds the write lock) and copies every table,
view and constraint into a new file ``DIR/gpuprice.duckdb`` (``COPY FROM DATABASE``). A
read-only attach sees only committed transactions and keeps writers out until it is done, so
the copy is one consistent state even while the pipeline runs (the writer waits, it does not
fail: its own lock retry is longer). The copy's row counts are checked against the warehouse,
then ``DIR/manifest.json`` records every table's row count and a checksum of its contents.

Restore (`gpuprice restore DIR`): checks the backup against its manifest (counts and content
checksums, naming any table that differs), then, only while no process holds the warehouse,
moves the current file aside (``*.before-restore-<time>``) and puts a copy of the backup in
its place. A manifest without checksums (made before they existed) is refused: its contents
cannot be verified, so the message asks for a new backup.

Retention (`[retention] raw_page_days`): the bodies of raw pages older than that are emptied
(``body = ''``, listed in ``raw_page_pruned``); the page's row and every parsed row stay.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb

from warehouse.store.config import DEFAULT_MEMORY_LIMIT
from warehouse.store.db import (
    WarehouseMissing,
    attach_read_only,
    is_lock_conflict,
    memory_connection,
    utcnow,
    warehouse_exists,
    write_connection,
)
from warehouse.store.handle import Warehouse
from warehouse.store.lake import is_lake, sql_string
from warehouse.store.serving import remove as remove_serving_copy
from warehouse.store.serving import serving_path

BACKUP_FILE = "gpuprice.duckdb"
MANIFEST = "manifest.json"
# A table's checksum: the sum over its rows of the first 64 bits of md5(the row as text).
# Every column's value is in the row's text, so changing any value changes that row's md5, and
# so the sum (a sum, not an XOR, so two equal rows do not cancel out; order-independent, so no
# key or sort is needed). An accidental change that keeps the sum has a chance of 2^-64. It
# detects damage and edits of the file, not someone who rewrites the manifest too. md5 of the
# text, not DuckDB's hash(): text casts are stabler across DuckDB versions than hash().
CHECKSUM = "sum of the first 64 bits of md5(row::VARCHAR) over the table's rows"
_ROW_DIGEST = "('0x' || left(md5(t::VARCHAR), 16))::UBIGINT"


class BackupError(RuntimeError):
    """A backup or restore that cannot be done; the message says why."""


def _tables(con: duckdb.DuckDBPyConnection, catalog: str) -> list[str]:
    return [
        t
        for (t,) in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_catalog = ? "
            "AND table_type = 'BASE TABLE' ORDER BY table_name",
            [catalog],
        ).fetchall()
    ]


def _counts(con: duckdb.DuckDBPyConnection, catalog: str) -> dict[str, int]:
    return {
        t: con.execute(f'SELECT count(*) FROM "{catalog}".main."{t}"').fetchone()[0]
        for t in _tables(con, catalog)
    }


def _contents(con: duckdb.DuckDBPyConnection, catalog: str) -> dict[str, tuple[int, str]]:
    """Each table's row count and content checksum (see CHECKSUM), in one scan per table."""
    found = {}
    for t in _tables(con, catalog):
        rows, total = con.execute(
            f"SELECT count(*), coalesce(sum({_ROW_DIGEST}), 0)::VARCHAR "
            f'FROM "{catalog}".main."{t}" AS t'
        ).fetchone()
        found[t] = (rows, total)
    return found


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


def backup(warehouse: Warehouse, directory: Path, *, wait_s: float = 60.0) -> BackupSummary:
    if not warehouse_exists(warehouse):
        raise WarehouseMissing(f"no warehouse at {warehouse.path} yet: nothing to back up")
    if directory.exists() and not directory.is_dir():
        raise BackupError(f"{directory} is a file; back up into a new or empty directory")
    target = directory / BACKUP_FILE
    if target.exists():
        raise BackupError(f"{target} exists already; back up into a new or empty directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BackupError(
            f"cannot create the backup directory {directory}: {exc.strerror or exc}; give a "
            "directory you can write to"
        ) from None
    partial = directory / (BACKUP_FILE + ".partial")
    partial.unlink(missing_ok=True)
    started = utcnow()
    # under the warehouse's memory limit
    con = memory_connection(warehouse.memory_limit, directory / ".duckdb-backup.tmp")
    try:
        attach_read_only(con, warehouse, wait_s=wait_s)
        con.execute(f"ATTACH {sql_string(str(partial))} AS backup")
        con.execute("COPY FROM DATABASE warehouse TO backup")
        source_counts = _counts(con, "warehouse")
        con.execute("DETACH warehouse")  # the pipeline's writer may go on from here
        contents = _contents(con, "backup")
        con.execute("DETACH backup")
    except duckdb.Error as exc:  # the directory not writable, the disk full
        partial.unlink(missing_ok=True)
        raise BackupError(f"backup into {directory} failed: {exc}") from None
    finally:
        con.close()
    copied = {t: rows for t, (rows, _) in contents.items()}
    if copied != source_counts:
        partial.unlink(missing_ok=True)
        raise BackupError(f"the copy does not match the warehouse: {copied} vs {source_counts}")
    seconds = (utcnow() - started).total_seconds()
    manifest = {
        "created_at": started.isoformat(),
        "source": str(warehouse.path),
        "tables": source_counts,
        "checksums": {t: total for t, (_, total) in contents.items()},
        "checksum": CHECKSUM,
        "duckdb": duckdb.__version__,
        "format": "duckdb file (COPY FROM DATABASE)",
    }
    try:
        (directory / (MANIFEST + ".partial")).write_text(
            json.dumps(manifest, indent=2), encoding="utf-8"
        )
        partial.rename(target)
        (directory / (MANIFEST + ".partial")).rename(directory / MANIFEST)
    except OSError as exc:
        raise BackupError(f"backup into {directory} failed: {exc.strerror or exc}") from None
    return BackupSummary(directory, source_counts, seconds)


def _manifest(directory: Path) -> dict[str, Any]:
    """The manifest's table counts and checksums; BackupError if it is not a manifest of a
    backup whose contents can be checked."""
    path = directory / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # unreadable, not UTF-8, not JSON
        raise BackupError(f"{path} is not a backup manifest ({exc}); not restoring") from None
    tables = manifest.get("tables") if isinstance(manifest, dict) else None
    if not isinstance(tables, dict):
        raise BackupError(f"{path} lists no tables: not a backup manifest; not restoring")
    if "checksums" not in manifest:
        raise BackupError(
            f"the backup in {directory} has row counts but no content checksums (it was made "
            "before backups carried them), so its contents cannot be verified: take a new "
            "backup with `gpuprice backup`; not restoring"
        )
    if not isinstance(manifest["checksums"], dict):
        raise BackupError(f"{path}: checksums is not a table of checksums; not restoring")
    return manifest


def verify(directory: Path, *, memory_limit: str = DEFAULT_MEMORY_LIMIT) -> dict[str, int]:
    """The backup's table counts, checked with its contents against its manifest; BackupError
    naming every table that differs. ``memory_limit``: the restored warehouse's."""
    target, manifest_path = directory / BACKUP_FILE, directory / MANIFEST
    if not target.is_file() or not manifest_path.is_file():
        raise BackupError(f"{directory} holds no backup ({BACKUP_FILE} and {MANIFEST})")
    manifest = _manifest(directory)
    con = memory_connection(memory_limit, directory / ".duckdb-backup.tmp")
    try:
        con.execute(f"ATTACH {sql_string(str(target))} AS backup (READ_ONLY)")
        contents = _contents(con, "backup")
    except duckdb.Error as exc:
        raise BackupError(
            f"{target} is not a readable DuckDB file ({exc}); not restoring"
        ) from None
    finally:
        con.close()
    problems = _differences(contents, manifest["tables"], manifest["checksums"])
    if problems:
        made_with = manifest.get("duckdb")
        note = (
            f" (the backup was made with DuckDB {made_with}, this is {duckdb.__version__})"
            if made_with and made_with != duckdb.__version__
            else ""
        )
        raise BackupError(
            f"backup in {directory} does not match its manifest: {'; '.join(problems)}{note}; "
            "it was changed or damaged since it was made: not restoring"
        )
    return {t: rows for t, (rows, _) in contents.items()}


def _differences(
    contents: dict[str, tuple[int, str]], counts: dict[str, Any], checksums: dict[str, Any]
) -> list[str]:
    problems = [f"table {t} is missing" for t in sorted(counts.keys() - contents.keys())]
    problems += [f"table {t} is not in the manifest" for t in sorted(contents.keys() - counts)]
    for t in sorted(contents.keys() & counts.keys()):
        rows, total = contents[t]
        if rows != counts[t]:
            problems.append(f"table {t} has {rows} rows, the manifest says {counts[t]}")
        elif total != checksums.get(t):
            problems.append(f"table {t}: its contents differ (checksum)")
    return problems


def restore(warehouse: Warehouse, directory: Path) -> Path | None:
    """Put the backup in place of the warehouse; returns where the old file went (or None).
    Refused while any process holds the warehouse, and for a DuckLake."""
    lake, path = warehouse.lake, warehouse.path
    if lake is not None:
        raise BackupError(
            f"the warehouse is the DuckLake {lake.describe()} (GPUPRICE_DUCKLAKE): restore its "
            "catalog database and data path with their own tools (pg_restore, the object "
            "store's versions); `gpuprice restore` replaces the DuckDB file only"
        )
    verify(directory, memory_limit=warehouse.memory_limit)
    moved: Path | None = None
    if path.exists():
        try:
            with duckdb.connect(str(path)) as probe:  # read-write: fails while anyone holds it
                probe.execute("CHECKPOINT")
        except duckdb.Error as exc:
            if isinstance(exc, duckdb.IOException) and is_lock_conflict(exc):
                raise BackupError(
                    f"warehouse {path} is in use; stop the pipeline and the dashboard "
                    "(`make up`) and restore again"
                ) from None
            # Not a lock: the file does not open (damaged, say), which is when a restore is
            # wanted; it is moved aside below, not deleted.
        stamp = utcnow().strftime("%Y%m%dT%H%M%S")
        moved = path.with_name(f"{path.name}.before-restore-{stamp}")
        path.rename(moved)
        wal = path.with_name(path.name + ".wal")
        if wal.exists():
            wal.rename(moved.with_name(moved.name + ".wal"))
    staging = path.with_name(path.name + ".restoring")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(directory / BACKUP_FILE, staging)
        staging.replace(path)
    except OSError as exc:
        staging.unlink(missing_ok=True)
        kept = f"; the previous warehouse is kept as {moved}" if moved else ""
        raise BackupError(f"cannot write {path}: {exc.strerror or exc}{kept}") from None
    # The serving copy reflects the replaced warehouse: readers fall back to the restored
    # file until the next derive rebuilds the copy from it.
    remove_serving_copy(serving_path(path))
    return moved


@dataclass(frozen=True, slots=True)
class PruneSummary:
    pages: int
    bytes_freed: int
    before: datetime


def prune_raw_pages(
    warehouse: Warehouse, days: int, *, now: datetime | None = None
) -> PruneSummary:
    """Empty the bodies of raw pages fetched more than ``days`` days ago; parsed rows and the
    pages' metadata stay."""
    before = (now or utcnow()) - timedelta(days=days)
    with write_connection(warehouse) as con:
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
