"""Trends, finance's home page: CNY per card-hour over time per card, platform and billing
mode, the platforms' band, market quotes, month-over-month and year-over-year change, KPI
cards, and an export of exactly the table the chart draws."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import polars as pl
import streamlit as st

from dashboard import charts, data
from dashboard.data import data_label
from dashboard.export import export_buttons
from dashboard.formatting import money, percent
from dashboard.i18n import billing_label, card_label, labels, named, t
from dashboard.lines import MAX_LINES, hidden_lines, pick_lines
from dashboard.origin import origin_columns
from dashboard.page_start import open_page, region_filter
from dashboard.tables import show
from warehouse.read.dashboard import GRAINS, Grain
from warehouse.read.filters import OfferFilter
from warehouse.read.months import MonthToDate
from warehouse.read.names import BILLING_NAMES

DEFAULT_BILLING = ("hourly", "bare_metal_monthly")
DEFAULT_DAYS = 90
# Cards a first view selects: the ones the most platforms quote. A real RunPod page lists
# some 30 cards; all of them at once would bury the few finance compares.
DEFAULT_CARDS = 8
KPI_COLUMNS = 4


@dataclass(frozen=True)
class Chosen:
    """What the filters chose: the offers to read, the grain, whether to draw quotes, and
    the platforms to draw as lines whatever their price."""

    offers: OfferFilter
    grain: Grain
    quotes: bool
    lines: tuple[str, ...] = ()


def default_cards(options: pl.DataFrame) -> list[str]:
    """The :data:`DEFAULT_CARDS` cards quoted by the most platforms (ties by name)."""
    ranked = (
        options.group_by("gpu")
        .agg(pl.col("source").n_unique().alias("platforms"))
        .sort(["platforms", "gpu"], descending=[True, False])
    )
    return sorted(ranked["gpu"].head(DEFAULT_CARDS).to_list())


def filters(options: pl.DataFrame) -> Chosen | None:
    """The filter widgets; None (after saying so) when a choice leaves nothing to show."""

    def values(column: str) -> list[str]:
        return sorted(options[column].unique().to_list())

    first, last = options["first_day"].min(), options["last_day"].max()
    billing_all = values("billing")
    billing_default = [b for b in DEFAULT_BILLING if b in billing_all] or billing_all
    # Closed on a first view: open, its three rows of widgets filled the first screen above
    # the tiles that answer the page's question; the range pills stay outside, one click.
    with st.expander(t("filters"), expanded=False):
        a, b, c, d = st.columns(4)
        cards = a.multiselect(
            t("f.cards"),
            values("gpu"),
            default=default_cards(options),
            format_func=card_label,
            placeholder=t("choose"),
            key="tr_cards",
        )
        platforms = b.multiselect(
            t("f.platforms"),
            values("source"),
            default=values("source"),
            placeholder=t("choose"),
            key="tr_platforms",
        )
        billing = c.multiselect(
            t("f.billing"),
            billing_all,
            default=billing_default,
            format_func=labels(billing_all, billing_label),
            placeholder=t("choose"),
            key="tr_billing",
        )
        regions = region_filter(d, options, key="tr_regions")
        e, f, g, h = st.columns([2, 2, 1, 2])
        span = e.date_input(
            t("f.dates"),
            value=range_span(st.session_state.get(RANGE_KEY), first, last),
            min_value=first,
            max_value=last,
            on_change=unpick_range,
            key="tr_dates",
        )
        grain = f.radio(
            t("f.grain"),
            GRAINS,
            format_func=labels(GRAINS, lambda g: t(f"grain.{g}")),
            horizontal=True,
            key="tr_grain",
        )
        quotes = g.checkbox(t("trends.quotes"), value=True, key="tr_quotes")
        lines = h.multiselect(
            t("trends.lines"),
            values("source"),
            help=t("trends.lines.help"),
            placeholder=t("choose"),
            key="tr_lines",
        )
    range_pills(st.container())  # the row's width: a pill's label is never cut
    if not (cards and platforms and billing and regions) or len(span) != 2:
        st.info(t("empty.filters"))
        return None
    offers = OfferFilter(
        gpus=tuple(cards),
        sources=tuple(platforms),
        billing=tuple(billing),
        regions=tuple(regions),
        start=span[0],
        end=span[1],
    )
    return Chosen(offers, grain, quotes, tuple(lines))


RANGE_KEY = "tr_range"  # the range pill chosen; None once the dates are set by hand
RANGES = ("recent", "year", "all")


def range_label(choice: str) -> str:
    """A range pill's label in the page's language."""
    return t(f"trends.range.{choice}", days=DEFAULT_DAYS)


def range_span(choice: str | None, first: date, last: date) -> tuple[date, date]:
    """The dates a range pill stands for, within the data's ``first`` and ``last`` day; the
    last ``DEFAULT_DAYS`` days when none is chosen. The default is the recent window even
    when SIMULATED days sit beside years of real captures: from the first real price, the
    current 90 days were a sliver of the panel; all history is one pill away."""
    starts = {
        "recent": last - timedelta(days=DEFAULT_DAYS - 1),
        "year": date(last.year, 1, 1),
        "all": first,
    }
    return max(first, starts.get(choice or "recent", first)), last


def range_pills(column: Any) -> None:
    """The range pills under the date range; the last 90 days chosen on a first view."""
    # Set in the session, not as the widget's default: the date range's callback clears it,
    # and a value given both ways makes Streamlit warn (with a stack, in the log).
    st.session_state.setdefault(RANGE_KEY, RANGES[0])
    column.pills(
        t("f.dates"),
        RANGES,
        format_func=range_label,
        label_visibility="collapsed",
        on_change=pick_range,
        key=RANGE_KEY,
    )


def pick_range() -> None:
    """A pill chosen: the date range takes its dates as its default. Set into the date
    widget's own state, the range would be a value given twice (Streamlit warns)."""
    if st.session_state.get(RANGE_KEY) is not None:
        st.session_state.pop("tr_dates", None)


