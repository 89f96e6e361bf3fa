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


def _title(text: str, subtitle: str | None = None) -> alt.TitleParams:
    return alt.TitleParams(text, subtitle=subtitle or alt.Undefined, anchor="start")


def trend(
    series: pl.DataFrame,
    band: pl.DataFrame | None,
    quotes: pl.DataFrame | None,
    title: str,
    subtitle: str | None,
) -> alt.LayerChart:
    """Lines per card · platform · billing, the platforms' min–max band (median dotted)
    behind them, and market quotes dashed on top."""
    unit = t("unit.card_hour")
    x = alt.X("period:T", title=t("axis.date"))
    layers: list[alt.Chart] = []
    if band is not None and not band.is_empty():
        shaded = band.with_columns(band=pl.col("gpu") + " · " + pl.col("billing"))
        base = alt.Chart(shaded).encode(x=x, detail="band:N")
        layers.append(
            base.mark_area(opacity=0.15, color="gray").encode(
                y=alt.Y("band_min:Q", title=unit), y2="band_max:Q"
            )
        )
        layers.append(
            base.mark_line(strokeDash=[1, 3], color="gray").encode(
                y="band_median:Q",
                tooltip=[
                    alt.Tooltip("period:T"),
                    "band:N",
                    alt.Tooltip("band_min:Q", format=PRICE_FORMAT, title=f"min ({unit})"),
                    alt.Tooltip("band_median:Q", format=PRICE_FORMAT, title=f"median ({unit})"),
                    alt.Tooltip("band_max:Q", format=PRICE_FORMAT, title=f"max ({unit})"),
                    "platforms:Q",
                ],
            )
        )
    tooltip = [
        alt.Tooltip("period:T"),
        "gpu:N",
        "source:N",
        "billing:N",
        alt.Tooltip("cny_per_card_hour:Q", format=PRICE_FORMAT, title=unit),
        "data:N",
    ]
    layers.append(
        alt.Chart(series)
        .mark_line(point=True)
        .encode(
            x=x,
            y=alt.Y("cny_per_card_hour:Q", title=unit),
            color=alt.Color("series:N", title="card · platform · billing"),
            tooltip=tooltip,
        )
    )
    if quotes is not None and not quotes.is_empty():
        layers.append(
            alt.Chart(quotes)
            .mark_line(strokeDash=[6, 4], point=alt.OverlayMarkDef(shape="triangle"))
            .encode(
                x=x,
                y=alt.Y("cny_per_card_hour:Q", title=unit),
                color=alt.Color("series:N"),
                tooltip=[
                    alt.Tooltip("period:T"),
                    "gpu:N",
                    "source:N",
                    "basis:N",
                    "regions:Q",
                    alt.Tooltip("cny_per_card_hour:Q", format=PRICE_FORMAT, title=unit),
                    "data:N",
                ],
            )
        )
    return alt.layer(*layers).properties(title=_title(title, subtitle)).interactive(bind_y=False)


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
    labels = base.mark_text(align="left", dx=7, dy=-6, fontSize=11).encode(text="gpu:N")
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
