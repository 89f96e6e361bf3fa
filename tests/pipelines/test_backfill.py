"""`gpuprice backfill` as one Dagster run (pipelines.backfill, the bulk path of
warehouse.ingest.bulk): the same rows, runs, derived tables and alerts as a run per day,
each source-day recorded, one run in the instance with what it materialised."""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime
from pathlib import Path
from types import SimpleNamespace

import dagster as dg
import pytest

from configuration.settings import Settings
from demo.market import PLATFORM_SOURCES, DemoMarket
from gpuprice.jobs import NO_DAEMON_RETRY, JobRunner, RunResult
from gpuprice.run_summary import DELIBERATE, failure_line
from pipelines import backfill, backfill_days
from pipelines.backfill import BACKFILL_JOB
from pipelines.backfill_days import DayLoaded
from tests.support.demo_days import reference_warehouse
from tests.support.demo_settings import SHIFT_RULE, demo_settings
from tests.support.webhook_receiver import running_receiver
from warehouse.derive.notify import pending_signature
from warehouse.ingest.load import LoadSummary
from warehouse.store.backup import backup
from warehouse.store.db import read_frame
from warehouse.store.lease import WarehouseInUse
from warehouse.store.restore import restore

# SHIFT_RULE's breakeven shifts and its cheaper mode flips on 2026-09-19.
SHIFT_DAYS = [date(2026, 9, 17), date(2026, 9, 18), date(2026, 9, 19), date(2026, 9, 20)]
# matpool's and compshare's deliberate layout change (demo.market.platforms.model).
LAYOUT_DAY = date(2026, 10, 8)
CHANGED = {"matpool", "compshare"}
# Every table a run writes, without the columns that name the run or say when it ran, nor
# which of equally cheap listings a derived row names (the derive's arg_min breaks a tie
# either way, a run per day as well).
TABLES = {
    "offer": "SELECT * EXCLUDE (run_id) FROM offer",
    "spot_quote": "SELECT * EXCLUDE (run_id) FROM spot_quote",
    "raw_page": "SELECT * EXCLUDE (fetched_at) FROM raw_page",
    "scrape_run": "SELECT source, profile, as_of, status, pages, rows, error, reason FROM scrape_run",
    "source_health": "SELECT source, profile, state, since, reason, observed_at FROM source_health",
    "card_value": "SELECT * EXCLUDE (offer_id) FROM card_value",
    "monthly_discount": "SELECT * FROM monthly_discount",
    "breakeven": "SELECT * EXCLUDE (bare_metal_offer, hourly_offer, monthly_offer) FROM breakeven",
    "market_premium": "SELECT * FROM market_premium",
    "offer_daily": "SELECT * FROM offer_daily",
    "alert": "SELECT * EXCLUDE (last_attempt_at, resolution), "
    "regexp_replace(resolution, ' [(]run [^)]*[)]', '') FROM alert",
    "quarantine": "SELECT * EXCLUDE (quarantine_id, run_id, created_at) FROM quarantine",
}


def contents(settings: Settings) -> dict[str, Counter]:
    """Each table's rows, as a multiset (the order rows were written in is no content)."""
    return {
        table: Counter(read_frame(settings.warehouse, sql).rows()) for table, sql in TABLES.items()
    }


def runs(settings: Settings, job: str) -> list[dg.DagsterRun]:
    with dg.DagsterInstance.from_config(str(settings.dagster_home)) as instance:
        return list(instance.get_runs(filters=dg.RunsFilter(job_name=job)))


def output_metadata(settings: Settings, run_id: str) -> dict:
    """The metadata of the backfill step's output, read back from the instance."""
    with dg.DagsterInstance.from_config(str(settings.dagster_home)) as instance:
        (entry,) = instance.all_logs(run_id, of_type=dg.DagsterEventType.STEP_OUTPUT)
    return entry.dagster_event.step_output_data.metadata


