"""Monthly report for finance: pick a month, see its tables, download the Excel workbook
(dashboard/report_xlsx.py) or the chart as PNG with one click each."""

from __future__ import annotations

import functools
from datetime import date

import polars as pl
import streamlit as st

from dashboard import data
from dashboard.alert_table import alert_table
from dashboard.data import data_label, settings
from dashboard.export import XLSX_MIME
from dashboard.formatting import pays_off
from dashboard.i18n import named, relabel, t
from dashboard.page_start import open_page
from dashboard.report_xlsx import (
    INDEX_SCHEMA,
    SPREAD_SCHEMA,
    MonthlyReport,
    charts_png,
    same_days,
    workbook_bytes,
)
from dashboard.tables import show
from warehouse.derive.metrics import CHEAPEST
from warehouse.read.months import next_month, previous_month
from warehouse.store.db import utcnow


def months(options: pl.DataFrame) -> list[date]:
    """Every calendar month with prices, newest first."""
    first, last = options["first_day"].min().replace(day=1), options["last_day"].max()
    found, month = [], first
    while month <= last:
        found.append(month)
        month = next_month(month)
    return found[::-1]


def default_month(choices: list[date], today: date) -> int:
    """The last complete month when there is one (what finance closes), else the newest."""
    for index, month in enumerate(choices):
        if next_month(month) <= today:
            return index
    return 0


def load(month: date) -> MonthlyReport | None:
    frames = data.month_report(month=month)  # the report's five tables in one read
    if frames is None:
        return None
    # Tables a warehouse may not have yet (no derive, no alerts) are empty in the report.
    empty = {
        "breakeven": pl.DataFrame(schema={"simulated": pl.Boolean}),
        "alerts": pl.DataFrame(schema={"simulated": pl.Boolean}),
        "fx": pl.DataFrame(),
        "index": pl.DataFrame(schema=INDEX_SCHEMA),
        "index_spreads": pl.DataFrame(schema=SPREAD_SCHEMA),
    }
    return MonthlyReport(
        month=month,
        generated_at=utcnow(),
        profile=settings().profile,
        **{k: v if v is not None else empty[k] for k, v in frames.items()},
    )


def fx_caption(fx: pl.DataFrame) -> None:
    """What the month's non-CNY listings were converted at, from the rows themselves (the
    workbook's about sheet says the same in its FX line)."""
    if fx.is_empty():
        st.caption(t("report.fx.none"))
        return
    for r in fx.iter_rows(named=True):
        if r["low"] is None:
            continue
        st.caption(
            t(
                "report.fx",
                n=r["observations"],
                currency=r["currency"],
                platforms=r["platforms"],
                low=r["low"],
                high=r["high"],
                day=f"{r['last_day']:%Y-%m-%d}",
                sources=r["sources"],
            )
        )


def days_before(report: MonthlyReport) -> date:
    return previous_month(report.month)


def _verdict(hours: float | None) -> str:
    if hours is None:
        return "—"
    return t("be.pays_off", hours=hours) if pays_off(hours) else t("be.never")


def index_preview(report: MonthlyReport) -> None:
    """The month's price index per card (docs/INDEX.md) and the outside figures beside it."""
    st.subheader(t("report.index"))
    if report.index.is_empty():
        st.caption(t("report.index.none"))
        return
    st.caption(t("report.index.caption"))
    show(
        named(report.index).select(
            pl.col("card_name").alias("card"),
            pl.col("billing_name").alias("billing"),
            pl.col("median_cny_per_card_hour").round(4).alias("month_index_cny_per_card_hour"),
            pl.col("last_cny_per_card_hour").round(4).alias("last_value_cny_per_card_hour"),
            pl.col("last_day").cast(pl.String).alias("last_published_day_utc"),
            (pl.col("month_change") * 100).round(2).alias("month_change_pct"),
            "published_days",
            "withheld_days",
            data_label(),
        ),
    )
    if report.index_spreads.is_empty():
        return
    st.subheader(t("ix.spreads"))
    show(
        named(report.index_spreads).select(
            pl.col("source").alias("figure"),
            pl.col("card_name").alias("card"),
            pl.col("billing_name").alias("billing"),
            "region",
            pl.col("figure_cny_per_card_hour").round(4),
            pl.col("index_cny_per_card_hour").round(4),
            pl.col("spread_cny_per_card_hour").round(4).alias("spread_vs_index_cny_per_card_hour"),
            (pl.col("spread_ratio") * 100).round(1).alias("spread_vs_index_pct"),
            "days",
            data_label(),
        ),
    )