def unpick_range() -> None:
    """Dates set by hand: no pill stays lit for a range it no longer describes."""
    st.session_state[RANGE_KEY] = None


def compared(row: dict) -> str:
    """What a month-over-month figure compares, in words: whole months, or month to date
    against the same days of the month before."""
    window = MonthToDate(row["last_day"])  # the rule of warehouse/read/dashboard.py's SQL
    if row["whole"]:
        return t("mom.whole", month=f"{window.month:%Y-%m}", previous=f"{window.previous:%Y-%m}")
    return t(
        "mom.same_days",
        start=f"{window.month:%Y-%m-%d}",
        end=f"{window.day:%Y-%m-%d}",
        pstart=f"{window.previous:%Y-%m-%d}",
        pend=f"{window.through:%Y-%m-%d}",
    )


MIXED = " ◐"  # a KPI that mixes real and SIMULATED prices


def kind_note(row: dict) -> str:
    """What a KPI is made of: SIMULATED, real, or which of its figures mix the two (a month
    holding both mixes its changes too; otherwise a change may compare one kind with the
    other)."""
    whats = ("mixed",) if row["mixed"] else ("mom_mixed", "yoy_mixed")
    mixes = [t(f"trends.kpi.{what}") for what in whats if row[what]]
    if mixes:
        return t("trends.kpi.mixes", what=t("list.sep").join(mixes))
    return "SIMULATED; " if row["simulated"] else ""


