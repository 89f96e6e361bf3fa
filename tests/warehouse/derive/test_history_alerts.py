"""No procurement alert fires for imported history: an import evaluates no watch rule and
moves each rule's cursor past the history it loaded, counting it as walked
(warehouse.derive.alerts.hold_for_history), so neither a later scheduled run nor a rule
walking its line again (older days arrived) alerts on it. The control cases (the same import
without the hold) show the alerts the hold prevents: news after the cursor, and not-sent
history found by walking the line again."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from scrapers.collect import ParsedPage, Snapshot
from scrapers.http import FetchedPage
from tests.support.demo_days import insert, reference_warehouse
from tests.support.sim_offers import offer
from warehouse.derive.alerts import WatchRule, evaluate, hold_for_history
from warehouse.derive.metrics import derive
from warehouse.ingest.bulk import BulkOptions, BulkSnapshot, bulk_loader, derive_loaded
from warehouse.store.db import read_frame, write_connection

RULE = WatchRule("4090 box", gpu="rtx4090-24g", usage_hours=300, source="jygpu", threshold_pct=5)
LIVE = datetime(2026, 10, 1, 2, 0)


def _imported(at: datetime, hourly: str) -> BulkSnapshot:
    """A snapshot as a history import loads it: real rows at their capture time."""
    rows = [
        offer("rtx4090-24g", "hourly", hourly, observed_at=at, simulated=False),
        offer("rtx4090-24g", "bare_metal_monthly", "1.0", observed_at=at, simulated=False),
    ]
    page = FetchedPage(f"https://web.archive.org/web/{at:%Y%m%d%H%M%S}id_/x", 200,
                       repr(rows).encode(), "text/html", at)  # fmt: skip
    snapshot = Snapshot("jygpu", "offers", at, None, [ParsedPage(page, rows, None)])
    return BulkSnapshot(snapshot, at, f"import-{at:%Y%m%d}", page.url)


def _scheduled_run_so_far(tmp_path: Path):
    """A warehouse whose scheduled run evaluated the rule at LIVE (its cursor)."""
    warehouse = reference_warehouse(tmp_path)
    insert(warehouse.path, [offer("rtx4090-24g", "hourly", "2.0", observed_at=LIVE),
                            offer("rtx4090-24g", "bare_metal_monthly", "1.0", observed_at=LIVE)])  # fmt: skip
    derive(warehouse)
    assert evaluate(warehouse, [RULE]).new_alerts == []  # a new rule starts without alerting
    return warehouse


def _import(warehouse, *moments: tuple[datetime, str], hold: bool) -> None:
    with bulk_loader(warehouse, BulkOptions(profile="live", record_runs=False)) as loader:
        for at, hourly in moments:
            assert loader.load(_imported(at, hourly)).rows_added == 2
    derive_loaded(warehouse)
    if hold:
        with write_connection(warehouse) as con:
            assert hold_for_history(con, [RULE], max(at for at, _ in moments)) == 1


@pytest.mark.parametrize(("hold", "alerts"), [(True, 0), (False, 3)])
def test_history_after_the_cursor_raises_no_alert_once_held(
    tmp_path: Path, hold: bool, alerts: int
) -> None:
    warehouse = _scheduled_run_so_far(tmp_path)
    # the breakeven moves far (hourly 2.0 -> 4.0, then 8.0): two shifts and a mode flip, news
    # were it not history
    _import(warehouse, (datetime(2026, 10, 3), "4.0"), (datetime(2026, 10, 5), "8.0"), hold=hold)
    moved = read_frame(warehouse, "SELECT count(DISTINCT breakeven_hours_vs_hourly) AS n "
                                  "FROM breakeven WHERE source = 'jygpu'")  # fmt: skip
    assert moved["n"].item() >= 3
    found = evaluate(warehouse, [RULE])  # the next scheduled run's evaluation
    assert len(found.new_alerts) == alerts
    if hold:
        state = read_frame(
            warehouse, "SELECT last_observed_at, baseline_observed_at FROM alert_rule_state"
        )
        assert state.row(0) == (datetime(2026, 10, 5), LIVE)  # cursor moved, baseline kept


@pytest.mark.parametrize("hold", [True, False])
def test_history_older_than_the_cursor_is_never_news(tmp_path: Path, hold: bool) -> None:
    warehouse = _scheduled_run_so_far(tmp_path)
    _import(warehouse, (datetime(2023, 9, 29), "3.0"), (datetime(2024, 9, 29), "1.5"), hold=hold)
    found = evaluate(warehouse, [RULE])
    alerts = read_frame(warehouse, "SELECT created_at, not_sent FROM alert")
    if hold:  # counted as walked: nothing to walk again, no alert at all
        assert found.new_alerts == [] and alerts.is_empty()
    else:  # walked again from 2023: what it finds is dated by its day and never sent
        assert alerts.height > 0
        assert all(n is not None for n in alerts["not_sent"])
        assert alerts["created_at"].max() <= LIVE  # the walk's snapshots, not now
