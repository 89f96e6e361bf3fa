"""The trends page over real imported history beside SIMULATED days (AppTest), on a warehouse
built as the demo's first start builds it (tests/dashboard/real_history.py): real captures of
RunPod's and Lambda's pricing pages, SkyPilot's catalog versions and a tracker's CSV, and
simulated demo days under the same source names.

Each point of the chart's data says whether it is real or SIMULATED, a real one says where its
price comes from (whole, and short), the two kinds are drawn differently, the default range
is the last 90 days with all history one pill away (issue 38: from the first real price, the
current 90 days were a sliver of the panel), lines break across the years between captures,
and the KPIs say when they mix the kinds."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date

import pandas as pd
import pytest
import vl_convert
from streamlit.testing.v1 import AppTest

from configuration.settings import Settings
from dashboard.charts import KIND_OPACITY, KINDS
from dashboard.i18n import LANG_KEY
from dashboard.origin import short_origin
from dashboard.palette import platform_colour
from tests.dashboard.conftest import (
    APP,
    assert_clean,
    chart_data,
    charts,
    kpi_tiles,
    table,
    texts,
    trends_detail,
)
from tests.dashboard.real_history import build
from tests.dashboard.test_i18n import untranslated, visible
from warehouse.store.db import read_frame

FIRST_REAL = date(2023, 1, 17)  # SkyPilot's first Lambda catalog version
LAST = date(2026, 9, 10)  # the newest SIMULATED day
RECENT = date(2026, 6, 13)  # the first of the last 90 days
BOTH = date(2026, 8, 10)  # RunPod: a real capture and SIMULATED prices


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return build(tmp_path_factory.mktemp("real-history"))


@pytest.fixture
def page(home: Settings, use: Callable[..., None]) -> Callable[..., AppTest]:
    use(home.home, home.config_path)

    def render(english: bool = False) -> AppTest:
        app = AppTest.from_file(APP, default_timeout=120)
        app.session_state[LANG_KEY] = english
        app.switch_page("app_pages/trends.py")  # the front page is the market index
        app.run()
        assert_clean(app)
        return app

    return render


def points(app: AppTest) -> pd.DataFrame:
    (drawn,) = chart_data(app, 0)
    return drawn[drawn["layer"] == "price"]


def whole_history(app: AppTest) -> AppTest:
    app.button_group(key="tr_range").set_value("all").run()
    assert_clean(app)
    assert app.date_input(key="tr_dates").value == (FIRST_REAL, LAST)
    return app


def test_real_points_carry_their_origin_and_simulated_ones_say_so(
    home: Settings, page: Callable[..., AppTest]
) -> None:
    app = whole_history(page())
    drawn = points(app)
    assert set(drawn["data"]) == {"real", "SIMULATED"}
    real, simulated = drawn[drawn["data"] == "real"], drawn[drawn["data"] == "SIMULATED"]
    assert {"runpod", "lambda", "skypilot"} <= set(real["platform"])
    assert {"runpod", "lambda", "skypilot"} <= set(simulated["platform"])
    assert real["period"].min() == FIRST_REAL
    # Every real point cites where it comes from, whole and shortened; no simulated one does.
    captures = read_frame(
        home.warehouse,
        "SELECT source, observed_at::DATE AS day, origin FROM history_capture WHERE status = 'ok'",
    )
    imported = {(s, d): o for s, d, o in captures.iter_rows()}
    trackers = {(s, o) for s, _, o in captures.iter_rows() if o.startswith("krisjiang-matrix/")}
    cited = real[real["platform"].isin(["runpod", "lambda", "skypilot"])]
    assert not cited.empty
    for row in cited.itertuples():
        whole = imported.get((row.platform, row.period))
        if whole is None:
            # A tracker CSV is one capture whose lines carry their own days (lambda's of
            # 07-08 in a capture of 07-09): its point cites that capture of its source.
            assert (row.platform, row.origin_whole) in trackers, row
            whole = row.origin_whole
        assert row.origin_whole == whole, row
        assert row.origin.startswith(short_origin(whole)), row
    assert set(simulated["origin"]) == {"演示市场（SIMULATED）"}
    assert set(simulated["origin_whole"].fillna("—")) == {"—"}
    skypilot = cited[cited["platform"] == "skypilot"].iloc[0]
    assert skypilot.origin.startswith("skypilot-org/skypilot-catalog@")
    wayback = cited[cited["platform"] == "runpod"].iloc[0]
    assert wayback.origin_whole.startswith("https://web.archive.org/web/")
    assert wayback.origin.startswith("web.archive.org 20") and "runpod.io" in wayback.origin
    # The table (and so the export) says the same, the origin whole in its last column.
    shown = table(trends_detail(app, "table"), "tr_table")
    assert list(shown.columns[-3:]) == ["card_id", "billing_id", "origin_whole"]
    assert set(shown[shown["data"] == "real"]["origin_whole"]) >= set(cited["origin_whole"])


def test_the_kinds_are_drawn_differently(page: Callable[..., AppTest]) -> None:
    app = page()
    (spec,) = charts(app)
    layers = spec["spec"]["layer"]
    line = layers[2]  # the price lines
    kinds = line["encoding"]["opacity"]
    assert kinds["field"] == "data"
    assert kinds["scale"] == {"domain": list(KINDS), "range": list(KIND_OPACITY)}
    assert KIND_OPACITY[0] > KIND_OPACITY[1]  # real solid, simulated pale
    # the legend names both kinds in the page's language
    assert "真实（圆点）" in kinds["legend"]["labelExpr"]
    assert "SIMULATED 模拟（浅色）" in kinds["legend"]["labelExpr"]
    # real and simulated are never one line: the line key holds the kind; a line is drawn
    # a piece at a time (it breaks where its prices stop)
    assert [d["field"] for d in line["encoding"]["detail"]] == ["line", "segment"]
    (drawn,) = chart_data(app, 0)
    assert all(r.line.endswith(f" · {r.data}") for r in drawn.itertuples())
    # a dot on every real point, and only there, whose tooltip gives the whole origin
    dots = layers[3]
    assert dots["mark"]["type"] == "point" and dots["mark"]["filled"]
    filters = json.dumps(dots["transform"])
    assert "datum.data === 'real'" in filters or 'datum.data === "real"' in filters
    # one colour per platform whatever the kind: the palette's, on the lines and the dots
    colour = line["encoding"]["color"]
    assert dots["encoding"]["color"] == colour and colour["field"] == "platform"
    assert colour["scale"]["range"] == [platform_colour(p) for p in colour["scale"]["domain"]]
    tips = {t["field"]: t["title"] for t in dots["encoding"]["tooltip"]}
    assert tips["origin_whole"] == "出处（完整）" and tips["origin"] == "出处"
    # the subtitle says what the kinds look like
    assert any("实线加圆点 = 真实价格" in str(s) for s in spec["title"]["subtitle"])
    # and the chart is one Vega-Lite compiles
    spec["datasets"] = {
        d.name: json.loads(
            pd.DataFrame(chart_data(app, 0)[0]).to_json(orient="records", date_format="iso")
        )
        for d in app.get("vega_lite_chart")[0].proto.datasets
    }
    vl_convert.vegalite_to_vega(json.dumps(spec))


def test_a_day_with_both_kinds_of_one_source_is_two_points(
    home: Settings, page: Callable[..., AppTest]
) -> None:
    app = whole_history(page())
    drawn = points(app)
    day = drawn[
        (drawn["period"] == BOTH)
        & (drawn["platform"] == "runpod")
        & (drawn["card_id"] == "h100-80g")
        & (drawn["billing_id"] == "hourly")
    ].set_index("data")
    assert sorted(day.index) == ["SIMULATED", "real"]
    means = read_frame(
        home.warehouse,
        "SELECT simulated, avg(cny_per_card_hour)::DOUBLE AS v FROM offer WHERE source = 'runpod' "
        "AND gpu = 'h100-80g' AND billing = 'hourly' AND observed_at::DATE = $d GROUP BY ALL",
        {"d": BOTH},
    )
    expected = {("SIMULATED" if s else "real"): v for s, v in means.iter_rows()}
    assert day.loc["real", "value"] == pytest.approx(expected["real"], abs=1e-4)
    assert day.loc["SIMULATED", "value"] == pytest.approx(expected["SIMULATED"], abs=1e-4)
    assert day.loc["real", "value"] != pytest.approx(day.loc["SIMULATED", "value"], abs=0.01)
    # the rollup holds them apart too
    rollup = read_frame(
        home.warehouse,
        "SELECT simulated, origin FROM offer_daily WHERE source = 'runpod' AND day = $d "
        "AND gpu = 'h100-80g' AND billing = 'hourly' ORDER BY simulated",
        {"d": BOTH},
    )
    assert rollup["simulated"].to_list() == [False, True]
    assert rollup["origin"][0].startswith("https://web.archive.org/web/20260810")


def test_kpis_say_when_they_mix_real_and_simulated(page: Callable[..., AppTest]) -> None:
    app = whole_history(page())  # the 2023 card below is in the range's KPIs only then
    kpi = kpi_tiles(app)
    # September is SIMULATED only, August held RunPod's real capture beside simulated prices
    h100 = kpi[("按时计费", "H100 80GB ◐")]
    assert h100.proto.help.startswith("混合真实与 SIMULATED 价格：环比一边真实一边模拟")
    assert "◐ 标记的指标混合了真实价格与 SIMULATED 模拟价格" in texts(app)
    v100 = kpi[("按时计费", "V100 16GB")]  # no real V100 in August or a year before
    assert v100.proto.help.startswith("SIMULATED; ")
    # a card listed only in RunPod's 2023 capture (not among the first view's cards: few
    # platforms quote it) names its own month
    chosen = app.multiselect(key="tr_cards").value
    assert "rtx3080ti-12g" not in chosen and len(chosen) <= 8
    app.multiselect(key="tr_cards").set_value([*chosen, "rtx3080ti-12g"]).run()
    kpi = kpi_tiles(app)
    old = kpi[("按时计费", "RTX 3080 Ti 12GB · 2023-09")]
    assert "月初至今 2023-09-01 至 2023-09-29" in old.proto.help
    changes = table(trends_detail(app, "changes"), "tr_changes")
    runpod = changes[(changes["platform"] == "runpod") & (changes["card_id"] == "h100-80g")]
    assert set(runpod["data"]) == {"real", "SIMULATED"}  # a row each, never compared across
    assert "同一平台的真实价格与 SIMULATED 模拟价格各占一行" in texts(app)


def test_the_range_opens_on_the_last_90_days_and_pills_switch_it(
    page: Callable[..., AppTest],
) -> None:
    # Was: from the first real price (2023-01-17), where the 90 current days were a sliver.
    app = page()
    assert app.date_input(key="tr_dates").value == (RECENT, LAST)
    assert app.button_group(key="tr_range").value == "recent"
    assert points(app)["period"].min() >= RECENT  # the first views' cards start on 07-01
    assert not app.button  # the old "All history" / "Last 90 days" buttons are gone
    pills = app.button_group(key="tr_range")
    assert pills.options == ["最近 90 天", "今年", "全部历史"]
    pills.set_value("year").run()
    assert_clean(app)
    assert app.date_input(key="tr_dates").value == (date(2026, 1, 1), LAST)
    assert points(app)["period"].min() >= date(2026, 1, 1)
    whole_history(app)
    assert points(app)["period"].min() == FIRST_REAL
    # Dates set by hand: no pill stays lit for a range it no longer describes.
    app.date_input(key="tr_dates").set_value((date(2026, 8, 1), LAST)).run()
    assert_clean(app)
    assert app.button_group(key="tr_range").value is None
    assert app.date_input(key="tr_dates").value == (date(2026, 8, 1), LAST)
    app.button_group(key="tr_range").set_value("recent").run()
    assert app.date_input(key="tr_dates").value == (RECENT, LAST)


def test_lines_break_across_the_years_between_captures(page: Callable[..., AppTest]) -> None:
    app = whole_history(page())
    drawn = points(app).sort_values("period")
    for line, group in drawn.groupby("line"):
        steps = group["period"].map(pd.Timestamp).diff().dt.days.fillna(0)
        # a new piece exactly where the step is longer than two days
        assert group["segment"].tolist() == (steps > 2).cumsum().tolist(), line
    runpod = drawn[
        (drawn["platform"] == "runpod")
        & (drawn["card_id"] == "h100-80g")
        & (drawn["billing_id"] == "hourly")
        & (drawn["data"] == "real")
    ]
    assert runpod["segment"].nunique() > 1  # captures years apart: never one straight line
    (band,) = [d[d["layer"] == "band"] for d in chart_data(app, 0)]
    assert set(band["segment"]) == {0} and not band[["min", "max"]].isna().any().any()


@pytest.mark.parametrize("english", [False, True], ids=["zh", "en"])
def test_no_untranslated_string(page: Callable[..., AppTest], english: bool) -> None:
    app = page(english)
    wrong = sorted(
        {(where, text) for where, text in visible(app) if untranslated(text, english, where)}
    )
    assert not wrong, "\n".join(f"{where}: {text!r}" for where, text in wrong)
    if english:
        # the pills name each range in the page's language alone
        options = app.button_group(key="tr_range").options
        assert options == ["Last 90 days", "This year", "All history"]
        (drawn,) = chart_data(app, 0)
        assert "demo market (SIMULATED)" in set(drawn["origin"])
