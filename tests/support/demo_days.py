"""A temporary warehouse with the reference data, and demo-market days loaded in-process.

``load_demo_day`` renders the exact pages the demo market serves for a day, parses them
with the real adapters and loads them with the real loader: no HTTP, no Dagster, so a
90-day history takes a few seconds.
"""

from __future__ import annotations

import atexit
import hashlib
import shutil
import tempfile
from collections.abc import Callable
from datetime import date, datetime, time
from functools import cache
from pathlib import Path

import pytest

from demo.market.server import render_page
from scrapers.collect import Snapshot, parse_page
from scrapers.http import FetchedPage
from scrapers.rows import Row
from scrapers.sources import build_adapter
from tests.support.handles import warehouse_at
from warehouse.ingest.insert import insert_rows
from warehouse.ingest.load import load_snapshot
from warehouse.ingest.reference import load_reference
from warehouse.store.db import write_connection
from warehouse.store.handle import Warehouse
from warehouse.store.marker import marker_path

PAGES = {"jygpu": ("/market/container", "/market/baremetal"), "smm": ("/compute/quotes",)}


@cache
def _reference_template() -> Path:
    """A warehouse file holding the reference data, made once a test process (removed when
    it ends): migrating a new file and loading the reference data takes 0.3 s, a copy of the
    result 3 ms, and the suite makes hundreds."""
    folder = Path(tempfile.mkdtemp(prefix="gpuprice-reference-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / "gpuprice.duckdb"
    with write_connection(warehouse_at(path)) as con:
        load_reference(con)
    return path


def reference_warehouse(tmp_path: Path) -> Warehouse:
    """A warehouse under ``tmp_path/home`` holding the reference data only: a copy of
    :func:`_reference_template` (with its marker), or, on a DuckLake (make test-ducklake) or
    where a file is already, made and loaded in place."""
    warehouse = warehouse_at(tmp_path / "home" / "gpuprice.duckdb")
    path = warehouse.path
    if warehouse.lake is not None or path.exists() or marker_path(path).exists():
        with write_connection(warehouse) as con:
            load_reference(con)
        return warehouse
    template = _reference_template()
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, path)
    shutil.copyfile(marker_path(template), marker_path(path))
    return warehouse


@pytest.fixture
def warehouse(tmp_path: Path) -> Warehouse:
    return reference_warehouse(tmp_path)


def demo_snapshot(source: str, day: date, paths: tuple[str, ...] | None = None) -> Snapshot:
    adapter = build_adapter(source)
    snapshot = Snapshot(source, adapter.kind, datetime(2026, 1, 1), day)
    for path in paths or PAGES[source]:
        body = render_page(source, path, day)
        # fetched after the page's stated time (10:00 Beijing): a page dated after its fetch
        # is refused (scrapers.clock.SKEW)
        fetched = datetime.combine(day, time(3, 0))
        page = FetchedPage(
            f"http://demo.invalid{path}?as_of={day}", 200, body, "text/html", fetched
        )
        snapshot.pages.append(parse_page(adapter, page))
    return snapshot


def load_demo_day(path: Path, day: date, sources: tuple[str, ...] = ("jygpu", "smm")) -> int:
    added = 0
    for source in sources:
        summary = load_snapshot(warehouse_at(path), demo_snapshot(source, day), profile="demo")
        assert summary.status == "ok", summary.error
        added += summary.rows_added
    return added


def insert(path: Path, rows: list[Row]) -> int:
    """Rows straight into the warehouse (hand-made cases), as the loader would store them."""
    with write_connection(warehouse_at(path)) as con:
        return insert_rows(
            con, rows, page=hashlib.sha256(repr(rows).encode()).hexdigest(), run_id="t"
        )


@pytest.fixture
def demo_day() -> Callable[..., int]:
    return load_demo_day


def insert_demo_day(con, day: date, sources: tuple[str, ...] = ("jygpu", "smm")) -> int:
    """The day's parsed demo rows into an open write connection (fast path for long histories)."""
    added = 0
    for source in sources:
        for parsed in demo_snapshot(source, day).pages:
            assert parsed.error is None, parsed.error
            added += insert_rows(con, parsed.rows, page=None, run_id=f"demo-{day}")
    return added
