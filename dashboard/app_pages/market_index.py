"""市场指数 / Market index, the front page: the gpuprice rental price index (method v1,
docs/INDEX.md) of every card, real and SIMULATED apart (one tab each), as tiles (the latest
value with its day, 7- and 30-day change, platforms counted, a 90-day sparkline), the chosen
cards' lines (withheld days as gaps, the reason on hover) and the outside figures' spreads;
the method one click away."""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboard import data
from dashboard.charts import unchecked
from dashboard.data import simulated_banner
from dashboard.formatting import money, percent
from dashboard.i18n import billing_label, card_label, labels, t
from dashboard.index_charts import index_lines, index_strip, main_modes, with_segments
from dashboard.tables import show

KINDS = ("SIMULATED", "real")
# Three a row: at four the figure and its unit were cut at 1400 px ("¥4.6935 /…"), and the
# label lost its rent mode ("Ascend 910B 64GB · 按时…").
TILES_PER_ROW = 3
LINES_BY_DEFAULT = 4


def gates() -> int:
    """The configured gate ([index] min_platforms), as the page's prose states it."""
    return data.settings().file.index.min_platforms


def method() -> None:
    """The method in a popover: one click from anywhere on the page."""
    with st.popover(t("ix.method"), icon=":material/functions:"):
        st.markdown(t("ix.method.text", n=gates()))
        st.caption(t("ix.method.more"))


def gate_reason(platforms: str, needs: str) -> pl.Expr:
    """Why a day was withheld, in the page's language, from its columns ``platforms`` and
    ``needs`` (the gate it was computed with)."""
    return pl.format(t("ix.gate.min_platforms", n="{}", need="{}"), platforms, needs)


def _kinds(series: pl.DataFrame) -> list[str]:
    """The kinds the index has, the one published most recently first."""
    newest = (
        series.filter(pl.col("status") == "published")
        .group_by("kind")
        .agg(pl.col("day").max())
        .sort("day", descending=True)["kind"]
        .to_list()
    )
    return newest + [k for k in KINDS if k in series["kind"].unique().to_list() and k not in newest]


def _tile(rows: pl.DataFrame, card: str, billing: str) -> None:
    """One card in one mode: its newest published value, changes, platforms, sparkline."""
    label = f"{card_label(card)} · {billing_label(billing)}"
    published = rows.filter(pl.col("status") == "published")
    spark = rows.select(pl.when(pl.col("status") == "published").then(pl.col("value")))
    if published.is_empty():
        last = rows.row(-1, named=True)
        st.metric(label, "—", border=True, help=t("ix.tile.help"))
        reason = t("ix.gate.min_platforms", n=last["platforms"], need=last["gate_needs"])
        st.caption(t("ix.tile.withheld", day=f"{last['day']}", reason=reason))
        return
    last = published.row(-1, named=True)
    st.metric(
        label,
        f"{money(last['value'])}{t('ix.per')}",  # the unit on the figure itself
        delta_color="inverse",  # a price going up costs more: red
        delta=percent(last["change_7d"]) if last["change_7d"] is not None else None,
        delta_description=t("ix.d7"),
        chart_data=spark.to_series().fill_null(float("nan")).to_list(),  # NaN: a gap
        border=True,
        help=t("ix.tile.help"),
    )
    st.caption(
        t(
            "ix.tile",
            day=f"{last['day']}",
            d30=percent(last["change_30d"]),
            platforms=last["platforms"],
        )
    )


def tiles(series: pl.DataFrame, mains: pl.DataFrame) -> None:
    """A tile per card that published a value in the window; the others named below."""
    quiet = mains.filter(pl.col("published") == 0)
    mains = mains.filter(pl.col("published") > 0)
    for start in range(0, mains.height, TILES_PER_ROW):
        columns = st.columns(TILES_PER_ROW)
        for column, main in zip(
            columns, mains[start : start + TILES_PER_ROW].iter_rows(named=True), strict=False
        ):
            rows = series.filter(
                (pl.col("card") == main["card"]) & (pl.col("billing") == main["billing"])
            ).sort("day")
            with column:
                _tile(rows, main["card"], main["billing"])
    if not quiet.is_empty():
        names = ", ".join(card_label(card) for card in quiet["card"].to_list())
        st.caption(t("ix.quiet", cards=names, n=gates()))


