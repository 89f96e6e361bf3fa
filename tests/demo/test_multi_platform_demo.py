"""The multi-platform demo end to end: the real demo market on free ports (jygpu, smm and every
other source's SIMULATED platform), the Dagster job in-process, a temporary DuckDB file."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from configuration.settings import Settings
from demo.market import PLATFORM_SOURCES, DemoMarket
from demo.market.platforms import layout_change_days
from demo.market.prices import ANCHOR_DAY, DEFAULT_SEED
from gpuprice.jobs import JobRunner
from tests.support.demo_settings import demo_settings
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e

ALL_SOURCES = {"jygpu", "smm", *PLATFORM_SOURCES}
# The first layout-change day after the anchor of two platforms: matpool's (prices 100× too
# small: the drift detector rejects the page) and compshare's (a renamed field: ParseError).
LAYOUT_DAY = date(2026, 10, 8)
# Not the seeds' published prices, which the reference data loads as real history.
SCRAPED = "source NOT LIKE '%-published'"


@pytest.fixture
def market() -> Iterator[DemoMarket]:
    with DemoMarket(jygpu_port=0, smm_port=0, platforms_port=0).start() as running:
        yield running


@pytest.fixture
def settings(market: DemoMarket, tmp_path: Path) -> Settings:
    return demo_settings(market, tmp_path, platforms=True)


def rows(settings: Settings, sql: str) -> list[tuple]:
    return read_frame(settings.warehouse, sql).rows()


def test_one_run_loads_every_platform_through_fetch_parse_load(settings: Settings) -> None:
    assert set(settings.enabled_sources()) == ALL_SOURCES
    result = JobRunner(settings).run(ANCHOR_DAY)

    assert result.success, [(s.source, s.error) for s in result.failed]
    assert {s.source: s.status for s in result.sources} == dict.fromkeys(ALL_SOURCES, "ok")
    runs = rows(settings, "SELECT source, status FROM scrape_run")
    assert sorted(runs) == sorted((s, "ok") for s in ALL_SOURCES)
    loaded = {
        s
        for (s,) in rows(
            settings,
            f"SELECT DISTINCT source FROM offer WHERE {SCRAPED} "
            f"UNION SELECT DISTINCT source FROM spot_quote WHERE {SCRAPED}",
        )
    }
    assert loaded == ALL_SOURCES  # 12 platforms, all through the real adapters
    pricing_4090 = {
        s for (s,) in rows(settings, "SELECT DISTINCT source FROM offer WHERE gpu = 'rtx4090-24g'")
    }
    assert len(pricing_4090) >= 4, pricing_4090
    assert {"autodl", "matpool", "gpushare", "ppio", "compshare", "vastai", "runpod"} <= (
        pricing_4090
    )
    # every row and page of the demo profile is SIMULATED, JSON and CSV included
    assert rows(settings, f"SELECT count(*) FROM offer WHERE NOT simulated AND {SCRAPED}") == [(0,)]
    assert rows(settings, f"SELECT count(*) FROM spot_quote WHERE NOT simulated AND {SCRAPED}") == [
        (0,)
    ]
    assert rows(settings, "SELECT count(*) FROM raw_page WHERE NOT simulated") == [(0,)]
    # stamped with the day asked for (10:00 Beijing = 02:00 UTC), not the day the run ran
    stamps = rows(
        settings, f"SELECT DISTINCT observed_at FROM offer WHERE {SCRAPED} AND source <> 'jygpu'"
    )
    assert stamps == [(datetime(2026, 9, 4, 2, 0),)]
    # the same card differs across platforms
    prices = rows(
        settings,
        "SELECT source, min(cny_per_card_hour) FROM offer "
        "WHERE gpu = 'rtx4090-24g' AND billing = 'hourly' GROUP BY source",
    )
    assert len({price for _, price in prices}) >= 5, prices


def test_backfill_of_a_few_days_over_all_platforms(settings: Settings) -> None:
    days = [ANCHOR_DAY - timedelta(days=k) for k in (2, 1, 0)]
    results = JobRunner(settings).backfill(days)

    assert [r.success for r in results] == [True, True, True]
    assert all(s.status == "ok" for r in results for s in r.sources)
    per_source = dict(
        rows(
            settings,
            "SELECT source, count(DISTINCT cast(observed_at AS date)) FROM offer "
            f"WHERE {SCRAPED} GROUP BY 1",
        )
    )
    assert per_source == dict.fromkeys(ALL_SOURCES - {"smm"}, 3)


def test_a_layout_change_day_is_caught_and_the_next_day_recovers(settings: Settings) -> None:
    changed = {p for p in PLATFORM_SOURCES if LAYOUT_DAY in layout_change_days(DEFAULT_SEED, p)}
    assert changed == {"matpool", "compshare"}
    runner = JobRunner(settings)

    broken = {s.source: s for s in runner.run(LAYOUT_DAY).sources}
    assert {name for name, s in broken.items() if s.status != "ok"} == changed
    assert broken["matpool"].reason == "drift" and "implausible" in broken["matpool"].error
    assert "no PriceDetails" in broken["compshare"].error
    assert broken["matpool"].rows_added == 0 and broken["compshare"].rows_added == 0
    health = dict(rows(settings, "SELECT source, state FROM source_health"))
    assert health["matpool"] == health["compshare"] == "broken"
    alerts = rows(settings, "SELECT DISTINCT source FROM alert WHERE kind = 'scraper_broken'")
    assert sorted(alerts) == [("compshare",), ("matpool",)]

    runner.run(LAYOUT_DAY + timedelta(days=1))
    health = dict(rows(settings, "SELECT source, state FROM source_health"))
    assert set(health.values()) == {"ok"}


def test_reparse_keeps_demo_json_rows_simulated(settings: Settings) -> None:
    from scrapers.sources import build_adapter
    from warehouse.ingest.reparse import reparse

    JobRunner(settings).run(ANCHOR_DAY)
    before = rows(settings, "SELECT count(*) FROM offer WHERE source = 'autodl'")
    summary = reparse(settings.warehouse, build_adapter("autodl"), "autodl")
    assert summary.pages >= 1
    assert rows(settings, "SELECT count(*) FROM offer WHERE source = 'autodl'") == before
    # AutoDL's JSON cannot say it is simulated: the page's stored flag does
    assert rows(
        settings, "SELECT count(*) FROM offer WHERE source = 'autodl' AND NOT simulated"
    ) == [(0,)]
