"""Benchmark: deriving one new snapshot on top of a year of hourly history vs recomputing all.

Builds a warehouse with one year of hourly snapshots of the demo market (the real pages of
each day, parsed by the real adapters, repeated for every hour: about 88k offer rows and 79k
quote rows), derives it all once, then adds one new hourly snapshot (offers + quotes) at a
time and derives incrementally. Prints figures only (no pass/fail): the seconds of each, and
their ratio.
Run: `.venv/bin/python bench/derive_incremental.py [--days 365] [--rounds 5]`.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path

import duckdb
import polars as pl

from demo.market.server import render_page
from scrapers.collect import parse_page
from scrapers.http import FetchedPage
from scrapers.sources import build_adapter
from warehouse.derive.metrics import derive_with
from warehouse.ingest.reference import load_reference
from warehouse.store.db import read_frame, write_connection
from warehouse.store.handle import Warehouse

PAGES = {"jygpu": ("/market/container", "/market/baremetal"), "smm": ("/compute/quotes",)}


def day_rows(day: date) -> dict[str, list[dict]]:
    """The demo market's rows of one day, as the adapters parse them."""
    out: dict[str, list[dict]] = {"offer": [], "spot_quote": []}
    for source, paths in PAGES.items():
        adapter = build_adapter(source)
        for path in paths:
            page = FetchedPage(
                f"http://demo.invalid{path}?as_of={day}",
                200,
                render_page(source, path, day),
                "text/html",
                datetime.combine(day, datetime.min.time()),
            )
            parsed = parse_page(adapter, page)
            assert parsed.error is None, parsed.error
            table = "offer" if adapter.kind == "offers" else "spot_quote"
            out[table] += [r.to_dict() | {"page_id": None, "run_id": "bench"} for r in parsed.rows]
    return out


def hourly(rows: list[dict], start: datetime, hours: int) -> pl.DataFrame:
    """The same rows observed at every hour from ``start``."""
    base = pl.DataFrame(rows, infer_schema_length=None).drop("observed_at")
    offsets = pl.DataFrame({"observed_at": [start + timedelta(hours=h) for h in range(hours)]})
    return base.join(offsets, how="cross")


def insert(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> None:
    con.register("incoming", frame)
    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM incoming")
    con.unregister("incoming")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--rounds", type=int, default=5, help="new snapshots derived one by one")
    args = parser.parse_args()
    first = date(2025, 9, 1)
    days = [first + timedelta(days=k) for k in range(args.days)]

    with tempfile.TemporaryDirectory() as tmp:
        path = Warehouse(Path(tmp) / "gpuprice.duckdb")
        started = time.perf_counter()
        with write_connection(path) as con:
            load_reference(con)
            for day in days:
                rows = day_rows(day)
                start = datetime.combine(day, datetime.min.time())
                for table, day_table in rows.items():
                    insert(con, table, hourly(day_table, start, 24))
        counts = read_frame(
            path,
            "SELECT (SELECT count(*) FROM offer) AS offers, (SELECT count(*) FROM spot_quote) AS quotes, "
            "(SELECT count(DISTINCT observed_at) FROM offer WHERE source = 'jygpu') AS snapshots",
        ).row(0, named=True)
        print(
            f"history: {args.days} days hourly = {counts['snapshots']:,} snapshots, "
            f"{counts['offers']:,} offer rows, {counts['quotes']:,} quote rows "
            f"(built in {time.perf_counter() - started:.1f} s)"
        )

        with write_connection(path) as con:
            cold = derive_with(con)
            print(f"first derive of everything:  {cold.seconds:8.3f} s  ({cold.line()})")
            full_runs = [derive_with(con, full=True).seconds for _ in range(3)]
            full = statistics.median(full_runs)
            print(f"recompute everything (median of {len(full_runs)}): {full:8.3f} s")
            idle = statistics.median(derive_with(con).seconds for _ in range(3))
            print(f"derive with nothing new:     {idle:8.3f} s")

            next_day = days[-1] + timedelta(days=1)
            rows = day_rows(next_day)
            start = datetime.combine(next_day, datetime.min.time())
            incremental = []
            for hour in range(args.rounds):
                for table, day_table in rows.items():
                    insert(con, table, hourly(day_table, start + timedelta(hours=hour), 1))
                summary = derive_with(con)
                assert summary.offer_snapshots == 1, summary.line()
                incremental.append(summary.seconds)
            one = statistics.median(incremental)
            print(
                f"derive one new snapshot (median of {len(incremental)}): {one:8.3f} s  "
                f"({summary.line()})"
            )
        print(f"ratio recompute-everything / one-new-snapshot: {full / one:,.1f}x")


if __name__ == "__main__":
    main()
