"""Altair charts of the pages. Pure: frames and already-translated titles in, a chart out.

Every chart carries its unit in the axis title and its date (range or snapshot) in the
chart title, so a screenshot or a pasted PNG still says what it shows. Platforms are
coloured by dashboard.palette (the same colour on every page), cards and billing modes are
named (dashboard.i18n.named: ``card_name``, ``billing_name``; the ids in the tooltip), and
money ticks read at most four decimals (dashboard.formatting).

Altair checks every object against the Vega-Lite JSON schema as it is built and again when
Streamlit turns the chart into a spec: on the trends page that was 0.7 s of a 1.8 s render.
The charts here are built without it (``_unchecked``) and handed to Streamlit through
``unchecked``; tests/dashboard/test_i18n.py compiles every chart of every page with
Vega-Lite itself instead, which catches more than the schema does.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import altair as alt
import polars as pl
from altair.utils.schemapi import debug_mode

from dashboard.formatting import AXIS_HOURS, AXIS_MONEY, money, plain_numbers
from dashboard.i18n import english, header, t
from dashboard.lines import split_at_gaps
from dashboard.palette import platform_scale
from scrapers.rows import HOURS_PER_MONTH

PRICE_FORMAT = ",.4~f"
MONEY_FORMAT = ",.2f"
HOURS_FORMAT = ",.1f"

# Small multiples: one panel per card, two panels a row, each this many pixels.
PANEL_WIDTH = 390
PANEL_HEIGHT = 210
PANEL_COLUMNS = 2
BAR_STEP = 20  # pixels per bar: every platform's label fits beside its bar

# Heatmap cells, by × the cheapest platform of their row: classes, light to dark. A class
# scale (not a gradient) so the page knows each cell's exact colour and can write on it in
# the colour that reads (dashboard.charts.ink).
HEAT_STEPS = (1.05, 1.15, 1.3, 1.6, 2.0)
# The three rent modes (hourly container, monthly-plan container, bare metal), the same on
# the cost lines and the breakeven history.
MODE_COLOURS = ("#f28e2b", "#59a14f", "#1d3557")
HEAT_COLOURS = ("#fff7ec", "#fee8c8", "#fdbb84", "#fc8d59", "#d7301f", "#7f0000")


P = ParamSpec("P")
R = TypeVar("R")


def _unchecked(build: Callable[P, R]) -> Callable[P, R]:
    """``build`` without Altair's per-object schema check (its debug mode: a process-wide
    flag, so two sessions building at once may each check a little; never wrongly)."""

    @functools.wraps(build)
    def built(*args: P.args, **kwargs: P.kwargs) -> R:
        with debug_mode(False):
            return build(*args, **kwargs)

    return built


class Unchecked:
    """A chart as ``st.altair_chart`` takes it (Streamlit only calls ``to_dict``), turned into
    a spec without the JSON-schema validation."""

    def __init__(self, chart: alt.TopLevelMixin) -> None:
        self.chart = chart

    def to_dict(self, *args: Any, **kwargs: Any) -> dict:
        with debug_mode(False):
            return self.chart.to_dict(*args, **(kwargs | {"validate": False}))


def unchecked(chart: alt.TopLevelMixin) -> Any:
    """``chart`` for ``st.altair_chart``, without schema validation (see the module's doc)."""
    return Unchecked(chart)


def _title(text: str, subtitle: str | list[str] | None = None) -> alt.TitleParams:
    return alt.TitleParams(text, subtitle=subtitle or alt.Undefined, anchor="start")


def _legend(title: str, columns: int = 6) -> alt.Legend:
    # Below the panels, in columns, names never cut: "910b-64g · jygpu · bare_…" was the bug.
    return alt.Legend(title=title, orient="bottom", columns=columns, labelLimit=0, symbolLimit=0)


def _platform_colour(frame: pl.DataFrame, field: str = "source", legend: bool = True) -> alt.Color:
    return _platform_colours(frame[field].unique().to_list(), field, legend)


def _platform_colours(platforms: list[str], field: str, legend: bool = True) -> alt.Color:
    """The colour channel of ``field`` over these ``platforms`` (dashboard.palette)."""
    return alt.Color(
        f"{field}:N",
        title=header("platform"),
        scale=platform_scale(platforms),
        legend=_legend(header("platform")) if legend else None,
    )


def _money_y(field: str, unit: str, **kwargs: object) -> alt.Y:
    return alt.Y(field, title=unit, axis=alt.Axis(format=AXIS_MONEY), **kwargs)


def luminance(colour: str) -> float:
    """WCAG relative luminance of ``#rrggbb``."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def ink(fill: str) -> str:
    """Black or white, whichever contrasts more with ``fill`` (WCAG contrast ratio)."""
    light = luminance(fill)
    return "#000000" if (light + 0.05) / 0.05 >= 1.05 / (light + 0.05) else "#ffffff"


def heat_colour(ratio: float) -> str:
    """The cell colour of × the cheapest ``ratio``: Vega's threshold scale, in Python."""
    for step, colour in zip(HEAT_STEPS, HEAT_COLOURS, strict=False):
        if ratio < step:
            return colour
    return HEAT_COLOURS[-1]


# Real prices and SIMULATED ones in every trend panel: real lines solid with a dot at each
# point (hover it for where the price comes from), simulated lines pale without dots; the
# band of each kind as pale.
KINDS = ("real", "SIMULATED")
KIND_OPACITY = (1.0, 0.4)
BAND_OPACITY = (0.16, 0.07)


def _kind(legend: bool = True) -> alt.Opacity:
    """The real / SIMULATED channel of a trend layer (the ``data`` column); its legend draws
    each kind's line and names it in the page's language."""
    names = f"datum.value == '{KINDS[0]}' ? '{t('legend.real')}' : '{t('legend.simulated')}'"
    # One kind under the other: in a row beside the platforms' and the billing legends, the
    # second ran past the chart's right edge.
    guide = alt.Legend(
        title=header("data"),
        orient="bottom",
        columns=1,
        labelLimit=0,
        symbolType="stroke",
        symbolStrokeColor="#444444",
        symbolStrokeWidth=2.5,
        labelExpr=names,
    )
    return alt.Opacity(
        "data:N",
        title=header("data"),
        scale=alt.Scale(domain=list(KINDS), range=list(KIND_OPACITY)),
        legend=guide if legend else None,
    )


def _pale_unless_real() -> alt.OpacityValue:
    """A SIMULATED mark as pale as its kind's lines, without a legend of its own."""
    return alt.condition(
        alt.datum.data == KINDS[0], alt.value(KIND_OPACITY[0]), alt.value(KIND_OPACITY[1])
    )


def _trend_tooltip(unit: str) -> list[alt.Tooltip]:
    return [
        alt.Tooltip("card:N", title=header("card")),
        alt.Tooltip("platform:N", title=header("platform")),
        alt.Tooltip("billing:N", title=header("billing")),
        alt.Tooltip("series:N", title=header("ids")),
        alt.Tooltip("period:T", title=header("period_utc")),
        alt.Tooltip("value:Q", format=PRICE_FORMAT, title=unit),
        alt.Tooltip("min:Q", format=PRICE_FORMAT, title=header("min")),
        alt.Tooltip("max:Q", format=PRICE_FORMAT, title=header("max")),
        alt.Tooltip("n:Q", title=header("n")),
        alt.Tooltip("data:N", title=header("data")),
        alt.Tooltip("origin:N", title=header("origin")),
        alt.Tooltip("origin_whole:N", title=header("origin_whole")),
    ]


def trend_pieces(frame: pl.DataFrame, grain: str) -> pl.DataFrame:
    """The trend chart's frame with a ``segment`` per line (dashboard.lines.split_at_gaps):
    price and quote lines break where their prices stop for longer than the grain allows.
    The band does not: it is drawn over the days at least two platforms quote and carried
    across the others, so a source's failed day leaves no hole in it (nor does a band row
    with a missing edge, which Vega-Lite would draw as a hole: such rows are left out)."""
    line = ["layer", "card_id", "platform", "billing_id", "data"]
    is_band = pl.col("layer") == "band"
    lines = split_at_gaps(frame.filter(~is_band), line=line, period="period", grain=grain)
    band = frame.filter(is_band, pl.col("min").is_not_null(), pl.col("max").is_not_null())
    return pl.concat([lines, band.with_columns(segment=pl.lit(0, dtype=pl.Int64))])


# The trend chart's text columns: sent as categories (Arrow dictionaries), see ``trend``.
_TREND_WORDS = (
    "layer", "card", "card_id", "platform", "billing", "billing_id", "series", "line", "band",
    "data", "origin", "origin_whole",
)  # fmt: skip


def trend(table: pl.DataFrame, title: str, subtitle: list[str]) -> dict[str, Any]:
    """One panel per card with its own y-axis (a 4090 at ¥2 and an H100 at ¥15 each get a
    readable scale): a line per platform (colour) and billing mode (dash), real prices solid
    with a dot per point and SIMULATED ones pale (``KIND_OPACITY``, the legend ``data``),
    the platforms' min–max band in grey with its median dotted (one band per kind), market
    quotes dashed with triangles. ``subtitle``: one line each (a chart title does not wrap).

    ``table``: the page's chart table (period, layer = price | band | market quote, card
    and card_id, platform, billing and billing_id, value, min, max, n, data, origin and
    origin_whole), one data set the panels share; ``drawn`` marks the price lines to draw
    (the others are in the band), ``segment`` (optional) the pieces a line breaks into
    where its prices stop (``trend_pieces``). A real point's tooltip says
    where its price comes from.

    Returns the Vega-Lite spec with its data (for ``st.vega_lite_chart``). The spec without
    the data is built once per platforms, titles and language (``_trend_spec``): building
    it through Altair was most of the page's own time on every rerun.
    """
    frame = trend_data(table)
    platforms = frame.filter(pl.col("layer") != "band")["platform"].unique().sort()
    spec = json.loads(_trend_spec(tuple(platforms.to_list()), title, tuple(subtitle), english()))
    return spec | {"datasets": {TREND_DATA: frame}}


def trend_data(table: pl.DataFrame) -> pl.DataFrame:
    """The trend chart's one data set (``trend``): the lines' and bands' names, lone points
    marked, only what the marks and tooltips use."""
    ids = pl.col("card_id") + " · " + pl.col("platform") + " · " + pl.col("billing_id")
    if "segment" not in table.columns:  # a table without gaps marked: one piece per line
        table = table.with_columns(segment=pl.lit(0, dtype=pl.Int64))
    if "drawn" in table.columns:  # the other price lines are in the band: not sent
        table = table.filter(pl.col("drawn") | (pl.col("layer") != "price"))
    frame = plain_numbers(table).with_columns(
        series=ids,
        line=ids + " · " + pl.col("data"),  # real and simulated never joined by one line
        band=pl.col("billing_id") + " · " + pl.col("data"),
        origin=pl.col("origin").fill_null("—"),
        origin_whole=pl.col("origin_whole").fill_null("—"),
    )
    # A piece of one point (a SIMULATED price between two gaps) is no path: a line mark
    # draws nothing for it, so it gets the dot real points have.
    frame = frame.with_columns(lone=pl.len().over("line", "segment", "layer") == 1)
    # Only what the marks and tooltips use, the repeated words as categories (Arrow
    # dictionaries): a quarter of the bytes the browser receives and decodes.
    return frame.select(
        "period", "value", "min", "max", "n", "segment", "drawn", "lone",
        *(pl.col(c).cast(pl.Categorical) for c in _TREND_WORDS),
    )  # fmt: skip


TREND_DATA = "trend"  # the name of the trend chart's data set in its spec


@functools.lru_cache(maxsize=64)
@_unchecked
def _trend_spec(
    platforms: tuple[str, ...], title: str, subtitle: tuple[str, ...], _en: bool
) -> str:
    """The trend chart's spec as JSON, its data the named set ``TREND_DATA``; ``_en``: the
    page's language (part of the cache's key: the words are made here)."""
    unit = t("unit.card_hour")
    # Dated ticks: over years, month names alone ("April", "October") did not say which year.
    x = alt.X("period:T", title=t("axis.date"), axis=alt.Axis(format="%Y-%m-%d"))
    y = _money_y("value:Q", unit, scale=alt.Scale(zero=False))
    tooltip = _trend_tooltip(unit)
    colour = _platform_colours(list(platforms), "platform") if platforms else alt.Undefined
    base = alt.Chart()
    band = base.transform_filter(alt.datum.layer == "band")
    band_opacity = alt.condition(
        alt.datum.data == KINDS[0], alt.value(BAND_OPACITY[0]), alt.value(BAND_OPACITY[1])
    )
    price = base.transform_filter((alt.datum.layer == "price") & alt.datum.drawn)
    layers = [
        band.mark_area(color="gray").encode(
            x=x, y=alt.Y("min:Q", title=unit), y2="max:Q", detail="band:N", opacity=band_opacity
        ),
        band.mark_line(strokeDash=[1, 3], color="gray").encode(
            x=x, y=y, detail="band:N", tooltip=tooltip
        ),
        # No points on this layer: with them the billing legend shows dots, not its dashes.
        price.mark_line(strokeWidth=1.8).encode(
            x=x,
            y=y,
            color=colour,
            strokeDash=alt.StrokeDash(
                "billing:N", title=header("billing"), legend=_legend(header("billing"))
            ),
            opacity=_kind(),
            # A path per line and piece: the line breaks where its prices stop.
            detail=[alt.Detail("line:N"), alt.Detail("segment:N")],
            tooltip=tooltip,
        ),
        price.transform_filter((alt.datum.data == KINDS[0]) | alt.datum.lone)
        # Real points, and a lone SIMULATED one (pale): no opacity scale here, whose filled
        # symbol would take over the kinds' legend (merged, it hid the line symbols).
        .mark_point(filled=True, size=40)
        .encode(x=x, y=y, color=colour, opacity=_pale_unless_real(), tooltip=tooltip),
        base.transform_filter(alt.datum.layer == "market quote")
        .mark_line(strokeDash=[6, 4], point=alt.OverlayMarkDef(shape="triangle"))
        .encode(
            x=x,
            y=y,
            color=colour,
            opacity=_kind(legend=False),
            detail=[alt.Detail("line:N"), alt.Detail("segment:N")],
            tooltip=tooltip,
        ),
    ]
    chart = (
        alt.layer(*layers, data=alt.NamedData(TREND_DATA))
        .properties(width=PANEL_WIDTH, height=PANEL_HEIGHT)
        .facet(
            facet=alt.Facet("card:N", title=None, header=alt.Header(labelFontWeight="bold")),
            columns=PANEL_COLUMNS,
        )
        .resolve_scale(y="independent")
        .properties(title=_title(title, list(subtitle)))
    )
    return json.dumps(chart.to_dict(validate=False))


@_unchecked
def compare_heatmap(prices: pl.DataFrame, title: str) -> alt.Chart:
    """Card (· billing) × platform: each cell the platform's price, coloured by how far it
    is above that card's cheapest platform (so rows of a ¥2 and a ¥15 card read alike),
    written in black or white, whichever reads on the cell."""
    unit = t("unit.card_hour")
    frame = plain_numbers(prices).with_columns(
        row=pl.col("card_name") + " · " + pl.col("billing_name"),
        vs_cheapest=(pl.col("cny_per_card_hour") / pl.col("card_min")).round(4),
        text=pl.col("cny_per_card_hour").map_elements(money, return_dtype=pl.String),
    )
    frame = frame.with_columns(
        fill=pl.col("vs_cheapest").map_elements(heat_colour, return_dtype=pl.String)
    ).with_columns(ink=pl.col("fill").map_elements(ink, return_dtype=pl.String))
    base = alt.Chart(frame).encode(
        x=alt.X("source:N", title=header("platform"), axis=alt.Axis(labelAngle=-30, labelLimit=0)),
        y=alt.Y("row:N", title=None, axis=alt.Axis(labelLimit=0)),
    )
    cells = base.mark_rect().encode(
        color=alt.Color(
            "vs_cheapest:Q",
            title=header("times_cheapest"),
            scale=alt.Scale(type="threshold", domain=list(HEAT_STEPS), range=list(HEAT_COLOURS)),
            legend=alt.Legend(format=".2f"),
        ),
        tooltip=[
            alt.Tooltip("card_name:N", title=header("card")),
            alt.Tooltip("gpu:N", title=header("card_id")),
            alt.Tooltip("source:N", title=header("platform")),
            alt.Tooltip("billing_name:N", title=header("billing")),
            alt.Tooltip("cny_per_card_hour:Q", format=PRICE_FORMAT, title=unit),
            alt.Tooltip("listed:N", title=header("listed_price")),
            alt.Tooltip("vs_cheapest:Q", format=".2f", title=header("times_cheapest")),
            alt.Tooltip("region:N", title=header("region")),
            alt.Tooltip("observed_at:T", format="%Y-%m-%d %H:%M", title=header("observed_utc")),
            alt.Tooltip("data:N", title=header("data")),
        ],
    )
    text = base.mark_text(fontSize=11).encode(
        text="text:N", color=alt.Color("ink:N", scale=None, legend=None)
    )
    # Independent: the text's colours are literal, the cells' a scale (merged, they fail).
    return (
        alt.layer(cells, text)
        .resolve_scale(color="independent")
        .properties(title=_title(title), height=alt.Step(30), width="container")
    )


@_unchecked
def compare_ranked(prices: pl.DataFrame, title: str) -> alt.FacetChart:
    """Per card (· billing), its platforms cheapest first, every platform named beside its
    bar, each bar labelled with its price (★ the cheapest; USD-listed ones say so).

    The bars are ordered by ``place``, the platform's rank written before its name
    ("01 autodl"), sorted as text, and the axis shows the name alone: a sort by price
    inside a faceted layer fell back to alphabetical, and one chart per card cost a second
    to build at seventeen cards. Labels never overlap-hide: a band of 12 bars at the default
    size dropped every other one."""
    unit = t("unit.card_hour")
    frame = plain_numbers(prices).with_columns(
        row=pl.col("card_name") + " · " + pl.col("billing_name"),
        place=pl.format("{} {}", pl.col("rank").cast(pl.String).str.zfill(2), pl.col("source")),
        label=pl.col("cny_per_card_hour").map_elements(money, return_dtype=pl.String)
        + pl.when(pl.col("rank") == 1).then(pl.lit(" ★")).otherwise(pl.lit(""))
        + pl.when(pl.col("currency") != "CNY")
        .then(pl.lit(" (") + pl.col("currency") + pl.lit(")"))
        .otherwise(pl.lit("")),
    )
    y = alt.Y(
        "place:N",
        sort="ascending",
        title=None,
        axis=alt.Axis(labelOverlap=False, labelLimit=0, labelExpr="slice(datum.label, 3)"),
    )
    x = alt.X("cny_per_card_hour:Q", title=unit, axis=alt.Axis(format=AXIS_MONEY))
    base = alt.Chart().encode(y=y, x=x)
    bars = base.mark_bar().encode(
        color=_platform_colour(frame, legend=False),
        tooltip=[
            alt.Tooltip("source:N", title=header("platform")),
            alt.Tooltip("cny_per_card_hour:Q", format=PRICE_FORMAT, title=unit),
            alt.Tooltip("listed:N", title=header("listed_price")),
            alt.Tooltip("gpu:N", title=header("card_id")),
            alt.Tooltip("billing:N", title=header("billing_id")),
            alt.Tooltip("rank:Q", title=header("rank")),
            alt.Tooltip("data:N", title=header("data")),
        ],
    )
    # The label beside the bar's end; the extra room on the right keeps it inside the panel.
    labels = base.mark_text(align="left", dx=4).encode(text="label:N")
    room = base.mark_point(opacity=0).encode(x=alt.X("room:Q", title=unit))
    return (
        alt.layer(bars, labels, room, data=frame.with_columns(room=pl.col("card_max") * 1.4))
        .properties(width=PANEL_WIDTH - 110, height=alt.Step(BAR_STEP))
        .facet(
            facet=alt.Facet(
                "row:N",
                title=None,
                sort=frame.sort("gpu", "billing")["row"].unique(maintain_order=True).to_list(),
                header=alt.Header(labelFontWeight="bold", labelAnchor="start"),
            ),
            columns=PANEL_COLUMNS,
        )
        .resolve_scale(x="independent", y="independent")
        .properties(title=_title(title))
    )


@_unchecked
def platform_moves(daily: pl.DataFrame, title: str, subtitle: str) -> alt.FacetChart:
    """One panel per card (· billing), own y-axis: each drawn platform's daily price over
    the window (the page's basis: lowest listing or median)."""
    unit = t("unit.card_hour")
    frame = plain_numbers(daily).with_columns(
        row=pl.col("card_name") + " · " + pl.col("billing_name")
    )
    lines = (
        alt.Chart()
        .mark_line(point=alt.OverlayMarkDef(size=14))
        .encode(
            x=alt.X("period:T", title=t("axis.date")),
            y=_money_y("cny_per_card_hour:Q", unit, scale=alt.Scale(zero=False)),
            color=_platform_colour(frame),
            tooltip=[
                alt.Tooltip("row:N", title=header("card_billing")),
                alt.Tooltip("source:N", title=header("platform")),
                alt.Tooltip("period:T", title=header("day_utc")),
                alt.Tooltip("cny_per_card_hour:Q", format=PRICE_FORMAT, title=unit),
                alt.Tooltip("data:N", title=header("data")),
            ],
        )
    )
    return (
        alt.layer(lines, data=frame)
        .properties(width=PANEL_WIDTH, height=PANEL_HEIGHT - 30)
        .facet(
            facet=alt.Facet("row:N", title=None, header=alt.Header(labelFontWeight="bold")),
            columns=PANEL_COLUMNS,
        )
        .resolve_scale(y="independent")
        .properties(title=_title(title, subtitle))
    )


@_unchecked
def value_dots(board: pl.DataFrame, x: str, x_title: str, title: str) -> alt.LayerChart:
    """Per card (a row each, labelled with its spec), each platform's figure as a dot: no
    label piles up, whatever the cards' sizes (a scatter of price against VRAM put every
    24 GB card's name on one spot)."""
    frame = plain_numbers(board)
    order = (
        frame.group_by("row")
        .agg(pl.col(x).min().alias("best"))
        .sort("best", "row", nulls_last=True)["row"]
        .to_list()
    )
    base = alt.Chart(frame).encode(
        x=alt.X(
            f"{x}:Q", title=x_title, axis=alt.Axis(format=AXIS_MONEY), scale=alt.Scale(zero=False)
        ),
        y=alt.Y("row:N", sort=order, title=None, axis=alt.Axis(labelLimit=0, labelOverlap=False)),
    )
    dots = base.mark_circle(size=90, opacity=0.85).encode(
        color=_platform_colour(frame),
        tooltip=[
            alt.Tooltip("card_name:N", title=header("card")),
            alt.Tooltip("gpu:N", title=header("card_id")),
            alt.Tooltip("source:N", title=header("platform")),
            alt.Tooltip("billing_name:N", title=header("billing")),
            alt.Tooltip(f"{x}:Q", format=PRICE_FORMAT, title=x_title),
            alt.Tooltip("observed_at:T", format="%Y-%m-%d %H:%M", title=header("observed_utc")),
            alt.Tooltip("data:N", title=header("data")),
        ],
    )
    return alt.layer(dots).properties(title=_title(title), height=alt.Step(22))


@_unchecked
def cost_lines(
    lines: pl.DataFrame,
    crossings: pl.DataFrame,
    usage: float,
    title: str,
    subtitle: str,
    modes: list[str],
) -> alt.LayerChart:
    """Monthly cost per card against usage 0–720 h per mode, the crossing points marked and
    labelled in hours, and the usage the slider chose as a vertical rule. ``lines.mode`` and
    ``crossings.label`` are already names in the page's language; ``modes``: the three
    modes' names, hourly, monthly plan, bare metal (their colours)."""
    unit = t("unit.card_month")
    x = alt.X(
        "usage_hours:Q",
        title=t("axis.usage"),
        scale=alt.Scale(domain=[0, HOURS_PER_MONTH], nice=False),
        axis=alt.Axis(format=AXIS_HOURS),
    )
    y = alt.Y("cny_per_card_month:Q", title=unit, axis=alt.Axis(format=",.0f"))
    layers: list[alt.Chart] = [
        alt.Chart(plain_numbers(lines))
        .mark_line()
        .encode(
            x=x,
            y=y,
            color=alt.Color(
                "mode:N",
                title=header("mode"),
                legend=_legend(header("mode")),
                scale=alt.Scale(domain=modes, range=list(MODE_COLOURS)),
            ),
            tooltip=[
                alt.Tooltip("usage_hours:Q", title=header("hours_per_month")),
                alt.Tooltip("mode:N", title=header("mode")),
                alt.Tooltip("cny_per_card_month:Q", format=MONEY_FORMAT, title=unit),
            ],
        ),
        alt.Chart(pl.DataFrame({"usage_hours": [usage]}))
        .mark_rule(strokeDash=[4, 4], color="black")
        .encode(x=alt.X("usage_hours:Q", title=t("axis.usage"))),
    ]
    if not crossings.is_empty():
        marks = alt.Chart(crossings).encode(
            x=alt.X("usage_hours:Q", title=t("axis.usage")),
            y=alt.Y("cny_per_card_month:Q", title=unit),
        )
        layers.append(
            marks.mark_point(shape="diamond", size=140, filled=True, color="crimson").encode(
                tooltip=[
                    alt.Tooltip("label:N", title=header("breakeven")),
                    alt.Tooltip(
                        "usage_hours:Q", format=HOURS_FORMAT, title=header("hours_per_month")
                    ),
                    alt.Tooltip("cny_per_card_month:Q", format=MONEY_FORMAT, title=unit),
                ]
            )
        )
        layers.append(
            marks.mark_text(
                align="right", dx=-8, dy=-10, fontWeight="bold", color="crimson"
            ).encode(text="label:N")
        )
    # The top padding: stretched to the page's width, the chart's two-line title was cut at
    # its top edge in Chromium.
    return alt.layer(*layers).properties(
        title=_title(title, subtitle), padding={"top": 16, "left": 5, "right": 5}
    )


@_unchecked
def breakeven_history(
    history: pl.DataFrame, alerts: pl.DataFrame, title: str, modes: list[str]
) -> alt.LayerChart:
    """Breakeven hours per month over time (vs hourly, vs monthly plan), alerts as diamonds.
    The axis ends at 720 h, a whole month: a breakeven above it means bare metal never pays
    off, and is drawn on the top edge as a hollow triangle, its real figure in the tooltip
    (``history``: observed_at, against, breakeven_hours, shown_hours, verdict, data)."""
    axis = t("axis.breakeven")
    x = alt.X("observed_at:T", title=t("axis.date"))
    y = alt.Y(
        "shown_hours:Q",
        title=axis,
        scale=alt.Scale(domain=[0, HOURS_PER_MONTH], nice=False),
        axis=alt.Axis(format=AXIS_HOURS),
    )
    tooltip = [
        alt.Tooltip("observed_at:T", format="%Y-%m-%d %H:%M", title=header("snapshot_utc")),
        alt.Tooltip("against:N", title=header("bare_metal_vs")),
        alt.Tooltip("breakeven_hours:Q", format=HOURS_FORMAT, title=header("hours_per_month")),
        alt.Tooltip("verdict:N", title=header("verdict")),
        alt.Tooltip("data:N", title=header("data")),
    ]
    colour = alt.Color(
        "against:N",
        title=header("bare_metal_vs"),
        legend=_legend(axis),
        scale=alt.Scale(domain=modes[:2], range=list(MODE_COLOURS[:2])),
    )
    base = alt.Chart(plain_numbers(history)).encode(x=x, y=y, color=colour, tooltip=tooltip)
    layers: list[alt.Chart] = [
        base.mark_line(point=True),
        base.transform_filter(alt.datum.beyond).mark_point(
            shape="triangle-up", size=90, filled=False, strokeWidth=2
        ),
    ]
    if not alerts.is_empty():
        layers.append(
            alt.Chart(
                plain_numbers(alerts).with_columns(
                    pl.col("new_value").clip(upper_bound=HOURS_PER_MONTH)
                )
            )
            .mark_point(shape="diamond", size=160, filled=True, color="crimson")
            .encode(
                x=alt.X("new_observed_at:T", title=t("axis.date")),
                y=alt.Y("new_value:Q", title=axis),
                tooltip=[
                    alt.Tooltip(
                        "new_observed_at:T", format="%Y-%m-%d %H:%M", title=header("snapshot_utc")
                    ),
                    alt.Tooltip("kind:N", title=header("kind")),
                    alt.Tooltip("rule:N", title=header("rule")),
                    alt.Tooltip(
                        "new_value:Q", format=HOURS_FORMAT, title=header("hours_per_month")
                    ),
                    alt.Tooltip("message:N", title=header("message")),
                ],
            )
        )
    return alt.layer(*layers).properties(title=_title(title))


@_unchecked
def snapshot_rows(rows: pl.DataFrame, title: str) -> alt.Chart:
    """Rows per snapshot, a line per source (its palette colour) and table (dash)."""
    return (
        alt.Chart(
            plain_numbers(rows).with_columns(series=pl.col("source") + " · " + pl.col("kind"))
        )
        .mark_line(point=True)
        .encode(
            x=alt.X("observed_at:T", title=t("axis.date")),
            y=alt.Y("rows:Q", title=t("axis.rows")),
            color=_platform_colour(rows),
            strokeDash=alt.StrokeDash(
                "kind:N", title=header("table"), legend=_legend(header("table"))
            ),
            detail="series:N",
            tooltip=[
                alt.Tooltip("observed_at:T", format="%Y-%m-%d %H:%M", title=header("snapshot_utc")),
                alt.Tooltip("source:N", title=header("platform")),
                alt.Tooltip("kind:N", title=header("table")),
                alt.Tooltip("rows:Q", title=header("rows")),
                alt.Tooltip("unknown_gpu:Q", title=header("unknown_cards")),
            ],
        )
        .properties(title=_title(title))
    )
