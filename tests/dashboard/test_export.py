"""The pages' CSV and Excel exports: text a spreadsheet would run is escaped, numbers stay
numbers, and the sheet is named whole (Excel's 31 characters) or refused."""

from __future__ import annotations

import io

import openpyxl
import polars as pl
import pytest

from dashboard.export import csv_bytes, excel_bytes, sheet_name

HOSTILE = pl.DataFrame(
    {
        "平台": ['=HYPERLINK("http://evil.example","x")', "@cmd", "autodl"],
        "变化 %": [-5.25, 0.0, 3.5],
    }
)


def test_the_csv_escapes_formulas_and_keeps_numbers() -> None:
    data = csv_bytes(HOSTILE)
    assert data.startswith(b"\xef\xbb\xbf")
    back = pl.read_csv(io.BytesIO(data[3:]))
    assert back["平台"].to_list() == ["'" + HOSTILE["平台"][0], "'@cmd", "autodl"]
    assert back["变化 %"].to_list() == [-5.25, 0.0, 3.5]


def test_the_workbook_holds_text_as_text_and_numbers_as_numbers() -> None:
    sheet = openpyxl.load_workbook(io.BytesIO(excel_bytes(HOSTILE, "day 20260613-20260910"))).active
    assert sheet.title == "day 20260613-20260910"
    cells = list(sheet.iter_rows(min_row=2))
    assert all(row[0].data_type == "s" for row in cells)  # no formula, ever
    assert cells[0][0].value == "'" + HOSTILE["平台"][0]
    assert [row[1].value for row in cells] == [-5.25, 0.0, 3.5]


def test_a_sheet_name_is_whole_or_refused() -> None:
    assert sheet_name("week 20250101-20260910") == "week 20250101-20260910"
    assert sheet_name("a/b:c") == "a b c"  # characters Excel refuses
    with pytest.raises(ValueError, match="31"):
        sheet_name("gpuprice_trend_day_20260903-20261203")  # the name Excel cut to ...-202