@pytest.mark.e2e
def test_a_backfill_loads_what_a_run_per_day_loads_in_one_dagster_run(
    market: DemoMarket, tmp_path: Path
) -> None:
    """Every platform over days with an alert and a deliberate layout change: the per-day
    runs on one home, the backfill on another, the same rows in every table."""
    days = [SHIFT_DAYS[1], SHIFT_DAYS[2], LAYOUT_DAY, date(2026, 10, 9)]
    for home in ("daily", "bulk"):
        (tmp_path / home).mkdir()
    daily = demo_settings(market, tmp_path / "daily", SHIFT_RULE, platforms=True)
    per_day = JobRunner(daily)
    for day in days:
        per_day.run(day)
    bulk = demo_settings(market, tmp_path / "bulk", SHIFT_RULE, platforms=True)
    results = JobRunner(bulk, command="backfill").backfill(days)

    expected, got = contents(daily), contents(bulk)
    for table in TABLES:
        assert got[table] == expected[table], table
    assert sum(got["offer"].values()) > 500 and got["alert"]  # the comparison compared rows
    assert len(runs(bulk, BACKFILL_JOB)) == 1 and not runs(bulk, "scrape_job")
    assert [r.as_of for r in results] == days
    assert {r.dagster_run_id for r in results} == {runs(bulk, BACKFILL_JOB)[0].run_id}
    assert [len(r.sources) for r in results] == [2 + len(PLATFORM_SOURCES)] * len(days)


@pytest.mark.e2e
def test_a_layout_change_day_is_recorded_per_source_day_with_its_line(
    market: DemoMarket, tmp_path: Path
) -> None:
    settings = demo_settings(market, tmp_path, platforms=True)
    seen: list[RunResult] = []
    results = JobRunner(settings).backfill([LAYOUT_DAY, date(2026, 10, 9)], seen.append)
    assert seen == results  # each day as soon as it was loaded
    broken, after = results
    assert {s.source for s in broken.failed} == CHANGED and not after.failed
    assert {s.reason for s in broken.failed} == {"drift"}
    for source in broken.failed:
        assert failure_line(settings, LAYOUT_DAY, source) == (
            f"{LAYOUT_DAY} {source.source}: {DELIBERATE} (nothing to do; other days load)"
        )
    recorded = read_frame(
        settings.warehouse,
        "SELECT source, as_of, status, reason FROM scrape_run WHERE status <> 'ok' ORDER BY 1",
    ).rows()
    assert recorded == [(s, LAYOUT_DAY, "failed", "drift") for s in sorted(CHANGED)]
    (run,) = runs(settings, BACKFILL_JOB)
    metadata = output_metadata(settings, run.run_id)
    table = metadata["outcomes"].records
    assert len(table) == 2 * (2 + len(PLATFORM_SOURCES))  # every source-day
    failed = {(r.data["day"], r.data["source"]) for r in table if r.data["status"] == "failed"}
    assert failed == {(LAYOUT_DAY.isoformat(), s) for s in CHANGED}
    assert metadata["source_days_failed"].value == 2
    health = dict(read_frame(settings.warehouse, "SELECT source, state FROM source_health").rows())
    assert set(health.values()) == {"ok"}  # the day after loaded: resolved


@pytest.mark.e2e
def test_backfilling_the_same_days_again_adds_nothing(market: DemoMarket, tmp_path: Path) -> None:
    settings = demo_settings(market, tmp_path)
    runner = JobRunner(settings)
    first = runner.backfill(SHIFT_DAYS)
    before = contents(settings)
    again = runner.backfill(SHIFT_DAYS)
    assert all(s.rows_added > 0 for r in first for s in r.sources)
    assert [s.rows_added for r in again for s in r.sources] == [0] * 8
    after = contents(settings)
    for table in set(TABLES) - {"scrape_run"}:
        assert after[table] == before[table], table
    # each source-day's run is recorded again (with nothing added), as a run per day is
    assert sum(after["scrape_run"].values()) == 2 * sum(before["scrape_run"].values()) == 16
    assert len(runs(settings, BACKFILL_JOB)) == 2


