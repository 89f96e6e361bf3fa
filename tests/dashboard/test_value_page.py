"""Value board on the seeded warehouse: card_value + gpu_spec, sortable, filtered, scatters."""

from __future__ import annotations

import pytest

from dashboard.palette import platform_colour
from tests.dashboard.conftest import (
    assert_clean,
    chart_data,
    charts,
    has_table,
    open_page,
    table,
    texts,
    titles,
)
from tests.dashboard.seeding import Seeded
from warehouse.store.db import read_frame


def test_board_shows_every_ratio_with_specs_and_two_scatters(use_seeded: Seeded) -> None:
    app = open_page("value")
    board = table(app, "va_table")
    assert {
        "card",
        "card_id",
        "platform",
        "cny_per_card_hour",
        "cny_per_tflop_hour",
        "cny_per_gb_hour",
        "cny_per_tbps_hour",
        "observed_utc",
        "data",
    } <= set(board.columns)
    assert "（按时计费）" in texts(app)  # the default mode, named once above the table
    assert list(board["cny_per_card_hour"]) == sorted(board["cny_per_card_hour"])
    newest = read_frame(
        use_seeded.warehouse,
        "SELECT cny_per_card_hour::DOUBLE AS p, cny_per_tflop_hour AS t FROM card_value "
        "WHERE source = 'jygpu' AND gpu = 'h20-96g' AND billing = 'hourly' "
        "ORDER BY observed_at DESC LIMIT 1",
    ).row(0, named=True)
    h20 = board[(board["card_id"] == "h20-96g") & (board["platform"] == "jygpu")].iloc[0]
    assert h20["card"] == "H20 96GB"
    assert h20["cny_per_card_hour"] == pytest.approx(newest["p"], abs=1e-4)
    assert h20["cny_per_tflop_hour"] == pytest.approx(newest["t"], abs=1e-5)
    assert h20["data"] == "SIMULATED"
    specs = table(app, "va_specs").set_index("card_id")
    assert specs.loc["h20-96g", "vram_gb"] == 96 and specs.loc["h20-96g", "card"] == "H20 96GB"
    assert len(board.columns) <= 10  # fits the page: no scrolling sideways
    # the published prices are dated 2026-09-04, six days before the newest: not current
    assert "jygpu-published" not in set(board["platform"])
    vram, tflops = charts(app)
    assert any("显存" in x for x in titles(vram)) and any("2026-09-10" in x for x in titles(vram))
    assert any("元/卡时" in x for x in titles(vram))
    assert any("TFLOP" in x for x in titles(tflops))
    assert "2026-09-10 02:00 UTC" in texts(app)


def test_each_card_is_a_row_and_each_platform_a_dot(use_multi: Seeded) -> None:
    """No label piles up: a card is a row of the chart, named with its spec, and each of its
    platforms a dot in the platform's own colour (a scatter against VRAM put every 24 GB
    card's name on one spot)."""
    app = open_page("value")
    for index, spec in ((0, "GB"), (1, "TFLOPS")):
        (dots,) = chart_data(app, index)
        assert dots.groupby("row")["gpu"].nunique().max() == 1  # one card per row
        assert dots.groupby("gpu")["source"].nunique().max() > 1  # several platforms a card
        assert all(row.endswith(spec) for row in dots["row"])
        encoding = charts(app)[index]["layer"][0]["encoding"]
        assert "text" not in encoding and encoding["y"]["axis"]["labelOverlap"] is False
        scale = encoding["color"]["scale"]
        assert scale["range"] == [platform_colour(p) for p in scale["domain"]]


def test_sorting_and_filters_change_the_board(use_seeded: Seeded) -> None:
    app = open_page("value")
    app.selectbox(key="va_sort").set_value("cny_per_tflop_hour").run()
    assert_clean(app)
    board = table(app, "va_table")
    assert list(board["cny_per_tflop_hour"]) == sorted(board["cny_per_tflop_hour"])
    assert board.iloc[0]["card_id"] == "rtx4090-24g"  # the cheapest dense FP16 per hour
    app.selectbox(key="va_sort").set_value("cny_per_gb_hour").run()
    by_gb = table(app, "va_table")
    assert list(by_gb["cny_per_gb_hour"]) == sorted(by_gb["cny_per_gb_hour"])
    assert list(by_gb["card"]) != list(board["card"])
    app.selectbox(key="va_billing").set_value("bare_metal_monthly").run()
    bare = table(app, "va_table")
    assert "（裸金属包月）" in texts(app)
    assert "h100-80g" in set(bare["card_id"]) and "h20-96g" not in set(bare["card_id"])
    app.multiselect(key="va_platforms").set_value(["jygpu-published"]).run()
    assert not has_table(app, "va_table")  # only older prices: counted, not shown
    assert "另有 4 条较旧的价格未显示" in texts(app)
    app.toggle(key="va_older").set_value(True).run()
    older = table(app, "va_table")
    assert set(older["platform"]) == {"jygpu-published"} and set(older["data"]) == {"real"}
    app.multiselect(key="va_platforms").set_value([]).run()
    assert not has_table(app, "va_table") and "所选条件没有数据" in texts(app)