def kpis(offers: OfferFilter) -> None:
    """A tile per card, in a row of tiles per billing mode named once above it (a tile
    labelled "card · mode" was cut short: "Ascend 910B 64GB · bare metal, m…")."""
    changes = data.card_changes(offers)
    if changes is None or changes.is_empty():
        return
    newest = changes.sort("last_day").row(-1, named=True)
    st.caption(t("trends.kpi", compared=compared(newest)))
    rows = changes.to_dicts()
    if any(row["mixed"] or row["mom_mixed"] or row["yoy_mixed"] for row in rows):
        st.caption(t("trends.kpi.mixed_note", mark=MIXED.strip()))
    order = {billing: at for at, billing in enumerate(BILLING_NAMES)}
    for billing in sorted({row["billing"] for row in rows}, key=lambda b: order.get(b, 99)):
        mode = [row for row in rows if row["billing"] == billing]
        st.markdown(f"**{billing_label(billing)}**")
        for at in range(0, len(mode), KPI_COLUMNS):
            columns = st.columns(KPI_COLUMNS)
            for column, row in zip(columns, mode[at : at + KPI_COLUMNS], strict=False):
                tile(column, row, newest["month"])


def tile(column: Any, row: dict, newest_month: date) -> None:
    """One card's KPI tile: its median CNY per card-hour, month over month as the delta."""
    mixed = row["mixed"] or row["mom_mixed"] or row["yoy_mixed"]
    # A card whose prices end earlier (imported history only) names its own month.
    month = "" if row["month"] == newest_month else f" · {row['month']:%Y-%m}"
    column.metric(
        card_label(row["gpu"]) + month + (MIXED if mixed else ""),
        money(row["cny_per_card_hour"]),
        delta=None if row["mom"] is None else f"{row['mom']:+.1%}",
        delta_color="inverse",  # a dearer card-hour is bad news for the renter
        delta_description=t("trends.kpi.yoy", yoy=percent(row["yoy"])),
        # No sparkline: each is a Vega chart the browser draws (seven cost trends 1.2 s
        # against Streamlit's floor, the first row's four still 0.1-0.2 s:
        # bench/page_timings.py), and the chart right below draws the same months.
        help=kind_note(row)
        + t(
            "trends.kpi.help",
            compared=compared(row),
            platforms=row["platforms"],
            seen=f"{row['last_seen']:%Y-%m-%d %H:%M}",
            ids=f"{row['gpu']} · {row['billing']}",
        ),
        border=True,
    )


def chart_table(
    series: pl.DataFrame, band: pl.DataFrame | None, quotes: pl.DataFrame | None
) -> pl.DataFrame:
    """Everything the chart draws, as one table: this is what is shown and exported. A
    platform's real and SIMULATED prices are rows of their own (``data``), each real one
    with where it comes from (``origin``, short; whole in the last column). Cards and
    billing modes by name, their ids after them."""
    no_origin = [pl.lit(None, dtype=pl.String).alias(c) for c in ("origin", "origin_whole")]
    parts = [
        series.select(
            "period",
            pl.lit("price").alias("layer"),
            "gpu",
            pl.col("source").alias("platform"),
            "billing",
            pl.col("cny_per_card_hour").alias("cny_per_card_hour_mean"),
            pl.col("low").alias("min"),
            pl.col("high").alias("max"),
            pl.col("observations").alias("n"),
            data_label(),
            *origin_columns(series),
        )
    ]
    if band is not None and not band.is_empty():
        parts.append(
            band.select(
                "period",
                pl.lit("band").alias("layer"),
                "gpu",
                pl.lit(t("trends.band.platform")).alias("platform"),
                "billing",
                pl.col("band_median").alias("cny_per_card_hour_mean"),
                pl.col("band_min").alias("min"),
                pl.col("band_max").alias("max"),
                pl.col("platforms").alias("n"),
                data_label(),
                *no_origin,
            )
        )
    if quotes is not None and not quotes.is_empty():
        parts.append(
            quotes.select(
                "period",
                pl.lit("market quote").alias("layer"),
                "gpu",
                pl.col("source").alias("platform"),
                pl.col("basis").alias("billing"),
                pl.col("cny_per_card_hour").alias("cny_per_card_hour_mean"),
                pl.lit(None, dtype=pl.Float64).alias("min"),
                pl.lit(None, dtype=pl.Float64).alias("max"),
                pl.col("regions").cast(pl.Int64).alias("n"),
                data_label(),
                *origin_columns(quotes),
            )
        )
    table = pl.concat([p.with_columns(pl.col("n").cast(pl.Int64)) for p in parts])
    table = named(table.with_columns(pl.col(pl.Float64).round(4))).sort(
        "period", "layer", "gpu", "platform", "billing", "data"
    )
    return table.select(
        "period",
        "layer",
        pl.col("card_name").alias("card"),
        "platform",
        pl.col("billing_name").alias("billing"),
        "cny_per_card_hour_mean",
        "min",
        "max",
        "n",
        "data",
        "origin",
        pl.col("gpu").alias("card_id"),
        pl.col("billing").alias("billing_id"),
        "origin_whole",
    )


