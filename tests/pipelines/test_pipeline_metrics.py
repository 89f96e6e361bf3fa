"""The Dagster side, for real: demo market over HTTP, the scrape job in-process (load →
derive → checks → alert → apprise), the delivery sensor and job, a loopback receiver."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import dagster as dg
import pytest

from configuration.settings import Settings
from demo.market import DemoMarket
from gpuprice.jobs import JobRunner
from pipelines.assets import LOADED_CHECK
from pipelines.definitions import build_defs
from pipelines.derived import DELIVER_JOB
from pipelines.resources import GpupriceResource
from tests.support.demo_settings import SHIFT_RULE, demo_settings
from tests.support.webhook_receiver import Receiver
from warehouse.read.dashboard import serving_freshness
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e

RULE = SHIFT_RULE


def settings_for(market: DemoMarket, tmp_path: Path) -> Settings:
    return demo_settings(market, tmp_path, RULE)


def resource(settings: Settings) -> GpupriceResource:
    return GpupriceResource(
        home=str(settings.home), profile=settings.profile, config_path=str(settings.config_path)
    )


def alerts(settings: Settings) -> list[dict]:
    return read_frame(
        settings.warehouse,
        "SELECT kind, new_observed_at::DATE AS day, delivered_at, attempts FROM alert "
        "ORDER BY new_observed_at, kind",
    ).to_dicts()


def test_scrape_job_derives_alerts_and_delivers_once(
    market: DemoMarket, receiver: Receiver, tmp_path: Path, days_are_news: None
) -> None:
    settings = settings_for(market, tmp_path)
    runner = JobRunner(settings)
    # The demo 4090 bare metal drops from ¥7,920 to ¥6,840 on 2026-09-19: the breakeven vs
    # hourly goes 505.1 h → 436.2 h, past the 30 h threshold and below 450 h − 10 h.
    for day in (date(2026, 9, 17), date(2026, 9, 18), date(2026, 9, 19), date(2026, 9, 20)):
        assert runner.run(day).success
    history = read_frame(
        settings.warehouse,
        "SELECT observed_at::DATE AS day, round(breakeven_hours_vs_hourly, 1) AS h FROM breakeven "
        "WHERE source = 'jygpu' AND gpu = 'rtx4090-24g' ORDER BY observed_at",
    ).rows()
    assert [h for _, h in history] == [505.1, 505.1, 436.2, 436.2]
    # Every run also brought the dashboard's serving copy up to date.
    assert read_frame(settings.warehouse, "SELECT count(*) FROM serving_outbox").item() == 0
    fresh = serving_freshness(settings.warehouse)
    newest = read_frame(settings.warehouse, "SELECT max(last_observed_at) FROM offer_daily")
    assert fresh["watermark"].to_list() == [newest.item()]
    got = alerts(settings)
    assert [(a["kind"], a["day"]) for a in got] == [
        ("breakeven_shift", date(2026, 9, 19)),
        ("mode_flip", date(2026, 9, 19)),
    ]
    assert all(a["delivered_at"] is not None and a["attempts"] == 1 for a in got)
    assert len(receiver.accepted) == 2
    assert {b["title"] for b in receiver.accepted} == {
        "[SIMULATED] gpuprice: rtx4090-24g breakeven shifted",
        "[SIMULATED] gpuprice: rtx4090-24g cheaper rent mode flipped",
    }

    # Replaying the same runs: no new rows, no new alert, nothing sent again.
    assert runner.run(date(2026, 9, 19)).success
    assert runner.run(date(2026, 9, 20)).success
    assert len(alerts(settings)) == 2 and len(receiver.accepted) == 2


def test_asset_checks_flag_the_stated_discount_as_a_warning(
    market: DemoMarket, tmp_path: Path
) -> None:
    settings = settings_for(market, tmp_path)
    runner = JobRunner(settings)
    run_config = {
        "ops": {f"{s}_snapshot": {"config": {"as_of": "2026-09-04"}} for s in ("jygpu", "smm")},
        "loggers": {"console": {"config": {"log_level": "WARNING"}}},
    }
    result = runner.job.execute_in_process(run_config=run_config, instance=runner.instance)
    assert result.success
    evaluations = result.get_asset_check_evaluations()
    loaded = [e for e in evaluations if e.check_name == LOADED_CHECK]  # one per snapshot
    assert sorted(e.asset_key.to_user_string() for e in loaded) == [
        "jygpu_snapshot",
        "smm_snapshot",
    ]
    assert all(e.passed for e in loaded)
    checks = {e.check_name: e for e in evaluations if e.check_name != LOADED_CHECK}
    assert set(checks) == {
        "prices_positive",
        "breakeven_finite_positive",
        "discount_ratio_in_range",
        "stated_discount_matches",
        "quotes_positive",
        "index_gates",
    }
    warn = checks["stated_discount_matches"]
    assert not warn.passed and warn.severity == dg.AssetCheckSeverity.WARN
    examples = warn.metadata["examples"].value
    # The demo market's anchor day and the seed itself: 95折 / 93折 on prices 0.80 of list.
    assert "jygpu rtx4090-24g" in examples and "jygpu-published rtx4090-24g" in examples
    assert "95折" in examples and "93折" in examples
    assert all(checks[name].passed for name in set(checks) - {"stated_discount_matches"})
    # Flagged, never "fixed": the stated discount is stored as printed.
    stated = read_frame(
        settings.warehouse,
        "SELECT stated_discount FROM monthly_discount WHERE source = 'jygpu' AND gpu = 'rtx4090-24g'",
    ).item()
    assert float(stated) == 0.95


def test_failed_delivery_is_retried_by_the_sensor_and_job(
    market: DemoMarket, receiver: Receiver, tmp_path: Path, days_are_news: None
) -> None:
    settings = settings_for(market, tmp_path)
    runner = JobRunner(settings)
    receiver.status = 500
    for day in (date(2026, 9, 18), date(2026, 9, 19)):
        assert runner.run(day).success  # a failing receiver never fails the scrape run
    assert [a["delivered_at"] for a in alerts(settings)] == [None, None]

    defs = build_defs(settings, resource(settings))
    sensor = defs.resolve_sensor_def("alert_delivery_sensor")
    job = defs.resolve_job_def(DELIVER_JOB)
    # the resource holds the warehouse's lease while it is open (a generator resource): a
    # sensor's context is opened as a context manager, as the daemon does
    with dg.build_sensor_context(
        instance=runner.instance, resources={"gpuprice": resource(settings)}
    ) as context:
        request = sensor(context)
    assert isinstance(request, dg.RunRequest)

    assert job.execute_in_process(instance=runner.instance).success  # still 500: still pending
    assert {a["attempts"] for a in alerts(settings)} == {2}
    assert all(a["delivered_at"] is None for a in alerts(settings))

    receiver.status = 200
    with dg.build_sensor_context(
        instance=runner.instance, resources={"gpuprice": resource(settings)}
    ) as context:
        again = sensor(context)
    assert isinstance(again, dg.RunRequest) and again.run_key != request.run_key
    assert job.execute_in_process(instance=runner.instance).success
    assert all(a["delivered_at"] is not None for a in alerts(settings))
    assert len(receiver.accepted) == 2

    with dg.build_sensor_context(
        instance=runner.instance, resources={"gpuprice": resource(settings)}
    ) as context:
        done = sensor(context)
    assert isinstance(done, dg.SkipReason) and "no alert waiting" in done.skip_message


def test_sensor_waits_when_no_url_is_configured(
    market: DemoMarket, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, days_are_news: None
) -> None:
    monkeypatch.delenv("GPUPRICE_NOTIFY_URLS", raising=False)
    monkeypatch.delenv("GPUPRICE_NOTIFY_URLS_FILE", raising=False)
    settings = settings_for(market, tmp_path)
    runner = JobRunner(settings)
    for day in (date(2026, 9, 18), date(2026, 9, 19)):
        assert runner.run(day).success
    assert len(alerts(settings)) == 2
    sensor = build_defs(settings, resource(settings)).resolve_sensor_def("alert_delivery_sensor")
    with dg.build_sensor_context(resources={"gpuprice": resource(settings)}) as context:
        skip = sensor(context)
    assert isinstance(skip, dg.SkipReason)
    assert "2 alert(s) pending" in skip.skip_message and "GPUPRICE_NOTIFY_URLS" in skip.skip_message
    assert sensor.minimum_interval_seconds == 300
    assert sensor.default_status == dg.DefaultSensorStatus.RUNNING
