"""Platform comparison: where each card is cheapest today and how that moved this month, in
one look: the cheapest named in text above the charts, a heatmap and ranked bars of every
platform, this month's change (month to date against the same days of the month before),
each platform's daily line over a window, and the FX rate the USD platforms were converted
at. One price basis for the whole page, chosen and named: each platform's lowest listing
or the median of its listings."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import polars as pl
import streamlit as st

from dashboard import charts, data
from dashboard.data import data_label
from dashboard.formatting import money, percent
from dashboard.i18n import billing_label, card_label, labels, named, t
from dashboard.lines import MAX_LINES, hidden_lines, pick_lines
from dashboard.page_start import open_page, region_filter
from dashboard.tables import show
from warehouse.read.compare import (
    BASES,
    FRESH_HOURS,
    Basis,
    month_changes_of,
    month_window,
    moves_of,
)
from warehouse.read.filters import OfferFilter
from warehouse.read.months import MonthToDate

DEFAULT_BILLING = "hourly"


def filters(options: pl.DataFrame) -> tuple[OfferFilter, bool, Basis] | None:
    """The filter widgets: the offers chosen, whether only domestic cards, the price basis;
    None (after saying so) when a choice leaves nothing to show."""

    def values(frame: pl.DataFrame, column: str) -> list[str]:
        return sorted(frame[column].unique().to_list())

    with st.expander(t("filters"), expanded=False):  # the answer comes first
        a, b, c = st.columns([3, 2, 3])
        cards = values(options, "gpu")
        gpus = a.multiselect(
            t("f.cards"),
            cards,
            default=cards,
            format_func=card_label,
            placeholder=t("choose"),
            key="cp_cards",
        )
        modes = values(options, "billing")
        billing = b.multiselect(
            t("f.billing"),
            modes,
            default=[DEFAULT_BILLING] if DEFAULT_BILLING in modes else modes[:1],
            format_func=labels(modes, billing_label),
            placeholder=t("choose"),
            key="cp_billing",
        )
        region = region_filter(c, options, key="cp_regions")
        d, e = st.columns([3, 5])
        basis = d.radio(
            t("compare.basis"),
            BASES,
            format_func=labels(BASES, lambda b: t(f"basis.{b}")),
            horizontal=True,
            help=t("compare.basis.help"),
            key="cp_basis",
        )
        # Applied in the query, not to the card list: unticking it gives every card back.
        domestic = e.checkbox(t("f.domestic"), key="cp_domestic")
    if not (gpus and billing and region):
        st.info(t("empty.filters"))
        return None
    chosen = OfferFilter(gpus=tuple(gpus), billing=tuple(billing), regions=tuple(region))
    return chosen, domestic, basis


def fx_caption(prices: pl.DataFrame) -> None:
    """Say which rate the USD (any non-CNY) platforms were converted at, and its date."""
    foreign = prices.filter(pl.col("currency") != "CNY")
    if foreign.is_empty():
        return
    day = foreign["observed_at"].max().date()
    rates = data.fx_rates_on(day=day)
    if rates is None:  # the page said why (the pipeline writing: it reruns in a moment)
        return
    for currency in sorted(foreign["currency"].unique().to_list()):
        platforms = ", ".join(
            sorted(foreign.filter(pl.col("currency") == currency)["source"].unique().to_list())
        )
        rate = rates.filter(pl.col("currency") == currency)
        if rate.is_empty():
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


def _month_line(market: dict | None) -> str:
    if market is None:
        return t("compare.month.none")
    return t(
        "compare.month",
        first=money(market["first_cny_per_card_hour"]),
        first_day=f"{market['first_day']:%m-%d}",
        last=money(market["last_cny_per_card_hour"]),
        last_day=f"{market['last_day']:%m-%d}",
        change=percent(market["change"]),
        pfrom=f"{market['previous_from']:%m-%d}",
        pthrough=f"{market['previous_through']:%m-%d}",
        mom=percent(market["mom"]),
    )


def headlines(prices: pl.DataFrame, changes: pl.DataFrame | None, basis: Basis) -> None:
    """Per card and billing mode, in words: the cheapest platform today with its price and
    day, then how the market's cheapest moved this month."""
    st.subheader(t("compare.headlines"))
    market = {}
    if changes is not None:
        for row in changes.filter(pl.col("scope") == "market").iter_rows(named=True):
            market[(row["gpu"], row["billing"])] = row
    lines = []
    for row in (
        prices.filter(pl.col("rank") == 1)
        .unique(["gpu", "billing"], keep="first")
        .sort("gpu", "billing")
        .iter_rows(named=True)
    ):
        cheapest = t(
            "compare.cheapest",
            platform=row["source"],
            price=money(row["cny_per_card_hour"]),
            day=f"{row['observed_at']:%Y-%m-%d}",
        )
        lines.append(
            t(
                "compare.headline",
                row=f"{row['card_name']} · {row['billing_name']}",
                cheapest=cheapest,
                basis=t(f"basis.{basis}"),
                month=_month_line(market.get((row["gpu"], row["billing"]))),
            )
        )
    # Two columns of list items; an item's second line: a hard break, then its indent.
    halves = (lines[: (len(lines) + 1) // 2], lines[(len(lines) + 1) // 2 :])
    for column, half in zip(st.columns(2), halves, strict=True):
        column.markdown("\n".join("- " + line.replace("\n", "  \n  ") for line in half))


def summary_table(prices: pl.DataFrame, changes: pl.DataFrame | None) -> pl.DataFrame:
    """One row per card and billing mode: the cheapest and dearest platform, the spread,
    and this month's move of the market's cheapest."""
    cheapest = prices.filter(pl.col("rank") == 1).unique(["gpu", "billing"], keep="first")
    dearest = (
        prices.sort("cny_per_card_hour", descending=True)
        .unique(["gpu", "billing"], keep="first")
        .select("gpu", "billing", pl.col("source").alias("dearest"))
    )
    table = cheapest.join(dearest, on=["gpu", "billing"], how="left")
    if changes is not None and not changes.is_empty():
        moved = changes.filter(pl.col("scope") == "market").select(
            "gpu", "billing", "change", "mom"
        )
        table = table.join(moved, on=["gpu", "billing"], how="left")
    else:
        table = table.with_columns(change=pl.lit(None, pl.Float64), mom=pl.lit(None, pl.Float64))
    return table.sort("gpu", "billing").select(
        pl.col("card_name").alias("card"),
        pl.col("billing_name").alias("billing"),
        pl.col("source").alias("cheapest_platform"),
        pl.col("card_min").round(4).alias("cheapest_cny_per_card_hour"),
        pl.col("dearest").alias("dearest_platform"),
        pl.col("card_max").round(4).alias("dearest_cny_per_card_hour"),
        pl.col("spread_ratio").round(3).alias("spread_max_over_min"),
        pl.col("spread_cny").round(4).alias("spread_cny_per_card_hour"),
        pl.col("platforms"),
        (pl.col("change") * 100).round(2).alias("change_in_month_pct"),
        (pl.col("mom") * 100).round(2).alias("mom_pct_same_days"),
        pl.col("observed_at").dt.strftime("%Y-%m-%d %H:%M").alias("observed_utc"),
        data_label(),
        pl.col("gpu").alias("card_id"),
    )


def month_table(changes: pl.DataFrame) -> pl.DataFrame:
    platforms = named(changes.filter(pl.col("scope") == "platform"))
    return platforms.sort("gpu", "billing", "last_cny_per_card_hour").select(
        pl.col("card_name").alias("card"),
        pl.col("billing_name").alias("billing"),
        pl.col("source").alias("platform"),
        pl.col("first_day").cast(pl.String),
        pl.col("first_cny_per_card_hour").round(4),
        pl.col("last_day").cast(pl.String),
        pl.col("last_cny_per_card_hour").round(4),
        (pl.col("change") * 100).round(2).alias("change_in_month_pct"),
        pl.col("mtd_cny_per_card_hour").round(4).alias("month_to_date_cny_per_card_hour"),
        pl.col("previous_cny_per_card_hour")
        .round(4)
        .alias("same_days_last_month_cny_per_card_hour"),
        (pl.col("mom") * 100).round(2).alias("mom_pct_same_days"),
        data_label(),
        pl.col("gpu").alias("card_id"),
    )


def prices_table(prices: pl.DataFrame) -> pl.DataFrame:
    return prices.select(
        pl.col("card_name").alias("card"),
        pl.col("billing_name").alias("billing"),
        "rank",
        pl.col("source").alias("platform"),
        pl.col("cny_per_card_hour").round(4),
        (pl.col("cny_per_card_hour") / pl.col("card_min")).round(3).alias("times_cheapest"),
        pl.col("listed").alias("listed_price"),
        pl.col("currency"),
        "region",
        "listings",
        pl.col("observed_at").dt.strftime("%Y-%m-%d %H:%M").alias("observed_utc"),
        data_label(),
        pl.col("gpu").alias("card_id"),
        pl.col("billing").alias("billing_id"),
    )


def moves(chosen: OfferFilter, prices: pl.DataFrame, basis: Basis) -> None:
    """How each platform of today's comparison moved over a window the user picks (from the
    first day of last month by default: this month beside the one before)."""
    newest = prices["observed_at"].max().date()
    a, b = st.columns([2, 3])
    span = a.date_input(
        t("f.window"),
        value=(MonthToDate(newest).previous, newest),
        max_value=newest,
        key="cp_window",
    )
    platforms = sorted(prices["source"].unique().to_list())
    picked = b.multiselect(
        t("compare.lines"),
        platforms,
        help=t("compare.lines.help"),
        placeholder=t("choose"),
        key="cp_lines",
    )
    if len(span) != 2:
        st.info(t("empty.filters"))
        return
    # Today's cards and platforms (the domestic choice already applied) over the window.
    query = replace(
        chosen,
        gpus=tuple(sorted(prices["gpu"].unique().to_list())),
        sources=tuple(platforms),
        start=span[0],
        end=span[1],
    )
    daily = data.daily_prices(query, basis=basis)
    if daily is None or daily.is_empty():
        st.info(t("empty.filters"))
        return
    changes = moves_of(daily)  # the window's first and last day, from the frame drawn
    daily = pick_lines(
        named(daily),
        panel="gpu",
        platform="source",
        billing="billing",
        value="cny_per_card_hour",
        period="period",
        chosen=picked,
    )
    hidden = hidden_lines(daily, "gpu", "source", "billing")
    title = t(
        "compare.moves",
        start=f"{span[0]:%Y-%m-%d}",
        end=f"{span[1]:%Y-%m-%d}",
        basis=t(f"basis.{basis}"),
    )
    subtitle = t("compare.hidden", n=hidden, limit=MAX_LINES) if hidden else ""
    drawn = daily.filter(pl.col("drawn")).with_columns(data_label())
    st.altair_chart(
        charts.unchecked(charts.platform_moves(drawn, title, subtitle)), width="content"
    )
    if changes.is_empty():
        return
    st.subheader(t("compare.moves_table", basis=t(f"basis.{basis}")))
    show(
        named(changes).select(
            pl.col("card_name").alias("card"),
            pl.col("source").alias("platform"),
            pl.col("billing_name").alias("billing"),
            pl.col("first_day").cast(pl.String),
            pl.col("first_cny_per_card_hour").round(4),
            pl.col("last_day").cast(pl.String),
            pl.col("last_cny_per_card_hour").round(4),
            (pl.col("change") * 100).round(2).alias("change_pct"),
            pl.col("low").round(4),
            pl.col("high").round(4),
            "days",
            data_label(),
        ),
    )


def month(changes: pl.DataFrame | None, basis: Basis) -> None:
    if changes is None or changes.is_empty():
        return
    first = changes.row(0, named=True)
    st.subheader(
        t(
            "compare.month_table",
            basis=t(f"basis.{basis}"),
            start=f"{first['month_from']:%Y-%m-%d}",
            end=f"{first['month_through']:%Y-%m-%d}",
            pfrom=f"{first['previous_from']:%Y-%m-%d}",
            pthrough=f"{first['previous_through']:%Y-%m-%d}",
        )
    )
    show(month_table(changes))


def today(chosen: OfferFilter, domestic: bool, basis: Basis) -> pl.DataFrame | None:
    """Today's price per card, billing mode and platform on ``basis``, with names."""
    prices = data.platform_prices(chosen, domestic_only=domestic, basis=basis)
    if prices is None:
        return None
    if prices.is_empty():
        st.info(t("empty.filters"))
        return None
    return named(prices).with_columns(
        data_label(),
        listed=pl.format("{} {}", pl.col("price").round(4), pl.col("unit_raw")),
    )


def main() -> None:
    options = open_page("compare.title", data.compare_options, "compare.none")
    if options is None:
        return
    choice = filters(options)
    if choice is None:
        return
    chosen, domestic, basis = choice
    prices = today(chosen, domestic, basis)
    if prices is None:
        return
    at = f"{prices['observed_at'].max():%Y-%m-%d %H:%M}"
    day: date = prices["observed_at"].max().date()
    scope = replace(
        chosen,
        gpus=tuple(sorted(prices["gpu"].unique().to_list())),
        sources=tuple(sorted(prices["source"].unique().to_list())),
    )
    # The same read as the moves' default window (last month and this): cached once.
    window = data.daily_prices(month_window(scope, day), basis=basis)
    changes = None if window is None else month_changes_of(window, day)
    headlines(prices, changes, basis)
    st.caption(t("compare.caption", at=at, hours=FRESH_HOURS, basis=t(f"basis.{basis}")))
    fx_caption(prices)
    billing = ", ".join(billing_label(b) for b in chosen.billing or ())
    what = {"billing": billing, "at": at, "basis": t(f"basis.{basis}")}
    # The answer is the headlines above; one detail is drawn at a time, the one chosen (the
    # page was ~8,000 px with all ten blocks drawn at once, issue 38).
    view = st.segmented_control(
        t("compare.view"), VIEWS, default=VIEWS[0], key="cp_view",
        format_func=lambda v: t(f"compare.view.{v}"),
    )  # fmt: skip
    detail(view or VIEWS[0], chosen, prices, changes, basis, what)


# The details of the comparison, one drawn at a time: the heatmap by default.
VIEWS = ("heatmap", "ranked", "summary", "month", "moves", "prices")


def detail(
    view: str,
    chosen: OfferFilter,
    prices: pl.DataFrame,
    changes: pl.DataFrame | None,
    basis: Basis,
    what: dict[str, str],
) -> None:
    """The detail ``view`` of today's comparison."""
    if view == "heatmap":
        chart = charts.compare_heatmap(prices, t("compare.heatmap", **what))
        st.altair_chart(charts.unchecked(chart), width="stretch")
    elif view == "ranked":
        chart = charts.compare_ranked(prices, t("compare.ranked", **what))
        st.altair_chart(charts.unchecked(chart), width="content")
    elif view == "summary":
        st.subheader(t("compare.summary"))
        show(summary_table(prices, changes))
    elif view == "month":
        month(changes, basis)
    elif view == "moves":
        moves(chosen, prices, basis)
    else:
        st.subheader(t("compare.prices", **what))
        show(prices_table(prices))


main()
