"""Value board: what a card-hour buys, per card and platform (card_value + gpu_spec)."""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboard import charts, data
from dashboard.data import data_label, simulated_banner
from dashboard.i18n import t
from dashboard.tables import show

# Sort keys: the table's column and whether cheaper-first (ascending) is the useful order.
SORTS = {
    "CNY per card-hour": "cny_per_card_hour",
    "CNY per TFLOP-hour": "cny_per_tflop_hour",
    "CNY per GB-hour": "cny_per_gb_hour",
    "CNY per TB/s-hour": "cny_per_tbps_hour",
}


def board_table(board: pl.DataFrame) -> pl.DataFrame:
    return board.select(
        pl.col("gpu").alias("card"),
        pl.col("source").alias("platform"),
        "billing",
        pl.col("cny_per_card_hour").round(4).alias("CNY per card-hour"),
        pl.col("cny_per_tflop_hour").round(5).alias("CNY per TFLOP-hour"),
        pl.col("cny_per_gb_hour").round(5).alias("CNY per GB-hour"),
        pl.col("cny_per_tbps_hour").round(4).alias("CNY per TB/s-hour"),
        pl.col("vram_gb").alias("VRAM GB"),
        pl.col("fp16_tflops_dense").alias("FP16 TFLOPS (dense)"),
        pl.col("bandwidth_tbs").round(2).alias("bandwidth TB/s"),
        pl.col("memory_type").alias("memory"),
        "interconnect",
        "domestic",
        pl.col("offers").alias("listings"),
        pl.col("observed_at").dt.strftime("%Y-%m-%d %H:%M UTC").alias("observed"),
        data_label(),
    )


def main() -> None:
    st.title(t("value.title"))
    simulated_banner()
    board = data.value_board()
    if board is None:
        return
    if board.is_empty():
        st.info(t("empty.not_computed", what="`card_value`"))
        return
    modes = sorted(board["billing"].unique().to_list())
    platforms = sorted(board["source"].unique().to_list())
    a, b, c = st.columns(3)
    billing = a.selectbox(
        t("f.billing"),
        modes,
        index=modes.index("hourly") if "hourly" in modes else 0,
        key="va_billing",
    )
    chosen = b.multiselect(t("f.platforms"), platforms, default=platforms, key="va_platforms")
    sort = c.selectbox(t("value.sort"), list(SORTS), key="va_sort")
    shown = board.filter(pl.col("billing") == billing, pl.col("source").is_in(chosen))
    if shown.is_empty():
        st.info(t("empty.filters"))
        return
    shown = shown.sort(SORTS[sort], "gpu", "source", nulls_last=True)
    at = f"{shown['observed_at'].max():%Y-%m-%d %H:%M}"
    st.caption(t("value.caption", at=at))
    show(board_table(shown))
    priced = shown.filter(pl.col("vram_gb").is_not_null()).with_columns(data_label())
    left, right = st.columns(2)
    left.altair_chart(
        charts.value_scatter(
            priced, "vram_gb", t("axis.vram"), t("value.vram", billing=billing, at=at)
        ),
        width="stretch",
    )
    right.altair_chart(
        charts.value_scatter(
            priced,
            "fp16_tflops_dense",
            t("axis.tflops"),
            t("value.tflops", billing=billing, at=at),
        ),
        width="stretch",
    )


main()
