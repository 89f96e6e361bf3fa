"""Platform comparison on a seven-platform warehouse: where a card is cheapest today and how
that moved this month, in words above the charts; the price basis; every platform named
beside its bar, cheapest first; readable heatmap cells; the spread, the FX rate the USD
platforms were converted at, the filters, and each platform's moves over the window."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from datetime import date

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.charts import luminance
from dashboard.palette import platform_colour
from tests.dashboard.conftest import (
    assert_clean,
    chart_data,
    charts,
    has_table,
    open_page,
    table,
    texts,
)
from tests.dashboard.seeding import Seeded, usd_rate
from warehouse.store.db import read_frame

# Independent of the page's SQL: each platform's newest snapshot, the cheapest (or median)
# listing of the card there (the seeds' published prices are no platform quoting today).
TODAY = """
    WITH newest AS (
        SELECT source, max(observed_at) AS at FROM offer
        WHERE NOT source LIKE '%-published' GROUP BY source
    )
    SELECT o.source, min(o.cny_per_card_hour)::DOUBLE AS p,
           median(o.cny_per_card_hour)::DOUBLE AS median, any_value(o.currency) AS currency,
           max(o.observed_at) AS at
    FROM offer o JOIN newest n ON o.source = n.source AND o.observed_at = n.at
    WHERE o.gpu = ? AND o.billing = ? GROUP BY o.source ORDER BY p
"""
# Each day's lowest 4090 hourly listing over every platform quoting today.
MARKET_DAILY = """
    SELECT observed_at::DATE AS day, min(cny_per_card_hour)::DOUBLE AS p FROM offer
    WHERE gpu = 'rtx4090-24g' AND billing = 'hourly' AND NOT source LIKE '%-published'
    GROUP BY day ORDER BY day
