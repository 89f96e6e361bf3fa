"""Backup while the pipeline writes (a real backfill process), restore, and raw-page retention
that empties old bodies without touching parsed rows."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuprice.cli import app
from tests.support.handles import warehouse_at
from tests.support.seeded_warehouse import seed_demo_history
from tests.warehouse.test_crash_safety import config, gpuprice, market, state  # noqa: F401
from warehouse.ingest.reparse import archived_pages
from warehouse.store.backup import backup, prune_raw_pages, verify
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e
runner = CliRunner()


def test_backup_during_writes_is_consistent_and_restores(market, tmp_path: Path) -> None:  # noqa: F811
    cfg = config(tmp_path, market)
    home = tmp_path / "home"
    path = home / "gpuprice.duckdb"
    env = {"GPUPRICE_HOME": str(home), "GPUPRICE_PROFILE": "demo"}
    writer = gpuprice(home, cfg, "backfill", "--days", "4", "--end", "2026-09-05")
    while not path.exists() and writer.poll() is None:
        time.sleep(0.05)
    time.sleep(1.0)  # into the backfill
    backups = []
    for n in range(2):
        target = tmp_path / f"backup{n}"
        result = runner.invoke(app, ["backup", str(target), "--config", str(cfg)], env=env)
        assert result.exit_code == 0, result.output
        backups.append(target)
    assert writer.wait(180) == 0, writer.stderr.read() if writer.stderr else ""
    final = state(path)

    for target in backups:
        verify(target)
        copy = state(target / "gpuprice.duckdb")
        assert copy["orphans"] == 0 and copy["loaded"] == copy["recorded"]
    again = runner.invoke(app, ["backup", str(backups[0]), "--config", str(cfg)], env=env)
    assert again.exit_code == 1 and "exists already" in again.output

    # restore the first backup, then the data is that backup's, and the old file is kept
    expected = state(backups[0] / "gpuprice.duckdb")
    restored = runner.invoke(app, ["restore", str(backups[0]), "--config", str(cfg)], env=env)
    assert restored.exit_code == 0, restored.output
    assert state(path) == expected
    kept = list(home.glob("gpuprice.duckdb.before-restore-*"))
    assert len(kept) == 1 and state(kept[0]) == final

    tampered = tmp_path / "backup1" / "manifest.json"
    manifest = json.loads(tampered.read_text(encoding="utf-8"))
    manifest["tables"]["offer"] += 1
    tampered.write_text(json.dumps(manifest), encoding="utf-8")
    refused = runner.invoke(
        app, ["restore", str(tmp_path / "backup1"), "--config", str(cfg)], env=env
    )
    assert refused.exit_code == 1 and "does not match" in refused.output
    assert "table offer has " in refused.output
    assert state(path) == expected


def test_backup_holds_every_table_with_its_rows(tmp_path: Path) -> None:
    """Also run on a DuckLake (tests/deploy/test_ducklake_product.py): the backup of a lake
    is a DuckDB file with the same tables and rows."""
    path = tmp_path / "home" / "gpuprice.duckdb"
    seed_demo_history(warehouse_at(path), datetime(2026, 9, 5).date(), 2)
    summary = backup(warehouse_at(path), tmp_path / "bk")
    assert verify(tmp_path / "bk") == summary.tables
    assert (
        summary.tables["offer"]
        == read_frame(warehouse_at(path), "SELECT count(*) FROM offer").item()
        > 0
    )
    assert {"raw_page", "card_value", "breakeven", "gpu_spec"} <= summary.tables.keys()
    assert all(
        read_frame(warehouse_at(path), f"SELECT count(*) FROM {table}").item() == rows
        for table, rows in summary.tables.items()
    )


def test_retention_empties_old_bodies_and_keeps_rows(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    last = datetime(2026, 9, 5).date()
    seed_demo_history(warehouse_at(path), last, 5)
    before = state(path)
    pages = read_frame(warehouse_at(path), "SELECT count(*) FROM raw_page").item()
    now = datetime(2026, 9, 5, 12)
    summary = prune_raw_pages(warehouse_at(path), 2, now=now)  # pages fetched before 09-03 12:00
    assert summary.pages == 9 and summary.bytes_freed > 0  # 3 days x 3 pages
    assert state(path) == before  # every parsed row, run and page record stays
    assert read_frame(warehouse_at(path), "SELECT count(*) FROM raw_page").item() == pages
    emptied = read_frame(
        warehouse_at(path), "SELECT count(*) FROM raw_page WHERE octet_length(body) = 0"
    ).item()
    assert emptied == 9
    assert prune_raw_pages(warehouse_at(path), 2, now=now).pages == 0  # idempotent
    # re-parse skips pruned pages instead of failing on an empty body
    assert all(
        fetched >= now - timedelta(days=2)
        for _, _, fetched in archived_pages(warehouse_at(path), "jygpu")
    )
