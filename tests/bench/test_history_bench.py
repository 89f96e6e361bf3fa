"""`make bench`'s history import benchmark keeps working (its figures are not checked: they
are measurements, docs/PERFORMANCE.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_history_import_bench_prints_its_figures() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "history_import.py"), "--captures", "12"],
        capture_output=True, text=True, cwd=ROOT, timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert "12 listed, 12 kept (one a day), 12 fetched" in run.stdout
    assert "captures/s (target ≥ 20)" in run.stdout
    assert "a second run (nothing new, resumed from the cursor)" in run.stdout
    assert "0 listed, 0 kept" in run.stdout
