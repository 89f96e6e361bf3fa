"""FX in a run: the configured default is stored and labelled, the optional daily source is
fetched, and vast.ai's USD prices are stored as listed and converted at the day's rate."""

from __future__ import annotations

import json
import time
from decimal import Decimal
from pathlib import Path

import pytest

from gpuprice.jobs import JobRunner
from tests.support.handles import warehouse_at
from tests.support.live_fixtures import VASTAI, read
from tests.support.live_settings import FAST_HTTP, settings_from, sources
from tests.support.loopback import LoopbackServer, reply
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e


def test_vastai_through_the_job_with_a_daily_rate(tmp_path: Path, loopback: LoopbackServer) -> None:
    rate_doc = {
        "result": "success",
        "base_code": "USD",
        "time_last_update_unix": int(time.time()) - 3600,
        "rates": {"USD": 1, "CNY": 7.2345},
    }
    loopback.script("/fx/latest/USD", reply(200, json.dumps(rate_doc).encode()))
    loopback.script("/api/v0/bundles/", reply(200, read(VASTAI)))
    toml = (
        FAST_HTTP
        + f'\n[fx]\nusd_cny = 7.05\nas_of = 2026-01-01\nsource_url = "{loopback.url}/fx/latest/USD"\n'
        + sources(vastai={"live_url": loopback.url})
    )
    settings = settings_from(tmp_path, toml)
    runner = JobRunner(settings)
    assert "fx_rate" in {k.to_user_string() for k in runner.defs.resolve_all_asset_keys()}
    result = runner.run()
    assert result.success, result.sources
    path = settings.warehouse
    rates = read_frame(
        warehouse_at(path), "SELECT day, cny_per_unit, source FROM fx_rate ORDER BY day"
    ).rows()
    assert len(rates) == 2
    assert rates[0][1:] == (Decimal("7.05"), rates[0][2])
    assert rates[0][2].startswith("configured default (gpuprice.toml [fx])")
    assert rates[1][1:] == (Decimal("7.2345"), f"{loopback.url}/fx/latest/USD")

    offer = read_frame(
        warehouse_at(path),
        "SELECT currency, price, unit, cny_per_card_hour FROM offer WHERE offer_id = '21440112'",
    ).row(0, named=True)
    assert (offer["currency"], offer["price"], offer["unit"]) == (
        "USD", Decimal("0.3639"), "USD/card-hour",
    )  # fmt: skip
    assert offer["cny_per_card_hour"] == Decimal("2.632635")  # 0.3639 × 7.2345
    quotes = read_frame(
        warehouse_at(path),
        "SELECT quote_kind, currency, count(*) AS n FROM spot_quote WHERE source = 'vastai' "
        "GROUP BY ALL",
    ).rows()
    assert quotes == [("interruptible_floor", "USD", 6)]
    # interruptible floors are not market averages: no listing is compared with them
    assert (
        read_frame(
            warehouse_at(path), "SELECT count(*) FROM market_premium WHERE source = 'vastai'"
        ).item()
        == 0
    )

    again = runner.run()  # the day's rate is there: not fetched twice
    assert again.success
    assert loopback.hits.count("/fx/latest/USD") == 1


def test_listings_are_compared_with_market_averages_not_interruptible_floors(
    tmp_path: Path,
) -> None:
    from datetime import date, datetime

    from scrapers.collect import Snapshot, parse_page
    from scrapers.fx import FxRate, FxRates
    from scrapers.http import FetchedPage
    from scrapers.sources.smm import SmmAdapter
    from scrapers.sources.vastai import VastaiAdapter
    from tests.support.fixture_pages import read as read_demo
    from warehouse.derive.metrics import derive
    from warehouse.ingest.load import load_snapshot
    from warehouse.ingest.reference import load_reference
    from warehouse.store.db import write_connection

    path = tmp_path / "w.duckdb"
    with write_connection(warehouse_at(path)) as con:
        load_reference(con)
    at = datetime(2026, 9, 4, 3, 0)
    fx = FxRates((), (FxRate(date(2026, 9, 1), "USD", Decimal("7.10"), "configured default"),))
    for source, adapter, body in (
        ("smm", SmmAdapter(), read_demo("smm_quotes_not_simulated.html")),
        ("vastai", VastaiAdapter(), read(VASTAI)),
    ):
        snap = Snapshot(source, adapter.kind, at, None)
        snap.pages = [parse_page(adapter, FetchedPage("https://x", 200, body, "", at))]
        assert (
            load_snapshot(warehouse_at(path), snap, profile="live", fx_defaults=fx.defaults).status
            == "ok"
        )
    derive(warehouse_at(path))
    premium = read_frame(
        warehouse_at(path),
        "SELECT DISTINCT quote_source, quote_basis FROM market_premium WHERE source = 'vastai'",
    ).rows()
    assert premium == [("smm", "整机包月均价")]