@pytest.mark.e2e
def test_the_run_is_in_the_instance_with_what_it_materialised(
    market: DemoMarket, tmp_path: Path
) -> None:
    settings = demo_settings(market, tmp_path)
    JobRunner(settings, command="backfill").backfill(SHIFT_DAYS)
    (run,) = runs(settings, BACKFILL_JOB)
    assert run.status == dg.DagsterRunStatus.SUCCESS
    assert NO_DAEMON_RETRY.items() <= run.tags.items()
    assert run.tags["gpuprice/command"] == "backfill" and run.tags["gpuprice/days"] == "4"
    assert (run.tags["gpuprice/first_day"], run.tags["gpuprice/last_day"]) == (
        "2026-09-17",
        "2026-09-20",
    )
    with dg.DagsterInstance.from_config(str(settings.dagster_home)) as instance:
        for asset in (
            *("jygpu_snapshot", "smm_snapshot", "reference_data"),
            *("card_value", "monthly_discount", "breakeven", "market_premium"),
            *("serving_copy", "alert"),
        ):
            records = instance.fetch_materializations(dg.AssetKey(asset), limit=10).records
            assert [r.run_id for r in records] == [run.run_id], asset
        (jygpu,) = instance.fetch_materializations(dg.AssetKey("jygpu_snapshot"), limit=1).records
        shown = jygpu.asset_materialization.metadata
        assert (shown["days"].value, shown["ok"].value) == (4, 4)
        assert shown["rows_added"].value > 0
        (card,) = instance.fetch_materializations(dg.AssetKey("card_value"), limit=1).records
        assert card.asset_materialization.metadata["rows_written"].value > 0
    metadata = output_metadata(settings, run.run_id)
    assert metadata["days"].value == 4 and metadata["source_days_ok"].value == 8
    assert len(metadata["outcomes"].records) == 8


