"""One failing source never stops a run's derivation: its snapshot is recorded as failed
(scrape_run, source health, one scraper-broken alert, its `loaded` check failed) while
derive, the serving copy and the alerts run on what the other sources loaded."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.execution.retries import auto_reexecution_should_retry_run
from dagster._daemon.auto_run_reexecution.auto_run_reexecution import should_retry

import pipelines.derived
from configuration.settings import Settings, load_settings
from demo.market import PLATFORM_SOURCES, DemoMarket
from demo.market.platforms import layout_change_days
from demo.market.prices import DEFAULT_SEED
from gpuprice.jobs import NO_DAEMON_RETRY, JobRunner
from pipelines.assets import LOADED_CHECK
from tests.support.demo_settings import FAST_HTTP, GENERIC_SOURCE, demo_settings
from tests.support.loopback import LoopbackServer, reply
from tests.support.webhook_receiver import Receiver
from warehouse.read.dashboard import serving_freshness
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e

DAY = date(2026, 9, 10)
POOLS = "/api/machine_pools"  # matpool's one page


def broken_matpool(market: DemoMarket, loopback: LoopbackServer, tmp_path: Path) -> Settings:
    """jygpu and smm on the demo market; matpool on a server whose answer is always a page
    that no longer parses (its layout "changed" for good)."""
    loopback.script(POOLS, reply(200, b'{"code": 0, "data": {"machines": []}}'))
    others = "".join(
        f"[sources.{name}]\nenabled = false\n"
        for name in PLATFORM_SOURCES
        if name not in ("matpool", GENERIC_SOURCE)
    )
    config = tmp_path / "gpuprice.toml"
    config.write_text(
        f"""{FAST_HTTP}
[sources.jygpu]
demo_url = "{market.jygpu_url}"
[sources.smm]
demo_url = "{market.smm_url}"
[sources.matpool]
demo_url = "{loopback.url}"
{others}""",
        encoding="utf-8",
    )
    return load_settings(config, home=tmp_path / "home", profile="demo")


def count(settings: Settings, sql: str) -> int:
    return int(read_frame(settings.warehouse, sql).item())


def test_a_permanently_broken_source_never_stops_derive_serving_and_alerts(
    market: DemoMarket,
    loopback: LoopbackServer,
    receiver: Receiver,
    tmp_path: Path,
    days_are_news: None,
) -> None:
    settings = broken_matpool(market, loopback, tmp_path)
    runner = JobRunner(settings)

    for offset in range(2):
        day = DAY + timedelta(days=offset)
        result = runner.run(day)
        assert [(s.source, s.status, s.reason) for s in result.failed] == [
            ("matpool", "failed", "drift")
        ]
        assert result.dagster_success and not result.success  # `gpuprice run` exits 1
        # derived for the sources that loaded, that day
        assert count(
            settings,
            f"SELECT count(*) FROM card_value WHERE source = 'jygpu' "
            f"AND CAST(observed_at AS DATE) = DATE '{day}'",
        )
        steps = {e.step_key for e in result_events(runner, result.dagster_run_id)}
        assert {"derived_metrics", "serving_copy", "alert"} <= steps
        check = loaded_check(runner, result.dagster_run_id, "matpool_snapshot")
        assert not check.passed and check.severity == dg.AssetCheckSeverity.ERROR
        assert loaded_check(runner, result.dagster_run_id, "jygpu_snapshot").passed

    # the serving copy holds the second day too
    assert count(settings, "SELECT count(*) FROM serving_outbox") == 0
    fresh = serving_freshness(settings.warehouse)
    assert fresh["watermark"].to_list()[0].date() == DAY + timedelta(days=1)
    # recorded each time, alerted once (and delivered once, by the run's own alert step)
    runs = read_frame(
        settings.warehouse,
        "SELECT status, reason FROM scrape_run WHERE source = 'matpool' ORDER BY started_at",
    ).rows()
    assert runs == [("failed", "drift"), ("failed", "drift")]
    assert count(settings, "SELECT count(*) FROM alert WHERE kind = 'scraper_broken'") == 1
    assert count(settings, "SELECT count(*) FROM alert WHERE delivered_at IS NULL") == 0
    assert [b["title"] for b in receiver.accepted] == [
        "[SIMULATED] gpuprice: scraper for matpool is broken"
    ]


def result_events(runner: JobRunner, run_id: str) -> list[dg.DagsterEvent]:
    return [
        e.dagster_event
        for e in runner.instance.all_logs(run_id, of_type=dg.DagsterEventType.STEP_SUCCESS)
        if e.dagster_event is not None
    ]


def loaded_check(runner: JobRunner, run_id: str, asset: str) -> dg.AssetCheckEvaluation:
    for entry in runner.instance.all_logs(
        run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION
    ):
        evaluation = entry.dagster_event.event_specific_data
        if evaluation.check_name == LOADED_CHECK and evaluation.asset_key.to_user_string() == asset:
            return evaluation
    raise AssertionError(f"no {LOADED_CHECK} check of {asset} in run {run_id}")


def test_the_run_of_a_command_is_never_retried_by_the_daemon(
    market: DemoMarket, loopback: LoopbackServer, tmp_path: Path
) -> None:
    settings = broken_matpool(market, loopback, tmp_path)
    runner = JobRunner(settings)
    result = runner.run(DAY)
    run = runner.instance.get_run_by_id(result.dagster_run_id)
    assert run is not None and run.status == dg.DagsterRunStatus.SUCCESS  # nothing to retry
    assert NO_DAEMON_RETRY.items() <= run.tags.items()  # and the daemon may never re-launch it


def test_a_demo_layout_day_derives_every_platform_that_loaded(tmp_path: Path) -> None:
    """The issue's "0 card_value rows on a simulated layout day", with the whole demo."""
    day = min(layout_change_days(DEFAULT_SEED, "matpool"))
    with DemoMarket().start() as market:
        settings = demo_settings(market, tmp_path, platforms=True)
        result = JobRunner(settings).run(day)
    failed = {s.source for s in result.failed}
    assert "matpool" in failed
    loaded = {s.source for s in result.sources if s.status == "ok" and s.rows_added}
    derived = {
        source
        for (source,) in read_frame(
            settings.warehouse,
            f"SELECT DISTINCT source FROM card_value WHERE CAST(observed_at AS DATE) = DATE '{day}'",
        ).rows()
    }
    offer_sources = loaded - {"smm"}  # smm lists market quotes, not offers
    assert offer_sources and offer_sources <= derived
    assert not failed & derived


def test_a_failed_command_run_is_never_retried_by_the_daemon(
    market: DemoMarket, loopback: LoopbackServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step after the snapshots fails (here derive): the run fails, and the daemon's run
    retries (dagster.yaml: on, twice) would re-launch it, but for its tag."""

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("derive broke")

    monkeypatch.setattr(pipelines.derived, "derive_tables", broken)
    settings = broken_matpool(market, loopback, tmp_path)
    runner = JobRunner(settings)
    result = runner.run(DAY)
    assert not result.dagster_success
    assert {s.source: s.status for s in result.sources}["jygpu"] == "ok"
    run = runner.instance.get_run_by_id(result.dagster_run_id)
    assert run is not None and run.status == dg.DagsterRunStatus.FAILURE
    assert runner.instance.run_retries_enabled  # the project's dagster.yaml
    assert not should_retry(run, runner.instance)
    untagged = run.with_tags({k: v for k, v in run.tags.items() if k not in NO_DAEMON_RETRY})
    assert auto_reexecution_should_retry_run(runner.instance, untagged, None)