def shown_table(table: pl.DataFrame) -> pl.DataFrame:
    """The chart table as the page shows and exports it: the layer named in the page's
    language (the chart filters on the ids)."""
    names = {layer: t(f"layer.{layer}") for layer in ("price", "band", "market quote")}
    return table.with_columns(pl.col("layer").replace_strict(names))


def chart_frame(table: pl.DataFrame, chosen: Chosen) -> tuple[pl.DataFrame, int]:
    """The chart's one data set: ``table`` with ``drawn`` marking the price lines each panel
    draws (dashboard.lines) and ``segment`` where a line breaks, and how many lines it
    leaves to the band."""
    frame = table.rename({"cny_per_card_hour_mean": "value"}).with_columns(
        real=pl.col("data") == "real"
    )
    prices = pick_lines(
        frame.filter(pl.col("layer") == "price"),
        panel="card_id",
        platform="platform",
        billing="billing_id",
        value="value",
        period="period",
        chosen=chosen.lines,
        real="real",
    )
    others = frame.filter(pl.col("layer") != "price").with_columns(drawn=pl.lit(True))
    hidden = hidden_lines(prices, "card_id", "platform", "billing_id")
    return charts.trend_pieces(pl.concat([prices, others]), chosen.grain), hidden


def trend_chart(chosen: Chosen) -> pl.DataFrame | None:
    """The chart; the table it draws (None when there is nothing to draw)."""
    offers, grain = chosen.offers, chosen.grain
    series = data.price_trend(grain, offers, apart=True)
    if series is None:
        return None
    if series.is_empty():
        st.info(t("empty.filters"))
        return None
    band = data.price_band(grain, offers)
    quotes = None
    if chosen.quotes:
        # Quotes are another market: only the cards and the days apply to them.
        quotes = data.quote_trend(
            grain, OfferFilter(gpus=offers.gpus, start=offers.start, end=offers.end)
        )
    title = t(
        "trends.chart",
        start=f"{offers.start:%Y-%m-%d}",
        end=f"{offers.end:%Y-%m-%d}",
        grain=t(f"grain.{grain}"),
    )
    table = chart_table(series, band, quotes)
    frame, hidden = chart_frame(table, chosen)
    subtitle = [t("trends.facets"), t("trends.kinds"), t("trends.band")]
    subtitle += [t("trends.quotes.note")] if quotes is not None and not quotes.is_empty() else []
    subtitle += [t("trends.hidden", n=hidden, limit=MAX_LINES)] if hidden else []
    st.vega_lite_chart(spec=charts.trend(frame, title, subtitle), width="content")
    if (table["data"] == "SIMULATED").any():
        st.caption(t("simulated.rows"))
    return table


def table_and_export(table: pl.DataFrame, offers: OfferFilter, grain: str) -> None:
    """The chart's data as a table, and its CSV and Excel export (exactly this table)."""
    st.subheader(t("trends.table"))
    shown = shown_table(table)
    show(
        shown,
        column_config={
            "period": st.column_config.DateColumn(format="YYYY-MM-DD"),
            "origin_whole": st.column_config.TextColumn(width="small"),
        },
    )
    span = f"{offers.start:%Y%m%d}-{offers.end:%Y%m%d}"
    export_buttons(
        shown, f"gpuprice_trend_{grain}_{span}", key="tr_export", sheet=f"{grain} {span}"
    )


