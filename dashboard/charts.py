"""Altair charts of the pages. Pure: frames and already-translated labels in, a chart out.

Every chart carries its unit in the axis title and its date (range or snapshot) in the
chart title, so a screenshot or a pasted PNG still says what it shows.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from dashboard.i18n import t

PRICE_FORMAT = ",.3f"
MONEY_FORMAT = ",.2f"


def _title(text: str, subtitle: str | list[str] | None = None) -> alt.TitleParams:
    return alt.TitleParams(text, subtitle=subtitle or alt.Undefined, anchor="start")


# Small multiples: one panel per card, two panels a row, each this many pixels.
PANEL_WIDTH = 390
PANEL_HEIGHT = 210
PANEL_COLUMNS = 2


def _legend(title: str) -> alt.Legend:
    # Below the panels, in columns, names never cut: "910b-64g · jygpu · bare_…" was the bug.
    return alt.Legend(title=title, orient="bottom", columns=6, labelLimit=0, symbolLimit=0)


def trend(table: pl.DataFrame, title: str, subtitle: list[str]) -> alt.FacetChart:
    """One panel per card with its own y-axis (a 4090 at ¥2 and an H100 at ¥15 each get a
    readable scale): a line per platform (colour) and billing mode (dash), the platforms'
    min–max band in grey with its median dotted, market quotes dashed with triangles.
    ``subtitle``: one line each (a chart title does not wrap).

    ``table`` is the page's chart table (period, layer = price | band | market quote, card,
    platform, billing, value, min, max, n, data): one data set, so the panels can share it.
    """
    unit = t("unit.card_hour")
    frame = table.with_columns(
        series=pl.col("card") + " · " + pl.col("platform") + " · " + pl.col("billing")
    )
    x = alt.X("period:T", title=t("axis.date"))
    y = alt.Y("value:Q", title=unit, scale=alt.Scale(zero=False))
    tooltip = [
        alt.Tooltip("series:N", title="card · platform · billing"),
        alt.Tooltip("period:T", title="period (UTC)"),
        alt.Tooltip("value:Q", format=PRICE_FORMAT, title=unit),
        alt.Tooltip("min:Q", format=PRICE_FORMAT, title="min"),
        alt.Tooltip("max:Q", format=PRICE_FORMAT, title="max"),
        alt.Tooltip("n:Q", title="n"),
        "data:N",
    ]
    base = alt.Chart()
    band = base.transform_filter(alt.datum.layer == "band")
    layers = [
        band.mark_area(opacity=0.15, color="gray").encode(
            x=x, y=alt.Y("min:Q", title=unit), y2="max:Q", detail="billing:N"
        ),
        band.mark_line(strokeDash=[1, 3], color="gray").encode(
            x=x, y=y, detail="billing:N", tooltip=tooltip
        ),
        # No points: with them the billing legend shows dots instead of its dashes.
        base.transform_filter(alt.datum.layer == "price")
        .mark_line(strokeWidth=1.8)
        .encode(
            x=x,
            y=y,
            color=alt.Color("platform:N", legend=_legend("platform")),
            strokeDash=alt.StrokeDash("billing:N", legend=_legend("billing")),
            detail="series:N",
            tooltip=tooltip,
        ),
        base.transform_filter(alt.datum.layer == "market quote")
        .mark_line(strokeDash=[6, 4], point=alt.OverlayMarkDef(shape="triangle"))
        .encode(x=x, y=y, color=alt.Color("platform:N"), detail="series:N", tooltip=tooltip),
    ]
    return (
        alt.layer(*layers, data=frame)
        .properties(width=PANEL_WIDTH, height=PANEL_HEIGHT)
        .facet(
            facet=alt.Facet("card:N", title=None, header=alt.Header(labelFontWeight="bold")),
            columns=PANEL_COLUMNS,
        )
        .resolve_scale(y="independent")
        .properties(title=_title(title, subtitle))
    )


def compare_heatmap(prices: pl.DataFrame, title: str) -> alt.Chart:
    """Card (· billing) × platform: each cell the platform's price, coloured by how far it
    is above that card's cheapest platform (so rows of a ¥2 and a ¥15 card read alike)."""
    unit = t("unit.card_hour")
    frame = prices.with_columns(
        row=pl.col("gpu") + " · " + pl.col("billing"),
        vs_cheapest=pl.col("cny_per_card_hour") / pl.col("card_min"),
        text=pl.format("¥{}", pl.col("cny_per_card_hour").round(2)),
    )
    base = alt.Chart(frame).encode(
        x=alt.X("source:N", title="platform", axis=alt.Axis(labelAngle=0, labelLimit=0)),
        y=alt.Y("row:N", title="card · billing", axis=alt.Axis(labelLimit=0)),
    )
    cells = base.mark_rect().encode(
        color=alt.Color(
            "vs_cheapest:Q",
            title="× cheapest",
            scale=alt.Scale(scheme="orangered", domainMin=1),
            legend=alt.Legend(format=".2f"),
        ),
        tooltip=[
            alt.Tooltip("gpu:N", title="card"),
            alt.Tooltip("source:N", title="platform"),
            "billing:N",
            alt.Tooltip("cny_per_card_hour:Q", format=PRICE_FORMAT, title=unit),
            alt.Tooltip("price:Q", title="as listed"),
            "currency:N",
            "unit_raw:N",
            alt.Tooltip("vs_cheapest:Q", format=".2f", title="× cheapest"),
            "region:N",
            alt.Tooltip("observed_at:T", format="%Y-%m-%d %H:%M", title="observed (UTC)"),
            "data:N",
        ],
    )
    text = base.mark_text(fontSize=11).encode(
        text="text:N",
        color=alt.condition(alt.datum.vs_cheapest > 1.3, alt.value("white"), alt.value("black")),
    )
    return alt.layer(cells, text).properties(
        title=_title(title), height=alt.Step(30), width="container"
    )


