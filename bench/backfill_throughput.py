"""Benchmark: a 90-day demo backfill through the Dagster job, then parsing speed.

Prints figures only (no pass/fail): pages parsed per second per parser, rows loaded
per second for the whole backfill, and seconds per backfilled day.
Run: `make bench` or `.venv/bin/python bench/backfill_throughput.py [--days N]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import polars as pl

from configuration.settings import load_settings
from demo.market import DemoMarket
from gpuprice.jobs import JobRunner
from scrapers.collect import Snapshot, parse_page
from scrapers.http import FetchedPage
from scrapers.sources import build_adapter
from warehouse.ingest.load import load_snapshot
from warehouse.store.db import read_frame
from warehouse.store.handle import Warehouse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--parse-rounds", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, DemoMarket().start() as market:
        config = Path(tmp) / "gpuprice.toml"
        config.write_text(
            f'[http]\nmin_interval_s = 0\n[sources.jygpu]\ndemo_url = "{market.jygpu_url}"\n'
            f'[sources.smm]\ndemo_url = "{market.smm_url}"\n',
            encoding="utf-8",
        )
        settings = load_settings(config, home=Path(tmp) / "home", profile="demo")
        runner = JobRunner(settings)
        today = datetime.now(UTC).date()
        days = [today - timedelta(days=n) for n in range(args.days - 1, -1, -1)]

        started = time.perf_counter()
        results = runner.backfill(days)
        elapsed = time.perf_counter() - started
        rows = sum(s.rows_added for r in results for s in r.sources)
        failed = sum(len(r.failed) for r in results)

        print(
            f"backfill: {args.days} days, {rows} rows, {failed} failed source-runs, {elapsed:.1f} s"
        )
        print(f"  rows loaded per second (end to end, incl. HTTP + Dagster): {rows / elapsed:,.0f}")
        print(f"  seconds per backfilled day: {elapsed / args.days:.2f}")

        pages = read_frame(settings.warehouse, "SELECT source, url, body, fetched_at FROM raw_page")
        for source in sorted(set(pages["source"])):
            adapter = build_adapter(source)
            subset = pages.filter(pages["source"] == source).rows()
            count = 0
            parse_started = time.perf_counter()
            for _ in range(args.parse_rounds):
                for _, url, body, fetched_at in subset:
                    adapter.parse(body, url, fetched_at)
                    count += 1
            parse_elapsed = time.perf_counter() - parse_started
            megabytes = sum(len(b) for _, _, b, _ in subset) * args.parse_rounds / 1e6
            print(
                f"parse {source}: {count / parse_elapsed:,.0f} pages/s, "
                f"{megabytes / parse_elapsed:,.1f} MB/s ({count} pages)"
            )


def _load_only(pages: pl.DataFrame, target: Path) -> None:
    """The load step alone: every archived page, parsed, loaded into a fresh warehouse."""
    snapshots = []
    for source, url, body, fetched_at in pages.rows():
        adapter = build_adapter(source)
        snapshot = Snapshot(source, adapter.kind, fetched_at, None)
        snapshot.pages.append(
            parse_page(adapter, FetchedPage(url, 200, body, "text/html", fetched_at))
        )
        snapshots.append(snapshot)
    defaults = load_settings().fx_defaults()  # USD pages are priced at load, as in a run
    started = time.perf_counter()
    rows = sum(
        load_snapshot(Warehouse(target), s, profile="demo", fx_defaults=defaults).rows_added
        for s in snapshots
    )
    elapsed = time.perf_counter() - started
    print(
        f"load only: {rows} rows from {len(snapshots)} pages in {elapsed:.2f} s = "
        f"{rows / elapsed:,.0f} rows/s, {len(snapshots) / elapsed:,.0f} snapshots/s"
    )


if __name__ == "__main__":
    main()
