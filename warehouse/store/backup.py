"""Backup of the warehouse file, its verification, and raw-page retention.

Backup (`gpuprice backup DIR`): a private in-memory DuckDB ATTACHes the warehouse READ_ONLY
(waiting, with bounded retry, while the pipeline holds the write lock) and copies every table,
view and constraint into a new file ``DIR/gpuprice.duckdb`` (its schema with
``COPY FROM DATABASE … (SCHEMA)``, then the rows). A
read-only attach sees only committed transactions and keeps writers out until it is done, so
the copy is one consistent state even while the pipeline runs (the writer waits, it does not
fail: its own lock retry is longer). The copy's row counts are checked against the warehouse,
then ``DIR/manifest.json`` records every table's row count and a checksum of its contents.

Every table is copied, and checksummed, in slices of rows (warehouse.store.memory.in_slices):
``COPY FROM DATABASE`` read each table whole, and 1,000 archived pages of 100 KB ran out of
the default 128MB limit (DuckDB reads 2,048 rows at a time), 5 M offers too (issue 31). A
backup that fails or is killed leaves its ``.partial`` files and DuckDB's spill directory
behind only until the next backup into the same directory, which removes them first (a
stale ``.partial.wal`` would otherwise be replayed into the new copy).

Restore (which checks a backup with :func:`verify`): warehouse.store.restore.

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
    memory_connection,
    utcnow,
    warehouse_exists,
    write_connection,
)
from warehouse.store.faults import fault_of, out_of_memory
from warehouse.store.handle import Warehouse
from warehouse.store.lake import is_lake, sql_string
from warehouse.store.marker import refuse_if_lost
from warehouse.store.memory import in_slices, is_out_of_memory

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
SPILL_DIR = ".duckdb-backup.tmp"  # where the copy's DuckDB spills beyond its memory limit


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


def table_counts(con: duckdb.DuckDBPyConnection, catalog: str) -> dict[str, int]:
    return {
        t: con.execute(f'SELECT count(*) FROM "{catalog}".main."{t}"').fetchone()[0]
        for t in _tables(con, catalog)
    }


def _contents(con: duckdb.DuckDBPyConnection, catalog: str) -> dict[str, tuple[int, str]]:
    """Each table's row count and content checksum (see CHECKSUM), summed over slices of its
    rows (a sum is the same however the rows are split)."""
    found = {}
    for t in _tables(con, catalog):
        relation = f'"{catalog}".main."{t}"'
        rows, total = 0, 0

        def add(where: str, relation: str = relation) -> None:
            nonlocal rows, total
            count, digest = con.execute(
                f"SELECT count(*), coalesce(sum({_ROW_DIGEST}), 0)::VARCHAR "
                f"FROM {relation} AS t WHERE {where}"
            ).fetchone()
            rows, total = rows + count, total + int(digest)

        in_slices(con, relation, add)
        found[t] = (rows, str(total))
    return found


def _copy_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Every table of ``warehouse`` into ``backup`` (its schema first: tables, keys, views),
    slice by slice, each slice committed on its own."""
    con.execute("COPY FROM DATABASE warehouse TO backup (SCHEMA)")
    for t in _tables(con, "warehouse"):
        source, target = f'warehouse.main."{t}"', f'backup.main."{t}"'
        in_slices(
            con,
            source,
            lambda where, s=source, d=target: con.execute(
                f"INSERT INTO {d} SELECT * FROM {s} WHERE {where}"
            ),
        )


def leftovers(directory: Path) -> list[Path]:
    """What a backup into ``directory`` writes before it is done: the partial copy, its
    write-ahead log, the partial manifest, DuckDB's spill directory."""
    return [
        directory / (BACKUP_FILE + ".partial"),
        directory / (BACKUP_FILE + ".partial.wal"),
        directory / (MANIFEST + ".partial"),
        directory / SPILL_DIR,
    ]


def _clean(directory: Path) -> None:
    for path in leftovers(directory):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


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
        refuse_if_lost(warehouse.path)
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
    _clean(directory)  # what a backup that was killed here left
    started = utcnow()
    try:
        source_counts, contents = _copy(warehouse, directory, partial, wait_s)
    except BaseException:
        _clean(directory)
        raise
    finally:
        shutil.rmtree(directory / SPILL_DIR, ignore_errors=True)
    copied = {t: rows for t, (rows, _) in contents.items()}
    if copied != source_counts:
        _clean(directory)
        raise BackupError(f"the copy does not match the warehouse: {copied} vs {source_counts}")
    seconds = (utcnow() - started).total_seconds()
    manifest = {
        "created_at": started.isoformat(),
        "source": str(warehouse.path),
        "tables": source_counts,
        "checksums": {t: total for t, (_, total) in contents.items()},
        "checksum": CHECKSUM,
        "duckdb": duckdb.__version__,
        "format": "duckdb file (COPY FROM DATABASE schema, rows in slices)",
    }
    try:
        (directory / (MANIFEST + ".partial")).write_text(
            json.dumps(manifest, indent=2), encoding="utf-8"
        )
        partial.rename(target)
        (directory / (MANIFEST + ".partial")).rename(directory / MANIFEST)
    except OSError as exc:
        _clean(directory)
        raise BackupError(f"backup into {directory} failed: {exc.strerror or exc}") from None
    return BackupSummary(directory, source_counts, seconds)