"""


def shown(app: AppTest, view: str) -> AppTest:
    """The page with its detail ``view`` chosen (one is drawn at a time, issue 38)."""
    app.button_group(key="cp_view").set_value(view).run()
    assert_clean(app)
    return app


def money(value: float) -> str:
    """As the page writes an amount: two to four decimals."""
    whole, _, decimals = f"{value:,.4f}".rstrip("0").partition(".")
    return f"¥{whole}.{decimals.ljust(2, '0')}"


def test_where_a_4090_is_cheapest_today_and_how_that_moved_this_month(
    use_multi: Seeded,
) -> None:
    """The done-when of issue 30: both answers on the compare page, in words, from the data."""
    app = open_page("compare")
    today = read_frame(use_multi.warehouse, TODAY, ["rtx4090-24g", "hourly"]).row(0, named=True)
    lines = texts(app).splitlines()
    at = next(i for i, line in enumerate(lines) if "RTX 4090 24GB · 按时计费" in line)
    headline, month = lines[at], lines[at + 1]
    day = f"{today['at']:%Y-%m-%d}"
    assert f"最便宜 cheapest: {today['source']} {money(today['p'])}/卡时, {day}" in headline
    assert "（最低挂牌价）" in headline
    daily = read_frame(use_multi.warehouse, MARKET_DAILY)
    september = daily.filter(pl.col("day") >= date(2026, 9, 1))
    same_days = daily.filter(pl.col("day").is_between(date(2026, 8, 1), date(2026, 8, 10)))
    first, last = september["p"][0], september["p"][-1]
    mom = statistics.mean(september["p"]) / statistics.mean(same_days["p"]) - 1
    assert f"本月最低价 {money(first)}（09-01）→ {money(last)}（09-10）" in month
    assert f"{last / first - 1:+.1%}" in month
    assert "（08-01 至 08-10）" in month and f"{mom:+.1%}" in month
    by_platform = table(shown(app, "month"), "cp_month")
    jygpu = by_platform[
        (by_platform["card_id"] == "rtx4090-24g") & (by_platform["platform"] == "jygpu")
    ].iloc[0]
    assert jygpu["first_day"] == "2026-09-01" and jygpu["last_day"] == "2026-09-10"


def test_today_cheapest_spread_and_fx(use_multi: Seeded) -> None:
    app = open_page("compare")
    assert app.title[0].value == "每张卡哪个平台最便宜？" and "SIMULATED" in texts(app)
    expected = read_frame(use_multi.warehouse, TODAY, ["rtx4090-24g", "hourly"])
    assert expected.height == 6  # jygpu, testcloud, autodl, matpool, vastai, runpod
    summary = table(shown(app, "summary"), "cp_summary")
    row = summary[summary["card_id"] == "rtx4090-24g"].iloc[0]
    low, high = expected["p"].min(), expected["p"].max()
    assert row["card"] == "RTX 4090 24GB" and row["billing"] == "按时计费"
    assert row["cheapest_platform"] == expected["source"][0] == "autodl"
    assert row["dearest_platform"] == expected["source"][-1]
    assert row["spread_max_over_min"] == pytest.approx(round(high / low, 3))
    assert row["spread_cny_per_card_hour"] == pytest.approx(round(high - low, 4))
    assert row["platforms"] == 6 and row["data"] == "SIMULATED"
    prices = table(shown(app, "prices"), "cp_prices")
    ranked = prices[prices["card_id"] == "rtx4090-24g"]
    assert list(ranked["platform"]) == list(expected["source"])
    assert list(ranked["rank"]) == [1, 2, 3, 4, 5, 6]
    usd = ranked[ranked["currency"] == "USD"]
    assert set(usd["platform"]) == {"vastai", "runpod"}
    assert all(p.endswith(" $/hr") for p in usd["listed_price"])
    # The day's rate, its date and where it comes from are on screen.
    rate = usd_rate(date(2026, 9, 10))
    words = texts(app)
    assert f"1 USD = ¥{rate:.4f}" in words and "fx_rate 2026-09-10" in words
    assert "runpod, vastai" in words and "SIMULATED test rate" in words
    assert not charts(app)  # a table view draws no chart
    (heatmap,) = charts(shown(app, "heatmap"))
    assert heatmap["layer"][0]["mark"]["type"] == "rect"
    (ranked_bars,) = charts(shown(app, "ranked"))
    assert ranked_bars["resolve"]["scale"]["y"] == "independent"
    (moves,) = charts(shown(app, "moves"))
    assert moves["resolve"]["scale"]["y"] == "independent"


def test_bars_are_sorted_by_price_and_every_platform_is_named(use_multi: Seeded) -> None:
    app = shown(open_page("compare"), "ranked")
    (bars,) = charts(app)
    (drawn,) = chart_data(app, 0)
    expected = read_frame(use_multi.warehouse, TODAY, ["rtx4090-24g", "hourly"])
    panel = drawn[drawn["row"] == "RTX 4090 24GB · 按时计费"].sort_values("place")
    # the bars' order is the text order of `place`: rank, then the platform's name
    assert list(panel["source"]) == list(expected["source"])  # cheapest first
    y = bars["spec"]["layer"][0]["encoding"]["y"]
    assert y["field"] == "place" and y["sort"] == "ascending"
    assert y["axis"]["labelOverlap"] is False  # no platform label is dropped
    assert y["axis"]["labelExpr"] == "slice(datum.label, 3)"  # the name, not "01 autodl"
    assert all(p[3:] == s for p, s in zip(panel["place"], panel["source"], strict=True))
    assert panel.iloc[0]["label"].endswith("★")
    colours = bars["spec"]["layer"][0]["encoding"]["color"]["scale"]
    assert colours["range"] == [platform_colour(p) for p in colours["domain"]]


def test_every_heatmap_cell_is_readable(use_multi: Seeded) -> None:
    app = open_page("compare")
    heatmap = charts(app)[0]
    scale = heatmap["layer"][0]["encoding"]["color"]["scale"]
    assert scale["type"] == "threshold"
    (cells,) = chart_data(app, 0)
    assert len(cells) > 10

    def fill(ratio: float) -> str:  # Vega's threshold scale: range[i] below domain[i]
        for step, colour in zip(scale["domain"], scale["range"], strict=False):
            if ratio < step:
                return colour
        return scale["range"][-1]

    def contrast(a: str, b: str) -> float:
        light, dark = sorted((luminance(a), luminance(b)), reverse=True)
        return (light + 0.05) / (dark + 0.05)

    fills = [fill(r) for r in cells["vs_cheapest"]]
    assert len(set(fills)) >= 3  # light and dark cells both occur
    worst = min(contrast(f, ink) for f, ink in zip(fills, cells["ink"], strict=True))
    assert worst >= 4.5  # WCAG AA for text on every cell


def test_one_price_basis_chosen_and_named(use_multi: Seeded) -> None:
    app = open_page("compare")
    app.radio(key="cp_basis").set_value("median").run()
    assert_clean(app)
    assert all("挂牌中位数" in title for title in [c["title"]["text"] for c in charts(app)])
    shown(app, "prices")
    expected = read_frame(use_multi.warehouse, TODAY, ["rtx4090-24g", "hourly"]).sort(
        "median", "source"
    )
    prices = table(app, "cp_prices")
    ranked = prices[prices["card_id"] == "rtx4090-24g"]
    assert list(ranked["platform"]) == list(expected["source"])
    assert list(ranked["cny_per_card_hour"]) == pytest.approx(list(expected["median"]), abs=1e-4)
    words = texts(app)
    assert "挂牌中位数" in words and "最低挂牌价" not in words.split("价格口径")[1][:20]


def test_filters_domestic_billing_and_region(use_multi: Seeded) -> None:
    app = shown(open_page("compare"), "summary")
    app.checkbox(key="cp_domestic").check().run()
    assert_clean(app)
    assert set(table(app, "cp_summary")["card_id"]) == {"910b-64g"}  # gpu_spec.domestic
    app.checkbox(key="cp_domestic").uncheck().run()
    shown(app, "prices")
    app.multiselect(key="cp_billing").set_value(["bare_metal_monthly"]).run()
    bare = table(app, "cp_prices")
    assert set(bare["platform"]) == {"autodl", "jygpu"} and "h100-80g" in set(bare["card_id"])
    app.multiselect(key="cp_billing").set_value(["hourly"]).run()
    app.multiselect(key="cp_regions").set_value(["US-CA"]).run()
    assert set(table(app, "cp_prices")["platform"]) == {"vastai"}
    app.multiselect(key="cp_regions").set_value([]).run()
    assert not has_table(app, "cp_prices") and "所选条件没有数据" in texts(app)


def test_moves_over_the_window(use_multi: Seeded) -> None:
    app = shown(open_page("compare"), "moves")
    window = app.date_input(key="cp_window").value
    assert tuple(window) == (date(2026, 8, 1), date(2026, 9, 10))  # last month and this
    app.date_input(key="cp_window").set_value((date(2026, 8, 20), date(2026, 9, 10))).run()
    assert_clean(app)
    moves = table(app, "cp_moves")
    matpool = moves[(moves["platform"] == "matpool") & (moves["card"] == "RTX 4090 24GB")].iloc[0]
    assert matpool["first_day"] == "2026-09-01" and matpool["days"] == 10  # it starts then
    jygpu = moves[(moves["platform"] == "jygpu") & (moves["card"] == "RTX 4090 24GB")].iloc[0]
    first, last = (
        read_frame(
            use_multi.warehouse,
            "SELECT min(cny_per_card_hour)::DOUBLE FROM offer WHERE source = 'jygpu' "
            "AND gpu = 'rtx4090-24g' AND billing = 'hourly' AND observed_at::DATE = ?",
            [day],
        ).item()
        for day in (date(2026, 8, 20), date(2026, 9, 10))
    )
    assert jygpu["first_cny_per_card_hour"] == pytest.approx(first, abs=1e-4)
    assert jygpu["change_pct"] == pytest.approx(round((last / first - 1) * 100, 2))
    assert moves["change_pct"].dtype.kind == "f"  # nothing missing: numbers stay numbers


def test_moves_draw_at_most_eight_lines_the_picked_first(use_multi: Seeded) -> None:
    app = shown(open_page("compare"), "moves")
    (drawn,) = chart_data(app, 0)
    per_panel = drawn.groupby("gpu")["source"].nunique()
    assert per_panel.max() <= 8 and per_panel["rtx4090-24g"] == 6  # six fit
    app.multiselect(key="cp_lines").set_value(["runpod"]).run()
    assert_clean(app)
    assert "runpod" in set(chart_data(app, 0)[0]["source"])


def test_works_from_offers_alone_and_says_when_nothing_is_quoted(
    use: Callable[..., None], offers_only: Seeded, tmp_path
) -> None:
    use(offers_only.home, offers_only.config)
    app = open_page("compare")  # no serving copy, no derived tables: reads the offers
    assert set(table(shown(app, "prices"), "cp_prices")["platform"]) == {"jygpu", "testcloud"}
    use(tmp_path)
    assert "仓库还是空的" in texts(open_page("compare"))