def compare_ranked(prices: pl.DataFrame, title: str) -> alt.FacetChart:
    """Per card (· billing), its platforms cheapest first, each bar labelled with its price;
    the bar's colour says the currency it is listed in (USD converted at the day's rate)."""
    unit = t("unit.card_hour")
    frame = prices.with_columns(
        row=pl.col("gpu") + " · " + pl.col("billing"),
        label=pl.format("¥{}", pl.col("cny_per_card_hour").round(3))
        + pl.when(pl.col("rank") == 1).then(pl.lit(" ★")).otherwise(pl.lit("")),
    )
    y = alt.Y("source:N", sort=alt.EncodingSortField("cny_per_card_hour"), title=None)
    base = alt.Chart().encode(y=y, x=alt.X("cny_per_card_hour:Q", title=unit))
    bars = base.mark_bar().encode(
        color=alt.Color(
            "currency:N",
            legend=_legend("listed in (USD at the day's rate)"),
            scale=alt.Scale(domain=["CNY", "USD"], range=["#4c78a8", "#f58518"]),
        ),
        tooltip=[
            alt.Tooltip("source:N", title="platform"),
            alt.Tooltip("cny_per_card_hour:Q", format=PRICE_FORMAT, title=unit),
            alt.Tooltip("price:Q", title="as listed"),
            "currency:N",
            "unit_raw:N",
            "rank:Q",
            "data:N",
        ],
    )
    labels = base.mark_text(align="left", dx=4).encode(text="label:N")
    return (
        alt.layer(bars, labels, data=frame)
        .properties(width=PANEL_WIDTH - 80, height=alt.Step(18))
        .facet(
            facet=alt.Facet("row:N", title=None, header=alt.Header(labelFontWeight="bold")),
            columns=PANEL_COLUMNS,
        )
        .resolve_scale(x="independent", y="independent")
        .properties(title=_title(title))
    )


