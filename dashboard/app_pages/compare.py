"""Platform comparison: the same card on every platform today (heatmap and ranked bars),
the cheapest platform and the spread, how each platform moved over a window, and the FX rate
the USD platforms were converted at."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import polars as pl
import streamlit as st

from dashboard import charts, data
from dashboard.data import data_label
from dashboard.i18n import t
from dashboard.page_start import open_page
from dashboard.tables import show
from warehouse.read.compare import FRESH_HOURS
from warehouse.read.filters import OfferFilter

UNIT = "CNY per card-hour"
DEFAULT_BILLING = "hourly"
DEFAULT_WINDOW_DAYS = 30


def filters(options: pl.DataFrame) -> tuple[OfferFilter, bool] | None:
    """The filter widgets: the offers chosen and whether only domestic cards; None (after
    saying so) when a choice leaves nothing to show."""

    def values(frame: pl.DataFrame, column: str) -> list[str]:
        return sorted(frame[column].unique().to_list())

    with st.expander(t("filters"), expanded=True):
        a, b, c, d = st.columns([3, 2, 3, 1])
        # Applied in the query, not to the card list: unticking it gives every card back.
        domestic = d.checkbox(t("f.domestic"), key="cp_domestic")
        cards = values(options, "gpu")
        gpus = a.multiselect(t("f.cards"), cards, default=cards, key="cp_cards")
        modes = values(options, "billing")
        billing = b.multiselect(
            t("f.billing"),
            modes,
            default=[DEFAULT_BILLING] if DEFAULT_BILLING in modes else modes[:1],
            key="cp_billing",
        )
        regions = values(options, "region")
        region = c.multiselect(t("f.regions"), regions, default=regions, key="cp_regions")
    if not (gpus and billing and region):
        st.info(t("empty.filters"))
        return None
    return OfferFilter(gpus=tuple(gpus), billing=tuple(billing), regions=tuple(region)), domestic


def fx_caption(prices: pl.DataFrame) -> None:
    """Say which rate the USD (any non-CNY) platforms were converted at, and its date."""
    foreign = prices.filter(pl.col("currency") != "CNY")
    if foreign.is_empty():
        return
    day = foreign["observed_at"].max().date()
    rates = data.fx_rates_on(day=day)
    for currency in sorted(foreign["currency"].unique().to_list()):
        platforms = ", ".join(
            sorted(foreign.filter(pl.col("currency") == currency)["source"].unique().to_list())
        )
        rate = None if rates is None else rates.filter(pl.col("currency") == currency)
        if rate is None or rate.is_empty():
            st.caption(t("compare.fx_missing", platforms=platforms))
            continue
        row = rate.row(0, named=True)
        text = t(
            "compare.fx",
            platforms=platforms,
            rate=row["cny_per_unit"],
            day=f"{row['day']:%Y-%m-%d}",
            source=row["source"],
        )
        st.caption(text if currency == "USD" else text.replace("USD", currency))


def summary_table(prices: pl.DataFrame) -> pl.DataFrame:
    """One row per card and billing mode: the cheapest platform and the spread."""
    cheapest = prices.filter(pl.col("rank") == 1).unique(["gpu", "billing"], keep="first")
    return cheapest.sort("gpu", "billing").select(
        pl.col("gpu").alias("card"),
        "billing",
        pl.col("source").alias("cheapest platform"),
        pl.col("card_min").round(4).alias(f"cheapest {UNIT}"),
        pl.col("card_max").round(4).alias(f"dearest {UNIT}"),
        pl.col("spread_ratio").round(3).alias("spread max/min"),
        pl.col("spread_cny").round(4).alias(f"spread ¥ ({UNIT})"),
        pl.col("platforms"),
        data_label(),
    )


def prices_table(prices: pl.DataFrame) -> pl.DataFrame:
    return prices.select(
        pl.col("gpu").alias("card"),
        "billing",
        "rank",
        pl.col("source").alias("platform"),
        pl.col("cny_per_card_hour").round(4).alias(UNIT),
        (pl.col("cny_per_card_hour") / pl.col("card_min")).round(3).alias("× cheapest"),
        pl.format("{} {}", pl.col("price"), pl.col("unit_raw")).alias("listed price"),
        pl.col("currency"),
        "region",
        "listings",
        pl.col("observed_at").dt.strftime("%Y-%m-%d %H:%M UTC").alias("observed"),
        data_label(),
    )


def moves(chosen: OfferFilter, prices: pl.DataFrame) -> None:
    """How each platform of today's comparison moved over a window the user picks."""
    newest = prices["observed_at"].max().date()
    span = st.date_input(
        t("f.window"),
        value=(newest - timedelta(days=DEFAULT_WINDOW_DAYS - 1), newest),
        max_value=newest,
        key="cp_window",
    )
    if len(span) != 2:
        st.info(t("empty.filters"))
        return
    # Today's cards and platforms (the domestic choice already applied) over the window.
    query = replace(
        chosen,
        gpus=tuple(sorted(prices["gpu"].unique().to_list())),
        sources=tuple(sorted(prices["source"].unique().to_list())),
        start=span[0],
        end=span[1],
    )
    daily = data.price_trend("day", query)
    if daily is None or daily.is_empty():
        st.info(t("empty.filters"))
        return
    title = t("compare.moves", start=f"{span[0]:%Y-%m-%d}", end=f"{span[1]:%Y-%m-%d}")
    st.altair_chart(charts.platform_moves(daily.with_columns(data_label()), title), width="content")
    changes = data.platform_moves(query)
    if changes is None or changes.is_empty():
        return
    st.subheader(t("compare.moves_table"))
    show(
        changes.select(
            pl.col("gpu").alias("card"),
            pl.col("source").alias("platform"),
            "billing",
            pl.col("first_day").cast(pl.String).alias("first day"),
            pl.col("first_cny_per_card_hour").round(4).alias(f"first {UNIT}"),
            pl.col("last_day").cast(pl.String).alias("last day"),
            pl.col("last_cny_per_card_hour").round(4).alias(f"last {UNIT}"),
            (pl.col("change") * 100).round(2).alias("change %"),
            pl.col("low").round(4).alias("low"),
            pl.col("high").round(4).alias("high"),
            "days",
            data_label(),
        )
    )


def main() -> None:
    options = open_page("compare.title", data.compare_options, "compare.none")
    if options is None:
        return
    choice = filters(options)
    if choice is None:
        return
    chosen, domestic = choice
    prices = data.platform_prices(chosen, domestic_only=domestic)
    if prices is None:
        return
    if prices.is_empty():
        st.info(t("empty.filters"))
        return
    prices = prices.with_columns(data_label())
    at = f"{prices['observed_at'].max():%Y-%m-%d %H:%M}"
    st.caption(t("compare.caption", at=at, hours=FRESH_HOURS))
    fx_caption(prices)
    billing = ", ".join(chosen.billing or ())
    st.altair_chart(
        charts.compare_heatmap(prices, t("compare.heatmap", billing=billing, at=at)),
        width="stretch",
    )
    st.subheader(t("compare.summary"))
    show(summary_table(prices))
    st.altair_chart(
        charts.compare_ranked(prices, t("compare.ranked", billing=billing, at=at)),
        width="content",
    )
    with st.expander(t("compare.ranked", billing=billing, at=at)):
        show(prices_table(prices))
    moves(chosen, prices)


main()
