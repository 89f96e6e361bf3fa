"""How a figure reads on screen: money at two to four decimals, hours, percentages.

A price column comes out of DuckDB as DECIMAL(18, 6), which a grid or a chart axis prints
as ``5.325000``. Every frame a page shows or draws goes through :func:`plain_numbers`
first, and every amount written into a sentence through :func:`money`.
"""

from __future__ import annotations

import polars as pl

from scrapers.rows import HOURS_PER_MONTH

# Vega-Lite (d3-format): up to four decimals with the trailing zeros trimmed; ticks then
# read 1.5, 1.75, 2, never 1.500000.
AXIS_MONEY = ",.4~f"
AXIS_HOURS = ",.0f"


def money(value: float | None, unit: str = "") -> str:
    """``¥1.24``, ``¥1.595``, ``¥0.0123``, ``¥14.70``: two decimals, up to four when the
    value needs them (a card-hour at ¥0.0123 would read ¥0.01 at two), then ``unit``."""
    if value is None or value != value:
        return "—"
    text = f"{float(value):,.4f}".rstrip("0")
    whole, _, decimals = text.partition(".")
    return f"¥{whole}.{decimals.ljust(2, '0')}{unit}"


def percent(value: float | None) -> str:
    """A change as a signed percentage (``+3.2%``), or "—" when there is none."""
    if value is None or value != value:
        return "—"
    return f"{value:+.1%}"


def pays_off(hours: float | None) -> bool:
    """Whether a breakeven falls within a month: above 720 h bare metal never pays off."""
    return hours is not None and hours <= HOURS_PER_MONTH


def plain_numbers(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with its DECIMAL columns as floats (what a chart and a grid print well)."""
    decimals = [name for name, dtype in frame.schema.items() if dtype.is_decimal()]
    if not decimals:
        return frame
    return frame.with_columns(pl.col(decimals).cast(pl.Float64))
