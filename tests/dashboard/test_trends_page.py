"""Trends page (finance's home) on the seeded warehouse: KPIs, chart, band, quotes,
MoM / YoY, filters, and the export being exactly the table shown."""

from __future__ import annotations

import io
import statistics
from datetime import date
from typing import Any

import openpyxl
import polars as pl
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from dashboard import export
from dashboard.i18n import HEADERS
from dashboard.palette import platform_colour
from tests.dashboard.conftest import (
    assert_clean,
    chart_data,
    charts,
    has_table,
    kpi_tiles,
    open_page,
    table,
    texts,
    titles,
    trends_detail,
)
from tests.dashboard.seeding import Seeded
from tests.dashboard.test_compare_page import money
from warehouse.store.db import read_frame

UNIT = "cny_per_card_hour_mean"
# The chart table's layers as the Chinese page names them.
PRICE, BAND, QUOTE = "平台价格", "平台区间", "市场报价"


def shown(app: AppTest) -> pl.DataFrame:
    """The chart table as shown, with its period as dates again (pandas made them datetimes)
    and min / max as numbers again (text once quotes, which have none, leave a "—")."""
    frame = pl.from_pandas(table(trends_detail(app, "table"), "tr_table")).with_columns(
        pl.col("period").cast(pl.Date)
    )
    return frame.with_columns(
        pl.col(c).replace("—", None).cast(pl.Float64)
        for c in ("min", "max")
        if frame.schema[c] == pl.String
    )


def monthly_mean(
    seeded: Seeded, gpu: str, source: str, billing: str, month: str, days: int = 31
) -> float | None:
    """Independent of the page's SQL: the plain mean of the month's raw observations, over
    its days 1 to ``days`` (month to date against the same days)."""
    raw = read_frame(
        seeded.warehouse,
        "SELECT observed_at, cny_per_card_hour::DOUBLE AS p FROM offer "
        "WHERE gpu = ? AND source = ? AND billing = ?",
        [gpu, source, billing],
    )
    month_rows = raw.filter(
        pl.col("observed_at").dt.strftime("%Y-%m") == month, pl.col("observed_at").dt.day() <= days
    )
    return None if month_rows.is_empty() else float(month_rows["p"].mean())


def test_home_shows_kpis_chart_changes_latest_and_export(use_seeded: Seeded) -> None:
    app = open_page("trends")
    shown = texts(app)
    assert app.title[0].value == "租金这段时间怎么变了？"  # Chinese by default
    assert "SIMULATED" in shown
    # The figures come from the serving copy, and the page says how current it is.
    newest = read_frame(use_seeded.warehouse, "SELECT max(last_observed_at) FROM offer_daily")
    assert f"趋势数据截至 {newest.item():%Y-%m-%d %H:%M} UTC" in shown
    # KPI cards: one per card and billing mode, median across platforms, MoM delta; a row
    # of them per billing mode, named above it (the tiles name the card alone: whole)
    kpi = kpi_tiles(app)
    assert [mode for mode, _ in kpi] == sorted(
        (mode for mode, _ in kpi), key="按时计费 裸金属包月".find
    )
    assert {mode for mode, _ in kpi} == {"按时计费", "裸金属包月"}
    assert ("裸金属包月", "Ascend 910B 64GB ◐") in kpi and all("·" not in label for _, label in kpi)
    # September holds jygpu-published's real 09-04 price beside the SIMULATED platforms: the
    # KPI says it mixes them (◐, and which figure in its help)
    m4090 = kpi[("按时计费", "RTX 4090 24GB ◐")]
    assert m4090.proto.help.startswith(
        "混合真实与 SIMULATED 价格：本月两种都有（环比、同比也因此混合）；"
    )
    assert "rtx4090-24g · hourly" in m4090.proto.help
    assert "◐ 标记的指标混合了真实价格与 SIMULATED 模拟价格" in shown
    h20 = kpi[("按时计费", "H20 96GB ◐")]  # published real too
    assert h20.proto.help.startswith("混合")
    # Month to date (September 1-10) against the same days of August, never against all
    # of August: testcloud starts on 08-12, so only jygpu quotes on August 1-10.
    sep = [
        monthly_mean(use_seeded, "rtx4090-24g", s, "hourly", "2026-09", days=10)
        for s in ("jygpu", "jygpu-published", "testcloud")
    ]
    aug = [
        monthly_mean(use_seeded, "rtx4090-24g", s, "hourly", "2026-08", days=10)
        for s in ("jygpu", "jygpu-published", "testcloud")
    ]
    median_sep = statistics.median(v for v in sep if v is not None)
    median_aug = statistics.median(v for v in aug if v is not None)
    assert [v is None for v in aug] == [False, True, True]
    assert m4090.value == money(median_sep)
    assert "月初至今 2026-09-01 至 2026-09-10，对比上月同期 2026-08-01 至 2026-08-10" in texts(app)
    assert m4090.proto.delta == f"{median_sep / median_aug - 1:+.1%}"
    # one chart with unit and date range in its titles
    (spec,) = charts(app)
    chart_titles = " ".join(titles(spec))
    assert (
        "元/卡时" in chart_titles and "2026-06-13" in chart_titles and "2026-09-10" in chart_titles
    )
    assert "日期 (UTC)" in chart_titles
    # small multiples: one panel per card, each with its own y-axis; legends never cut
    assert spec["facet"]["field"] == "card" and spec["resolve"]["scale"]["y"] == "independent"
    legends = [
        layer["encoding"][channel]["legend"]
        for layer in spec["spec"]["layer"]
        for channel in ("color", "strokeDash")
        if "legend" in layer.get("encoding", {}).get(channel, {})
    ]
    assert legends and all(legend["labelLimit"] == 0 for legend in legends)
    assert not any(has_table(app, name) for name in ("tr_changes", "tr_latest", "tr_table"))
    assert app.button_group(key="tr_view").value is None  # no grid drawn until one is chosen
    data = table(trends_detail(app, "table"), "tr_table")
    assert set(data["layer"]) == {PRICE, BAND, QUOTE}
    assert str(data["period"].min())[:10] == "2026-06-13"  # default: the last 90 days
    prices = data[data["layer"] == PRICE]
    assert set(prices["billing_id"]) == {"hourly", "bare_metal_monthly"}
    assert set(prices["billing"]) == {"按时计费", "裸金属包月"}
    assert set(prices["card"]) >= {"RTX 4090 24GB", "Ascend 910B 64GB"}
    assert [b.label for b in app.download_button] == ["导出 CSV", "导出 Excel"]
    assert set(table(trends_detail(app, "changes"), "tr_changes").columns) >= {
        "mom_pct",
        "yoy_pct",
        "month",
        "data",
        "compared",
    }
    assert not has_table(app, "tr_table")  # one detail at a time
    latest = table(trends_detail(app, "latest"), "tr_latest")
    h100 = latest[(latest["card_id"] == "h100-80g") & (latest["platform"] == "jygpu")].iloc[0]
    assert h100["listed_price"].endswith(" 元/月") and "," in h100["listed_price"]
    assert set(latest[latest["platform"] == "jygpu-published"]["data"]) == {"real"}