def preview(report: MonthlyReport) -> None:
    index_preview(report)
    st.subheader(t("report.medians"))
    days = same_days(report)
    if days is None:
        compared = t("mom.whole", month=report.label, previous=f"{days_before(report):%Y-%m}")
    else:
        compared = t(
            "mom.same_days",
            start=f"{report.month:%Y-%m-%d}",
            end=f"{report.medians['month_through'][0]:%Y-%m-%d}",
            pstart=f"{days[0]:%Y-%m-%d}",
            pend=f"{days[1]:%Y-%m-%d}",
        )
    st.caption(t("report.mom", compared=compared))
    show(
        named(report.medians).select(
            pl.col("card_name").alias("card"),
            pl.col("source").alias("platform"),
            pl.col("billing_name").alias("billing"),
            pl.col("median_cny_per_card_hour").round(4),
            pl.col("previous_median_cny_per_card_hour").round(4).alias("previous_month"),
            (pl.col("mom") * 100).round(2).alias("mom_pct"),
            "observations",
            pl.col("currencies").alias("listed_in"),
            data_label(),
        ),
    )
    st.subheader(t("report.cheapest"))
    show(
        named(report.cheapest).select(
            pl.col("card_name").alias("card"),
            pl.col("billing_name").alias("billing"),
            pl.col("cheapest_source").alias("cheapest_platform"),
            pl.col("cheapest_median_cny_per_card_hour").round(4),
            (pl.col("cheapest_mom") * 100).round(2).alias("cheapest_mom_pct"),
            pl.col("runner_up_source").alias("runner_up"),
            pl.col("spread_ratio").round(3).alias("spread_max_over_min"),
            pl.col("platforms"),
            data_label(),
        ),
    )
    if "gpu" in report.breakeven.columns and not report.breakeven.is_empty():
        st.subheader(t("report.breakeven"))
        show(
            named(report.breakeven).select(
                pl.col("card_name").alias("card"),
                pl.when(pl.col("source") == CHEAPEST)
                .then(pl.lit(t("be.cheapest")))
                .otherwise(pl.col("source"))
                .alias("line"),
                pl.col("bare_metal_cny_per_card_month").round(2),
                relabel(report.breakeven, "breakeven_hours_vs_hourly", _verdict).alias(
                    "breakeven_vs_hourly"
                ),
                relabel(report.breakeven, "breakeven_hours_vs_monthly", _verdict).alias(
                    "breakeven_vs_monthly"
                ),
                "snapshots",
                data_label(),
            ),
        )
    st.subheader(t("report.alerts", n=report.alerts.height))
    if "created_at" in report.alerts.columns and not report.alerts.is_empty():
        show(alert_table(report.alerts))


def main() -> None:
    options = open_page("report.title", data.trend_options, "empty.no_prices")
    if options is None:
        return
    choices = months(options)
    month = st.selectbox(
        t("f.month"),
        choices,
        index=default_month(choices, utcnow().date()),
        format_func=lambda m: f"{m:%Y-%m}",
        key="rp_month",
    )
    report = load(month)
    if report is None:
        return
    st.caption(t("report.caption", month=report.label))
    fx_caption(report.fx)
    if report.medians.is_empty():
        st.info(t("report.empty"))
        return
    left, right = st.columns(2)
    # Built on click (deferred): the page renders without paying for either file.
    left.download_button(
        t("report.xlsx"),
        data=functools.partial(workbook_bytes, report),
        file_name=f"gpuprice_report_{report.label}.xlsx",
        mime=XLSX_MIME,
        key="rp_xlsx",
        on_click="ignore",
        type="primary",
    )
    right.download_button(
        t("report.png"),
        data=functools.partial(charts_png, report),
        file_name=f"gpuprice_report_{report.label}.png",
        mime="image/png",
        key="rp_png",
        on_click="ignore",
    )
    preview(report)


main()
