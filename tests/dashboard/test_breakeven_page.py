"""Breakeven page on the seeded warehouse: cost lines, labelled crossings, the usage
slider's verdict, and the breakeven history with alert markers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.dashboard.conftest import (
    assert_clean,
    chart_data,
    charts,
    copy_of,
    has_table,
    open_page,
    table,
    texts,
    titles,
)
from tests.dashboard.seeding import Seeded
from warehouse.read.metrics import latest_breakeven
from warehouse.store.db import write_connection


def choose(use_seeded: Seeded, gpu: str, line: str) -> tuple:
    app = open_page("breakeven")
    app.selectbox(key="be_card").set_value(gpu).run()
    app.selectbox(key="be_line").set_value(line).run()
    assert_clean(app)
    row = latest_breakeven(use_seeded.warehouse, gpu).filter(source=line).row(0, named=True)
    return app, row


def test_cost_lines_cross_at_the_breakeven_hours(use_seeded: Seeded) -> None:
    app, row = choose(use_seeded, "rtx4090-24g", "jygpu")
    cost_spec = charts(app)[0]
    chart_titles = " ".join(titles(cost_spec))
    assert "RTX 4090 24GB · jygpu" in chart_titles and "2026-09-10 02:00 UTC" in chart_titles
    assert "元/卡/月" in chart_titles and "每卡每月使用小时" in chart_titles
    lines, _rule, crossings = chart_data(app, 0)
    assert set(lines["mode"]) == {"按时容器", "包月容器", "裸金属"}  # the modes, named
    assert lines["usage_hours"].min() == 0 and lines["usage_hours"].max() == 720
    flat = float(row["bare_metal_cny_per_card_month"])
    assert set(lines.loc[lines["mode"] == "裸金属", "cny_per_card_month"]) == {flat}
    expected = sorted([row["breakeven_hours_vs_hourly"], row["breakeven_hours_vs_monthly"]])
    assert sorted(crossings["usage_hours"]) == pytest.approx(expected)
    assert sorted(crossings["label"]) == sorted(f"{h:,.1f} h" for h in expected)
    assert set(crossings["cny_per_card_month"]) == {flat}
    shown = table(app, "be_row").iloc[0]
    hours = row["breakeven_hours_vs_hourly"]
    assert hours <= 720 and shown["breakeven_vs_hourly"] == f"超过 {hours:,.1f} h 划算"


def test_usage_slider_names_the_cheapest_mode_and_the_saving(use_seeded: Seeded) -> None:
    app, row = choose(use_seeded, "rtx4090-24g", "jygpu")
    hourly = float(row["list_cny_per_card_hour"])
    monthly = float(row["monthly_cny_per_card_hour"])
    flat = float(row["bare_metal_cny_per_card_month"])
    app.slider(key="be_usage").set_value(100).run()
    verdict = app.success[0].value
    assert "**包月容器**" in verdict
    assert f"¥{100 * monthly:,.2f}" in verdict and f"¥{100 * (hourly - monthly):,.2f}" in verdict
    app.slider(key="be_usage").set_value(720).run()
    verdict = app.success[0].value
    assert "**裸金属**" in verdict
    assert f"¥{flat:,.2f}" in verdict and f"¥{720 * monthly - flat:,.2f}" in verdict
    rule = chart_data(app, 0)[1]
    assert list(rule["usage_hours"]) == [720]  # the chosen usage is drawn on the chart


def test_history_marks_the_alerts_of_the_watched_line(use_seeded: Seeded) -> None:
    app, _ = choose(use_seeded, "rtx4090-24g", "jygpu")
    history = charts(app)[1]
    assert any("2025-08-07" in x and "2026-09-10" in x for x in titles(history))
    points, alerts = chart_data(app, 1)
    assert set(points["against"]) == {"按时容器", "包月容器"}
    assert points["shown_hours"].max() <= 720  # the axis ends with the month
    assert set(alerts["rule"]) == {"4090 box"} and set(alerts["kind"]) == {
        "breakeven_shift",
        "mode_flip",
    }
    marked = table(app, "be_alerts")
    assert len(marked) == len(alerts) == 3
    app.selectbox(key="be_line").set_value("cheapest").run()
    assert not has_table(app, "be_alerts")  # the 4090 rule watches jygpu, not the cheapest line
    app.selectbox(key="be_card").set_value("910b-64g").run()
    app.selectbox(key="be_line").set_value("cheapest").run()
    assert set(table(app, "be_alerts")["rule"]) == {"910B cheapest"}


def test_a_card_without_bare_metal_says_why(use_seeded: Seeded) -> None:
    app, _ = choose(use_seeded, "h20-96g", "jygpu")
    assert "无法计算 按时容器：该卡在此平台没有裸金属价格" in texts(app)
    assert table(app, "be_row").iloc[0]["breakeven_vs_monthly"] == "— (该卡在此平台没有裸金属价格)"
    lines = chart_data(app, 0)[0]
    assert set(lines["mode"]) == {"按时容器", "包月容器"}
    assert "**包月容器**" in app.success[0].value


def test_a_breakeven_beyond_a_month_never_pays_off(
    use: Callable[..., None], seeded: Seeded, tmp_path: Path
) -> None:
    """A breakeven of 1,290 h a month is no usage anyone has: the page says bare metal
    never pays off (> 720 h) instead of plotting hours a month lacks."""
    copy = copy_of(seeded, tmp_path)
    with write_connection(copy.warehouse) as con:
        con.execute(
            "UPDATE breakeven SET breakeven_hours_vs_hourly = 1290 "
            "WHERE gpu = 'rtx4090-24g' AND source = 'jygpu'"
        )
    (copy.home / "gpuprice-serving.duckdb").unlink()  # the pages read the warehouse
    use(copy.home, copy.config)
    app, _ = choose(copy, "rtx4090-24g", "jygpu")
    assert "裸金属永远不划算（> 720 h；交点在 1,290 h" in texts(app)
    assert table(app, "be_row").iloc[0]["breakeven_vs_hourly"] == "永远不划算 (> 720 h)"
    _lines, _rule, crossings = chart_data(app, 0)
    assert list(crossings["usage_hours"]) == pytest.approx([row_monthly(copy)])
    points = chart_data(app, 1)[0]
    beyond = points[points["against"] == "按时容器"]
    assert set(beyond["shown_hours"]) == {720} and beyond["beyond"].all()
    assert set(beyond["breakeven_hours"]) == {1290}
    assert set(beyond["verdict"]) == {"永远不划算 (> 720 h)"}
    axis = charts(app)[1]["layer"][0]["encoding"]["y"]["scale"]
    assert axis["domain"] == [0, 720]


def row_monthly(seeded: Seeded) -> float:
    return (
        latest_breakeven(seeded.warehouse, "rtx4090-24g")
        .filter(source="jygpu")["breakeven_hours_vs_monthly"]
        .item()
    )
