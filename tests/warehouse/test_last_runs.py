"""warehouse.read.stats.last_runs (`gpuprice sources`): each source's newest scrape_run in the
profile asked for, read-only; no warehouse is an error the caller can tell apart."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from tests.support.handles import warehouse_at
from warehouse.read.stats import LastRun, last_runs
from warehouse.store.db import WarehouseMissing, write_connection

RUNS = [  # run_id, source, profile, finished_at, status, rows, reason
    ("r1", "vastai", "demo", datetime(2026, 9, 1, 10), "ok", 24, None),
    ("r2", "vastai", "demo", datetime(2026, 9, 2, 10), "failed", 0, "drift"),
    ("r3", "vastai", "live", datetime(2026, 9, 3, 10), "ok", 900, None),
    ("r4", "smm", "live", datetime(2026, 9, 1, 9), "skipped", 0, "not_configured"),
]


def test_newest_run_per_source_of_the_profile(tmp_path: Path) -> None:
    warehouse = warehouse_at(tmp_path / "gpuprice.duckdb")
    with write_connection(warehouse) as con:
        for run_id, source, profile, finished, status, rows, reason in RUNS:
            con.execute(
                "INSERT INTO scrape_run (run_id, source, profile, started_at, finished_at, "
                "status, pages, rows, error, reason) VALUES (?, ?, ?, ?, ?, ?, 1, ?, NULL, ?)",
                [run_id, source, profile, finished, finished, status, rows, reason],
            )
    assert last_runs(warehouse, "demo") == {
        "vastai": LastRun(datetime(2026, 9, 2, 10), "failed", 0, "drift", None)
    }
    live = last_runs(warehouse, "live")
    assert (live["vastai"].status, live["vastai"].rows) == ("ok", 900)
    assert (live["smm"].status, live["smm"].reason) == ("skipped", "not_configured")


def test_no_warehouse_is_warehouse_missing(tmp_path: Path) -> None:
    with pytest.raises(WarehouseMissing):
        last_runs(warehouse_at(tmp_path / "none.duckdb"), "demo")
    assert not (tmp_path / "none.duckdb").exists()
