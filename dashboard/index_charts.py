"""The Market index page's data shaping and chart (pure: frames and translated titles in, a
chart out; dashboard.charts says why charts are built without Altair's schema check).

A series is one card in one rent mode. Its published days are a line, broken wherever a day
is withheld or missing (each unbroken run is a segment of its own), so a gap is a gap and
never a straight line drawn across it; a withheld day is a grey cross at the height of the
series' last value before it, its reason on hover; each line is labelled at its newest
point, so no legend is needed.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from dashboard.charts import _unchecked
from dashboard.formatting import AXIS_MONEY
from dashboard.i18n import header

MODE_ORDER = ("hourly", "monthly", "bare_metal_monthly", "daily", "weekly", "spot")


def main_modes(series: pl.DataFrame) -> pl.DataFrame:
    """Per card, its main mode (the one with the most published days; hourly first on a
    tie) and how many days it has published, the most published cards first."""
    if series.is_empty():
        return pl.DataFrame(
            schema={"card": pl.String, "billing": pl.String, "published": pl.UInt32}
        )
    order = {mode: i for i, mode in enumerate(MODE_ORDER)}
    counted = series.group_by("card", "billing").agg(
        published=(pl.col("status") == "published").sum(), days=pl.len()
    )
    return (
        counted.with_columns(rank=pl.col("billing").replace_strict(order, default=99))
        .sort(["card", "published", "days", "rank"], descending=[False, True, True, False])
        .unique("card", keep="first", maintain_order=True)
        .sort(["published", "card"], descending=[True, False])
        .select("card", "billing", "published")
    )


def with_segments(series: pl.DataFrame) -> pl.DataFrame:
    """``series`` (one or more card × mode lines, columns day, card, billing, status, y) with
    ``segment``: the run of consecutive published days each published row belongs to, and
    ``y_at`` where a withheld day is drawn (the last value before it, else the first after)."""
    ordered = series.sort("card", "billing", "day")
    line = ["card", "billing"]
    published = pl.col("status") == "published"
    gap = (
        ~published
        | (pl.col("day") - pl.col("day").shift(1).over(line) != pl.duration(days=1))
        | pl.col("day").shift(1).over(line).is_null()
    )
    return ordered.with_columns(
        segment=pl.format("{}·{}·{}", "card", "billing", gap.cast(pl.Int32).cum_sum().over(line)),
        y_at=pl.when(published)
        .then(pl.col("y"))
        .otherwise(None)
        .forward_fill()
        .over(line)
        .fill_null(pl.when(published).then(pl.col("y")).backward_fill().over(line)),
    )


@_unchecked
def index_lines(frame: pl.DataFrame, title: str, y_title: str, log_scale: bool) -> alt.LayerChart:
    """The lines of ``frame`` (with_segments' columns plus ``label``, ``reason`` and
    ``platforms``): published days joined, withheld days as crosses with their reason."""
    data = frame.select(
        pl.col("day").cast(pl.String), "label", "y", "y_at", "segment", "status", "reason",
        "platforms",
    )  # fmt: skip
    shown = data.filter(pl.col("status") == "published")
    withheld = data.filter((pl.col("status") != "published") & pl.col("y_at").is_not_null())
    newest = shown.sort("day").group_by("label", maintain_order=True).last()
    x = alt.X("day:T", title=header("day_utc"), axis=alt.Axis(format="%Y-%m-%d"))
    scale = alt.Scale(type="log") if log_scale else alt.Scale(zero=False)
    y = alt.Y("y:Q", title=y_title, scale=scale, axis=alt.Axis(format=AXIS_MONEY))
    colour = alt.Color("label:N", legend=None)
    tips = [
        alt.Tooltip("label:N", title=header("card_billing")),
        alt.Tooltip("day:T", title=header("day_utc"), format="%Y-%m-%d"),
        alt.Tooltip("y:Q", title=y_title, format=AXIS_MONEY),
        alt.Tooltip("platforms:Q", title=header("platforms")),
    ]
    lines = (
        alt.Chart(shown)
        .mark_line(point=alt.OverlayMarkDef(size=14))
        .encode(x=x, y=y, color=colour, detail="segment:N", tooltip=tips)
    )
    crosses = (
        alt.Chart(withheld)
        .mark_point(shape="cross", color="#9a9a9a", size=40)
        .encode(
            x=x,
            y=alt.Y("y_at:Q", title=y_title, scale=scale),
            tooltip=[
                alt.Tooltip("label:N", title=header("card_billing")),
                alt.Tooltip("day:T", title=header("day_utc"), format="%Y-%m-%d"),
                alt.Tooltip("reason:N", title=header("withheld_because")),
            ],
        )
    )
    labels = (
        alt.Chart(newest)
        .mark_text(align="left", dx=6, fontSize=12)
        .encode(x=x, y=y, text="label:N", color=colour)
    )
    return (
        alt.layer(lines, crosses, labels)
        .properties(title=title, height=380)
        .configure_view(strokeWidth=0)
    )


@_unchecked
def index_strip(
    frame: pl.DataFrame, title: str, status_title: str, statuses: tuple[str, str]
) -> alt.Chart:
    """Every indexed day of a kind as a dot per card and mode (``label``), coloured by
    ``shown_status`` (``statuses``: published and withheld, translated), the reason on
    hover."""
    data = frame.select(pl.col("day").cast(pl.String), "label", "shown_status", "reason")
    return (
        alt.Chart(data)
        .mark_circle(size=36)
        .encode(
            x=alt.X("day:T", title=header("day_utc"), axis=alt.Axis(format="%Y-%m-%d")),
            y=alt.Y("label:N", title=header("card_billing"), axis=alt.Axis(labelLimit=0)),
            color=alt.Color(
                "shown_status:N",
                title=status_title,
                scale=alt.Scale(domain=list(statuses), range=["#1d3557", "#b0b0b0"]),
            ),
            tooltip=[
                alt.Tooltip("label:N", title=header("card_billing")),
                alt.Tooltip("day:T", title=header("day_utc"), format="%Y-%m-%d"),
                alt.Tooltip("shown_status:N", title=status_title),
                alt.Tooltip("reason:N", title=header("withheld_because")),
            ],
        )
        .properties(title=title, height=alt.Step(16))
    )