def _copy(
    warehouse: Warehouse, directory: Path, partial: Path, wait_s: float
) -> tuple[dict[str, int], dict[str, tuple[int, str]]]:
    """Copy the warehouse into ``partial``: the source's row counts and the copy's contents."""
    # under the warehouse's memory limit
    # No vacuum: DuckDB's checkpoint (it runs one by itself whenever its log passes 16 MB)
    # merges the small row groups the slices leave into larger ones, in memory; with page
    # bodies that merge needed more than the limit at ~2,000 pages of 100 KB, and a failed
    # checkpoint invalidates the copy (DuckDB 2.0.1). The copy has no deleted rows to vacuum.
    con = memory_connection(warehouse.memory_limit, directory / SPILL_DIR, max_vacuum_tasks=0)
    try:
        con.execute("SET enable_progress_bar = false")  # a long copy drew one on the console
        attach_read_only(con, warehouse, wait_s=wait_s)
        con.execute(f"ATTACH {sql_string(str(partial))} AS backup")
        _copy_tables(con)
        source_counts = table_counts(con, "warehouse")
        con.execute("DETACH warehouse")  # the pipeline's writer may go on from here
        contents = _contents(con, "backup")
        con.execute("DETACH backup")
    except duckdb.Error as exc:  # the directory not writable, the disk full, no memory
        partial.unlink(missing_ok=True)
        raise _failed(directory, exc, warehouse.memory_limit) from None
    finally:
        con.close()
    return source_counts, contents


def _failed(directory: Path, exc: duckdb.Error, memory_limit: str) -> BackupError:
    if is_out_of_memory(exc):
        return BackupError(str(out_of_memory(f"backing up into {directory}", memory_limit)))
    fault = fault_of(exc)
    reason = str(fault) if fault else str(exc).splitlines()[0]
    return BackupError(f"backup into {directory} failed: {reason}")


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
    # no spill directory: sums need none, and a backup may sit on a read-only medium
    con = memory_connection(memory_limit, None)
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute(f"ATTACH {sql_string(str(target))} AS backup (READ_ONLY)")
        contents = _contents(con, "backup")
    except duckdb.Error as exc:
        if is_out_of_memory(exc):
            raise BackupError(str(out_of_memory(f"checking {target}", memory_limit))) from None
        raise BackupError(
            f"{target} is not a readable DuckDB file ({str(exc).splitlines()[0]}); not restoring"
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


@dataclass(frozen=True, slots=True)
class PruneSummary:
    pages: int
    bytes_freed: int
    before: datetime


def prune_raw_pages(
    warehouse: Warehouse, days: int, *, now: datetime | None = None
) -> PruneSummary:
    """Empty the bodies of raw pages fetched more than ``days`` days ago; parsed rows and the
    pages' metadata stay. On the file, slice by slice of raw_page, each in a transaction of
    its own (reading 2,048 bodies at once ran out of the default limit at 1,000 pages of
    100 KB); a prune cut short leaves whole slices pruned, and the next finishes the rest."""
    before = (now or utcnow()) - timedelta(days=days)
    done = [0, 0]  # pages, bytes
    with write_connection(warehouse) as con:

        def prune(where: str) -> None:
            con.execute("BEGIN TRANSACTION")
            try:
                con.execute(
                    "INSERT INTO raw_page_pruned SELECT page_id, ?, octet_length(body) "
                    f"FROM raw_page WHERE ({where}) AND fetched_at < ? "
                    "AND page_id NOT IN (SELECT page_id FROM raw_page_pruned)",
                    [utcnow(), before],
                )
                listed = (
                    f"({where}) AND octet_length(body) > 0 "
                    "AND page_id IN (SELECT page_id FROM raw_page_pruned)"
                )
                pages, size = con.execute(
                    f"SELECT count(*), coalesce(sum(octet_length(body)), 0) FROM raw_page "
                    f"WHERE {listed}"
                ).fetchone()
                con.execute(f"UPDATE raw_page SET body = ''::BLOB WHERE {listed}")
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
            done[0], done[1] = done[0] + pages, done[1] + size
            if pages and not is_lake(con):
                # DuckDB keeps updated values in memory until a checkpoint writes them:
                # without one the emptied bodies' old versions added up past the limit
                con.execute("CHECKPOINT")

        # a DuckLake has no rowid slices to rely on (and no index to keep in memory)
        prune("true") if is_lake(con) else in_slices(con, "raw_page", prune)
    # On the file each slice's CHECKPOINT also gives the emptied bodies' space back. On a
    # DuckLake it is maintenance (flushing inlined rows to Parquet drops the catalog tables
    # that held them), which other processes' attachments do not survive: DuckLake 1.5.5
    # then fails their reads with "relation ducklake_inlined_data_… does not exist" (found
    # by the retention test on a lake). docs/SCALING.md says when to run it.
    return PruneSummary(done[0], done[1], before)
