"""Finance's monthly report as files: an Excel workbook (xlsxwriter) and a PNG of its chart
(Altair rendered by vl-convert). No Streamlit here: the report page hands in the frames of
warehouse.read.report, and tests open the result with openpyxl.

Every sheet starts with the same four lines (title; units; dates; SIMULATED or real), then
its table from row 6; every table row has a ``data`` column (SIMULATED / real). A numeric
cell holds a number or is empty (no value); text is written as text, never as a formula
(a leading ``= + - @`` is escaped, warehouse.read.cells). Cards and billing modes are named,
with their ids in a column of their own. A breakeven above a month's 720 hours is no
number of hours to plan with: its cell is empty and the verdict column says it never pays
off. The FX line is computed from the month's own rows (warehouse.read.report.fx_in_month).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from datetime import date, datetime

import altair as alt
import polars as pl
import vl_convert
import xlsxwriter

from dashboard.palette import platform_scale
from scrapers.rows import HOURS_PER_MONTH
from warehouse.read.cells import escape_text
from warehouse.read.months import MonthToDate, next_month, previous_month
from warehouse.read.names import BILLING_NAMES, CARD_NAMES

HEADER_ROWS = 5  # title, units, dates, data, blank: the table's header is on row 6
PRICE = "CNY per card-hour"
# The columns of warehouse.read.report.index_month / index_spreads_month the sheets use.
INDEX_SCHEMA = {
    "gpu": pl.String, "billing": pl.String, "kind": pl.String, "simulated": pl.Boolean,
    "published_days": pl.Int64, "withheld_days": pl.Int64,
    "median_cny_per_card_hour": pl.Float64, "last_cny_per_card_hour": pl.Float64,
    "last_day": pl.Date, "month_change": pl.Float64, "compared_with_day": pl.Date,
    "mean_platforms": pl.Float64,
}  # fmt: skip
SPREAD_SCHEMA = {
    "source": pl.String, "gpu": pl.String, "billing": pl.String, "region": pl.String,
    "basis": pl.String, "kind": pl.String, "simulated": pl.Boolean, "days": pl.Int64,
    "days_compared": pl.Int64, "figure_cny_per_card_hour": pl.Float64,
    "index_cny_per_card_hour": pl.Float64, "spread_cny_per_card_hour": pl.Float64,
    "spread_ratio": pl.Float64, "citation": pl.String,
}  # fmt: skip


@dataclass(frozen=True)
class MonthlyReport:
    month: date  # the first day of the calendar month (UTC)
    generated_at: datetime  # UTC
    profile: str  # demo or live
    medians: pl.DataFrame  # warehouse.read.report.platform_medians
    cheapest: pl.DataFrame  # .cheapest_platforms
    breakeven: pl.DataFrame  # .breakeven_month
    alerts: pl.DataFrame  # .alerts_in_month
    fx: pl.DataFrame  # .fx_in_month
    # .index_month and .index_spreads_month (empty on a warehouse without the price index)
    index: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=INDEX_SCHEMA))
    index_spreads: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=SPREAD_SCHEMA))

    @property
    def label(self) -> str:
        return f"{self.month:%Y-%m}"

    def dates(self) -> str:
        last = next_month(self.month).toordinal() - 1
        return (
            f"日期 Dates: {self.month:%Y-%m-%d} 00:00 to {date.fromordinal(last):%Y-%m-%d} "
            f"23:59 UTC (calendar month {self.label}); generated "
            f"{self.generated_at:%Y-%m-%d %H:%M} UTC"
        )


def same_days(report: MonthlyReport) -> tuple[date, date] | None:
    """The days of the month before that month over month compares with, when the report's
    month is in progress (its data ends before its last day); None for whole months."""
    medians = report.medians
    if medians.is_empty() or "whole_month" not in medians.columns or medians["whole_month"][0]:
        return None
    window = MonthToDate(medians["month_through"][0])
    return window.previous, window.through


def mom_basis(report: MonthlyReport) -> str:
    """What the workbook's month over month compares, in words."""
    previous = f"{previous_month(report.month):%Y-%m}"
    days = same_days(report)
    if days is None:
        return f"MoM compares whole months, {report.label} against {previous}"
    through = report.medians["month_through"][0]
    return (
        f"MoM compares month to date, {report.month:%Y-%m-%d} to {through:%Y-%m-%d}, against "
        f"the same days {days[0]:%Y-%m-%d} to {days[1]:%Y-%m-%d} ({report.label} is not over)"
    )


