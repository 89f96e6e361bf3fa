"""`gpuprice history wayback | skypilot | csv` as a user runs them: real processes against a
loopback archive of the real captures; exit codes, the closing summary, one line per
problem."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from demo.market.archive import REAL
from tests.support.archive_server import HISTORY_TOML, ArchiveServer

pytestmark = pytest.mark.e2e


def _gpuprice(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "gpuprice.toml"
    if not config.exists():
        config.write_text(HISTORY_TOML, encoding="utf-8")
    env = os.environ | {"GPUPRICE_HOME": str(tmp_path / "home"), "GPUPRICE_CONFIG": str(config),
                        "GPUPRICE_PROFILE": "live", "COLUMNS": "200"}  # fmt: skip
    env.pop("GITHUB_TOKEN", None)
    return subprocess.run(
        [sys.executable, "-m", "gpuprice.cli", "history", *args],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip


def test_the_three_commands_fill_the_warehouse(tmp_path: Path) -> None:
    with ArchiveServer() as server:
        wayback = _gpuprice(tmp_path, "wayback", "lambda", "--archive-url", server.wayback,
                            "--every", "month", "--from", "2023-01-01", "--to", "2025-12-31")  # fmt: skip
        skypilot = _gpuprice(tmp_path, "skypilot", "lambda", "--version", "v5", "--api-url",
                             server.api, "--raw-url", server.raw)  # fmt: skip
    tracker = str(REAL / "trackers" / "gpu_price_track_2026-07-08_09.csv")
    csv = _gpuprice(tmp_path, "csv", tracker, "--mapping", "gpu_price_track")
    assert wayback.returncode == 0, wayback.stderr
    # --to 2025-12-31 leaves the 2026 capture out
    assert "history wayback lambda: 2 listed, 2 kept (one a month), 2 fetched" in wayback.stdout
    assert "2023-09-09 .. 2024-11-03 (UTC)" in wayback.stdout
    assert skypilot.returncode == 0, skypilot.stderr
    assert "history skypilot catalogs/v5/lambda/vms.csv: 5 listed, 4 kept" in skypilot.stdout
    assert "GitHub allows 60 API requests an hour" in skypilot.stderr
    assert csv.returncode == 0, csv.stderr
    assert "74 row(s) added; 2026-07-08 .. 2026-07-09 (UTC)" in csv.stdout
    for done in (wayback, skypilot, csv):
        assert "Traceback" not in done.stdout + done.stderr


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    day = _gpuprice(tmp_path, "wayback", "runpod", "--from", "2024-13-01")
    assert day.returncode == 2 and "--from '2024-13-01': use a day YYYY-MM-DD" in day.stderr
    source = _gpuprice(tmp_path, "wayback", "nosuch", "--archive-url", "http://127.0.0.1:9")
    assert source.returncode == 2
    assert "history wayback: no source 'nosuch' in the configuration; known:" in source.stderr
    mapping = _gpuprice(tmp_path, "csv", str(tmp_path / "x.csv"), "--mapping", "nosuch")
    assert mapping.returncode == 2 and "no mapping 'nosuch'" in mapping.stderr
    for done in (day, source, mapping):
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
