"""Backups and retention within the memory limit (issue 31): many large archived pages are
copied, checksummed and pruned in slices of rows at the default 128MB (before: out of memory
at 1,000 pages of 100 KB); what cannot fit says which setting to raise; a backup that fails or
is killed leaves nothing the next backup into that directory does not remove."""

from __future__ import annotations

import signal
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from warehouse.store.backup import (
    BACKUP_FILE,
    BackupError,
    backup,
    leftovers,
    prune_raw_pages,
    verify,
)
from warehouse.store.config import WarehouseConfig
from warehouse.store.db import write_connection
from warehouse.store.handle import Warehouse

ROOT = Path(__file__).resolve().parents[2]
PAGES, PAGE_BYTES = 1_000, 100_000


def with_pages(path: Path, pages: int, page_bytes: int) -> Warehouse:
    """A warehouse holding ``pages`` archived pages of ``page_bytes`` each (written with
    room); the handle opens it at the default limit."""
    with write_connection(Warehouse(path, WarehouseConfig(memory_limit="2GB"))) as con:
        con.execute(
            "INSERT INTO raw_page (page_id, source, url, fetched_at, http_status, body, "
            "parse_status) SELECT sha256(i::VARCHAR), 'jygpu', 'http://127.0.0.1/' || i, "
            "TIMESTAMP '2026-09-01' + INTERVAL (i) MINUTE, 200, "
            "left(repeat(md5(i::VARCHAR), ? // 32 + 1), ?)::BLOB, 'ok' FROM range(?) t(i)",
            [page_bytes, page_bytes, pages],
        )
    return Warehouse(path)


def test_the_writer_archives_many_large_pages_within_a_small_limit(tmp_path: Path) -> None:
    """Page bodies committed one by one, as loads archive them: DuckDB's checkpoint vacuum
    invalidated the database (FATAL) after about 500 pages of 100 KB at 32MB
    (warehouse.store.db.duckdb_config turns it off)."""
    warehouse = Warehouse(tmp_path / "gpuprice.duckdb", WarehouseConfig(memory_limit="32MB"))
    for start in range(0, 800, 50):
        with write_connection(warehouse) as con:
            for i in range(start, start + 50):
                con.execute("BEGIN TRANSACTION")
                con.execute(
                    "INSERT INTO raw_page (page_id, source, url, fetched_at, http_status, body, "
                    "parse_status) VALUES (sha256(?::VARCHAR), 'jygpu', 'http://x/' || ?, "
                    "TIMESTAMP '2026-09-01', 200, ?::BLOB, 'ok')",
                    [i, i, (f"{i:08x}" * (PAGE_BYTES // 8)).encode()],
                )
                con.execute("COMMIT")
    assert digest(warehouse.path)[0] == 800


def digest(path: Path) -> tuple[int, str]:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute(
            "SELECT count(*), sum(hash(page_id, body)) FROM raw_page WHERE rowid < 1000000"
        ).fetchone()


def test_many_large_pages_are_backed_up_and_verified_at_the_default_limit(
    tmp_path: Path,
) -> None:
    warehouse = with_pages(tmp_path / "home" / "gpuprice.duckdb", PAGES, PAGE_BYTES)
    assert warehouse.memory_limit == "128MB"
    summary = backup(warehouse, tmp_path / "bk")
    assert summary.tables["raw_page"] == PAGES
    assert verify(tmp_path / "bk", memory_limit="128MB")["raw_page"] == PAGES
    assert digest(tmp_path / "bk" / BACKUP_FILE) == digest(warehouse.path)
    assert not [p for p in leftovers(tmp_path / "bk") if p.exists()]


def test_a_page_larger_than_the_limit_names_the_setting_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "home" / "gpuprice.duckdb"
    with_pages(path, 2, 90_000_000)
    with pytest.raises(BackupError, match="GPUPRICE_DUCKDB_MEMORY_LIMIT=64MB") as failed:
        backup(Warehouse(path, WarehouseConfig(memory_limit="64MB")), tmp_path / "bk")
    assert "\n" not in str(failed.value)
    assert sorted(p.name for p in (tmp_path / "bk").iterdir()) == []


# A backup killed after its first slice of raw_page is committed: `backup` in a process whose
# in_slices announces that slice and waits (production code has no hook for it).
PAUSED_BACKUP = """
import sys, time
from pathlib import Path
import warehouse.store.backup as backup
from warehouse.store.handle import Warehouse
sliced = backup.in_slices
def paused(con, relation, work, **kwargs):
    def once(where):
        work(where)
        if relation == 'warehouse.main."raw_page"':  # copying it, not checksumming
            print("sliced", flush=True)
            time.sleep(60)
    return sliced(con, relation, once, **kwargs)
backup.in_slices = paused
backup.backup(Warehouse(Path(sys.argv[1])), Path(sys.argv[2]))
"""


def test_a_killed_backup_is_cleaned_up_by_the_next_one(tmp_path: Path) -> None:
    warehouse = with_pages(tmp_path / "home" / "gpuprice.duckdb", 300, PAGE_BYTES)
    target = tmp_path / "bk"
    proc = subprocess.Popen(
        [sys.executable, "-c", PAUSED_BACKUP, str(warehouse.path), str(target)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "sliced"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    left = {p.name for p in leftovers(target) if p.exists()}
    assert {"gpuprice.duckdb.partial", "gpuprice.duckdb.partial.wal"} <= left
    assert not (target / BACKUP_FILE).exists()  # never taken for a backup

    backup(warehouse, target)
    assert not [p for p in leftovers(target) if p.exists()]
    assert verify(target)["raw_page"] == 300
    assert digest(target / BACKUP_FILE) == digest(warehouse.path)


def test_many_large_pages_are_pruned_at_the_default_limit(tmp_path: Path) -> None:
    """Retention read every body at once too, and ran out of memory the same way."""
    warehouse = with_pages(tmp_path / "home" / "gpuprice.duckdb", PAGES, PAGE_BYTES)
    summary = prune_raw_pages(warehouse, 1, now=datetime(2027, 1, 1))
    assert (summary.pages, summary.bytes_freed) == (PAGES, PAGES * PAGE_BYTES)
    with duckdb.connect(str(warehouse.path), read_only=True) as con:
        left = con.execute("SELECT count(*) FROM raw_page WHERE octet_length(body) > 0")
        assert left.fetchone()[0] == 0
        listed = con.execute("SELECT count(*), sum(body_bytes) FROM raw_page_pruned")
        assert listed.fetchone() == (PAGES, PAGES * PAGE_BYTES)
