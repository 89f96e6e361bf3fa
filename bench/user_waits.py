"""Benchmark: what a user of gpuprice waits for, end to end. Figures only, no pass/fail.

* ``gpuprice run`` over every source of the demo profile, fetch to derive, as a user runs
  it (the `gpuprice` command, the default politeness of one second between requests to a
  host): the first run on an empty warehouse and the hourly run after it. Baseline: the
  fetch (and parse) of the same pages alone, with the same HTTP client and politeness,
  which no run can beat; the ratio is what the rest (Dagster, load, derive, serving copy,
  alerts) adds.
* ``gpuprice backfill --days 90``, one Dagster run through the bulk path. Baselines: one
  hourly run above (the target: a 90-day backfill costs at most 15 of them; issue 28), and
  90 of them (what a run per day, the backfill before issue 28, would cost).
* ``make up`` from a fresh clone (``--make-up``): clone, install, start, first scrape, until
  the warehouse holds offers. No baseline. Needs the package registries (pip install).

The demo market is the bundled, SIMULATED one (in this process, on free ports).
Run: `make bench` or `.venv/bin/python bench/user_waits.py [--runs 3] [--days 90] [--make-up]`.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from configuration.settings import load_settings  # noqa: E402
from demo.market import DemoMarket  # noqa: E402
from scrapers.collect import collect  # noqa: E402
from scrapers.http import PoliteClient  # noqa: E402
from scrapers.sources import build_adapter  # noqa: E402
from warehouse.store.db import read_frame  # noqa: E402
from warehouse.store.handle import Warehouse  # noqa: E402

# `gpuprice` as a user runs it, from this checkout (so the bench can time another one too).
GPUPRICE = [
    sys.executable,
    "-c",
    "import sys; from gpuprice.cli import app; sys.argv[0] = 'gpuprice'; app()",
]


def demo_config(path: Path, market: DemoMarket) -> Path:
    """The product's own gpuprice.toml with the demo sources pointed at ``market``."""
    text = (ROOT / "gpuprice.toml").read_text(encoding="utf-8")
    text = text.replace('demo_url = "http://127.0.0.1:8701"', f'demo_url = "{market.jygpu_url}"')
    text = text.replace('demo_url = "http://127.0.0.1:8702"', f'demo_url = "{market.smm_url}"')
    text = text.replace('demo_url = "http://127.0.0.1:8703', f'demo_url = "{market.platforms_url}')
    path.write_text(text, encoding="utf-8")
    return path


def timed(command: list[str], env: dict[str, str]) -> float:
    """Seconds the command took. Exit 1 (a source failed) counts: on a demo platform's
    simulated layout-change day that is the product working, and the wait is the same."""
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=3600)
    if done.returncode not in (0, 1):
        raise subprocess.CalledProcessError(done.returncode, command, done.stdout, done.stderr)
    return time.perf_counter() - started


def fetch_alone(config: Path, home: Path) -> float:
    """Fetch and parse one snapshot of every demo source, nothing else (the baseline)."""
    settings = load_settings(config, home=home, profile="demo")
    started = time.perf_counter()
    for name, source in settings.enabled_sources().items():
        adapter = build_adapter(name, source.adapter)
        with PoliteClient(settings.fetch_http(), respect_robots=False) as client:
            collect(adapter, client, settings.source_url(name), datetime.now(UTC), None)
    return time.perf_counter() - started


