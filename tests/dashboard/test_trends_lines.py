"""Trend lines people can read (issue 38): a line breaks where its prices stop for longer
than the grain allows (dashboard.lines.split_at_gaps, dashboard.charts.trend_pieces), the
grey band never does, a panel draws at most six lines, and the chart draws a path per line
and piece."""

from __future__ import annotations

import json
import re
import time
from datetime import date, timedelta

import polars as pl
import pytest
import vl_convert

from dashboard import charts
from dashboard.lines import MAX_LINES, pick_lines, split_at_gaps

LINE = ["platform"]


def days(*offsets: int, start: date = date(2026, 1, 1)) -> list[date]:
    return [start + timedelta(days=d) for d in offsets]


def segments(frame: pl.DataFrame, grain: str) -> dict[date, int]:
    pieces = split_at_gaps(frame, line=LINE, period="period", grain=grain)
    return dict(zip(pieces["period"], pieces["segment"], strict=True))


def test_a_gap_longer_than_the_grain_allows_splits_a_line_in_two() -> None:
    # 2023 capture, then a run of days in 2026: the step of years starts a new piece.
    frame = pl.DataFrame(
        {"platform": "runpod", "period": [date(2023, 9, 29), *days(0, 1, 2)], "value": 1.0}
    )
    assert segments(frame, "day") == {date(2023, 9, 29): 0, **dict.fromkeys(days(0, 1, 2), 1)}


def test_no_gap_is_one_piece_and_a_missed_day_is_bridged() -> None:
    # Daily, one missed scrape (a two-day step): still one line.
    frame = pl.DataFrame({"platform": "jygpu", "period": days(0, 1, 3, 4, 5), "value": 1.0})
    assert set(segments(frame, "day").values()) == {0}
    # Three days without a price is more than twice the grain: the line breaks there.
    frame = pl.DataFrame({"platform": "jygpu", "period": days(0, 1, 4, 5), "value": 1.0})
    assert segments(frame, "day") == dict(zip(days(0, 1, 4, 5), [0, 0, 1, 1], strict=True))


@pytest.mark.parametrize(
    ("grain", "bridged", "broken"),
    [("week", 14, 21), ("month", 59, 90)],  # a missed week bridges; Jan → Mar bridges
)
def test_the_gap_allowed_follows_the_grain(grain: str, bridged: int, broken: int) -> None:
    start = date(2026, 1, 5)  # a Monday, the first of a week
    if grain == "month":
        start = date(2026, 1, 1)
    frame = pl.DataFrame(
        {"platform": "p", "period": days(0, bridged, bridged + broken, start=start), "value": 1.0}
    )
    assert list(segments(frame, grain).values()) == [0, 0, 1]


def test_each_line_counts_its_own_pieces_whatever_the_row_order() -> None:
    frame = pl.DataFrame(
        {
            "platform": ["b", "a", "b", "a", "a"],
            "period": days(10, 0, 0, 1, 30),
            "value": 1.0,
        }
    )
    pieces = split_at_gaps(frame, line=LINE, period="period", grain="day")
    got = {(p, d): s for p, d, s in pieces.select("platform", "period", "segment").iter_rows()}
    assert got == {
        ("a", days(0)[0]): 0,
        ("a", days(1)[0]): 0,
        ("a", days(30)[0]): 1,
        ("b", days(0)[0]): 0,
        ("b", days(10)[0]): 1,
    }
    assert pieces.height == frame.height  # a new column, never a row more or less


def chart_frame(rows: list[dict]) -> pl.DataFrame:
    """A trend chart frame as the page builds it (its columns; values only where the test
    needs them)."""
    base = {
        "card": "H100 80GB",
        "card_id": "h100-80g",
        "billing": "hourly",
        "billing_id": "hourly",
        "data": "SIMULATED",
        "min": None,
        "max": None,
        "n": 1,
        "origin": None,
        "origin_whole": None,
        "drawn": True,
    }
    return pl.DataFrame([base | row for row in rows])


def test_lines_break_and_the_band_is_carried_across() -> None:
    price = [
        {"layer": "price", "platform": "runpod", "period": d, "value": 2.0}
        for d in days(0, 1, 2, 30, 31)
    ]
    quote = [
        {"layer": "market quote", "platform": "smm", "period": d, "value": 2.5} for d in days(0, 10)
    ]
    # The band misses day 3 (one platform left that day) and has a row without its edges:
    # neither may become a hole.
    band = [
        {"layer": "band", "platform": "all", "period": d, "value": 2.0, "min": 1.0, "max": 3.0}
        for d in days(0, 1, 2, 4, 5)
    ] + [{"layer": "band", "platform": "all", "period": days(6)[0], "value": 2.0}]
    pieces = charts.trend_pieces(chart_frame(price + quote + band), "day")
    by_layer = {
        layer: dict(zip(g["period"], g["segment"], strict=True))
        for (layer,), g in pieces.group_by("layer")
    }
    assert by_layer["price"] == dict(zip(days(0, 1, 2, 30, 31), [0, 0, 0, 1, 1], strict=True))
    assert list(by_layer["market quote"].values()) == [0, 1]
    assert by_layer["band"] == dict.fromkeys(days(0, 1, 2, 4, 5), 0)  # one piece, no null row
    band_rows = pieces.filter(pl.col("layer") == "band")
    assert band_rows["min"].null_count() == band_rows["max"].null_count() == 0


