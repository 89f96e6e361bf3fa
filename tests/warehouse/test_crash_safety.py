"""Crash safety: `gpuprice run` SIGKILLed inside a load's transaction (a real subprocess, run
through a wrapper that makes the load's last step before COMMIT announce itself and wait; the
production code has no hook for it) leaves the warehouse consistent, with no partial
snapshot, and the next run completes the work."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.market import DemoMarket
from tests.support.handles import warehouse_at
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
DAY = "2026-09-04"


@pytest.fixture(scope="module")
def market() -> Iterator[DemoMarket]:
    with DemoMarket(jygpu_port=0, smm_port=0).start() as running:
        yield running


def config(tmp: Path, market: DemoMarket) -> Path:
    path = tmp / "gpuprice.toml"
    path.write_text(
        "[http]\nconnect_timeout_s = 1\nread_timeout_s = 5\nretries = 0\nmin_interval_s = 0\n"
        f'[sources.jygpu]\ndemo_url = "{market.jygpu_url}"\n'
        f'[sources.smm]\ndemo_url = "{market.smm_url}"\n',
        encoding="utf-8",
    )
    return path


# `gpuprice.cli` with the load's record_health (its last step inside the transaction, right
# before COMMIT; warehouse.ingest.load) wrapped: it says so on stderr and sleeps, so that the
# test's SIGKILL lands inside the transaction. The pause is the first argument.
PAUSED_CLI = """
import sys, time
import warehouse.ingest.load as load
pause = float(sys.argv.pop(1))
health = load.record_health
def paused(*args, **kwargs):
    alert = health(*args, **kwargs)
    sys.stderr.write("gpuprice: load paused before COMMIT\\n")
    sys.stderr.flush()
    time.sleep(pause)
    return alert
load.record_health = paused
from gpuprice.cli import app
app()
"""


def gpuprice(home: Path, cfg: Path, *args: str, pause: float | None = None) -> subprocess.Popen:
    env = os.environ | {"GPUPRICE_HOME": str(home), "GPUPRICE_PROFILE": "demo"}
    program = ["-m", "gpuprice.cli"] if pause is None else ["-c", PAUSED_CLI, str(pause)]
    return subprocess.Popen(
        [sys.executable, *program, *args, "--config", str(cfg)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_pause(proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    assert proc.stderr is not None
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if "load paused before COMMIT" in line:
            return
        if not line and proc.poll() is not None:
            break
    proc.kill()
    pytest.fail(f"the load never paused (exit {proc.poll()})")


def state(path: Path) -> dict[str, int]:
    q = {
        "offer": "SELECT count(*) FROM offer WHERE page_id IS NOT NULL",
        "spot_quote": "SELECT count(*) FROM spot_quote WHERE page_id IS NOT NULL",
        "raw_page": "SELECT count(*) FROM raw_page",
        "runs_ok": "SELECT count(*) FROM scrape_run WHERE status = 'ok'",
        "recorded": "SELECT coalesce(sum(rows), 0) FROM scrape_run",
        "loaded": "SELECT (SELECT count(*) FROM offer WHERE page_id IS NOT NULL) + "
        "(SELECT count(*) FROM spot_quote WHERE page_id IS NOT NULL)",
        # every loaded row belongs to a recorded run and an archived page
        "orphans": "SELECT (SELECT count(*) FROM offer o WHERE page_id IS NOT NULL AND ("
        "NOT EXISTS (SELECT 1 FROM scrape_run r WHERE r.run_id = o.run_id) OR "
        "NOT EXISTS (SELECT 1 FROM raw_page p WHERE p.page_id = o.page_id))) + (SELECT count(*) "
        "FROM spot_quote q WHERE page_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM scrape_run r "
        "WHERE r.run_id = q.run_id))",
    }
    return {k: read_frame(warehouse_at(path), sql).item() for k, sql in q.items()}


def test_sigkill_inside_the_load_transaction(market: DemoMarket, tmp_path: Path) -> None:
    cfg = config(tmp_path, market)
    home = tmp_path / "home"
    path = home / "gpuprice.duckdb"
    first_run = gpuprice(home, cfg, "run", "--as-of", DAY)
    assert first_run.wait(120) == 0, first_run.stderr.read() if first_run.stderr else ""
    before = state(path)
    assert before["offer"] > 0 and before["spot_quote"] > 0 and before["runs_ok"] == 2
    assert before["loaded"] == before["recorded"] and before["orphans"] == 0

    day2 = "2026-09-05"
    proc = gpuprice(home, cfg, "run", "--as-of", day2, pause=60)
    wait_for_pause(proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    assert proc.returncode == -signal.SIGKILL

    # the snapshot being loaded left nothing: no page, no row, no run record
    assert state(path) == before

    again = gpuprice(home, cfg, "run", "--as-of", day2)
    assert again.wait(120) == 0, again.stderr.read() if again.stderr else ""
    done = state(path)
    assert done["runs_ok"] == 4 and done["orphans"] == 0
    assert done["offer"] > before["offer"] and done["spot_quote"] > before["spot_quote"]
    # what the runs say they added is exactly what is there: nothing twice, nothing lost
    assert done["loaded"] == done["recorded"]
    assert read_frame(
        warehouse_at(path), "SELECT count(*) FROM offer WHERE observed_at::DATE = ?", [day2]
    ).item()