def _data_note(frame: pl.DataFrame) -> str:
    if frame.is_empty() or "simulated" not in frame.columns:
        return "数据 Data: no rows for this month"
    simulated = int(frame["simulated"].sum())
    if simulated == frame.height:
        return (
            "数据 Data: SIMULATED — every row comes from the demo market's simulated prices, "
            "not a real market"
        )
    if simulated == 0:
        return "数据 Data: real — every row comes from real pages or published prices"
    return (
        f"数据 Data: mixed — {simulated} SIMULATED row(s), {frame.height - simulated} real "
        "(column data says which)"
    )


def fx_note(fx: pl.DataFrame, medians: pl.DataFrame | None = None) -> str:
    """How the report's non-CNY listings were converted, in one line, from the rows
    themselves (``fx``: warehouse.read.report.fx_in_month; ``medians``: the report's median
    rows, to say how many of them hold converted prices)."""
    if fx.is_empty():
        return "FX: every price in this report was listed in CNY; nothing was converted"
    parts = []
    for r in fx.iter_rows(named=True):
        rows = ""
        if medians is not None and "currencies" in medians.columns:
            holding = medians.filter(pl.col("currencies").str.contains(r["currency"])).height
            rows = f", in {holding} of the {medians.height} median rows"
        if r["low"] is None:
            rate = "at a configured default no longer on record"
        else:
            rate = (
                f"at each day's fx_rate: 1 {r['currency']} = ¥{r['low']:.4f}–{r['high']:.4f} "
                f"(last ¥{r['last']:.4f}, the rate of {r['last_day']:%Y-%m-%d}; {r['days']} "
                f"day(s) of rates; source: {r['sources']})"
            )
        unrated = f"; {r['unrated']} before any stored rate" if r["unrated"] else ""
        parts.append(
            f"{r['observations']:,} {r['currency']}-listed observations ({r['platforms']}"
            f"{rows}) converted to CNY {rate}{unrated}"
        )
    return "FX: " + "; ".join(parts)


def _names(frame: pl.DataFrame) -> list[pl.Expr]:
    """The card and billing mode by name (English: the workbook is one file for everyone)."""
    names = [pl.col("gpu").replace(CARD_NAMES).alias("card")]
    if "billing" in frame.columns:
        english = {k: v[1] for k, v in BILLING_NAMES.items()}
        names.append(pl.col("billing").replace(english).alias("billing"))
    return names


def _within_month(column: str) -> pl.Expr:
    """A breakeven in hours when a month has them (≤ 720 h), else empty."""
    return pl.when(pl.col(column) <= HOURS_PER_MONTH).then(pl.col(column))


def _verdict(column: str) -> pl.Expr:
    hours = pl.col(column)
    return (
        pl.when(hours.is_null())
        .then(pl.lit(None, pl.String))
        .when(hours <= HOURS_PER_MONTH)
        .then(pl.format("pays off above {} h", hours.round(1)))
        .otherwise(pl.format("never pays off (> 720 h; {} h)", hours.round(0).cast(pl.Int64)))
    )


_LABEL = pl.when(pl.col("simulated")).then(pl.lit("SIMULATED")).otherwise(pl.lit("real"))


def _hours_of(column: str) -> pl.Expr:
    """An alert's value in hours per month; an index move's are CNY per card-hour, which its
    message gives, so its hours cells are empty."""
    return pl.when(pl.col("kind") != "index_move").then(pl.col(column))


