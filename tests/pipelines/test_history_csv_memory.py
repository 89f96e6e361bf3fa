"""A large tracker CSV is read in bounded memory (issue 40: a 200 MB file, under the 256 MB
limit, was still parsing after 300 s at 2.6 GB resident: the file was read whole and every
row of it made before the first was loaded).

The file here is 150,000 rows of the real tracker's format, 1,000 rows a moment: the first
five moments load, the rest are dated 2099 and refused by the clock, so the test measures the
reading, not the load's speed (bench/csv_import.py measures a whole import). The command is
the real `gpuprice history csv` in a process of its own, whose peak resident memory it
reports when it exits."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.support.archive_server import history_settings
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
HEADER = ["observed_at_utc", "provider", "market", "gpu_model", "price_usd_per_gpu_hour",
          "source_url", "availability_count", "raw_label", "notes"]  # fmt: skip
MOMENTS, PER_MOMENT, LOADED = 150, 1000, 5
LIMIT_MB = 500  # the bound for a file up to the size limit
# Runs the command in this process and writes its peak resident set (KB) when it exits:
# VmHWM, the peak of this process's own memory. getrusage's ru_maxrss is kept across exec,
# so it reported the pytest worker's 1.4 GB that started the command (full suite, 2 workers).
MEASURED = """
import atexit, re, runpy, sys
out = sys.argv.pop(1)
def peak():
    status = open("/proc/self/status").read()
    open(out, "w").write(re.search(r"VmHWM:\\s+(\\d+) kB", status).group(1))
atexit.register(peak)
sys.argv[0] = "gpuprice"
runpy.run_module("gpuprice.main", run_name="__main__")
"""


def _write(path: Path) -> None:
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(HEADER)
        for m in range(MOMENTS):
            start = datetime(2026, 1, 1) if m < LOADED else datetime(2099, 1, 1)
            stamp = f"{start + timedelta(hours=m):%Y-%m-%dT%H:%M:%SZ}"
            for n in range(PER_MOMENT):
                writer.writerow([stamp, "Lambda", f"region-{n}", "H100", f"{2 + n / 1000:.3f}",
                                 "https://lambda.ai/pricing", "", "NVIDIA H100 SXM 80 GB",
                                 ""])  # fmt: skip


def test_a_large_tracker_csv_is_read_in_bounded_memory(tmp_path: Path) -> None:
    settings = history_settings(tmp_path)
    assert settings.config_path is not None
    file = tmp_path / "tracker.csv"
    _write(file)
    assert file.stat().st_size > 14_000_000
    peak = tmp_path / "peak"
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, str(peak), "history", "csv", str(file), "--mapping",
         "gpu_price_track"],
        cwd=ROOT, capture_output=True, text=True, timeout=1800,
        env=os.environ | {"GPUPRICE_HOME": str(settings.home),
                          "GPUPRICE_CONFIG": str(settings.config_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]  # partial: the 2099 moments refused
    assert f"{MOMENTS} listed" in done.stdout and f"{LOADED} parsed" in done.stdout, done.stdout
    rows = read_frame(settings.warehouse, "SELECT count(*) AS n FROM offer WHERE source = 'lambda'")
    assert rows["n"].item() == LOADED * PER_MOMENT
    resident_mb = int(peak.read_text()) / 1024
    assert resident_mb < LIMIT_MB, f"{resident_mb:.0f} MB resident"
