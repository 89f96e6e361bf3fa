"""Scraper-broken alerts people can trust: one resolves itself when its source next loads
(and says so), and one raised for a past day (a backfill, the first start's seeding, a
history import) is dated by that day, resolved by the next day that loaded, whenever that
was loaded, and never sent."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

from scrapers.collect import Snapshot, parse_page
from scrapers.http import FetchedPage
from scrapers.sources.matpool import MatpoolAdapter
from tests.support.handles import warehouse_at
from tests.support.live_fixtures import MATPOOL, read
from warehouse.derive.notify import deliver_pending, pending_signature
from warehouse.ingest.load import load_snapshot
from warehouse.store.db import read_frame

NOW = datetime(2026, 12, 1, 3, 0)
URL = "https://matgo.cn/api/machine_pools"
GOOD, BROKEN = read(MATPOOL), read("matpool_renamed_price.json")


def snapshot(body: bytes, started: datetime, as_of: date | None = None) -> Snapshot:
    snap = Snapshot("matpool", "offers", started, as_of)
    snap.pages = [parse_page(MatpoolAdapter(), FetchedPage(URL, 200, body, "", started))]
    return snap


def alerts(path: Path) -> list[dict]:
    return read_frame(
        warehouse_at(path),
        "SELECT created_at, new_observed_at, resolved_at, resolution, not_sent, message "
        "FROM alert WHERE kind = 'scraper_broken' ORDER BY new_observed_at",
    ).to_dicts()


def test_a_break_resolves_itself_when_the_source_next_loads(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    hour = timedelta(hours=1)
    load_snapshot(warehouse_at(path), snapshot(GOOD, NOW), profile="live")
    load_snapshot(warehouse_at(path), snapshot(BROKEN, NOW + hour), profile="live")
    (broken,) = alerts(path)
    assert broken["resolved_at"] is None and broken["not_sent"] is None
    assert broken["created_at"] >= NOW  # raised now: news

    load_snapshot(warehouse_at(path), snapshot(GOOD, NOW + 2 * hour), profile="live")
    (resolved,) = alerts(path)
    assert resolved["resolved_at"] == NOW + 2 * hour
    assert resolved["resolution"].startswith("matpool loaded again: snapshot of 2026-12-01 05:00")
    # still sent (someone may want to know), saying it is over
    sent: list[tuple[str, str]] = []
    deliver_pending(warehouse_at(path), ["json://x"], send=lambda u, t, b: sent.append((t, b)))
    ((title, body),) = sent
    assert title == "gpuprice: scraper for matpool was broken (resolved)"
    assert "Resolved 2026-12-01 05:00 UTC: matpool loaded again" in body


def test_seeded_history_leaves_no_stale_alert_and_sends_none(tmp_path: Path) -> None:
    """The first start: today's run first, then 90 past days oldest first, some failing."""
    path = tmp_path / "w.duckdb"
    load_snapshot(warehouse_at(path), snapshot(GOOD, NOW), profile="demo")  # today, ok
    days = [date(2026, 11, 1) + timedelta(days=k) for k in range(5)]  # .. 11-05
    bodies = [GOOD, BROKEN, BROKEN, GOOD, BROKEN]  # a break of two days, and the last day
    seeding = NOW + timedelta(minutes=5)
    for day, body in zip(days, bodies, strict=True):
        load_snapshot(warehouse_at(path), snapshot(body, seeding, day), profile="demo")

    got = alerts(path)
    assert [a["new_observed_at"] for a in got] == [datetime(2026, 11, 2), datetime(2026, 11, 5)]
    # dated by the day they are about, resolved by the next day that loaded: today, for the
    # last one (loaded before it)
    assert [a["created_at"] for a in got] == [datetime(2026, 11, 2), datetime(2026, 11, 5)]
    assert [a["resolved_at"] for a in got] == [datetime(2026, 11, 4), NOW]
    assert all(a["not_sent"] and "history" in a["not_sent"] for a in got)
    assert all("was broken on 2026-11-0" in a["message"] for a in got)
    assert pending_signature(warehouse_at(path)) == (0, 0)  # nothing waits to go out
    # the health is today's, not that of the last day of history loaded
    health = read_frame(warehouse_at(path), "SELECT state, observed_at FROM source_health").rows()
    assert health == [("ok", NOW)]
