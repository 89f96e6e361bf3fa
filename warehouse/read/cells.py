"""Text cells that a spreadsheet would run: a value starting with ``=``, ``+``, ``-`` or ``@``
(or a tab or carriage return, which Excel skips before reading one of those) is a formula to
Excel, LibreOffice and Google Sheets when a CSV file is opened, so ``=HYPERLINK(...)`` in a
scraped name would become a live link (OWASP "CSV injection"). Every CSV and Excel file this
product writes passes its text through :func:`escape_text` first: the cell then starts with
a ``'``, which the spreadsheet shows and never evaluates. Numbers are never touched: a
negative change stays a number.
"""

from __future__ import annotations

import polars as pl

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def escape_text(value: str) -> str:
    """``value`` as a spreadsheet shows it literally."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def escape_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with every text column escaped (``escape_text``), numbers as they are."""
    text = [name for name, dtype in frame.schema.items() if dtype == pl.String]
    if not text:
        return frame
    starts = pl.lit("^[" + "".join(FORMULA_STARTS).replace("-", r"\-") + "]")
    return frame.with_columns(
        pl.when(pl.col(c).str.contains(starts))
        .then(pl.lit("'") + pl.col(c))
        .otherwise(pl.col(c))
        .alias(c)
        for c in text
    )
