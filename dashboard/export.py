"""Exports of exactly the table a page shows (its headers in the page's language, the ids
beside the names): CSV (UTF-8 with BOM, so Excel opens the Chinese region names right) and
Excel (.xlsx through Polars' ``write_excel``, xlsxwriter). Text that a spreadsheet would run
as a formula is escaped in both (warehouse.read.cells), and the workbook is told never to
turn a string into a formula or a link."""

from __future__ import annotations

import functools
import io

import polars as pl
import streamlit as st
import xlsxwriter

from dashboard.i18n import t
from dashboard.tables import with_headers
from warehouse.read.cells import escape_frame

XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
# Excel's limit on a sheet name, and the characters it refuses in one.
SHEET_NAME_MAX = 31
_SHEET_FORBIDDEN = str.maketrans({c: " " for c in "[]:*?/\\"})


def sheet_name(text: str) -> str:
    """``text`` as a sheet name Excel accepts; a name it would cut is refused here, so a
    page names its sheet short enough (the file name carries the rest)."""
    name = text.translate(_SHEET_FORBIDDEN).strip("'")
    if not name or len(name) > SHEET_NAME_MAX:
        raise ValueError(f"sheet name {text!r}: 1 to {SHEET_NAME_MAX} characters")
    return name


def csv_bytes(frame: pl.DataFrame) -> bytes:
    return b"\xef\xbb\xbf" + escape_frame(frame).write_csv().encode("utf-8")


def excel_bytes(frame: pl.DataFrame, sheet: str) -> bytes:
    buffer = io.BytesIO()
    book = xlsxwriter.Workbook(
        buffer, {"in_memory": True, "strings_to_formulas": False, "strings_to_urls": False}
    )
    escape_frame(frame).write_excel(book, worksheet=sheet_name(sheet), autofit=True)
    book.close()
    return buffer.getvalue()


def export_buttons(frame: pl.DataFrame, stem: str, key: str, sheet: str) -> None:
    """Two download buttons for ``frame`` as shown (its headers in the page's language);
    clicking one does not rerun the page. The workbook is built only when its button is
    clicked (it costs more than the whole rest of a render); the CSV is cheap enough to
    build up front."""
    shown = with_headers(frame)
    left, right = st.columns(2)
    left.download_button(
        t("export.csv"),
        data=csv_bytes(shown),
        file_name=f"{stem}.csv",
        mime="text/csv",
        key=f"{key}_csv",
        on_click="ignore",
    )
    right.download_button(
        t("export.xlsx"),
        data=functools.partial(excel_bytes, shown, sheet),
        file_name=f"{stem}.xlsx",
        mime=XLSX_MIME,
        key=f"{key}_xlsx",
        on_click="ignore",
    )
