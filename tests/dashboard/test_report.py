"""The monthly report: the workbook (opened with openpyxl), its PNG, and the report page."""

from __future__ import annotations

import io
import statistics
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import openpyxl
import polars as pl
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager

from dashboard.palette import platform_colour
from dashboard.report_xlsx import (
    MonthlyReport,
    charts_png,
    fx_note,
    report_chart,
    workbook_bytes,
)
from tests.dashboard.conftest import copy_of, open_page, table, texts
from tests.dashboard.seeding import Seeded, usd_rate
from tests.support.handles import warehouse_at
from warehouse.read import report as queries
from warehouse.store.db import read_frame, write_connection

AUGUST = date(2026, 8, 1)
SHEETS = [
    "about", "price index", "index vs outside", "median by platform", "cheapest platform",
    "breakeven", "alerts",
]  # fmt: skip


def build(seeded: Seeded, month: date = AUGUST) -> MonthlyReport:
    w = seeded.warehouse
    return MonthlyReport(
        month=month,
        generated_at=datetime(2026, 9, 11, 8, 0),
        profile="demo",
        medians=queries.platform_medians(warehouse_at(w), month),
        cheapest=queries.cheapest_platforms(warehouse_at(w), month),
        breakeven=queries.breakeven_month(warehouse_at(w), month),
        alerts=queries.alerts_in_month(warehouse_at(w), month),
        fx=queries.fx_in_month(warehouse_at(w), month),
        index=queries.index_month(warehouse_at(w), month),
        index_spreads=queries.index_spreads_month(warehouse_at(w), month),
    )


def raw_median(seeded: Seeded, source: str, month: str) -> float:
    """By hand: the median of every raw observation of the 4090 hourly in the month."""
    values = read_frame(
        seeded.warehouse,
        "SELECT cny_per_card_hour::DOUBLE AS p FROM offer WHERE gpu = 'rtx4090-24g' "
        "AND billing = 'hourly' AND source = ? AND strftime(observed_at, '%Y-%m') = ?",
        [source, month],
    )["p"].to_list()
    return statistics.median(values)


def rows(sheet: Any) -> list[dict[str, Any]]:
    values = list(sheet.iter_rows(min_row=6, values_only=True))
    header = values[0]
    return [dict(zip(header, r, strict=True)) for r in values[1:]]


def test_workbook_sheets_notes_median_and_month_over_month(multi: Seeded) -> None:
    book = openpyxl.load_workbook(io.BytesIO(workbook_bytes(build(multi))))
    assert book.sheetnames == SHEETS
    for name in SHEETS:
        notes = [book[name].cell(row=r, column=1).value for r in range(1, 5)]
        assert "2026-08" in notes[0]
        assert notes[1].startswith("单位 Units:")
        assert ("CNY" in notes[1]) == (name != "alerts")  # alerts are in hours per month
        assert "2026-08-01 00:00 to 2026-08-31 23:59 UTC" in notes[2]
        assert "SIMULATED" in notes[3]
    medians = rows(book["median by platform"])
    jygpu = next(
        r
        for r in medians
        if (r["card id"], r["platform"], r["billing id"]) == ("rtx4090-24g", "jygpu", "hourly")
    )
    august, july = raw_median(multi, "jygpu", "2026-08"), raw_median(multi, "jygpu", "2026-07")
    assert jygpu["median CNY per card-hour 2026-08"] == pytest.approx(august)
    assert jygpu["median CNY per card-hour 2026-07"] == pytest.approx(july)
    assert jygpu["MoM"] == pytest.approx(august / july - 1) and jygpu["data"] == "SIMULATED"
    assert (jygpu["card"], jygpu["billing"]) == ("RTX 4090 24GB", "hourly")  # names, ids beside
    assert book["median by platform"].cell(row=7, column=6).number_format == "+0.0%;-0.0%;0.0%"
    cheapest = next(
        r
        for r in rows(book["cheapest platform"])
        if (r["card id"], r["billing id"]) == ("rtx4090-24g", "hourly")
    )
    autodl = raw_median(multi, "autodl", "2026-08")
    assert cheapest["cheapest platform"] == "autodl"
    assert cheapest["cheapest median CNY per card-hour"] == pytest.approx(autodl)
    assert cheapest["platforms"] == 5  # jygpu, autodl, testcloud, vastai, runpod; no published
    breakeven = rows(book["breakeven"])
    line = next(r for r in breakeven if (r["card id"], r["line"]) == ("rtx4090-24g", "cheapest"))
    assert 0 < line["breakeven vs hourly (h/month)"] <= 720
    assert line["vs hourly"] == f"pays off above {line['breakeven vs hourly (h/month)']:.1f} h"
    runpod = next(r for r in breakeven if (r["card id"], r["line"]) == ("rtx4090-24g", "runpod"))
    assert runpod["bare metal CNY per card-month"] is None  # no bare metal: an empty cell
    alerts = read_frame(
        multi.warehouse,
        "SELECT count(*) FROM alert WHERE created_at >= '2026-08-01' AND created_at < '2026-09-01'",
    ).item()
    assert len(rows(book["alerts"])) == alerts > 0
    days = [AUGUST + timedelta(days=n) for n in range(31)]
    fx = book["about"].cell(row=5, column=1).value
    low, high = min(map(usd_rate, days)), max(map(usd_rate, days))
    assert f"1 USD = ¥{low:.4f}–{high:.4f}" in fx and "31 day(s)" in fx
    # counted from the rows the report holds, not from what fx_rate holds for the month
    usd = read_frame(
        multi.warehouse,
        "SELECT count(*) FROM offer WHERE currency = 'USD' AND gpu <> 'unknown' "
        "AND observed_at >= '2026-08-01' AND observed_at < '2026-09-01'",
    ).item()
    holding = sum("USD" in (r["listed in"] or "") for r in medians)
    assert f"{usd:,} USD-listed observations (runpod, vastai, in {holding} of the " in fx
    assert holding > 0
    every_cell_typed(book)
    index_sheets(multi, book)


