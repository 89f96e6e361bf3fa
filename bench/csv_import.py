"""Benchmark: `gpuprice history csv` of a large tracker CSV (issue 40's target: a file up to
the 256 MB limit in under 500 MB of resident memory, at least 50,000 rows a second).

The file is the real gpu_price_track excerpt (tests/fixtures/real/trackers, 37 rows of two
providers at one moment) repeated at later moments, every price moved a little each time:
the shape a tracker appends, rows of one moment together. The import is the real one, the
`gpuprice history csv` command in a process of its own (its Dagster run in-process, the
bulk loader, the derive once at the end), so its peak resident memory is the whole
command's (Python, Dagster, DuckDB). Prints figures only. Run:
`.venv/bin/python bench/csv_import.py [--mb 200]`.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRACKER = ROOT / "tests" / "fixtures" / "real" / "trackers" / "gpu_price_track_2026-07-08_09.csv"
TARGET_ROWS_PER_S = 50_000
TARGET_RSS_MB = 500


def write_tracker(path: Path, megabytes: float, start: datetime = datetime(2020, 1, 1)) -> int:
    """A tracker CSV of about ``megabytes`` MB; the number of data rows written."""
    with TRACKER.open(encoding="utf-8", newline="") as real:
        reader = csv.reader(real)
        header = next(reader)
        moment = [row for row in reader if row and row[0] == "2026-07-08T16:07:24Z"]
    price = header.index("price_usd_per_gpu_hour")
    rows, size, n = 0, 0, 0
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        while size < megabytes * 1_000_000:
            stamp = f"{start + timedelta(minutes=10 * n):%Y-%m-%dT%H:%M:%SZ}"
            block = io.StringIO()
            lines = csv.writer(block, lineterminator="\n")
            for row in moment:
                moved = f"{float(row[price]) * (1 + ((n * 7 + rows) % 11 - 5) / 1000):.4f}"
                lines.writerow([stamp, *row[1:price], moved, *row[price + 1 :]])
                rows += 1
            text = block.getvalue()
            out.write(text)
            size += len(text.encode())
            n += 1
    return rows


def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def run_import(home: Path, config: Path, file: Path) -> tuple[float, float, float, str]:
    """Seconds, CPU seconds and peak resident MB of the command's process, and its first
    output line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUPRICE_")}
    env |= {"GPUPRICE_HOME": str(home), "GPUPRICE_CONFIG": str(config), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "gpuprice.main", "history", "csv", str(file),
               "--mapping", "gpu_price_track"]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak, cpu = after.ru_maxrss, _cpu(after) - _cpu(before)
    if done.returncode != 0:
        raise SystemExit(f"the import failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    if peak <= before.ru_maxrss:
        print("  (peak RSS not measurable: an earlier child peaked higher)")
    return elapsed, cpu, peak / 1024, (done.stdout.strip().splitlines() or [""])[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=200.0, help="size of the CSV, MB")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "tracker.csv"
        rows = write_tracker(file, args.mb)
        config = Path(tmp) / "gpuprice.toml"
        config.write_text("", encoding="utf-8")
        size = file.stat().st_size / 1_000_000
        elapsed, cpu, peak, head = run_import(Path(tmp) / "home", config, file)
    rate = rows / elapsed
    print(f"history csv of a {size:.0f} MB tracker CSV, {rows:,} rows (`gpuprice history csv`):")
    print(f"  {head}")
    print(f"  {elapsed:.1f} s for the whole command: {rate:,.0f} rows/s "
          f"(target ≥ {TARGET_ROWS_PER_S:,})")  # fmt: skip
    print(f"  CPU time of the command: {cpu:.1f} s, {rows / cpu:,.0f} rows per CPU-second "
          f"(the rate on a machine with a core to spare; load average now "
          f"{os.getloadavg()[0]:.1f})")  # fmt: skip
    print(f"  peak resident memory of the command: {peak:,.0f} MB (target < {TARGET_RSS_MB})")


if __name__ == "__main__":
    main()
