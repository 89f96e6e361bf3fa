"""Finance's monthly report as files: an Excel workbook (xlsxwriter) and a PNG of its chart
(Altair rendered by vl-convert). No Streamlit here: the report page hands in the frames of
warehouse.read.report, and tests open the result with openpyxl.

Every sheet starts with the same four lines (title; units; dates; SIMULATED or real), then
its table from row 6; every table row has a ``data`` column (SIMULATED / real), and a
missing value is written as "—" (Excel's SUM and AVERAGE skip text).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import date, datetime

import altair as alt
import polars as pl
import vl_convert
import xlsxwriter

from warehouse.read.report import next_month, previous_month

MISSING = "—"
HEADER_ROWS = 5  # title, units, dates, data, blank: the table's header is on row 6
PRICE = "CNY per card-hour"


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


def fx_note(fx: pl.DataFrame) -> str:
    """How the non-CNY listings were converted, in one line."""
    if fx.is_empty():
        return "FX: no rate in fx_rate for this month (no USD listing converted this month)"
    parts = [
        f"1 {r['currency']} = ¥{r['low']:.4f}–{r['high']:.4f} (last ¥{r['last']:.4f} on "
        f"{r['last_day']:%Y-%m-%d}; {r['days']} day(s); source: {r['sources']})"
        for r in fx.iter_rows(named=True)
    ]
    return "FX: USD listings converted at each day's fx_rate: " + "; ".join(parts)


def _sheets(report: MonthlyReport) -> list[tuple[str, str, str, pl.DataFrame]]:
    """(sheet name, title, units line, table) of each data sheet, columns named for finance."""
    previous = f"{previous_month(report.month):%Y-%m}"
    label = pl.when(pl.col("simulated")).then(pl.lit("SIMULATED")).otherwise(pl.lit("real"))
    medians = report.medians.select(
        pl.col("gpu").alias("card"),
        pl.col("source").alias("platform"),
        "billing",
        pl.col("median_cny_per_card_hour").alias(f"median {PRICE} {report.label}"),
        pl.col("previous_median_cny_per_card_hour").alias(f"median {PRICE} {previous}"),
        pl.col("mom").alias("MoM"),
        "observations",
        "days",
        pl.col("currencies").alias("listed in"),
        label.alias("data"),
    )
    cheapest = report.cheapest.select(
        pl.col("gpu").alias("card"),
        "billing",
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
    )
    breakeven = report.breakeven.select(
        pl.col("gpu").alias("card"),
        pl.col("source").alias("line"),
        pl.col("bare_metal_cny_per_card_month").alias("bare metal CNY per card-month"),
        pl.col("hourly_cny_per_card_hour").alias(f"hourly {PRICE}"),
        pl.col("monthly_cny_per_card_hour").alias(f"monthly plan {PRICE}"),
        pl.col("breakeven_hours_vs_hourly").alias("breakeven vs hourly (h/month)"),
        pl.col("breakeven_hours_vs_monthly").alias("breakeven vs monthly plan (h/month)"),
        "snapshots",
        label.alias("data"),
    )
    alerts = report.alerts.select(
        pl.col("created_at").dt.strftime("%Y-%m-%d %H:%M").alias("created (UTC)"),
        "kind",
        "rule",
        pl.col("gpu").alias("card"),
        pl.col("source").alias("line"),
        pl.col("old_value").alias("from (h/month)"),
        pl.col("new_value").alias("to (h/month)"),
        "old_mode",
        "new_mode",
        pl.col("new_observed_at").dt.strftime("%Y-%m-%d %H:%M").alias("snapshot (UTC)"),
        pl.col("delivered_at").dt.strftime("%Y-%m-%d %H:%M").alias("delivered (UTC)"),
        "message",
        label.alias("data"),
    )
    unit = f"单位 Units: {PRICE} (元/卡时)"
    return [
        (
            "median by platform",
            f"Median price per card, platform and billing mode, {report.label}",
            f"{unit}, the median of every observation in the month; MoM = median "
            f"{report.label} ÷ median {previous} − 1 (0.05 = +5 %); {MISSING} = no value",
            medians,
        ),
        (
            "cheapest platform",
            f"Cheapest platform per card and billing mode, {report.label} (monthly medians)",
            f"{unit}; spread max/min is a ratio (1.20 = the dearest is 20 % above the "
            "cheapest); published reference prices (*-published) are not platforms and are "
            f"left out; {MISSING} = no value",
            cheapest,
        ),
        (
            "breakeven",
            f"Breakeven per card, {report.label}: hourly and monthly plan vs bare metal "
            "(median over the month's snapshots; line 'cheapest' = lowest across platforms)",
            "单位 Units: bare metal CNY per card-month; container prices CNY per card-hour; "
            "breakeven in hours of use per card per month (720 h = a full month): above it "
            f"bare metal is cheaper; {MISSING} = no such offer on that line",
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
    if "MoM" in column:
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
        [f.select("simulated") for f in (report.medians, report.breakeven, report.alerts)]
    )
    about = book.add_worksheet("about")
    lines = [
        f"gpuprice monthly report 月度报告 {report.label}",
        "单位 Units: CNY per card-hour (元/卡时) unless a column says otherwise; "
        "GB = 10^9 bytes; a month of full use is 720 hours",
        report.dates(),
        _data_note(every) + f" (profile {report.profile})",
        fx_note(report.fx),
        "",
        "Sheets:",
        *(f"  {name}: {title}" for name, title, _, _ in sheets),
    ]
    for row, text in enumerate(lines):
        about.write(row, 0, text, bold if row == 0 else None)
    about.set_column(0, 0, 120)
    for name, title, units, frame in sheets:
        sheet = book.add_worksheet(name)
        source = {
            "median by platform": report.medians,
            "cheapest platform": report.cheapest,
            "breakeven": report.breakeven,
            "alerts": report.alerts,
        }[name]
        for row, text in enumerate((title, units, report.dates(), _data_note(source))):
            sheet.write(row, 0, text, bold if row == 0 else None)
        for col, column in enumerate(frame.columns):
            sheet.write(HEADER_ROWS, col, column, bold)
            sheet.set_column(col, col, max(12, min(len(column) + 2, 40)))
        for r, values in enumerate(frame.iter_rows(), start=HEADER_ROWS + 1):
            for col, value in enumerate(values):
                if value is None or (isinstance(value, float) and value != value):
                    sheet.write_string(r, col, MISSING)
                else:
                    sheet.write(r, col, value, _cell_format(frame.columns[col], formats))
        if frame.is_empty():
            sheet.write(HEADER_ROWS + 1, 0, "no rows for this month")
        sheet.freeze_panes(HEADER_ROWS + 1, 0)
    book.close()
    return buffer.getvalue()


def report_chart(report: MonthlyReport) -> alt.FacetChart | alt.Chart:
    """Per card (one panel each, its own price scale), each platform's median for the
    month by billing mode, the cheapest first."""
    frame = report.medians.with_columns(
        data=pl.when(pl.col("simulated")).then(pl.lit("SIMULATED")).otherwise(pl.lit("real"))
    ).select("gpu", "source", "billing", "median_cny_per_card_hour", "mom", "data")
    sim = " · SIMULATED" if report.medians["simulated"].any() else ""
    title = alt.TitleParams(
        f"Median {PRICE} per platform, {report.label} (UTC){sim}",
        subtitle=f"one panel per card, own scale; {fx_note(report.fx)}"[:200],
        anchor="start",
    )
    if frame.is_empty():
        return alt.Chart(pl.DataFrame({"x": []})).mark_text().properties(title=title)
    bars = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=alt.X("median_cny_per_card_hour:Q", title=PRICE),
            y=alt.Y("source:N", sort="x", title=None),
            color=alt.Color("billing:N", legend=alt.Legend(orient="bottom", labelLimit=0)),
            yOffset="billing:N",
        )
        .properties(width=320, height=alt.Step(9))
    )
    return (
        alt.layer(bars, data=frame)
        .facet(facet=alt.Facet("gpu:N", title=None), columns=3)
        .resolve_scale(x="independent", y="independent")
        .properties(title=title)
    )


def charts_png(report: MonthlyReport, scale: float = 1.5) -> bytes:
    """The report's chart as a PNG (what finance pastes into a slide)."""
    return vl_convert.vegalite_to_png(report_chart(report).to_json(), scale=scale)
