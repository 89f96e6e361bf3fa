"""Restore never leaves the home without a warehouse (issue 31): a restore SIGKILLed before
each of its steps leaves the old warehouse or the restored one, whole, and the next restore
completes; a restore is refused while a run or backfill holds the warehouse's lease."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from demo.market import DemoMarket
from tests.warehouse.test_crash_safety import config, gpuprice, market, state  # noqa: F401
from warehouse.store.backup import backup
from warehouse.store.db import WarehouseBusy, write_connection
from warehouse.store.handle import Warehouse
from warehouse.store.lease import WarehouseInUse, exclusive, in_use, lease_path
from warehouse.store.marker import marker_path
from warehouse.store.restore import restore

ROOT = Path(__file__).resolve().parents[2]
OLD, NEW = 3, 5  # raw pages in the current warehouse, and in the backup
STEPS = ["_release", "_stage", "_check", "_keep_old", "_swap", "_finish"]


def holding(path: Path, pages: int) -> Warehouse:
    warehouse = Warehouse(path)
    with write_connection(warehouse) as con:
        con.execute(
            "INSERT INTO raw_page (page_id, source, url, fetched_at, http_status, body, "
            "parse_status) SELECT sha256(i::VARCHAR), 'jygpu', 'http://127.0.0.1/' || i, "
            "TIMESTAMP '2026-09-01', 200, md5(i::VARCHAR)::BLOB, 'ok' FROM range(?) t(i)",
            [pages],
        )
    return warehouse


def pages_in(path: Path) -> int:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute("SELECT count(*) FROM raw_page").fetchone()[0]


@pytest.fixture
def made(tmp_path: Path) -> tuple[Warehouse, Path]:
    """The current warehouse (OLD pages) and a backup of another one (NEW pages)."""
    backup(holding(tmp_path / "other" / "gpuprice.duckdb", NEW), tmp_path / "bk")
    return holding(tmp_path / "home" / "gpuprice.duckdb", OLD), tmp_path / "bk"


# `restore` in a process whose step ``argv[3]`` announces itself and waits before it runs
# (production code has no hook for it): the test's SIGKILL lands between two steps.
PAUSED_RESTORE = """
import sys, time
from pathlib import Path
import warehouse.store.restore as restore
from warehouse.store.handle import Warehouse
step = getattr(restore, sys.argv[3])
def paused(*args, **kwargs):
    print("paused", flush=True)
    time.sleep(60)
    return step(*args, **kwargs)
setattr(restore, sys.argv[3], paused)
restore.restore(Warehouse(Path(sys.argv[1])), Path(sys.argv[2]))
"""


@pytest.mark.parametrize("step", STEPS)
def test_a_restore_killed_before_each_step_leaves_a_whole_warehouse(
    made: tuple[Warehouse, Path], step: str
) -> None:
    warehouse, directory = made
    proc = subprocess.Popen(
        [sys.executable, "-c", PAUSED_RESTORE, str(warehouse.path), str(directory), step],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "paused"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    # before the atomic swap the old warehouse, from it on the restored one; never none
    assert pages_in(warehouse.path) == (OLD if STEPS.index(step) <= STEPS.index("_swap") else NEW)
    with write_connection(warehouse) as con:  # opens for writing: not lost, not damaged
        assert con.execute("SELECT count(*) FROM raw_page").fetchone()[0] in (OLD, NEW)

    kept = restore(warehouse, directory)  # the next restore completes
    assert pages_in(warehouse.path) == NEW
    assert kept is not None and pages_in(kept) in (OLD, NEW)
    # the old file is kept once (a killed restore's second name is used again); after the
    # swap the next restore keeps the restored file too
    names = list(warehouse.path.parent.glob("gpuprice.duckdb.before-restore-*"))
    assert len(names) == (2 if step == "_finish" else 1), names
    assert not warehouse.path.with_name("gpuprice.duckdb.restoring").exists()
    assert marker_path(warehouse.path).exists()


def test_the_old_warehouse_is_kept_and_the_serving_copy_dropped(
    made: tuple[Warehouse, Path],
) -> None:
    warehouse, directory = made
    serving = warehouse.path.with_name("gpuprice-serving.duckdb")
    serving.write_bytes(b"a copy of the old warehouse's rollups")
    kept = restore(warehouse, directory)
    assert kept is not None and pages_in(kept) == OLD and pages_in(warehouse.path) == NEW
    assert not serving.exists()


HOLD_LEASE = """
import sys, time
from pathlib import Path
from warehouse.store.handle import Warehouse
from warehouse.store.lease import in_use
with in_use(Warehouse(Path(sys.argv[1]))):
    print("holding", flush=True)
    time.sleep(60)
"""


def test_a_restore_is_refused_while_a_run_holds_the_warehouse(
    made: tuple[Warehouse, Path],
) -> None:
    warehouse, directory = made
    run = subprocess.Popen(
        [sys.executable, "-c", HOLD_LEASE, str(warehouse.path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert run.stdout is not None and run.stdout.readline().strip() == "holding"
        with pytest.raises(WarehouseInUse, match="in use by a run"):
            restore(warehouse, directory)
    finally:
        run.kill()
        run.wait(30)
    assert pages_in(warehouse.path) == OLD
    assert not list(warehouse.path.parent.glob("*.before-restore-*"))
    assert restore(warehouse, directory) is not None  # once the run has ended
    assert pages_in(warehouse.path) == NEW


def test_runs_share_the_lease_and_wait_for_a_restore(made: tuple[Warehouse, Path]) -> None:
    warehouse, _ = made
    with in_use(warehouse), in_use(warehouse):  # two runs at once
        pass
    with (
        exclusive(warehouse),  # a restore replacing the warehouse
        pytest.raises(WarehouseBusy, match="a restore has been replacing"),
        in_use(warehouse, wait_s=0.5),
    ):
        pass
    with in_use(warehouse, wait_s=0.5):  # and once it is done
        pass


@pytest.mark.e2e
def test_a_restore_during_a_backfill_is_refused_and_loses_nothing(
    market: DemoMarket,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Issue 31: a restore 3 s into a backfill was not refused; the rows loaded before it
    ended up in the moved-aside file. The backfill (gpuprice.jobs) holds the lease."""
    cfg = config(tmp_path, market)
    home = tmp_path / "home"
    backup(holding(tmp_path / "other" / "gpuprice.duckdb", NEW), tmp_path / "bk")
    writer = gpuprice(home, cfg, "backfill", "--days", "4", "--end", "2026-09-05")
    try:
        while not lease_path(home / "gpuprice.duckdb").exists() and writer.poll() is None:
            time.sleep(0.05)
        assert writer.poll() is None, "the backfill ended before the restore could be tried"
        # Held while the restore is tried: 4 days can load before a process starts.
        os.kill(writer.pid, signal.SIGSTOP)
        try:
            refused = subprocess.run(
                [sys.executable, "-m", "gpuprice.cli", "restore", str(tmp_path / "bk")],
                cwd=ROOT,
                env=os.environ | {"GPUPRICE_HOME": str(home)},
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            os.kill(writer.pid, signal.SIGCONT)
    finally:
        assert writer.wait(180) == 0, writer.stderr.read() if writer.stderr else ""
    assert refused.returncode == 1, refused.stderr
    assert "is in use by a run" in refused.stderr
    after = state(home / "gpuprice.duckdb")
    assert after["runs_ok"] == 8 and after["loaded"] == after["recorded"] > 0  # 4 days × 2
    assert after["orphans"] == 0
    assert not list(home.glob("*.before-restore-*"))