def _index_tables(report: MonthlyReport) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The price index sheet's and the outside figures sheet's tables."""
    index = report.index.select(
        *_names(report.index),
        pl.col("median_cny_per_card_hour").alias(f"month's index {PRICE} {report.label}"),
        pl.col("last_cny_per_card_hour").alias(f"last value {PRICE}"),
        pl.col("last_day").cast(pl.String).alias("last published day (UTC)"),
        pl.col("month_change").alias("month change (MoM)"),
        pl.col("compared_with_day").cast(pl.String).alias("compared with (UTC)"),
        "published_days",
        "withheld_days",
        pl.col("mean_platforms").alias("platforms (mean)"),
        _LABEL.alias("data"),
        pl.col("gpu").alias("card id"),
        pl.col("billing").alias("billing id"),
    )
    spreads = report.index_spreads.select(
        pl.col("source").alias("figure"),
        *_names(report.index_spreads),
        "region",
        "basis",
        pl.col("figure_cny_per_card_hour").alias(f"figure {PRICE}"),
        pl.col("index_cny_per_card_hour").alias(f"index {PRICE}"),
        pl.col("spread_cny_per_card_hour").alias(f"spread {PRICE}"),
        pl.col("spread_ratio").alias("spread ratio"),
        "days",
        "days_compared",
        "citation",
        _LABEL.alias("data"),
    )
    return index, spreads


def _breakeven_and_alerts(report: MonthlyReport) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The breakeven and alerts sheets' tables."""
    label = _LABEL
    breakeven = report.breakeven.select(
        *_names(report.breakeven),
        pl.col("source").alias("line"),
        pl.col("bare_metal_cny_per_card_month").alias("bare metal CNY per card-month"),
        pl.col("hourly_cny_per_card_hour").alias(f"hourly {PRICE}"),
        pl.col("monthly_cny_per_card_hour").alias(f"monthly plan {PRICE}"),
        _within_month("breakeven_hours_vs_hourly").alias("breakeven vs hourly (h/month)"),
        _verdict("breakeven_hours_vs_hourly").alias("vs hourly"),
        _within_month("breakeven_hours_vs_monthly").alias("breakeven vs monthly plan (h/month)"),
        _verdict("breakeven_hours_vs_monthly").alias("vs monthly plan"),
        "snapshots",
        label.alias("data"),
        pl.col("gpu").alias("card id"),
    )
    alerts = report.alerts.select(
        pl.col("created_at").dt.strftime("%Y-%m-%d %H:%M").alias("created (UTC)"),
        "kind",
        "rule",
        pl.col("gpu").replace(CARD_NAMES).alias("card"),
        pl.col("source").alias("line"),
        _hours_of("old_value").alias("from (h/month)"),
        _hours_of("new_value").alias("to (h/month)"),
        "old_mode",
        "new_mode",
        pl.col("new_observed_at").dt.strftime("%Y-%m-%d %H:%M").alias("snapshot (UTC)"),
        pl.col("delivered_at").dt.strftime("%Y-%m-%d %H:%M").alias("delivered (UTC)"),
        "message",
        label.alias("data"),
    )
    return breakeven, alerts


