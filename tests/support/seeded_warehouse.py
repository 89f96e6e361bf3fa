"""Build a warehouse of demo history without HTTP: the demo market's pages, parsed and loaded.

Uses the same parse and load code as the pipeline (scrapers.collect.parse_page and
warehouse.ingest.load.load_snapshot), only the fetch is replaced by rendering the page.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from pathlib import Path

from demo.market import render_page
from scrapers.collect import Snapshot, parse_page
from scrapers.http import FetchedPage
from scrapers.sources import build_adapter
from tests.support.handles import warehouse_at
from warehouse.ingest.load import load_snapshot
from warehouse.ingest.reference import load_reference
from warehouse.store.db import write_connection

PAGES = {"jygpu": ["/market/container", "/market/baremetal"], "smm": ["/compute/quotes"]}


def seed_demo_history(path: Path, last_day: date, days: int) -> None:
    with write_connection(warehouse_at(path)) as con:
        load_reference(con)
    for offset in range(days - 1, -1, -1):
        day = last_day - timedelta(days=offset)
        for source, paths in PAGES.items():
            adapter = build_adapter(source)
            # after the pages' stated time (10:00 Beijing, 02:00 UTC): a page dated after its
            # fetch is refused (scrapers.clock.SKEW)
            fetched_at = datetime.combine(day, time(3, 0))
            snapshot = Snapshot(source, adapter.kind, fetched_at, day)
            for page_path in paths:
                body = render_page(source, page_path, day)
                page = FetchedPage(
                    f"http://127.0.0.1{page_path}?as_of={day}", 200, body, "text/html", fetched_at
                )
                snapshot.pages.append(parse_page(adapter, page))
            load_snapshot(warehouse_at(path), snapshot, profile="demo")
