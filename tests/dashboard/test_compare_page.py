"""Platform comparison on a seven-platform warehouse: today's price per card and platform,
the cheapest and the spread, the FX rate the USD platforms were converted at, the filters,
and each platform's moves over the window."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pytest

from tests.dashboard.conftest import (
    assert_clean,
    charts,
    has_table,
    open_page,
    table,
    texts,
)
from tests.dashboard.seeding import Seeded, usd_rate
from warehouse.store.db import read_frame

# Independent of the page's SQL: each platform's newest snapshot, the cheapest listing of
# the card there (the seeds' published prices are no platform quoting today).
TODAY = """
    WITH newest AS (
        SELECT source, max(observed_at) AS at FROM offer
        WHERE NOT source LIKE '%-published' GROUP BY source
    )
    SELECT o.source, min(o.cny_per_card_hour)::DOUBLE AS p, any_value(o.currency) AS currency
    FROM offer o JOIN newest n ON o.source = n.source AND o.observed_at = n.at
    WHERE o.gpu = ? AND o.billing = ? GROUP BY o.source ORDER BY p
"""


def test_today_cheapest_spread_and_fx(use_multi: Seeded) -> None:
    app = open_page("compare")
    assert app.title[0].value == "平台比价" and "SIMULATED" in texts(app)
    expected = read_frame(use_multi.warehouse, TODAY, ["rtx4090-24g", "hourly"])
    assert expected.height == 6  # jygpu, testcloud, autodl, matpool, vastai, runpod
    summary = table(app, "cp_summary")
    row = summary[(summary["card"] == "rtx4090-24g") & (summary["billing"] == "hourly")].iloc[0]
    low, high = expected["p"].min(), expected["p"].max()
    assert row["cheapest platform"] == expected["source"][0] == "autodl"
    assert row["spread max/min"] == pytest.approx(round(high / low, 3))
    assert row["spread ¥ (CNY per card-hour)"] == pytest.approx(round(high - low, 4))
    assert row["platforms"] == 6 and row["data"] == "SIMULATED"
    prices = table(app, "cp_prices")
    ranked = prices[prices["card"] == "rtx4090-24g"]
    assert list(ranked["platform"]) == list(expected["source"])
    assert list(ranked["rank"]) == [1, 2, 3, 4, 5, 6]
    usd = ranked[ranked["currency"] == "USD"]
    assert set(usd["platform"]) == {"vastai", "runpod"}
    assert all(p.endswith(" $/hr") for p in usd["listed price"])
    # The day's rate, its date and where it comes from are on screen.
    rate = usd_rate(date(2026, 9, 10))
    shown = texts(app)
    assert f"1 USD = ¥{rate:.4f}" in shown and "fx_rate 2026-09-10" in shown
    assert "runpod, vastai" in shown and "SIMULATED test rate" in shown
    heatmap, ranked_bars, moves = charts(app)
    assert heatmap["layer"][0]["mark"]["type"] == "rect"
    assert ranked_bars["resolve"]["scale"]["x"] == "independent"
    assert moves["resolve"]["scale"]["y"] == "independent"


def test_filters_domestic_billing_and_region(use_multi: Seeded) -> None:
    app = open_page("compare")
    app.checkbox(key="cp_domestic").check().run()
    assert_clean(app)
    assert set(table(app, "cp_summary")["card"]) == {"910b-64g"}  # gpu_spec.domestic
    app.checkbox(key="cp_domestic").uncheck().run()
    app.multiselect(key="cp_billing").set_value(["bare_metal_monthly"]).run()
    bare = table(app, "cp_prices")
    assert set(bare["platform"]) == {"autodl", "jygpu"} and "h100-80g" in set(bare["card"])
    app.multiselect(key="cp_billing").set_value(["hourly"]).run()
    app.multiselect(key="cp_regions").set_value(["US-CA"]).run()
    assert set(table(app, "cp_prices")["platform"]) == {"vastai"}
    app.multiselect(key="cp_regions").set_value([]).run()
    assert not has_table(app, "cp_prices") and "所选条件没有数据" in texts(app)


def test_moves_over_the_window(use_multi: Seeded) -> None:
    app = open_page("compare")
    app.date_input(key="cp_window").set_value((date(2026, 8, 20), date(2026, 9, 10))).run()
    assert_clean(app)
    moves = table(app, "cp_moves")
    matpool = moves[(moves["platform"] == "matpool") & (moves["card"] == "rtx4090-24g")].iloc[0]
    assert matpool["first day"] == "2026-09-01" and matpool["days"] == 10  # it starts then
    jygpu = moves[(moves["platform"] == "jygpu") & (moves["card"] == "rtx4090-24g")].iloc[0]
    first, last = (
        read_frame(
            use_multi.warehouse,
            "SELECT avg(cny_per_card_hour)::DOUBLE FROM offer WHERE source = 'jygpu' "
            "AND gpu = 'rtx4090-24g' AND billing = 'hourly' AND observed_at::DATE = ?",
            [day],
        ).item()
        for day in (date(2026, 8, 20), date(2026, 9, 10))
    )
    assert jygpu["first CNY per card-hour"] == pytest.approx(first, abs=1e-4)
    assert jygpu["change %"] == pytest.approx(round((last / first - 1) * 100, 2))
    assert moves["change %"].dtype.kind == "f"  # nothing missing: numbers stay numbers


def test_works_from_offers_alone_and_says_when_nothing_is_quoted(
    use: Callable[..., None], offers_only: Seeded, tmp_path
) -> None:
    use(offers_only.home, offers_only.config)
    app = open_page("compare")  # no serving copy, no derived tables: reads the offers
    assert set(table(app, "cp_prices")["platform"]) == {"jygpu", "testcloud"}
    use(tmp_path)
    assert "仓库还是空的" in texts(open_page("compare"))