def trend_spec(frame: pl.DataFrame) -> dict:
    """The trend chart's spec with its data set as JSON records (as the browser gets it)."""
    spec = charts.trend(frame, "title", ["subtitle"])
    data = {name: json.loads(set_.write_json()) for name, set_ in spec["datasets"].items()}
    return spec | {"datasets": data}


def test_the_chart_draws_a_path_per_line_and_piece() -> None:
    price = [
        {"layer": "price", "platform": "runpod", "period": d, "value": 2.0 + i / 10}
        for i, d in enumerate(days(0, 1, 40, 41))
    ]
    frame = charts.trend_pieces(chart_frame(price), "day")
    spec = trend_spec(frame)
    lines = [
        layer
        for layer in spec["spec"]["layer"]
        if layer["mark"]["type"] == "line" and "color" in layer["encoding"]
    ]
    assert len(lines) == 2  # the price lines and the market quotes
    for layer in lines:
        assert [d["field"] for d in layer["encoding"]["detail"]] == ["line", "segment"]
    # Legends never cut a platform's or a billing mode's name.
    legends = [
        layer["encoding"][channel]["legend"]
        for layer in lines
        for channel in ("color", "strokeDash", "opacity")
        if layer["encoding"].get(channel, {}).get("legend")
    ]
    assert legends and all(legend["labelLimit"] == 0 for legend in legends)
    # Vega-Lite compiles it, and draws the two pieces as two paths of one line.
    (name,) = spec["datasets"]
    vega = vl_convert.vegalite_to_vega(json.dumps(spec))
    assert "segment" in json.dumps(vega)
    data = spec["datasets"][name]
    assert sorted({(row["line"], row["segment"]) for row in data}) == [
        ("h100-80g · runpod · hourly · SIMULATED", 0),
        ("h100-80g · runpod · hourly · SIMULATED", 1),
    ]


def test_a_panel_draws_at_most_six_lines_by_default() -> None:
    frame = pl.DataFrame(
        {"panel": "h100", "platform": [f"p{i}" for i in range(10)], "billing": "hourly",
         "value": [float(i) for i in range(10)], "period": date(2026, 9, 1)}
    )  # fmt: skip
    args = {"panel": "panel", "platform": "platform", "billing": "billing", "value": "value"}
    drawn = pick_lines(frame, period="period", **args)
    assert MAX_LINES == 6 and drawn["drawn"].sum() == 6
    # the cheapest and the dearest, then the next cheapest
    assert set(drawn.filter("drawn")["platform"]) == {"p0", "p9", "p1", "p2", "p3", "p4"}


def test_a_lone_simulated_point_is_drawn_as_a_dot() -> None:
    """A piece of one point draws no path: a SIMULATED price alone between two gaps was on
    the chart's data and nowhere on the chart."""
    price = [
        {"layer": "price", "platform": "runpod", "period": d, "value": 2.0 + i / 10}
        for i, d in enumerate(days(0, 1, 20, 40, 41))
    ]
    frame = charts.trend_pieces(chart_frame(price), "day")
    spec = trend_spec(frame)
    (name,) = spec["datasets"]
    lone = {row["period"][:10] for row in spec["datasets"][name] if row["lone"]}
    assert lone == {"2026-01-21"}  # day 20: a piece of its own
    (dots,) = [layer for layer in spec["spec"]["layer"] if layer["mark"]["type"] == "point"]
    assert "datum.lone" in json.dumps(dots["transform"])  # drawn with the real points
    assert dots["encoding"]["opacity"]["value"] == charts.KIND_OPACITY[1]  # pale: SIMULATED
    assert "legend" not in dots["encoding"]["opacity"]
    # Vega renders it: one symbol on the chart, the lone point's (the others are lines)
    svg = vl_convert.vegalite_to_svg(json.dumps(spec))
    symbols = re.findall(r'<g class="mark-symbol role-mark[^"]*"[^>]*>(.*?)</g>', svg)
    drawn = [
        label for group in symbols for label in re.findall(r'<path aria-label="([^"]*)"', group)
    ]
    assert len(drawn) == 1 and "2026-01-21" in drawn[0], drawn


def test_the_spec_is_built_once_per_platforms_and_titles_not_per_rerun() -> None:
    """A rerun with the same platforms, titles and language reuses the spec (building it
    through Altair was most of the page's own time); new data keeps it, another platform
    set gets its own colours."""
    price = [
        {"layer": "price", "platform": "runpod", "period": d, "value": 2.0 + i / 10}
        for i, d in enumerate(days(0, 1, 2))
    ]
    title = f"cache test {time.time_ns()}"  # a key no other test used
    before = charts._trend_spec.cache_info()
    first = charts.trend(chart_frame(price), title, ["subtitle"])
    moved = [row | {"value": row["value"] + 1} for row in price]
    again = charts.trend(chart_frame(moved), title, ["subtitle"])
    after = charts._trend_spec.cache_info()
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 1)
    assert again["datasets"]["trend"]["value"].to_list() == [3.0, 3.1, 3.2]
    assert {k: v for k, v in again.items() if k != "datasets"} == {
        k: v for k, v in first.items() if k != "datasets"
    }
    other = charts.trend(chart_frame([row | {"platform": "vastai"} for row in price]), title, ["s"])
    colour = [
        layer["encoding"]["color"]["scale"]["domain"]
        for layer in other["spec"]["layer"]
        if "color" in layer.get("encoding", {})
    ]
    assert colour and all(domain == ["vastai"] for domain in colour)
