"""The real demo market on free ports, the Dagster job in-process, a temporary DuckDB file."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from configuration.settings import Settings
from demo.market import DemoMarket
from gpuprice.jobs import JobRunner
from scrapers.gpu_names import CANONICAL_GPUS
from tests.support.demo_settings import demo_settings
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e


def settings_for(market: DemoMarket, tmp_path: Path) -> Settings:
    return demo_settings(market, tmp_path)


def scalar(settings: Settings, sql: str) -> int:
    return read_frame(settings.warehouse, sql).item()


def by_source(result) -> dict:
    return {s.source: s for s in result.sources}


def test_full_run_loads_both_sites_and_is_idempotent(market: DemoMarket, tmp_path: Path) -> None:
    settings = settings_for(market, tmp_path)
    runner = JobRunner(settings)

    first = runner.run()
    assert first.success
    assert {s.source: s.status for s in first.sources} == {"jygpu": "ok", "smm": "ok"}
    assert by_source(first)["jygpu"].rows_added > 0 and by_source(first)["smm"].rows_added > 0
    offers = scalar(settings, "SELECT count(*) FROM offer WHERE source = 'jygpu'")
    quotes = scalar(settings, "SELECT count(*) FROM spot_quote WHERE source = 'smm'")
    assert offers > 0 and quotes > 0
    assert (
        scalar(settings, "SELECT count(*) FROM offer WHERE source = 'jygpu' AND NOT simulated") == 0
    )
    assert scalar(settings, "SELECT count(*) FROM gpu_spec") == len(CANONICAL_GPUS)

    second = runner.run()  # same hour: byte-identical pages
    assert all(s.rows_added == 0 for s in second.sources)
    assert scalar(settings, "SELECT count(*) FROM offer WHERE source = 'jygpu'") == offers
    assert scalar(settings, "SELECT count(*) FROM raw_page") == scalar(
        settings, "SELECT count(DISTINCT page_id) FROM raw_page"
    )


def test_anchor_day_reproduces_the_seed_prices(market: DemoMarket, tmp_path: Path) -> None:
    settings = settings_for(market, tmp_path)
    result = JobRunner(settings).run(date(2026, 9, 4))
    assert result.success
    rows = read_frame(
        settings.warehouse,
        "SELECT gpu, billing, price, cny_per_card_hour, stated_discount FROM offer "
        "WHERE source = 'jygpu' ORDER BY gpu, billing",
    )
    got = {(r["gpu"], r["billing"]): r for r in rows.iter_rows(named=True)}
    assert got[("rtx4090-24g", "hourly")]["price"] == Decimal("1.96")
    assert got[("rtx4090-24g", "monthly")]["price"] == Decimal("1.57")
    assert got[("rtx4090-24g", "monthly")]["stated_discount"] == Decimal("0.95")
    assert got[("h20-96g", "hourly")]["price"] == Decimal("7.75")
    assert got[("910b-64g", "monthly")]["price"] == Decimal("3.58")
    assert got[("rtx4090-24g", "bare_metal_monthly")]["price"] == Decimal("7920")
    assert got[("rtx4090-24g", "bare_metal_monthly")]["cny_per_card_hour"] == Decimal("1.375")
    assert got[("h100-80g", "bare_metal_monthly")]["price"] == Decimal("84480")
    smm = read_frame(
        settings.warehouse,
        "SELECT gpu, region, price FROM spot_quote WHERE source = 'smm' "
        "AND ((gpu = 'rtx4090-24g' AND region = '长三角') OR (gpu = 'h20-96g' AND region = '京津冀'))",
    ).rows()
    assert sorted(smm) == [
        ("h20-96g", "京津冀", Decimal("7.47")),
        ("rtx4090-24g", "长三角", Decimal("1.26")),
    ]


def test_a_site_down_fails_only_that_source(market: DemoMarket, tmp_path: Path) -> None:
    settings = settings_for(market, tmp_path)
    runner = JobRunner(settings)
    market.stop_site("jygpu")
    result = runner.run(date(2026, 9, 10))
    assert not result.success
    status = {s.source: s for s in result.sources}
    assert status["jygpu"].status == "failed" and "fetch failed" in status["jygpu"].error
    assert status["smm"].status == "ok" and status["smm"].rows_added > 0
    assert scalar(settings, "SELECT count(*) FROM offer WHERE source = 'jygpu'") == 0
    assert scalar(settings, "SELECT count(*) FROM raw_page WHERE source = 'jygpu'") == 0
    failed = read_frame(
        settings.warehouse, "SELECT status, rows, error FROM scrape_run WHERE source = 'jygpu'"
    )
    assert failed.height == 1 and failed["status"][0] == "failed" and failed["rows"][0] == 0


def test_site_dying_mid_run_loads_nothing_partial(market: DemoMarket, tmp_path: Path) -> None:
    settings = settings_for(market, tmp_path)
    runner = JobRunner(settings)
    assert runner.run(date(2026, 9, 11)).success
    before = scalar(settings, "SELECT count(*) FROM offer WHERE source = 'jygpu'")
    market.fail_after("jygpu", 1)  # serves the container page, then the site dies
    result = runner.run(date(2026, 9, 12))
    status = {s.source: s for s in result.sources}
    assert status["jygpu"].status == "failed"
    assert "after 1 page" in status["jygpu"].error
    assert status["smm"].status == "ok"
    assert scalar(settings, "SELECT count(*) FROM offer WHERE source = 'jygpu'") == before
    assert (
        scalar(settings, "SELECT count(*) FROM offer WHERE observed_at::DATE = '2026-09-12'") == 0
    )
