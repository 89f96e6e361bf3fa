"""`gpuprice up` (what `make up` runs) as a user starts it: real processes on free ports."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from configuration.first_start import read_status
from tests.support.handles import warehouse_at
from tests.support.loopback import free_port
from warehouse.store.db import WarehouseBusy, WarehouseMissing, read_frame

pytestmark = pytest.mark.e2e
GPUPRICE = str(Path(sys.executable).parent / "gpuprice")


def answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def sources_loaded(path: Path) -> set[str]:
    try:
        frame = read_frame(
            warehouse_at(path),
            "SELECT DISTINCT source FROM offer UNION SELECT DISTINCT source FROM spot_quote",
            wait_s=2,
        )
    except (WarehouseMissing, WarehouseBusy):
        return set()
    return set(frame["source"])


def test_up_serves_dagster_dashboard_and_fills_the_warehouse(tmp_path: Path) -> None:
    ports = {name: free_port() for name in ("dagster", "dashboard", "jygpu", "smm", "platforms")}
    config = tmp_path / "gpuprice.toml"
    config.write_text(
        f"""
[services]
dagster_port = {ports["dagster"]}
dashboard_port = {ports["dashboard"]}
[demo_market]
jygpu_port = {ports["jygpu"]}
smm_port = {ports["smm"]}
platforms_port = {ports["platforms"]}
[http]
min_interval_s = 0
[sources.jygpu]
demo_url = "http://127.0.0.1:{ports["jygpu"]}"
[sources.smm]
demo_url = "http://127.0.0.1:{ports["smm"]}"
""",
        encoding="utf-8",
    )
    home = tmp_path / "home"
    env = os.environ | {"GPUPRICE_HOME": str(home), "GPUPRICE_PROFILE": "demo"}
    log = (tmp_path / "up.log").open("wb")
    proc = subprocess.Popen(
        [GPUPRICE, "up", "--config", str(config)], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 120
        ready = {"dagster": False, "dashboard": False, "warehouse": False, "seeding": False}
        while time.monotonic() < deadline and not all(ready.values()):
            assert proc.poll() is None, (tmp_path / "up.log").read_text()
            ready["dagster"] = ready["dagster"] or answers(
                f"http://127.0.0.1:{ports['dagster']}/server_info"
            )
            ready["dashboard"] = ready["dashboard"] or answers(
                f"http://127.0.0.1:{ports['dashboard']}/_stcore/health"
            )
            ready["warehouse"] = {"jygpu", "smm"} <= sources_loaded(home / "gpuprice.duckdb")
            # The first start seeds history in the background: days land while the UI serves.
            status = read_status(home)
            ready["seeding"] = status is not None and status.running and status.days_done >= 1
            time.sleep(1)
        assert all(ready.values()), (ready, (tmp_path / "up.log").read_text())
        assert answers(f"http://127.0.0.1:{ports['dashboard']}/_stcore/health")  # not blocked
        assert "history: seeding 90 days of SIMULATED demo history" in (
            tmp_path / "up.log"
        ).read_text(encoding="utf-8")
        assert (home / "dagster" / "dagster.yaml").exists()
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
    assert code == 0
    status = read_status(home)
    assert status is not None and status.state == "failed" and "stopped" in (status.error or "")
    for port in ports.values():
        with socket.socket() as sock:
            assert sock.connect_ex(("127.0.0.1", port)) != 0, f"port {port} still served after stop"