@pytest.mark.e2e
def test_alerts_about_the_days_are_dated_by_them_and_not_delivered(
    market: DemoMarket, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = demo_settings(market, tmp_path, SHIFT_RULE)
    with running_receiver() as receiver:  # where they would have been sent
        monkeypatch.setenv("GPUPRICE_NOTIFY_URLS", receiver.url())
        JobRunner(settings).backfill(SHIFT_DAYS)
    alerts = read_frame(
        settings.warehouse,
        "SELECT kind, created_at, new_observed_at, delivered_at, not_sent FROM alert ORDER BY kind",
    ).to_dicts()
    assert [a["kind"] for a in alerts] == ["breakeven_shift", "mode_flip"]
    for alert in alerts:
        assert alert["new_observed_at"].date() == date(2026, 9, 19)
        assert alert["created_at"] == alert["new_observed_at"]  # dated by its day
        assert alert["delivered_at"] is None and "about 2026-09-19" in alert["not_sent"]
    assert receiver.accepted == [] and pending_signature(settings.warehouse) == (0, 0)
    (run,) = runs(settings, BACKFILL_JOB)
    with dg.DagsterInstance.from_config(str(settings.dagster_home)) as instance:
        (alert,) = instance.fetch_materializations(dg.AssetKey("alert"), limit=1).records
    assert alert.run_id == run.run_id
    assert alert.asset_materialization.metadata["new_alerts"].value == 2


@pytest.mark.e2e
def test_a_restore_is_refused_while_the_backfill_runs(market: DemoMarket, tmp_path: Path) -> None:
    settings = demo_settings(market, tmp_path)
    saved = tmp_path / "backup"
    backup(reference_warehouse(tmp_path / "other"), saved)
    refusals: list[str] = []
    running: list[list[dg.DagsterRunStatus]] = []

    def try_restore(result: RunResult) -> None:
        running.append([r.status for r in runs(settings, BACKFILL_JOB)])
        with pytest.raises(WarehouseInUse) as refused:
            restore(settings.warehouse, saved)
        refusals.append(str(refused.value))

    JobRunner(settings).backfill(SHIFT_DAYS[:2], try_restore)
    assert len(refusals) == 2 and all("is in use by" in r for r in refusals)
    # refused between the days of the one run, while it was running
    assert running == [[dg.DagsterRunStatus.STARTED]] * 2
    days = read_frame(settings.warehouse, "SELECT count(DISTINCT as_of) FROM scrape_run").item()
    assert days == 2  # nothing lost: the backfill went on and loaded both days


class Stop(Exception):
    pass


@pytest.mark.e2e
def test_a_day_callback_that_raises_stops_after_that_day_and_what_loaded_is_derived(
    market: DemoMarket, tmp_path: Path
) -> None:
    """The first start's seeding stops this way (Ctrl-C, `gpuprice up` ending)."""
    settings = demo_settings(market, tmp_path)
    told: list[date | None] = []

    def stop_after_two(result: RunResult) -> None:
        told.append(result.as_of)
        if len(told) == 2:
            raise Stop

    with pytest.raises(Stop):
        JobRunner(settings).backfill(SHIFT_DAYS, stop_after_two)
    assert told == SHIFT_DAYS[:2]
    derived = read_frame(
        settings.warehouse,
        "SELECT DISTINCT observed_at::DATE FROM breakeven WHERE source = 'jygpu' ORDER BY 1",
    )
    assert derived.to_series().to_list() == SHIFT_DAYS[:2]
    (run,) = runs(settings, BACKFILL_JOB)
    assert run.status == dg.DagsterRunStatus.SUCCESS
    assert output_metadata(settings, run.run_id)["stopped"].value == "stopped after 2 of 4 days"


@pytest.mark.e2e
def test_a_source_day_that_breaks_the_code_is_recorded_and_the_others_load(
    market: DemoMarket, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = demo_settings(market, tmp_path)
    fetch = backfill_days.fetch_snapshot

    def broken_on_smm(settings, redactor, snapshot, say, client=None):
        if snapshot.source == "smm" and snapshot.as_of == SHIFT_DAYS[1]:
            raise RuntimeError("a bug in the fetch")
        return fetch(settings, redactor, snapshot, say, client)

    monkeypatch.setattr(backfill_days, "fetch_snapshot", broken_on_smm)
    results = JobRunner(settings).backfill(SHIFT_DAYS[:3])
    outcome = {(r.as_of, s.source): (s.status, s.reason) for r in results for s in r.sources}
    assert outcome.pop((SHIFT_DAYS[1], "smm")) == ("failed", "internal_error")
    assert set(outcome.values()) == {("ok", None)}
    recorded = read_frame(
        settings.warehouse, "SELECT as_of, error FROM scrape_run WHERE reason = 'internal_error'"
    ).rows()
    assert recorded == [(SHIFT_DAYS[1], "internal error: RuntimeError: a bug in the fetch")]
    log = (settings.home / "logs" / "gpuprice.log").read_text(encoding="utf-8")
    assert "a bug in the fetch" in log and "Traceback" in log
    assert (
        datetime(2026, 9, 19, 0, 0)
        <= read_frame(settings.warehouse, "SELECT max(observed_at) FROM breakeven").item()
    )


def test_the_outcome_table_keeps_every_failed_source_day_when_it_is_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(backfill, "TABLE_ROWS", 4)

    def summary(source: str, status: str) -> LoadSummary:
        return LoadSummary("r", source, status, 1, 0, None if status == "ok" else "x", None)

    days = [
        DayLoaded("run", date(2026, 9, d), [summary("jygpu", "ok"), summary("smm", status)])
        for d, status in ((1, "ok"), (2, "failed"), (3, "ok"), (4, "partial"), (5, "ok"))
    ]
    shown = backfill.loaded_days(SimpleNamespace(days=days))  # type: ignore[arg-type]
    assert [(d.day, o.source, o.status) for d, o in shown] == [
        (1, "jygpu", "ok"),
        (1, "smm", "ok"),
        (2, "smm", "failed"),
        (4, "smm", "partial"),
    ]
