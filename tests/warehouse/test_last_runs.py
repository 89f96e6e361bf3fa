"""warehouse.read.stats.last_runs (`gpuprice sources`, and the same SQL behind the Data health
page): each source's newest data in the profile asked for, judged by the day the data is
about, not by when it was loaded, and its newest success, with the load time and whether a
live run or a backfill brought it; read-only; no warehouse is an error the caller can tell
apart.

The case of issue 38: on a first start the live run loads compshare at 17:06, then the
seeding loads the 90 past days after it, and 2026-12-02 is one of compshare's deliberate
demo layout days (failed, drift). Ordered by load time that day was compshare's "latest run",
and the health said failed after a live success."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest

from tests.support.handles import warehouse_at
from warehouse.read.stats import LastRun, last_runs
from warehouse.store.db import WarehouseMissing, write_connection
from warehouse.store.handle import Warehouse

LIVE = datetime(2026, 12, 3, 17, 6)
SEEDED = datetime(2026, 12, 3, 17, 40)  # when the seeding loaded the past days
RUNS = [  # run_id, source, profile, as_of, started_at, finished_at, status, rows, reason
    ("c1", "compshare", "demo", None, LIVE, LIVE, "ok", 20, None),
    ("c2", "compshare", "demo", date(2026, 12, 1), SEEDED, SEEDED, "ok", 19, None),
    ("c3", "compshare", "demo", date(2026, 12, 2), SEEDED, SEEDED, "failed", 0, "drift"),
    ("m1", "matpool", "demo", None, LIVE, LIVE, "failed", 0, "unreachable"),
    ("m2", "matpool", "demo", date(2026, 12, 2), SEEDED, SEEDED, "ok", 5, None),
    ("v1", "vastai", "demo", None, datetime(2026, 9, 1, 10), datetime(2026, 9, 1, 10), "ok", 24, None),
    ("v2", "vastai", "demo", None, datetime(2026, 9, 2, 10), datetime(2026, 9, 2, 10), "failed", 0, "drift"),
    ("v3", "vastai", "live", None, datetime(2026, 9, 3, 10), datetime(2026, 9, 3, 10), "ok", 900, None),
    ("s1", "smm", "live", None, datetime(2026, 9, 1, 9), datetime(2026, 9, 1, 9), "skipped", 0, "not_configured"),
]  # fmt: skip


def _recorded(tmp_path: Path, runs: list[tuple]) -> Warehouse:
    warehouse = warehouse_at(tmp_path / "gpuprice.duckdb")
    with write_connection(warehouse) as con:
        for run_id, source, profile, as_of, started, finished, status, rows, reason in runs:
            con.execute(
                "INSERT INTO scrape_run (run_id, source, profile, as_of, started_at, "
                "finished_at, status, pages, rows, error, reason) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, NULL, ?)",
                [run_id, source, profile, as_of, started, finished, status, rows, reason],
            )
    return warehouse


def test_a_seeded_day_loaded_later_does_not_overrule_a_newer_live_success(tmp_path: Path) -> None:
    runs = last_runs(_recorded(tmp_path, RUNS), "demo")
    assert runs["compshare"] == LastRun(
        LIVE, LIVE, "live", "ok", 20, None, None, LIVE, LIVE, "live"
    )


def test_last_success_is_the_day_the_data_is_about_with_its_load_time(tmp_path: Path) -> None:
    matpool = last_runs(_recorded(tmp_path, RUNS), "demo")["matpool"]
    # the newest data is today's live run, which failed; the newest success is the seeded
    # 2026-12-02, loaded at 17:40 by a backfill: about the 2nd, not "17:40 today"
    assert (matpool.about, matpool.how, matpool.status) == (LIVE, "live", "failed")
    assert (matpool.ok_about, matpool.ok_loaded, matpool.ok_how) == (
        datetime(2026, 12, 2),
        SEEDED,
        "backfill",
    )


def test_newest_run_per_source_of_the_profile(tmp_path: Path) -> None:
    warehouse = _recorded(tmp_path, RUNS)
    vastai = last_runs(warehouse, "demo")["vastai"]
    assert (vastai.about, vastai.status, vastai.reason) == (
        datetime(2026, 9, 2, 10),
        "failed",
        "drift",
    )
    assert vastai.ok_about == datetime(2026, 9, 1, 10)
    live = last_runs(warehouse, "live")
    assert set(live) == {"vastai", "smm"}
    assert (live["vastai"].status, live["vastai"].rows) == ("ok", 900)
    assert (live["smm"].status, live["smm"].reason) == ("skipped", "not_configured")
    assert live["smm"].ok_about is None  # never loaded whole


def test_a_failed_backfill_of_a_newer_day_is_the_newest_data(tmp_path: Path) -> None:
    """The other way round: a backfilled day newer than the last live run is the newest
    data, failed or not: the day decides, not which kind of run brought it."""
    older_first = [
        ("a", "ppio", "demo", date(2026, 12, 2), datetime(2026, 12, 4), datetime(2026, 12, 4), "failed", 0, "drift"),
        ("b", "ppio", "demo", None, datetime(2026, 12, 1, 9), datetime(2026, 12, 1, 9), "ok", 9, None),
    ]  # fmt: skip
    newest = last_runs(_recorded(tmp_path, older_first), "demo")["ppio"]
    assert (newest.about, newest.how, newest.status) == (
        datetime(2026, 12, 2),
        "backfill",
        "failed",
    )


def test_no_warehouse_is_warehouse_missing(tmp_path: Path) -> None:
    with pytest.raises(WarehouseMissing):
        last_runs(warehouse_at(tmp_path / "none.duckdb"), "demo")
    assert not (tmp_path / "none.duckdb").exists()