def _sheets(report: MonthlyReport) -> list[tuple[str, str, str, pl.DataFrame]]:
    """(sheet name, title, units line, table) of each data sheet, columns named for finance."""
    previous = f"{previous_month(report.month):%Y-%m}"
    label = _LABEL
    medians = report.medians.select(
        *_names(report.medians),
        pl.col("source").alias("platform"),
        pl.col("median_cny_per_card_hour").alias(f"median {PRICE} {report.label}"),
        pl.col("previous_median_cny_per_card_hour").alias(f"median {PRICE} {previous}"),
        pl.col("mom").alias("MoM"),
        "observations",
        "days",
        pl.col("currencies").alias("listed in"),
        label.alias("data"),
        pl.col("gpu").alias("card id"),
        pl.col("billing").alias("billing id"),
    )
    cheapest = report.cheapest.select(
        *_names(report.cheapest),
        pl.col("cheapest_source").alias("cheapest platform"),
        pl.col("cheapest_median_cny_per_card_hour").alias(f"cheapest median {PRICE}"),
        pl.col("cheapest_mom").alias("cheapest MoM"),
        pl.col("runner_up_source").alias("runner-up"),
        pl.col("runner_up_median_cny_per_card_hour").alias(f"runner-up median {PRICE}"),
        pl.col("dearest_source").alias("dearest platform"),
        pl.col("dearest_median_cny_per_card_hour").alias(f"dearest median {PRICE}"),
        pl.col("spread_ratio").alias("spread max/min"),
        pl.col("spread_cny").alias(f"spread max-min {PRICE}"),
        "platforms",
        label.alias("data"),
        pl.col("gpu").alias("card id"),
        pl.col("billing").alias("billing id"),
    )
    breakeven, alerts = _breakeven_and_alerts(report)
    index, spreads = _index_tables(report)
    unit = f"单位 Units: {PRICE} (元/卡时)"
    return [
        (
            "price index",
            f"The gpuprice rental price index per card and rent mode, {report.label} "
            "(method v1, docs/INDEX.md)",
            f"{unit}: the month's index is the median of the published days' values; month "
            "change = the chain-linked level of the last published day ÷ that of the day in "
            "'compared with' (the last published day before the month, else the month's first) "
            "− 1 (matched samples); a day is withheld when "
            "fewer platforms quote than the gate; real and SIMULATED apart",
            index,
        ),
        (
            "index vs outside",
            f"Outside figures against the index of the same day, mode and kind, {report.label}",
            f"{unit}; the seeds' published prices and SMM's quotes (medians over the days "
            "given); spread = figure − index; spread ratio = figure ÷ index − 1; an empty "
            "index cell = no published index that day",
            spreads,
        ),
        (
            "median by platform",
            f"Median price per card, platform and billing mode, {report.label}",
            f"{unit}, the median of every observation in the month; MoM = median "
            f"{report.label} ÷ median {previous} − 1 (0.05 = +5 %); {mom_basis(report)}; "
            "an empty cell = no value",
            medians,
        ),
        (
            "cheapest platform",
            f"Cheapest platform per card and billing mode, {report.label} (monthly medians)",
            f"{unit}; spread max/min is a ratio (1.20 = the dearest is 20 % above the "
            "cheapest); published reference prices (*-published) are not platforms and are "
            "left out; an empty cell = no value",
            cheapest,
        ),
        (
            "breakeven",
            f"Breakeven per card, {report.label}: hourly and monthly plan vs bare metal "
            "(median over the month's snapshots; line 'cheapest' = lowest across platforms)",
            "单位 Units: bare metal CNY per card-month; container prices CNY per card-hour; "
            "breakeven in hours of use per card per month (720 h = a full month): above it "
            "bare metal is cheaper; a breakeven above 720 h never pays off (its hours cell is "
            "empty, the verdict says so); an empty cell = no such offer on that line",
            breakeven,
        ),
        (
            "alerts",
            f"Procurement alerts raised in {report.label}",
            "单位 Units: breakeven values in hours per card per month; times UTC",
            alerts,
        ),
    ]


def _cell_format(column: str, formats: dict[str, xlsxwriter.format.Format]) -> object:
    if "MoM" in column or "ratio" in column:
        return formats["pct"]
    if "h/month" in column:
        return formats["hours"]
    if "card-month" in column:
        return formats["money"]
    if PRICE in column or column == "spread max/min":
        return formats["price"]
    return None


def workbook_bytes(report: MonthlyReport) -> bytes:
    """The .xlsx file: a sheet on what the report is, then one per table."""
    buffer = io.BytesIO()
    book = xlsxwriter.Workbook(buffer, {"in_memory": True})
    bold = book.add_format({"bold": True})
    formats = {
        "pct": book.add_format({"num_format": "+0.0%;-0.0%;0.0%"}),
        "hours": book.add_format({"num_format": "0.0"}),
        "money": book.add_format({"num_format": "#,##0.00"}),
        "price": book.add_format({"num_format": "0.0000"}),
    }
    sheets = _sheets(report)
    every = pl.concat(
        [
            f.select("simulated")
            for f in (report.medians, report.breakeven, report.alerts, report.index)
        ]
    )
    about = book.add_worksheet("about")
    lines = [
        f"gpuprice monthly report 月度报告 {report.label}",
        "单位 Units: CNY per card-hour (元/卡时) unless a column says otherwise; "
        "GB = 10^9 bytes; a month of full use is 720 hours",
        report.dates(),
        _data_note(every) + f" (profile {report.profile})",
        fx_note(report.fx, report.medians),
        "",
        "Sheets:",
        *(f"  {name}: {title}" for name, title, _, _ in sheets),
    ]
    for row, text in enumerate(lines):
        about.write_string(row, 0, escape_text(text), bold if row == 0 else None)
    about.set_column(0, 0, 120)
    sources = {
        "price index": report.index,
        "index vs outside": report.index_spreads,
        "median by platform": report.medians,
        "cheapest platform": report.cheapest,
        "breakeven": report.breakeven,
        "alerts": report.alerts,
    }
    for name, title, units, frame in sheets:
        sheet = book.add_worksheet(name)
        notes = (title, units, report.dates(), _data_note(sources[name]))
        for row, text in enumerate(notes):
            sheet.write_string(row, 0, escape_text(text), bold if row == 0 else None)
        _table(sheet, frame, formats, bold)
        sheet.freeze_panes(HEADER_ROWS + 1, 0)
    book.close()
    return buffer.getvalue()