def test_month_over_month_and_year_over_year(use_seeded: Seeded) -> None:
    app = trends_detail(open_page("trends"), "changes")
    changes = table(app, "tr_changes")
    row = changes[
        (changes["card_id"] == "rtx4090-24g")
        & (changes["platform"] == "jygpu")
        & (changes["billing"] == "按时计费")
    ].iloc[0]
    # month to date (the history ends on 09-10) against the same ten days
    now = monthly_mean(use_seeded, "rtx4090-24g", "jygpu", "hourly", "2026-09", days=10)
    before = monthly_mean(use_seeded, "rtx4090-24g", "jygpu", "hourly", "2026-08", days=10)
    year_ago = monthly_mean(use_seeded, "rtx4090-24g", "jygpu", "hourly", "2025-09", days=10)
    assert row["month"] == "2026-09" and "对比上月同期 2026-08-01 至 2026-08-10" in row["compared"]
    # columns with a missing value are shown as text ("—" for it)
    assert float(row["mom_pct"]) == pytest.approx(round((now / before - 1) * 100, 2))
    assert float(row["yoy_pct"]) == pytest.approx(round((now / year_ago - 1) * 100, 2))
    published = changes[changes["platform"] == "jygpu-published"]
    assert set(published["yoy_pct"]) == {"—"}  # no year-ago observation: NULL, never 0


