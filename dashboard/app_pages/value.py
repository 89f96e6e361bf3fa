"""Value board: what a card-hour buys, per card and platform (card_value + gpu_spec)."""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboard import charts, data
from dashboard.data import data_label, simulated_banner
from dashboard.i18n import billing_label, header, labels, named, t
from dashboard.tables import show
from warehouse.read.compare import FRESH_HOURS
from warehouse.read.dashboard import split_current

# The board's columns it sorts by (the table shows them under the same names); cheaper
# first is the useful order for each.
SORTS = ("cny_per_card_hour", "cny_per_tflop_hour", "cny_per_gb_hour", "cny_per_tbps_hour")


def hidden_caption(older: pl.DataFrame) -> None:
    """Say how many prices the board leaves out as no longer current, and how old they are,
    so an empty row on the board is not read as a platform without the card."""
    if older.is_empty():
        return
    platforms = ", ".join(sorted(older["source"].unique().to_list()))
    st.caption(
        t(
            "va.hidden",
            n=older.height,
            hours=FRESH_HOURS,
            newest=f"{older['observed_at'].max():%Y-%m-%d %H:%M}",
            oldest=f"{older['observed_at'].min():%Y-%m-%d %H:%M}",
            platforms=platforms,
        )
    )


def board_table(board: pl.DataFrame) -> pl.DataFrame:
    """The figures, narrow enough for the page without scrolling sideways (the specs behind
    them in ``specs_table``, and in the charts' row labels)."""
    return board.select(
        pl.col("card_name").alias("card"),
        pl.col("source").alias("platform"),
        pl.col("cny_per_card_hour").round(4),
        pl.col("cny_per_tflop_hour").round(5),
        pl.col("cny_per_gb_hour").round(5),
        pl.col("cny_per_tbps_hour").round(4),
        pl.col("observed_at").dt.strftime("%Y-%m-%d %H:%M").alias("observed_utc"),
        data_label(),
        pl.col("gpu").alias("card_id"),
    )


def specs_table(board: pl.DataFrame) -> pl.DataFrame:
    return (
        board.unique("gpu")
        .sort("gpu")
        .select(
            pl.col("card_name").alias("card"),
            "vram_gb",
            pl.col("memory_type").alias("memory"),
            "fp16_tflops_dense",
            pl.col("bandwidth_tbs").round(2).alias("bandwidth_tb_per_s"),
            "interconnect",
            "domestic",
            pl.col("gpu").alias("card_id"),
        )
    )


def dots(shown: pl.DataFrame, billing: str, at: str) -> None:
    """Each card a row (labelled with its VRAM, or its TFLOPS), each platform a dot. The two
    charts one above the other, each as wide as the page: side by side, their titles and
    legends were cut."""
    priced = shown.with_columns(data_label())
    by_vram = priced.filter(pl.col("vram_gb").is_not_null()).with_columns(
        row=pl.format("{} · {} GB", pl.col("card_name"), pl.col("vram_gb"))
    )
    by_tflops = priced.filter(pl.col("fp16_tflops_dense").is_not_null()).with_columns(
        row=pl.format(
            "{} · {} TFLOPS",
            pl.col("card_name"),
            pl.col("fp16_tflops_dense").round(0).cast(pl.Int64),
        )
    )
    for rows, price, axis, title in (
        (by_vram, "cny_per_card_hour", t("unit.card_hour"), "value.vram"),
        (by_tflops, "cny_per_tflop_hour", t("axis.tflop_hour"), "value.tflops"),
    ):
        chart = charts.value_dots(
            rows, price, axis, t(title, billing=billing_label(billing), at=at)
        )
        st.altair_chart(charts.unchecked(chart), width="stretch")


def main() -> None:
    st.title(t("value.title"))
    simulated_banner()
    board = data.value_board()
    if board is None:
        return
    if board.is_empty():
        st.info(t("empty.not_computed", what="`card_value`"))
        return
    board = named(board)
    modes = sorted(board["billing"].unique().to_list())
    platforms = sorted(board["source"].unique().to_list())
    a, b, c = st.columns(3)
    billing = a.selectbox(
        t("f.billing"),
        modes,
        index=modes.index("hourly") if "hourly" in modes else 0,
        format_func=labels(modes, billing_label),
        key="va_billing",
    )
    chosen = b.multiselect(
        t("f.platforms"), platforms, default=platforms, placeholder=t("choose"), key="va_platforms"
    )
    sort = c.selectbox(t("value.sort"), SORTS, format_func=labels(SORTS, header), key="va_sort")
    include_older = st.toggle(
        t("va.older"), value=False, help=t("va.older.help", hours=FRESH_HOURS), key="va_older"
    )
    # current against the whole board's newest row, whichever filters are chosen
    current, older = split_current(board, FRESH_HOURS)
    keep = (pl.col("billing") == billing) & pl.col("source").is_in(chosen)
    shown = (board if include_older else current).filter(keep)
    if not include_older:
        hidden_caption(older.filter(keep))
    if shown.is_empty():
        st.info(t("empty.filters"))
        return
    shown = shown.sort(sort, "gpu", "source", nulls_last=True)
    at = f"{shown['observed_at'].max():%Y-%m-%d %H:%M}"
    st.caption(t("value.caption", at=at, billing=billing_label(billing)))
    show(board_table(shown))
    with st.expander(t("value.specs")):
        show(specs_table(shown))
    dots(shown, billing, at)


main()