def _table(
    sheet: xlsxwriter.worksheet.Worksheet,
    frame: pl.DataFrame,
    formats: dict[str, xlsxwriter.format.Format],
    bold: xlsxwriter.format.Format,
) -> None:
    """``frame`` from row HEADER_ROWS on: each cell by its type (a number, a boolean, text
    written as text, or blank), never through ``write``, which would make ``=...`` a formula."""
    for col, column in enumerate(frame.columns):
        sheet.write_string(HEADER_ROWS, col, column, bold)
        sheet.set_column(col, col, max(12, min(len(column) + 2, 40)))
    for r, values in enumerate(frame.iter_rows(), start=HEADER_ROWS + 1):
        for col, value in enumerate(values):
            style = _cell_format(frame.columns[col], formats)
            if value is None or (isinstance(value, float) and value != value):
                sheet.write_blank(r, col, None, style)
            elif isinstance(value, bool):
                sheet.write_boolean(r, col, value)
            elif isinstance(value, int | float):
                sheet.write_number(r, col, value, style)
            else:
                sheet.write_string(r, col, escape_text(str(value)))
    if frame.is_empty():
        sheet.write_string(HEADER_ROWS + 1, 0, "no rows for this month")


def report_chart(report: MonthlyReport) -> alt.FacetChart | alt.Chart:
    """Per card (one panel each, its own price scale), each platform's median for the
    month by billing mode, the cheapest first."""
    english = {k: v[1] for k, v in BILLING_NAMES.items()}
    frame = report.medians.with_columns(
        data=pl.when(pl.col("simulated")).then(pl.lit("SIMULATED")).otherwise(pl.lit("real")),
        card=pl.col("gpu").replace(CARD_NAMES),
        line=pl.col("source") + " · " + pl.col("billing").replace(english),
    ).select("card", "line", "source", "billing", "median_cny_per_card_hour", "mom", "data")
    sim = " · SIMULATED" if report.medians["simulated"].any() else ""
    title = alt.TitleParams(
        f"Median {PRICE} per platform, {report.label} (UTC){sim}",
        subtitle=[
            "one panel per card, own scale; colour = platform",
            fx_note(report.fx, report.medians)[:200],
        ],
        anchor="start",
    )
    if frame.is_empty():
        return alt.Chart(pl.DataFrame({"x": []})).mark_text().properties(title=title)
    bars = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=alt.X("median_cny_per_card_hour:Q", title=PRICE, axis=alt.Axis(format=",.4~f")),
            y=alt.Y("line:N", sort="x", title=None, axis=alt.Axis(labelLimit=0)),
            color=alt.Color(
                "source:N", scale=platform_scale(frame["source"].unique().to_list()), legend=None
            ),
        )
        .properties(width=320, height=alt.Step(14))
    )
    return (
        alt.layer(bars, data=frame)
        .facet(facet=alt.Facet("card:N", title=None), columns=3)
        .resolve_scale(x="independent", y="independent")
        .properties(title=title)
    )


def charts_png(report: MonthlyReport, scale: float = 1.5) -> bytes:
    """The report's chart as a PNG (what finance pastes into a slide)."""
    return vl_convert.vegalite_to_png(report_chart(report).to_json(), scale=scale)