def platform_moves(daily: pl.DataFrame, title: str) -> alt.FacetChart:
    """One panel per card (· billing), own y-axis: each platform's daily mean over the window."""
    unit = t("unit.card_hour")
    frame = daily.with_columns(row=pl.col("gpu") + " · " + pl.col("billing"))
    lines = (
        alt.Chart()
        .mark_line(point=alt.OverlayMarkDef(size=14))
        .encode(
            x=alt.X("period:T", title=t("axis.date")),
            y=alt.Y("cny_per_card_hour:Q", title=unit, scale=alt.Scale(zero=False)),
            color=alt.Color("source:N", legend=_legend("platform")),
            tooltip=[
                alt.Tooltip("row:N", title="card · billing"),
                alt.Tooltip("source:N", title="platform"),
                alt.Tooltip("period:T", title="day (UTC)"),
                alt.Tooltip("cny_per_card_hour:Q", format=PRICE_FORMAT, title=unit),
                "data:N",
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
        .properties(title=_title(title))
    )


def value_scatter(board: pl.DataFrame, x: str, x_title: str, title: str) -> alt.LayerChart:
    """CNY per card-hour against a spec (VRAM or TFLOPS), one point per card and platform."""
    unit = t("unit.card_hour")
    base = alt.Chart(board).encode(
        x=alt.X(f"{x}:Q", title=x_title, scale=alt.Scale(zero=False)),
        y=alt.Y("cny_per_card_hour:Q", title=unit, scale=alt.Scale(zero=False)),
    )
    points = base.mark_circle(size=90).encode(
        color=alt.Color("source:N", title="platform"),
        tooltip=[
            "gpu:N",
            "source:N",
            "billing:N",
            alt.Tooltip("cny_per_card_hour:Q", format=PRICE_FORMAT, title=unit),
            alt.Tooltip(f"{x}:Q", title=x_title),
            alt.Tooltip("observed_at:T", title="observed (UTC)"),
            "data:N",
        ],
    )
    # One label per card, at its cheapest point: every platform of a card shares the card's
    # x, so a label per point drew "910b-64g" once per platform, on top of each other.
    named = board.sort("cny_per_card_hour", "source").unique("gpu", keep="first")
    labels = (
        alt.Chart(named)
        .encode(x=f"{x}:Q", y="cny_per_card_hour:Q", text="gpu:N")
        .mark_text(align="left", dx=7, dy=8, fontSize=11)
    )
    return alt.layer(points, labels).properties(title=_title(title))


def cost_lines(
    lines: pl.DataFrame, crossings: pl.DataFrame, usage: float, title: str, subtitle: str
) -> alt.LayerChart:
    """Monthly cost per card against usage 0–720 h per mode, the crossing points marked and
    labelled in hours, and the usage the slider chose as a vertical rule."""
    unit = t("unit.card_month")
    x = alt.X("usage_hours:Q", title=t("axis.usage"), scale=alt.Scale(domain=[0, 720], nice=False))
    y = alt.Y("cny_per_card_month:Q", title=unit)
    layers: list[alt.Chart] = [
        alt.Chart(lines)
        .mark_line()
        .encode(
            x=x,
            y=y,
            color=alt.Color("mode:N", title="mode"),
            tooltip=[
                alt.Tooltip("usage_hours:Q", title="h / month"),
                "mode:N",
                alt.Tooltip("cny_per_card_month:Q", format=MONEY_FORMAT, title=unit),
            ],
        ),
        alt.Chart(pl.DataFrame({"usage_hours": [usage]}))
        .mark_rule(strokeDash=[4, 4], color="black")
        .encode(x="usage_hours:Q"),
    ]
    if not crossings.is_empty():
        marks = alt.Chart(crossings).encode(x="usage_hours:Q", y="cny_per_card_month:Q")
        layers.append(
            marks.mark_point(shape="diamond", size=140, filled=True, color="crimson").encode(
                tooltip=[
                    "label:N",
                    alt.Tooltip("usage_hours:Q", format=",.1f", title="h / month"),
                    alt.Tooltip("cny_per_card_month:Q", format=MONEY_FORMAT, title=unit),
                ]
            )
        )
        layers.append(
            marks.mark_text(
                align="right", dx=-8, dy=-10, fontWeight="bold", color="crimson"
            ).encode(text="label:N")
        )
    return alt.layer(*layers).properties(title=_title(title, subtitle))


def breakeven_history(history: pl.DataFrame, alerts: pl.DataFrame, title: str) -> alt.LayerChart:
    """Breakeven hours per month over time (vs hourly, vs monthly plan), alerts as diamonds."""
    axis = t("axis.breakeven")
    x = alt.X("observed_at:T", title=t("axis.date"))
    layers: list[alt.Chart] = [
        alt.Chart(history)
        .mark_line(point=True)
        .encode(
            x=x,
            y=alt.Y("breakeven_hours:Q", title=axis),
            color=alt.Color("against:N", title="bare metal vs"),
            tooltip=[
                alt.Tooltip("observed_at:T", format="%Y-%m-%d %H:%M", title="snapshot (UTC)"),
                "against:N",
                alt.Tooltip("breakeven_hours:Q", format=",.1f", title="h / month"),
                "data:N",
            ],
        )
    ]
    if not alerts.is_empty():
        layers.append(
            alt.Chart(alerts)
            .mark_point(shape="diamond", size=160, filled=True, color="crimson")
            .encode(
                x=alt.X("new_observed_at:T"),
                y=alt.Y("new_value:Q"),
                tooltip=[
                    alt.Tooltip(
                        "new_observed_at:T", format="%Y-%m-%d %H:%M", title="snapshot (UTC)"
                    ),
                    "kind:N",
                    "rule:N",
                    alt.Tooltip("new_value:Q", format=",.1f", title="h / month"),
                    "message:N",
                ],
            )
        )
    return alt.layer(*layers).properties(title=_title(title))


def snapshot_rows(rows: pl.DataFrame, title: str) -> alt.Chart:
    return (
        alt.Chart(rows.with_columns(series=pl.col("source") + " · " + pl.col("kind")))
        .mark_line(point=True)
        .encode(
            x=alt.X("observed_at:T", title=t("axis.date")),
            y=alt.Y("rows:Q", title=t("axis.rows")),
            color=alt.Color("series:N", title="source · table"),
            tooltip=[
                alt.Tooltip("observed_at:T", format="%Y-%m-%d %H:%M", title="snapshot (UTC)"),
                "source:N",
                "kind:N",
                "rows:Q",
                "unknown_gpu:Q",
            ],
        )
        .properties(title=_title(title))
    )
