"""What procurement sees after the first start's seeding: the bundled gpuprice.toml's watch
rule raises real breakeven alerts over the 90 seeded days of demo prices (dated by their day,
kept, not sent), and no scraper alert of the demo's deliberate layout days stays open."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from configuration.environment import DEFAULT_CONFIG
from configuration.settings import load_settings
from demo.history_seed import history_days
from demo.market import DemoMarket
from demo.market.platforms import layout_change_days
from demo.market.prices import DEFAULT_SEED
from gpuprice.jobs import JobRunner
from pipelines.derived import watch_rules
from tests.support.demo_days import insert_demo_day, reference_warehouse
from tests.support.demo_settings import FAST_HTTP
from warehouse.derive.alerts import evaluate_with
from warehouse.derive.metrics import derive_with
from warehouse.derive.notify import pending_signature
from warehouse.store.db import read_frame, write_connection


def test_the_bundled_watch_rule_fires_within_the_seeded_days(tmp_path: Path) -> None:
    """The demo's prices of the 90 days a first start seeds today (the first scrape's day
    first, then the history oldest first, each evaluated as the run's alert step does)."""
    rules = watch_rules(load_settings(DEFAULT_CONFIG, home=tmp_path))
    assert rules, "the bundled gpuprice.toml has a watch rule"
    warehouse = reference_warehouse(tmp_path)
    now = datetime.now(UTC).replace(tzinfo=None)
    days = history_days(now.date())
    with write_connection(warehouse) as con:
        for day in [now.date(), *days]:
            insert_demo_day(con, day, ("jygpu",))
            derive_with(con)
            evaluate_with(con, rules, now=now)
    alerts = read_frame(
        warehouse,
        "SELECT kind, rule, created_at, new_observed_at, not_sent FROM alert ORDER BY 4",
    ).to_dicts()
    procurement = [a for a in alerts if a["kind"] in ("breakeven_shift", "mode_flip")]
    assert procurement, "no breakeven shift or mode flip in the seeded 90 days"
    assert {a["rule"] for a in procurement} <= {r.name for r in rules}
    first = datetime.combine(days[0], datetime.min.time())
    for alert in procurement:
        assert first <= alert["new_observed_at"] <= now
        assert alert["created_at"] == alert["new_observed_at"]  # dated by its day
        assert alert["not_sent"]  # found while the history loaded: kept, not sent
    assert pending_signature(warehouse) == (0, 0)


@pytest.mark.e2e
def test_layout_days_of_the_history_leave_no_open_scraper_alert(tmp_path: Path) -> None:
    """Today's run first, then past days across one of matpool's deliberate layout days."""
    layout = min(d for d in layout_change_days(DEFAULT_SEED, "matpool") if d >= date(2026, 9, 5))
    with DemoMarket().start() as market:
        config = tmp_path / "gpuprice.toml"
        off = "".join(
            f"[sources.{name}]\nenabled = false\n"
            for name in ("vastai", "runpod", "autodl", "gpushare", "ppio", "compshare")
            + ("lambda", "skypilot")
        )
        config.write_text(
            f"""{FAST_HTTP}
[sources.jygpu]
demo_url = "{market.jygpu_url}"
[sources.smm]
demo_url = "{market.smm_url}"
[sources.matpool]
demo_url = "{market.source_url("matpool")}"
{off}""",
            encoding="utf-8",
        )
        settings = load_settings(config, home=tmp_path / "home", profile="demo")
        runner = JobRunner(settings)
        assert runner.run().success  # today's pages never change layout
        results = runner.backfill([layout - timedelta(days=1), layout, layout + timedelta(days=1)])
    assert [[s.source for s in r.failed] for r in results] == [[], ["matpool"], []]
    broken = read_frame(
        settings.warehouse,
        "SELECT created_at, new_observed_at, resolved_at, not_sent FROM alert "
        "WHERE kind = 'scraper_broken'",
    ).to_dicts()
    assert len(broken) == 1
    (alert,) = broken
    day = datetime.combine(layout, datetime.min.time())
    assert alert["created_at"] == alert["new_observed_at"] == day
    assert alert["resolved_at"] == day + timedelta(days=1) and alert["not_sent"]
    health = dict(read_frame(settings.warehouse, "SELECT source, state FROM source_health").rows())
    assert health["matpool"] == "ok"
    assert pending_signature(settings.warehouse) == (0, 0)
