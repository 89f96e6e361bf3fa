"""Migration 007 rebuilds offer (DuckDB cannot change a CHECK in place) so that prepaid terms
(daily, weekly, yearly) load; every row and the primary key survive."""

from __future__ import annotations

import signal
import subprocess
import sys
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from warehouse.store import memory
from warehouse.store.config import WarehouseConfig
from warehouse.store.db import migrate, migration_files, utcnow, write_connection
from warehouse.store.faults import WarehouseOutOfMemory
from warehouse.store.handle import Warehouse
from warehouse.store.lake import checks

ROOT = Path(__file__).resolve().parents[2]

T = datetime(2026, 9, 4, 2, 0)
OFFER = (
    "INSERT INTO offer (observed_at, source, offer_id, gpu, gpu_name_raw, gpu_count, billing, "
    "price, currency, unit, unit_raw, cny_per_card_hour, simulated) VALUES "
    "(?, 'jygpu', ?, 'rtx4090-24g', 'RTX 4090', 1, ?, ?, 'CNY', 'CNY/card-hour', '元/时', ?, true)"
)


def test_offers_survive_and_prepaid_terms_load(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute(
        "CREATE TABLE schema_migration (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, "
        "applied_at TIMESTAMP NOT NULL)"
    )
    for version, name, sql in migration_files():
        if version < 7:
            con.execute(sql)
            con.execute("INSERT INTO schema_migration VALUES (?, ?, ?)", [version, name, utcnow()])
    con.execute(OFFER, [T, "c-1", "hourly", 1.98, 1.98])
    with pytest.raises(duckdb.ConstraintException):  # before 007
        con.execute(OFFER, [T, "c-1", "daily", 40, 1.666667])

    assert migrate(con)[0] == "007_prepaid_terms.sql"

    assert con.execute("SELECT offer_id, billing, price FROM offer").fetchall() == [
        ("c-1", "hourly", Decimal("1.98"))
    ]
    for billing in ("daily", "weekly", "yearly"):
        con.execute(OFFER, [T, "c-1", billing, 40, 1.5])
    with pytest.raises(duckdb.ConstraintException):  # the key is still there
        con.execute(OFFER, [T, "c-1", "hourly", 2.0, 2.0])
    with pytest.raises(duckdb.ConstraintException):
        con.execute(OFFER, [T, "c-1", "quarterly", 40, 1.5])
    con.close()


def test_a_ducklake_checks_rows_with_the_rebuilt_tables_constraints() -> None:
    billing = next(check for check in checks("offer") if "billing" in check)
    assert "'yearly'" in billing and "'bare_metal_monthly'" in billing
    assert any("'skipped'" in check for check in checks("scrape_run"))  # 003's rebuild


# Issue 31: at the default 128MB the unsliced rebuild ended in a DuckDB FATAL error at 1 M
# offers ("database invalidated", and every later run failed). The same at a smaller scale:
# 150,000 offers in 32MB ran out of memory in the one-transaction copy; sliced, it fits.
MANY = 150_000


def at_006(path: Path, offers: int, *, citation_bytes: int = 0) -> None:
    """A warehouse file as it was before 007, holding ``offers`` offers (built with room)."""
    con = duckdb.connect(str(path), config={"memory_limit": "2GB"})
    con.execute(
        "CREATE TABLE schema_migration (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, "
        "applied_at TIMESTAMP NOT NULL)"
    )
    for version, name, sql in migration_files():
        if version < 7:
            con.execute(sql)
            con.execute("INSERT INTO schema_migration VALUES (?, ?, ?)", [version, name, utcnow()])
    con.execute(
        "INSERT INTO offer (observed_at, source, offer_id, gpu, gpu_name_raw, gpu_count, "
        "billing, price, currency, unit, unit_raw, cny_per_card_hour, simulated, page_id, "
        "citation) SELECT TIMESTAMP '2026-01-01' + INTERVAL (i // 100) HOUR, 'jygpu', "
        "'c-' || (i % 100), 'rtx4090-24g', 'RTX 4090', 1, 'hourly', 1.98, 'CNY', "
        "'CNY/card-hour', '元/时', 1.98, true, md5(i::VARCHAR), "
        "CASE WHEN ? > 0 THEN repeat('x', ?) END FROM range(?) t(i)",
        [citation_bytes, citation_bytes, offers],
    )
    con.close()


def offers_of(path: Path) -> tuple[int, int, int]:
    """(offers, checksum of their keys, newest migration) of the file at ``path``."""
    with duckdb.connect(str(path), read_only=True) as con:
        rows, keys = con.execute(
            "SELECT count(*), sum(hash(source, offer_id, billing, observed_at)) FROM offer"
        ).fetchone()
        version = con.execute("SELECT max(version) FROM schema_migration").fetchone()[0]
        rebuilt = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'offer_v7'")
        assert rebuilt.fetchone()[0] == 0  # no half-filled copy left behind
    return rows, keys, version


def test_a_large_offer_table_is_rebuilt_within_a_small_memory_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "w.duckdb"
    at_006(path, MANY)
    rows, keys, _ = offers_of(path)
    # within the limit itself, not by taking more (warehouse.store.memory.with_more_memory)
    monkeypatch.setattr(memory, "LARGER_MEMORY_LIMITS", ())
    with write_connection(Warehouse(path, WarehouseConfig(memory_limit="32MB"))) as con:
        assert con.execute("SELECT count(*) FROM offer").fetchone()[0] == MANY
    assert offers_of(path) == (rows, keys, migration_files()[-1][0])


def test_a_migration_that_cannot_fit_names_the_setting_and_keeps_the_warehouse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "w.duckdb"
    at_006(path, 3, citation_bytes=40_000_000)  # one row larger than the limit
    before = offers_of(path)
    monkeypatch.setattr(memory, "LARGER_MEMORY_LIMITS", ("24MB",))
    with (
        pytest.raises(WarehouseOutOfMemory, match="GPUPRICE_DUCKDB_MEMORY_LIMIT=16MB") as failed,
        write_connection(Warehouse(path, WarehouseConfig(memory_limit="16MB"))),
    ):
        pass
    assert "007_prepaid_terms" in str(failed.value) and "\n" not in str(failed.value)
    assert offers_of(path) == before  # the old file, at 006, every offer
    with write_connection(Warehouse(path, WarehouseConfig(memory_limit="512MB"))) as con:
        assert con.execute("SELECT count(*) FROM offer").fetchone()[0] == 3


# A SIGKILL part-way through the sliced copy: a process that migrates, wrapped so that it
# announces its first committed slice and waits there (production code has no hook).
PAUSED_MIGRATION = """
import sys, time
from pathlib import Path
import warehouse.store.migrating as migrating
from warehouse.store.config import WarehouseConfig
from warehouse.store.db import write_connection
from warehouse.store.handle import Warehouse
slices = []
original = migrating._in_transaction
def counted(con, *statements):
    original(con, *statements)
    if statements and statements[0].startswith("INSERT INTO offer_v7"):
        slices.append(1)
        if len(slices) == 1:
            print("sliced", flush=True)
            time.sleep(60)
migrating._in_transaction = counted
with write_connection(Warehouse(Path(sys.argv[1]), WarehouseConfig(memory_limit="32MB"))):
    pass
"""


def test_a_migration_killed_part_way_leaves_the_old_warehouse_and_completes_next_time(
    tmp_path: Path,
) -> None:
    path = tmp_path / "w.duckdb"
    at_006(path, MANY)
    before = offers_of(path)
    proc = subprocess.Popen(
        [sys.executable, "-c", PAUSED_MIGRATION, str(path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "sliced"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    with duckdb.connect(str(path)) as con:
        rebuilt = con.execute("SELECT count(*) FROM offer_v7").fetchone()[0]
        assert 0 < rebuilt < MANY  # killed part-way through the copy
        assert con.execute("SELECT max(version) FROM schema_migration").fetchone()[0] == 6
        assert con.execute("SELECT count(*) FROM offer").fetchone()[0] == MANY
    with write_connection(Warehouse(path, WarehouseConfig(memory_limit="32MB"))):
        pass
    assert offers_of(path) == (*before[:2], migration_files()[-1][0])
