"""Commands that share a machine: a `gpuprice backfill` started while a `gpuprice run` serves
the demo market outlives that run and still loads every day, because each command serves its
own market (demo.autostart); and the two write the same Dagster instance at once without
harming it."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

from tests.support.demo_settings import FAST_HTTP
from tests.support.loopback import free_port

pytestmark = pytest.mark.e2e

GPUPRICE = str(Path(sys.executable).parent / "gpuprice")
OTHERS = ("vastai", "runpod", "matpool", "autodl", "gpushare", "ppio", "compshare", "lambda")
OTHERS += ("skypilot",)


def shared_home(tmp_path: Path) -> dict[str, str]:
    """The demo sources on the bundled market's configured ports, nothing serving them."""
    ports = {name: free_port() for name in ("jygpu", "smm", "platforms")}
    config = tmp_path / "gpuprice.toml"
    config.write_text(
        f"""{FAST_HTTP}
[demo_market]
jygpu_port = {ports["jygpu"]}
smm_port = {ports["smm"]}
platforms_port = {ports["platforms"]}
[sources.jygpu]
demo_url = "http://127.0.0.1:{ports["jygpu"]}"
[sources.smm]
demo_url = "http://127.0.0.1:{ports["smm"]}"
"""
        + "".join(f"[sources.{name}]\nenabled = false\n" for name in OTHERS),
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUPRICE_")}
    return env | {"GPUPRICE_HOME": str(tmp_path / "home"), "GPUPRICE_CONFIG": str(config)}


def start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [GPUPRICE, *args], env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT
    )


def wait_for(path: Path, text: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while text not in path.read_text(encoding="utf-8", errors="replace"):
        assert process.poll() is None, path.read_text(encoding="utf-8")
        assert time.monotonic() < deadline, f"no {text!r} in {path}"
        time.sleep(0.1)


def holds_a_lock(dagster_home: Path) -> bool:
    """Whether some process holds one of the Dagster instance's SQLite databases: its
    write lock, or a lock that keeps readers out (WAL recovery or restart)."""
    for database in dagster_home.rglob("*.db"):
        con = sqlite3.connect(database, timeout=0, isolation_level=None)
        try:
            con.execute("SELECT count(*) FROM sqlite_master").fetchone()
            con.execute("BEGIN IMMEDIATE")
            con.execute("ROLLBACK")
        except sqlite3.OperationalError:
            return True
        finally:
            con.close()
    return False


def stop_between_writes(process: subprocess.Popen[bytes], dagster_home: Path) -> None:
    """SIGSTOP the process where it holds no lock on the shared Dagster instance. Stopped
    inside one of its (millisecond) transactions, it would keep the other command waiting
    on "database is locked" until that gave up, which no real pair of commands does."""
    for _ in range(200):
        os.kill(process.pid, signal.SIGSTOP)
        while Path(f"/proc/{process.pid}/stat").read_text().split(") ")[-1][0] != "T":
            time.sleep(0.001)  # the signal is sent; the process stops at its next tick
        if not holds_a_lock(dagster_home):
            return
        os.kill(process.pid, signal.SIGCONT)
        time.sleep(0.005)
    raise AssertionError(f"{dagster_home} stayed locked while the backfill was stopped")


def test_a_backfill_outlives_the_run_it_started_beside(tmp_path: Path) -> None:
    env = shared_home(tmp_path)
    run_log, backfill_log = tmp_path / "run.log", tmp_path / "backfill.log"
    run = start(["run"], env, run_log)
    wait_for(run_log, "its own copy of the demo market", run)  # the run's market is up
    backfill = start(["backfill", "--days", "20", "--end", "2026-09-20"], env, backfill_log)
    # The backfill's market is up and it has fetched nothing yet (its Dagster run starts
    # after): held there until the run and its market are gone, so that every one of its
    # fetches comes after them, however fast the two are (20 days take ~10 s).
    wait_for(backfill_log, "its own copy of the demo market", backfill)
    stop_between_writes(backfill, tmp_path / "home" / "dagster")
    try:
        assert run.wait(timeout=300) == 0, run_log.read_text(encoding="utf-8")
    finally:
        os.kill(backfill.pid, signal.SIGCONT)
    assert backfill.wait(timeout=600) == 0, backfill_log.read_text(encoding="utf-8")
    said = backfill_log.read_text(encoding="utf-8")
    assert "failed" not in said and "backfilled 20 day(s)" in said, said

    # Both wrote the same Dagster instance, at the same time: every run is there, whole.
    dagster_home = tmp_path / "home" / "dagster"
    with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
        runs = instance.get_runs()
        assert sorted((r.job_name, r.tags["gpuprice/command"]) for r in runs) == [
            ("backfill_job", "backfill"),
            ("scrape_job", "run"),
        ]
        assert {r.status for r in runs} == {dg.DagsterRunStatus.SUCCESS}
        for r in runs:
            events = instance.all_logs(r.run_id, of_type=dg.DagsterEventType.RUN_SUCCESS)
            assert len(events) == 1
    databases = list(dagster_home.rglob("*.db"))
    assert databases
    for database in databases:
        with sqlite3.connect(database) as con:
            assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",), database
