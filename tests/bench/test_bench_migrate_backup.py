"""bench/migrate_backup_memory.py keeps working: at a tiny size every step, the pre-issue-31
ones included, runs and is reported (the figures are measurements, docs/RELIABILITY.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_step_is_measured(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "migrate_backup_memory.py"),
            *("--offers", "20000", "--pages", "40", "--page-kb", "10", "--before"),
            *("--json", str(out)),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    figures = json.loads(out.read_text(encoding="utf-8"))
    steps = [f["step"] for f in figures]
    assert steps == [
        "migrate before", "migrate", "check", "backup before", "backup", "restore",
        "prune before", "prune",
    ]  # fmt: skip
    assert all(f["outcome"] == "ok" and f["peak_rss_mb"] > 0 for f in figures), figures