def test_filters_change_the_data_shown(use_seeded: Seeded) -> None:
    app = open_page("trends")

    def prices() -> pl.DataFrame:
        assert_clean(app)
        return (
            shown(app)
            .filter(pl.col("layer") == PRICE)
            .rename({"card": "card name", "card_id": "card"})
        )

    app.multiselect(key="tr_cards").set_value(["h20-96g"]).run()
    assert set(prices()["card"]) == {"h20-96g"}
    assert set(table(app, "tr_table")["card_id"]) == {"h20-96g"}  # quotes follow the cards
    app.multiselect(key="tr_cards").set_value(["rtx4090-24g", "910b-64g"]).run()
    app.multiselect(key="tr_billing").set_value(["monthly"]).run()
    assert set(prices()["billing_id"]) == {"monthly"}
    app.multiselect(key="tr_platforms").set_value(["testcloud"]).run()
    assert not has_table(app, "tr_table")  # testcloud has no monthly plan
    assert "所选条件没有数据" in texts(app)
    app.multiselect(key="tr_billing").set_value(["hourly"]).run()
    only = prices()
    assert set(only["platform"]) == {"testcloud"} and set(only["card"]) == {"rtx4090-24g"}
    assert BAND not in set(table(app, "tr_table")["layer"])  # one platform: no band
    app.multiselect(key="tr_platforms").set_value(["jygpu", "testcloud"]).run()
    app.multiselect(key="tr_regions").set_value(["华北-北京"]).run()
    assert set(prices()["card"]) == {"910b-64g"}  # the 4090s are in 杭州 and 广州
    app.multiselect(key="tr_regions").set_value(["华北-北京", "华东-杭州", "华南-广州"]).run()
    app.date_input(key="tr_dates").set_value((date(2026, 9, 1), date(2026, 9, 10))).run()
    days = prices()["period"]
    assert days.min() == date(2026, 9, 1) and days.max() == date(2026, 9, 10)
    assert prices().height == 10 * 3  # 10 days x (4090 jygpu, 4090 testcloud, 910B jygpu)
    app.date_input(key="tr_dates").set_value((date(2026, 1, 1), date(2026, 9, 10))).run()
    app.radio(key="tr_grain").set_value("month").run()
    months = prices()
    assert set(months["period"].dt.day()) == {1}
    assert months.filter(pl.col("platform") == "jygpu", pl.col("card") == "910b-64g").height == 9
    mean_aug = monthly_mean(use_seeded, "910b-64g", "jygpu", "hourly", "2026-08")
    aug = months.filter(
        pl.col("platform") == "jygpu",
        pl.col("card") == "910b-64g",
        pl.col("period") == date(2026, 8, 1),
    )
    assert aug[UNIT].item() == pytest.approx(mean_aug, abs=1e-4)
    app.radio(key="tr_grain").set_value("week").run()
    assert {d.weekday() for d in prices()["period"]} == {0}  # weeks start on Monday
    app.multiselect(key="tr_cards").set_value([]).run()
    assert "所选条件没有数据" in texts(app)


def test_band_spans_the_platforms_and_quotes_can_be_hidden(use_seeded: Seeded) -> None:
    app = open_page("trends")
    app.multiselect(key="tr_cards").set_value(["rtx4090-24g"]).run()
    app.multiselect(key="tr_billing").set_value(["hourly"]).run()
    data = shown(app)
    prices = data.filter(pl.col("layer") == PRICE)
    band = data.filter(pl.col("layer") == BAND)
    # a band per kind of data, never across: testcloud's last 30 days meet jygpu (both
    # SIMULATED); seed 002's real published price of 2026-07-01 and seed 003's of 09-04
    # stand alone among the real ones, so they make no band
    shared = prices.group_by("period", "data").len().filter(pl.col("len") >= 2)
    assert sorted(band["period"]) == sorted(shared["period"]) and band.height == 30
    assert set(band["data"]) == {"SIMULATED"}
    assert prices.filter(pl.col("data") == "real")["period"].to_list() == [
        date(2026, 7, 1),
        date(2026, 9, 4),
    ]
    for row in band.iter_rows(named=True):
        same_day = prices.filter(pl.col("period") == row["period"], pl.col("data") == row["data"])[
            UNIT
        ]
        assert row["min"] == pytest.approx(same_day.min())
        assert row["max"] == pytest.approx(same_day.max())
        assert row["n"] == same_day.len() >= 2
        assert row["min"] < row["max"]
    quotes = data.filter(pl.col("layer") == QUOTE)
    assert set(quotes["platform"]) == {"smm", "smm-published"}
    assert quotes.filter(pl.col("platform") == "smm").height == 90  # every day of the range
    expected = read_frame(
        use_seeded.warehouse,
        "SELECT avg(cny_per_card_hour)::DOUBLE FROM spot_quote "
        "WHERE gpu = 'rtx4090-24g' AND source = 'smm' AND observed_at::DATE = '2026-09-10'",
    ).item()
    last = quotes.filter(pl.col("period") == date(2026, 9, 10), pl.col("platform") == "smm")[
        UNIT
    ].item()
    assert last == pytest.approx(expected, abs=1e-4)
    (drawn,) = chart_data(app, 0)  # one data set the panels share
    assert set(drawn["layer"]) == {"price", "band", "market quote"}
    app.checkbox(key="tr_quotes").uncheck().run()
    assert QUOTE not in set(table(app, "tr_table")["layer"])
    assert set(chart_data(app, 0)[0]["layer"]) == {"price", "band"}


