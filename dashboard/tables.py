"""Every table the pages draw goes through ``show``: headers in the page's language, money as
numbers (never DECIMAL's ``5.325000``), and a missing value reads "—", never "None".

Pages name their columns in snake_case (``cheapest_platform``), the keys of the locales'
``[headers]`` tables (dashboard/locales): the frame keeps those names, and each column's
header in the chosen language is its ``column_config`` label. An export renames them to the
same headers (``with_headers``): a file has no column_config.

Streamlit's grid prints a null cell as "None", whatever a pandas Styler says the cell's text
is (its display text is ignored for missing cells: seen in Chromium). So the columns that
hold a null are turned into text, nulls as "—", numbers kept right-aligned; columns without
nulls keep their type (and sort as numbers). A table without nulls is passed through
untouched. ``row_style`` colours rows through a pandas Styler over the same text.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Any

import polars as pl
import streamlit as st
from pandas.io.formats.style import Styler

from dashboard.formatting import plain_numbers
from dashboard.i18n import header

MISSING = "—"

RowStyle = Callable[[Any], list[str]]


def _number(value: float) -> str:
    # Plain decimals as the grid shows them (the pages round each column first), no "1e-05"
    return f"{value:.6f}".rstrip("0").rstrip(".") if value == value else MISSING


def _formatter(dtype: pl.DataType) -> Callable[[Any], str]:
    """How a non-null cell of a polars column of ``dtype`` reads once styled (a Styler
    replaces every cell's text, not only the null ones)."""
    if dtype.is_integer():
        return lambda v: str(int(v))  # pandas makes an integer column with nulls float
    if dtype.is_float() or dtype.is_decimal():
        return lambda v: _number(float(v))
    if dtype == pl.Date:
        return lambda v: v.strftime("%Y-%m-%d") if isinstance(v, date | datetime) else str(v)
    if isinstance(dtype, pl.Datetime):
        return lambda v: v.strftime("%Y-%m-%d %H:%M") if isinstance(v, datetime) else str(v)
    if isinstance(dtype, pl.List):
        return lambda v: ", ".join(str(x) for x in v)
    return str


def _text(frame: pl.DataFrame, column: str) -> pl.Expr:
    dtype, col = frame.schema[column], pl.col(column)
    if dtype == pl.Date:
        return col.dt.strftime("%Y-%m-%d")
    if isinstance(dtype, pl.Datetime):
        return col.dt.strftime("%Y-%m-%d %H:%M")
    if isinstance(dtype, pl.List):
        return col.list.eval(pl.element().cast(pl.String)).list.join(", ")
    if dtype.is_float():
        return col.fill_nan(None).cast(pl.String)
    return col.cast(pl.String)


def _as_text(frame: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    """The columns with nulls as text, nulls as MISSING."""
    if not columns:
        return frame
    return frame.with_columns(_text(frame, c).fill_null(MISSING) for c in columns)


def _missing(frame: pl.DataFrame) -> list[str]:
    return [
        c
        for c in frame.columns
        if frame[c].null_count() or (frame.schema[c].is_float() and frame[c].is_nan().any())
    ]


def displayed(frame: pl.DataFrame, row_style: RowStyle | None = None) -> pl.DataFrame | Styler:
    """What ``show`` hands to st.dataframe for ``frame`` (testable without Streamlit)."""
    text = _as_text(frame, _missing(frame))
    if row_style is None:
        return text
    return (
        text.to_pandas()
        .style.apply(row_style, axis=1)
        .format({c: _formatter(text.schema[c]) for c in text.columns}, na_rep=MISSING)
    )


def with_headers(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` as a file shows it: its headers in the page's language, DECIMALs as floats."""
    return plain_numbers(frame).rename({c: header(c) for c in frame.columns})


Config = dict[str, Any] | str | None  # a column's st.column_config entry


def labelled(frame: pl.DataFrame, given: dict[str, Config] | None = None) -> dict[str, Config]:
    """Each column's ``column_config``: the page's ``given`` one with the column's header as
    its label unless it names one (a text entry is a label; None hides the column); a
    number column with a missing value (shown as text, "—") kept right-aligned."""
    given = given or {}
    as_text = {
        c for c in _missing(frame) if frame.schema[c].is_numeric() or frame.schema[c].is_decimal()
    }
    config: dict[str, Config] = {}
    for column in frame.columns:
        entry = given.get(column)
        if isinstance(entry, str) or (entry is None and column in given):
            config[column] = entry
            continue
        if entry is None and column in as_text:
            entry = st.column_config.TextColumn(alignment="right")
        entry = dict(entry or {})
        config[column] = entry | {"label": entry.get("label") or header(column)}
    return config


def show(frame: pl.DataFrame, *, row_style: RowStyle | None = None, **kwargs: Any) -> Any:
    """st.dataframe of ``frame`` without its index, as wide as the page, "—" for nulls,
    each header in the page's language (``labelled``; ``column_config`` entries are keyed
    by the frame's own column names). ``row_style`` colours rows (a pandas Styler.apply
    function, axis=1, given the row under those names). Returns what st.dataframe
    returns (the selection, when ``on_select`` asks for one)."""
    frame = plain_numbers(frame)
    config = labelled(frame, kwargs.pop("column_config", None))
    return st.dataframe(
        displayed(frame, row_style),
        **({"hide_index": True, "width": "stretch", "column_config": config} | kwargs),
    )
