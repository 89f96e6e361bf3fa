"""Exports of exactly the table a page shows: CSV (UTF-8 with BOM, so Excel opens the
Chinese region names right) and Excel (.xlsx through Polars' ``write_excel``, xlsxwriter)."""

from __future__ import annotations

import functools
import io

import polars as pl
import streamlit as st

from dashboard.i18n import t

XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def csv_bytes(frame: pl.DataFrame) -> bytes:
    return b"\xef\xbb\xbf" + frame.write_csv().encode("utf-8")


def excel_bytes(frame: pl.DataFrame, sheet: str) -> bytes:
    buffer = io.BytesIO()
    frame.write_excel(buffer, worksheet=sheet[:31], autofit=True)
    return buffer.getvalue()


def export_buttons(frame: pl.DataFrame, stem: str, key: str) -> None:
    """Two download buttons for ``frame``; clicking one does not rerun the page. The
    workbook is built only when its button is clicked (it costs more than the whole rest
    of a render); the CSV is cheap enough to build up front."""
    left, right = st.columns(2)
    left.download_button(
        t("export.csv"),
        data=csv_bytes(frame),
        file_name=f"{stem}.csv",
        mime="text/csv",
        key=f"{key}_csv",
        on_click="ignore",
    )
    right.download_button(
        t("export.xlsx"),
        data=functools.partial(excel_bytes, frame, stem),
        file_name=f"{stem}.xlsx",
        mime=XLSX_MIME,
        key=f"{key}_xlsx",
        on_click="ignore",
    )