def bench_run_and_backfill(runs: int, days: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, DemoMarket().start() as market:
        config = demo_config(Path(tmp) / "gpuprice.toml", market)
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPUPRICE_")}
        env |= {"GPUPRICE_CONFIG": str(config), "GPUPRICE_PROFILE": "demo", "PYTHONPATH": str(ROOT)}
        home = Path(tmp) / "run"
        first = timed([*GPUPRICE, "run"], env | {"GPUPRICE_HOME": str(home)})
        hourly = [timed([*GPUPRICE, "run"], env | {"GPUPRICE_HOME": str(home)})]
        hourly += [timed([*GPUPRICE, "run"], env | {"GPUPRICE_HOME": str(home)})
                   for _ in range(runs - 1)]  # fmt: skip
        fetch = statistics.median(fetch_alone(config, Path(tmp) / "fetch") for _ in range(runs))
        run = statistics.median(hourly)
        sources = len(load_settings(config, home=home).enabled_sources())
        print(f"gpuprice run, demo profile ({sources} sources, SIMULATED):")
        print(f"  first run (empty warehouse): {first:.1f} s")
        print(f"  hourly run, median of {runs}: {run:.1f} s (min {min(hourly):.1f}, max "
              f"{max(hourly):.1f})")  # fmt: skip
        print(f"  baseline, fetch + parse alone, median of {runs}: {fetch:.1f} s; "
              f"run / baseline {run / fetch:.2f}x")  # fmt: skip

        home = Path(tmp) / "backfill"
        backfill = timed(
            [*GPUPRICE, "backfill", "--days", str(days)], env | {"GPUPRICE_HOME": str(home)}
        )
        offers = read_frame(
            Warehouse(home / "gpuprice.duckdb"), "SELECT count(*) AS n FROM offer"
        ).item()
        print(f"gpuprice backfill --days {days}: {backfill:.1f} s ({backfill / days:.2f} s a day, "
              f"{offers:,} offer rows)")  # fmt: skip
        print(f"  baseline, one hourly run: {run:.1f} s; backfill / single run "
              f"{backfill / run:.1f}x (target: at most 15x)")  # fmt: skip
        print(f"  baseline, {days} hourly runs: {days * run:.1f} s; backfill / baseline "
              f"{backfill / (days * run):.2f}x")  # fmt: skip


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def bench_make_up(timeout_s: float = 1800) -> None:
    """`make up` in a fresh clone of this checkout's HEAD, until the first offers are in."""
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "gpuprice"
        started = time.perf_counter()
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        # Free ports, so a stack already running here is not in the way.
        config = (clone / "gpuprice.toml").read_text(encoding="utf-8")
        for old in ("8701", "8702", "8703", "3000", "8501"):
            new = str(free_port())
            config = config.replace(f"= {old}\n", f"= {new}\n").replace(f':{old}"', f':{new}"')
            config = config.replace(f"= {old} ", f"= {new} ")  # a key with a comment after it
            config = config.replace(f":{old}/", f":{new}/")  # the platforms' /<source> paths
        (clone / "bench.toml").write_text(config, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPUPRICE_")}
        env["GPUPRICE_CONFIG"] = str(clone / "bench.toml")
        proc = subprocess.Popen(
            ["make", "up"], cwd=clone, env=env, start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        installed = None
        warehouse = clone / "var" / "gpuprice.duckdb"
        try:
            while time.perf_counter() - started < timeout_s:
                if installed is None and (clone / ".venv" / ".installed-stamp").exists():
                    installed = time.perf_counter() - started
                if warehouse.exists() and _offers(clone) > 0:
                    break
                if proc.poll() is not None:
                    raise SystemExit(f"make up stopped with code {proc.returncode}")
                time.sleep(1)
            else:
                raise SystemExit(f"no offers after {timeout_s:.0f} s")
            first_data = time.perf_counter() - started
        finally:
            os.killpg(proc.pid, signal.SIGINT)
            proc.wait(timeout=60)
        print("make up from a fresh clone:")
        print(f"  clone + install (.venv, pip): {installed or float('nan'):.0f} s")
        print(f"  to first data (offers in the warehouse): {first_data:.0f} s")


def _offers(clone: Path) -> int:
    # The clone's own gpuprice: its warehouse is held by its writer now and then.
    found = subprocess.run(
        [str(clone / ".venv" / "bin" / "gpuprice"), "sql", "SELECT count(*) AS n FROM offer",
         "--format", "csv"],
        cwd=clone, capture_output=True, text=True,
    )  # fmt: skip
    lines = found.stdout.strip().splitlines()
    return int(lines[-1]) if found.returncode == 0 and lines and lines[-1].isdigit() else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--make-up", action="store_true", help="also time `make up` (minutes)")
    args = parser.parse_args()
    bench_run_and_backfill(args.runs, args.days)
    if args.make_up:
        bench_make_up()


if __name__ == "__main__":
    main()