def index_sheets(multi: Seeded, book: openpyxl.Workbook) -> None:
    """The month's index per card: the median of its stored August days, the days counted."""
    days = read_frame(
        multi.warehouse,
        "SELECT status, value_cny_per_card_hour AS v FROM price_index "
        "WHERE superseded_at IS NULL AND gpu = 'rtx4090-24g' AND billing = 'hourly' "
        "AND kind = 'SIMULATED' AND day >= '2026-08-01' AND day < '2026-09-01'",
    )
    published = [r["v"] for r in days.to_dicts() if r["status"] == "published"]
    assert len(published) > 20
    sheet = rows(book["price index"])
    row = next(r for r in sheet if (r["card id"], r["billing id"]) == ("rtx4090-24g", "hourly"))
    assert row["month's index CNY per card-hour 2026-08"] == pytest.approx(
        statistics.median(published)
    )
    assert row["published_days"] == len(published) and row["data"] == "SIMULATED"
    assert row["withheld_days"] == days.height - len(published)
    assert row["compared with (UTC)"] < "2026-08-01"  # July's last published day
    outside = rows(book["index vs outside"])
    assert outside and {r["data"] for r in outside} == {"SIMULATED"}  # the demo's SMM board
    assert all(r["figure CNY per card-hour"] > 0 for r in outside)