def lines(series: pl.DataFrame, mains: pl.DataFrame, kind: str) -> None:
    """The chosen cards' lines in their main modes, labelled at their newest point."""
    cards = mains["card"].to_list()
    chosen = st.multiselect(
        t("ix.cards"),
        cards,
        default=cards[:LINES_BY_DEFAULT],
        format_func=labels(cards, card_label),
        key=f"ix_cards_{kind}",
    )
    measures = ("ix.value", "ix.level")
    measure = st.radio(
        t("ix.measure"),
        measures,
        format_func=labels(measures, t),
        horizontal=True,
        key=f"ix_measure_{kind}",
    )
    if not chosen:
        st.info(t("ix.pick"))
        return
    picked = series.join(mains.select("card", "billing"), on=["card", "billing"]).filter(
        pl.col("card").is_in(chosen)
    )
    column = "value" if measure == "ix.value" else "level"
    frame = with_segments(picked.with_columns(y=pl.col(column))).with_columns(
        label=pl.format(
            "{} · {}",
            pl.col("card").replace_strict({c: card_label(c) for c in chosen}),
            pl.col("billing").replace_strict(
                {b: billing_label(b) for b in picked["billing"].unique().to_list()}
            ),
        ),
        reason=gate_reason("platforms", "gate_needs"),
    )
    first, last = picked["day"].min(), picked["day"].max()
    title = t("ix.chart", kind=kind, first=f"{first}", last=f"{last}")
    y_title = t("ix.y.value") if column == "value" else t("ix.y.level")
    st.altair_chart(
        unchecked(index_lines(frame, title, y_title, column == "level")), width="stretch"
    )
    st.caption(t("ix.gaps"))


def spreads(figures: pl.DataFrame) -> None:
    """The outside figures beside the index of their day and mode."""
    st.subheader(t("ix.spreads"))
    if figures.is_empty():
        st.caption(t("ix.spreads.none"))
        return
    st.caption(t("ix.spreads.caption"))
    # each source's newest day (SMM's latest board) and every seed figure
    newest = pl.col("day") == pl.col("day").max().over("source")
    figures = figures.filter(newest | pl.col("source").str.ends_with("-published"))
    shown = figures.select(
        pl.col("day").cast(pl.String).alias("day_utc"),
        pl.col("source").alias("figure"),
        pl.col("card")
        .replace_strict({c: card_label(c) for c in figures["card"].unique()})
        .alias("card"),
        pl.col("billing")
        .replace_strict({b: billing_label(b) for b in figures["billing"].unique()})
        .alias("billing"),
        "region",
        pl.col("figure_cny_per_card_hour").round(4),
        pl.col("index_cny_per_card_hour").round(4),
        pl.col("spread_cny_per_card_hour").round(4).alias("spread_vs_index_cny_per_card_hour"),
        (pl.col("spread_ratio") * 100).round(1).alias("spread_vs_index_pct"),
        pl.when(pl.col("index_status").is_null())
        .then(pl.lit(t("ix.no_index")))
        .when(pl.col("index_status") == "withheld")
        .then(gate_reason("index_platforms", "index_gate_needs"))
        .alias("index_note"),
    )
    show(shown)


def strip(kind: str) -> None:
    """A kind that published nothing lately: where its days are, and why each was withheld."""
    history = data.index_history(kind=kind)
    if history is None or history.is_empty():
        return
    cards = {c: card_label(c) for c in history["card"].unique().to_list()}
    modes = {b: billing_label(b) for b in history["billing"].unique().to_list()}
    statuses = {"published": t("ix.published"), "withheld": t("ix.withheld")}
    frame = history.with_columns(
        label=pl.format(
            "{} · {}", pl.col("card").replace_strict(cards), pl.col("billing").replace_strict(modes)
        ),
        shown_status=pl.col("status").replace_strict(statuses),
        reason=pl.when(pl.col("status") == "withheld").then(gate_reason("platforms", "gate_needs")),
    )
    first, last = history["day"].min(), history["day"].max()
    st.info(t("ix.none_published", days=history.height, first=f"{first}", last=f"{last}"))
    title = t("ix.strip", kind=kind, first=f"{first}", last=f"{last}")
    chart = index_strip(frame, title, t("ix.status"), (statuses["published"], statuses["withheld"]))
    st.altair_chart(unchecked(chart), width="stretch")


def section(series: pl.DataFrame, figures: pl.DataFrame, kind: str) -> None:
    if kind == "SIMULATED":
        st.warning(t("ix.simulated"))
    mains = main_modes(series)
    tiles(series, mains)
    if mains["published"].sum() == 0:
        strip(kind)
    else:
        st.subheader(t("ix.lines"))
        lines(series, mains, kind)
    spreads(figures.filter(pl.col("kind") == kind))


def main() -> None:
    st.title(t("ix.title"))
    simulated_banner()
    st.caption(t("ix.caption", n=gates()))
    method()
    overview = data.index_overview()
    if overview is None:
        return
    series = overview["series"]
    if series is None or series.is_empty():
        st.info(t("ix.empty"))
        return
    kinds = _kinds(series)
    names = {"SIMULATED": t("ix.tab.simulated"), "real": t("ix.tab.real")}
    for tab, kind in zip(st.tabs([names[k] for k in kinds]), kinds, strict=True):
        with tab:
            section(series.filter(pl.col("kind") == kind), overview["spreads"], kind)


main()