def changes_table(offers: OfferFilter) -> None:
    changes = data.monthly_changes(offers)
    if changes is None or changes.is_empty():
        return
    st.subheader(t("trends.changes", end=f"{offers.end:%Y-%m-%d}"))
    st.caption(t("trends.changes.kinds"))
    # In words, made here: the page's language is not readable on a polars worker thread.
    said = [
        compared(row) for row in changes.select("month", "last_day", "whole").iter_rows(named=True)
    ]
    shown = named(changes.with_columns(compared=pl.Series(said, dtype=pl.String))).select(
        pl.col("card_name").alias("card"),
        pl.col("source").alias("platform"),
        pl.col("billing_name").alias("billing"),
        pl.col("month").dt.strftime("%Y-%m"),
        # the changes first, so they are in view at 1400 px (the long "compared" was
        # pushing them behind the grid's own scroll)
        (pl.col("mom") * 100).round(2).alias("mom_pct"),
        (pl.col("yoy") * 100).round(2).alias("yoy_pct"),
        pl.col("cny_per_card_hour").round(4).alias("cny_per_card_hour_month_mean"),
        pl.col("previous_month").round(4),
        pl.col("year_ago").round(4),
        data_label(),
        "compared",
        pl.col("gpu").alias("card_id"),
    )
    show(shown)


def latest_prices(offers: OfferFilter) -> None:
    latest = data.latest_offers()
    if latest is None or latest.is_empty():
        return
    chosen = (("gpu", offers.gpus), ("source", offers.sources), ("billing", offers.billing))
    keep = [pl.col(column).is_in(values) for column, values in chosen if values is not None]
    latest = latest.filter(*keep) if keep else latest
    if latest.is_empty():
        return
    st.subheader(t("trends.latest", at=f"{latest['observed_at'].max():%Y-%m-%d %H:%M}"))
    shown = named(latest).select(
        pl.col("card_name").alias("card"),
        pl.col("source").alias("platform"),
        pl.col("billing_name").alias("billing"),
        pl.col("cny_per_card_hour").cast(pl.Float64).round(4),
        pl.col("listed").alias("listed_price"),
        pl.col("gpu_count").alias("cards"),
        pl.col("region"),
        pl.col("observed_at").dt.strftime("%Y-%m-%d %H:%M").alias("observed_utc"),
        data_label(),
        pl.col("gpu").alias("card_id"),
    )
    show(shown)


def freshness(state: pl.DataFrame | None) -> None:
    """Say how current the trend figures are: they come from the serving copy, which the
    derive step refreshes right after every load."""
    if state is None or state.is_empty() or state["watermark"][0] is None:
        return
    st.caption(
        t(
            "trends.freshness",
            watermark=f"{state['watermark'][0]:%Y-%m-%d %H:%M}",
            synced_at=f"{state['synced_at'][0]:%Y-%m-%d %H:%M}",
        )
    )


# The details under the chart, none drawn until one is chosen: the tiles answer the page's
# question (the price now, month over month, year over year), and each table is a grid the
# browser draws (the changes table drawn by default cost the page 0.1-0.2 s, and with the
# sparklines kept it over the target: bench/page_timings.py).
DETAILS = ("changes", "latest", "table")


def main() -> None:
    options = open_page("trends.title", data.trend_options, "empty.no_prices")
    if options is None:
        return
    chosen = filters(options)
    if chosen is None:
        return
    freshness(data.serving_freshness())  # quiet: no caption on a warehouse without it
    kpis(chosen.offers)
    table = trend_chart(chosen)
    # One detail below the chart, the one chosen (DETAILS); a click on the chosen one
    # unselects it, and none is drawn again.
    view = st.segmented_control(
        t("trends.view"), DETAILS, default=None, key="tr_view",
        format_func=labels(DETAILS, lambda v: t(f"trends.view.{v}")),
    )  # fmt: skip
    if view == "changes":
        changes_table(chosen.offers)
    elif view == "latest":
        latest_prices(chosen.offers)
    elif view == "table" and table is not None:
        table_and_export(table, chosen.offers, chosen.grain)


main()