def every_cell_typed(book: openpyxl.Workbook) -> None:
    """A numeric column holds numbers or empty cells, never text such as "—"."""
    for name in SHEETS[1:]:
        table = rows(book[name])
        for column in table[0] if table else []:
            values = [r[column] for r in table if r[column] is not None]
            if any(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
                assert all(isinstance(v, int | float) for v in values), (name, column)


def test_fx_statement_comes_from_the_rows_when_fx_rate_has_none_in_the_month(
    multi: Seeded, tmp_path: Path
) -> None:
    """The bug: rates stored only before the month, USD rows in it, and the workbook said
    "no USD listing converted this month" (the PNG too)."""
    seeded = copy_of(multi, tmp_path)
    with write_connection(seeded.warehouse) as con:
        con.execute("DELETE FROM fx_rate WHERE day >= '2026-08-01'")
    report = build(seeded)
    book = openpyxl.load_workbook(io.BytesIO(workbook_bytes(report)))
    fx = book["about"].cell(row=5, column=1).value
    last = usd_rate(date(2026, 7, 31))
    assert "no USD listing" not in fx and "USD-listed observations" in fx
    assert f"1 USD = ¥{last:.4f}–{last:.4f}" in fx and "the rate of 2026-07-31" in fx
    assert "USD-listed observations" in fx_note(report.fx, report.medians)  # the PNG's line
    empty = fx_note(report.fx.clear(), report.medians)
    assert empty == "FX: every price in this report was listed in CNY; nothing was converted"


def test_breakeven_beyond_a_month_and_formulas_are_never_written(multi: Seeded) -> None:
    report = build(multi)
    beyond = report.breakeven.with_columns(breakeven_hours_vs_hourly=pl.lit(1290.4))
    hostile = report.alerts.with_columns(
        message=pl.lit('=HYPERLINK("http://evil.example","x")'),
        rule=pl.lit("+1"),
    )
    changed = MonthlyReport(**(report.__dict__ | {"breakeven": beyond, "alerts": hostile}))
    book = openpyxl.load_workbook(io.BytesIO(workbook_bytes(changed)))
    line = rows(book["breakeven"])[0]
    assert line["breakeven vs hourly (h/month)"] is None
    assert line["vs hourly"] == "never pays off (> 720 h; 1290 h)"
    sheet = book["alerts"]
    header = [c.value for c in sheet[6]]
    cell = sheet.cell(row=7, column=header.index("message") + 1)
    assert cell.data_type == "s" and cell.value == '\'=HYPERLINK("http://evil.example","x")'
    assert sheet.cell(row=7, column=header.index("rule") + 1).value == "'+1"
    assert not [c for row in sheet.iter_rows() for c in row if c.data_type == "f"]


def test_workbook_says_real_or_mixed_and_the_png_is_a_png(multi: Seeded) -> None:
    report = build(multi)
    real = MonthlyReport(
        **(
            report.__dict__
            | {
                "medians": report.medians.with_columns(simulated=pl.lit(False)),
                "alerts": report.alerts.with_columns(simulated=pl.lit(False)),
                "breakeven": report.breakeven.with_columns(
                    simulated=pl.col("source") == "cheapest"
                ),
            }
        )
    )
    book = openpyxl.load_workbook(io.BytesIO(workbook_bytes(real)))
    assert book["median by platform"]["A4"].value.startswith("数据 Data: real")
    assert "mixed" in book["breakeven"]["A4"].value and "mixed" in book["about"]["A4"].value
    assert charts_png(report, scale=1).startswith(b"\x89PNG\r\n\x1a\n")
    colour = report_chart(report).to_dict()["spec"]["layer"][0]["encoding"]["color"]["scale"]
    assert colour["range"] == [platform_colour(p) for p in colour["domain"]]


def test_report_page_previews_and_downloads(
    use_multi: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    deferred: list[Any] = []
    real = MediaFileManager.add_deferred

    def spy(self: MediaFileManager, data_callable: Any, *args: Any, **kw: Any) -> str:
        deferred.append(data_callable)  # what Streamlit runs when the button is clicked
        return real(self, data_callable, *args, **kw)

    monkeypatch.setattr(MediaFileManager, "add_deferred", spy)
    app = open_page("report")
    app.selectbox(key="rp_month").set_value(date(2026, 9, 1)).run()
    assert [b.label for b in app.download_button] == ["下载 Excel 月报", "下载图表 PNG"]
    assert "2026-09" in texts(app)
    medians = table(app, "rp_medians")
    matpool = medians[(medians["platform"] == "matpool") & (medians["billing"] == "按时计费")]
    assert set(matpool["previous_month"]) == {"—"}  # matpool started in September
    assert set(matpool["mom_pct"]) == {"—"}
    assert "None" not in medians.astype(str).to_numpy().ravel()
    workbook, png = deferred[-2](), deferred[-1]()
    assert openpyxl.load_workbook(io.BytesIO(workbook)).sheetnames == SHEETS
    assert png.startswith(b"\x89PNG")


def test_report_page_on_an_empty_warehouse(use: Callable[..., None], tmp_path) -> None:
    use(tmp_path)
    app = open_page("report")
    assert "仓库还是空的" in texts(app) and not app.download_button


def test_a_month_in_progress_is_compared_with_the_same_days(multi: Seeded) -> None:
    """September holds 1 to 10 only: its median against August 1 to 10, never all August."""
    report = build(multi, date(2026, 9, 1))
    row = report.medians.filter(
        pl.col("gpu") == "rtx4090-24g", pl.col("source") == "jygpu", pl.col("billing") == "hourly"
    ).row(0, named=True)
    values = read_frame(
        multi.warehouse,
        "SELECT cny_per_card_hour::DOUBLE AS p FROM offer WHERE gpu = 'rtx4090-24g' "
        "AND billing = 'hourly' AND source = 'jygpu' "
        "AND observed_at >= '2026-08-01' AND observed_at < '2026-08-11'",
    )["p"].to_list()
    assert row["previous_median_cny_per_card_hour"] == pytest.approx(statistics.median(values))
    assert not row["whole_month"] and row["month_through"] == date(2026, 9, 10)
    book = openpyxl.load_workbook(io.BytesIO(workbook_bytes(report)))
    units = book["median by platform"].cell(row=2, column=1).value
    assert "month to date, 2026-09-01 to 2026-09-10, against the same days 2026-08-01" in units
    assert "whole months, 2026-08 against 2026-07" in (
        openpyxl.load_workbook(io.BytesIO(workbook_bytes(build(multi))))["median by platform"]
        .cell(row=2, column=1)
        .value
    )