def test_export_is_exactly_the_table_shown(
    use_seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    exported: dict[str, Any] = {}
    real_csv, real_add_deferred = export.csv_bytes, MediaFileManager.add_deferred

    def spy_csv(frame: pl.DataFrame) -> bytes:
        exported["csv"] = real_csv(frame)
        return exported["csv"]

    def spy_deferred(self: MediaFileManager, data_callable: Any, *args: Any, **kw: Any) -> str:
        # The Excel button's generator, which Streamlit would run on the click.
        exported["xlsx"] = data_callable
        return real_add_deferred(self, data_callable, *args, **kw)

    monkeypatch.setattr(export, "csv_bytes", spy_csv)
    monkeypatch.setattr(MediaFileManager, "add_deferred", spy_deferred)
    app = open_page("trends")
    app.multiselect(key="tr_cards").set_value(["910b-64g", "h20-96g"]).run()
    table_shown = shown(app)

    assert exported["csv"].startswith(b"\xef\xbb\xbf")  # BOM: Excel reads the UTF-8 right
    csv = pl.read_csv(io.BytesIO(exported["csv"][3:]), try_parse_dates=True)
    # the headers as shown (Chinese), the names and the ids of cards and billing modes
    assert csv.columns == [HEADERS[c] for c in table_shown.columns]
    assert csv.height == table_shown.height
    csv = csv.rename({HEADERS[c]: c for c in table_shown.columns})
    assert csv["card"].to_list() == table_shown["card"].to_list()
    assert set(csv["card_id"]) == {"910b-64g", "h20-96g"}
    assert csv["layer"].to_list() == table_shown["layer"].to_list()
    assert csv[UNIT].to_list() == pytest.approx(table_shown[UNIT].to_list())
    assert (
        csv["period"].cast(pl.String).to_list() == table_shown["period"].cast(pl.String).to_list()
    )

    sheet = openpyxl.load_workbook(io.BytesIO(exported["xlsx"]())).active
    assert sheet.title == "day 20260613-20260910"  # whole: the name is under Excel's 31
    rows = list(sheet.iter_rows(values_only=True))
    assert list(rows[0]) == [HEADERS[c] for c in table_shown.columns]
    assert len(rows) - 1 == table_shown.height
    column = table_shown.columns.index(UNIT)
    assert [r[column] for r in rows[1:]] == pytest.approx(table_shown[UNIT].to_list())
    card = table_shown.columns.index("card_id")
    assert {r[card] for r in rows[1:]} == {"910b-64g", "h20-96g"}


def test_a_panel_draws_at_most_six_lines_and_names_the_rest(use_multi: Seeded) -> None:
    # Six, not eight (issue 38): more colours in one panel were hard to tell apart.
    app = open_page("trends")
    (drawn,) = chart_data(app, 0)
    prices = drawn[drawn["layer"] == "price"]
    lines = prices.groupby(["card_id", "platform", "billing_id"])["drawn"].first().reset_index()
    per_panel = lines[lines["drawn"]].groupby("card_id").size()
    assert per_panel.max() <= 6
    # The undrawn lines are not sent to the browser (they are in the band); the table has
    # them all.
    assert lines["drawn"].all() and per_panel["rtx4090-24g"] == 6
    listed = table(trends_detail(app, "table"), "tr_table")
    listed = listed[(listed["layer"] == PRICE) & (listed["card_id"] == "rtx4090-24g")]
    every = listed[["platform", "billing_id"]].drop_duplicates()
    assert len(every) > 6  # the rest are in the band
    # per billing mode the cheapest and the dearest line at the newest day are drawn
    newest = listed.sort_values("period").groupby(["platform", "billing_id"]).last().reset_index()
    drawn_4090 = set(
        map(tuple, lines[lines["card_id"] == "rtx4090-24g"][["platform", "billing_id"]].values)
    )
    for billing, group in newest.groupby("billing_id"):
        for row in (group.loc[group[UNIT].idxmin()], group.loc[group[UNIT].idxmax()]):
            assert (row["platform"], billing) in drawn_4090, billing
    everywhere = shown(app).filter(pl.col("layer") == PRICE)
    hidden = everywhere.select("card_id", "platform", "billing_id").n_unique() - len(lines)
    assert any(f"每幅最多 6 条线：{hidden} 条未画出" in x for x in titles(charts(app)[0]))
    undrawn = next(p for p in every["platform"] if p not in {d[0] for d in drawn_4090})
    app.multiselect(key="tr_lines").set_value([undrawn]).run()
    assert_clean(app)
    (again,) = chart_data(app, 0)
    picked = again[(again["card_id"] == "rtx4090-24g") & (again["platform"] == undrawn)]
    assert picked["drawn"].all()
    # every platform keeps its colour: the palette, whatever the filter
    colour = charts(app)[0]["spec"]["layer"][2]["encoding"]["color"]["scale"]
    assert colour["range"] == [platform_colour(p) for p in colour["domain"]]
