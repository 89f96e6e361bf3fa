"""warehouse.ingest.bulk (many snapshots through one connection, derived once) and the
history ledger (warehouse.ingest.history): idempotent, each row citing its origin, each
converted at the rate of its own day with the nearest earlier one said."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

from scrapers.collect import ParsedPage, Snapshot
from scrapers.fx import FxRate
from scrapers.http import FetchedPage
from tests.support.demo_days import demo_snapshot, reference_warehouse
from tests.support.listed_usd import usd_offer
from warehouse.ingest.bulk import BulkOptions, BulkSnapshot, bulk_loader, derive_loaded, load_many
from warehouse.ingest.fx_rates import import_rates
from warehouse.ingest.history import (
    CaptureRecord,
    ImportRecord,
    archived_body,
    move_cursor,
    read_ledger,
    record_captures,
    start_import,
)
from warehouse.store.db import read_frame, write_connection

ORIGIN = "https://web.archive.org/web/20250909131230id_/https://example.com/pricing"


def _usd_snapshot(at: datetime, price: str = "2.5") -> BulkSnapshot:
    page = FetchedPage(f"https://example.com/{at:%Y%m%d}", 200, price.encode(), "text/plain", at)
    snapshot = Snapshot(
        "examplecloud", "offers", at, None, [ParsedPage(page, [usd_offer(at, price)], None)]
    )
    return BulkSnapshot(snapshot, at, f"run-{at:%Y%m%d%H%M}", ORIGIN)


def test_many_demo_snapshots_load_once_through_one_connection(tmp_path: Path) -> None:
    warehouse = reference_warehouse(tmp_path)
    days = [date(2026, 9, 1), date(2026, 9, 2), date(2026, 9, 3)]
    items = [
        BulkSnapshot(demo_snapshot("jygpu", day), datetime(2026, 1, 1), f"backfill-{day}")
        for day in days
    ]
    options = BulkOptions(profile="demo")
    first = load_many(warehouse, items, options)
    assert [s.status for s in first] == ["ok"] * 3 and all(s.rows_added > 0 for s in first)
    rerun = [BulkSnapshot(i.snapshot, i.observed_at, f"again-{n}") for n, i in enumerate(items)]
    again = load_many(warehouse, rerun, options)
    assert [s.rows_added for s in again] == [0, 0, 0]  # re-loading adds nothing
    runs = read_frame(warehouse, "SELECT run_id, status FROM scrape_run ORDER BY run_id")
    assert sorted(runs["run_id"]) == sorted([f"again-{n}" for n in range(3)] +
                                            [f"backfill-{d}" for d in days])  # fmt: skip
    assert set(runs["status"]) == {"ok"}
    offers = read_frame(warehouse, "SELECT count(DISTINCT observed_at::DATE) AS d FROM offer "
                                   "WHERE source = 'jygpu'")  # fmt: skip
    assert offers["d"].item() == 3
    derived = derive_loaded(warehouse)  # once, over every snapshot loaded
    assert derived.offer_snapshots >= 3
    assert read_frame(warehouse, "SELECT count(*) AS n FROM breakeven")["n"].item() > 0


def test_every_row_cites_its_origin_and_is_converted_at_its_own_days_rate(tmp_path: Path) -> None:
    warehouse = reference_warehouse(tmp_path)
    import_rates(warehouse, [
        FxRate(date(2023, 9, 8), "USD", Decimal("7.339798"), "ECB test"),
        FxRate(date(2023, 9, 11), "USD", Decimal("7.350000"), "ECB test"),
    ])  # fmt: skip
    friday, saturday = datetime(2023, 9, 8, 12), datetime(2023, 9, 9, 19, 40, 11)
    long_before = datetime(2019, 1, 1)
    defaults = (
        FxRate(
            date(2026, 9, 1), "USD", Decimal("7.10"), "configured default (gpuprice.toml [fx]): t"
        ),
    )
    options = BulkOptions(profile="live", fx_defaults=defaults, record_runs=False)
    with bulk_loader(warehouse, options) as loader:
        for at in (friday, saturday, long_before):
            assert loader.load(_usd_snapshot(at)).rows_added == 1
    rows = read_frame(
        warehouse,
        "SELECT observed_at, cny_per_card_hour, citation, simulated, run_id FROM offer "
        "WHERE source = 'examplecloud' ORDER BY observed_at",
    )
    assert rows["citation"].to_list() == [ORIGIN] * 3 and not any(rows["simulated"])
    cny = dict(zip(rows["observed_at"], rows["cny_per_card_hour"], strict=True))
    assert (
        cny[friday] == cny[saturday] == Decimal("2.5") * Decimal("7.339798")
    )  # Saturday: Friday's
    assert cny[long_before] == Decimal("2.5") * Decimal("7.10")
    fx = loader.fx
    assert (fx.own_day, fx.earlier, fx.max_gap_days, fx.default) == (1, 1, 1, 1)
    note = fx.note() or ""
    assert "1 row(s) at the nearest earlier day's rate (up to 1 day(s) before)" in note
    assert "CONFIGURED DEFAULT 7.10 CNY/USD" in note
    assert read_frame(warehouse, "SELECT count(*) AS n FROM scrape_run")["n"].item() == 0


def test_a_snapshot_that_does_not_parse_is_archived_and_loads_nothing(tmp_path: Path) -> None:
    warehouse = reference_warehouse(tmp_path)
    at = datetime(2024, 3, 15)
    page = FetchedPage(
        "https://web.archive.org/web/x", 200, b"<html>not prices</html>", "text/html", at
    )
    snapshot = Snapshot(
        "runpod", "offers", at, None, [ParsedPage(page, [], "parse error: not a page")]
    )
    with bulk_loader(warehouse, BulkOptions(profile="live", record_runs=False)) as loader:
        summary = loader.load(BulkSnapshot(snapshot, at, "r1", "origin"))
    assert (summary.status, summary.rows_added) == ("failed", 0)
    stored = read_frame(warehouse, "SELECT url, parse_status, fetched_at FROM raw_page")
    assert stored.row(0) == ("https://web.archive.org/web/x", "error", at)


def test_the_ledger_keeps_cursors_settled_captures_and_archived_digests(tmp_path: Path) -> None:
    warehouse = reference_warehouse(tmp_path)
    start_import(
        warehouse,
        ImportRecord("i1", "wayback", "runpod", "u", None, None, "week", datetime(2026, 1, 1)),
    )
    with bulk_loader(warehouse, BulkOptions(profile="live", record_runs=False)) as loader:
        loader.load(_usd_snapshot(datetime(2025, 1, 6)))
    page_id = read_frame(warehouse, "SELECT page_id FROM raw_page")["page_id"].item()
    at = datetime(2025, 1, 6)
    capture = CaptureRecord("r1", "i1", "wayback", "runpod", "u", at, ORIGIN, "DIG", "ok",
                            page_id=page_id, rows_added=1)  # fmt: skip
    lost = replace(capture, run_id="r2", observed_at=datetime(2025, 2, 1), origin="o2",
                   digest="D2", status="failed", reason="not_found", page_id=None, rows_added=0)  # fmt: skip
    busy = replace(lost, run_id="r3", observed_at=datetime(2025, 3, 1), reason="busy", retry=True)
    with write_connection(warehouse) as con:
        record_captures(con, [capture, lost, busy])
        record_captures(con, [capture])  # recorded before: kept as it was
        move_cursor(con, "wayback", "runpod", "u", datetime(2025, 2, 1))
        move_cursor(con, "wayback", "runpod", "u", datetime(2024, 1, 1))  # never back
    ledger = read_ledger(warehouse, "wayback", "runpod")
    assert ledger.cursors == {"u": datetime(2025, 2, 1)}
    assert ledger.settled == {("u", at), ("u", datetime(2025, 2, 1))}  # the busy one is retried
    assert ledger.loaded == {"u": {at}}
    assert ledger.digests == {"DIG": page_id}
    assert archived_body(warehouse, page_id) == b"2.5"
    assert read_ledger(warehouse, "wayback", "lambda").cursors == {}
