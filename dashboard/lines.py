"""Which lines a trend panel draws: at most ``MAX_LINES``, so a 4090 panel over twelve
platforms and two billing modes is not a tangle of two dozen lines.

Per panel the lines kept are, in this order: the platforms the user picked, then the
cheapest and the dearest line of each billing mode at its newest point, then the lines with
real prices (imported history, live scrapes, published prices: in the demo they are few
among the SIMULATED platforms, and they are what the panel is for), then the next
cheapest. A platform's real and simulated prices are one line here (one colour; the chart
draws the two kinds differently). The rest stay in the table and in the min–max band the
trend page draws across every platform; the page says how many were left out and where to
pick them.

A drawn line also breaks where its prices stop for longer than the grain allows
(:func:`split_at_gaps`): a platform captured in 2023 and again in 2026 is two pieces, never
a straight line across the years it was not seen.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import polars as pl

# Six: beyond it a panel's colours are hard to tell apart (issue 38); the grey band holds
# the rest.
MAX_LINES = 6
# The longest step between two points of one line that still reads as one line: about
# twice the grain, so a missed scrape or two bridges and a year without prices does not.
MAX_GAP = {"day": timedelta(days=2), "week": timedelta(days=14), "month": timedelta(days=62)}


def pick_lines(
    frame: pl.DataFrame,
    *,
    panel: str,
    platform: str,
    billing: str,
    value: str,
    period: str,
    chosen: Sequence[str] = (),
    limit: int = MAX_LINES,
    real: str | None = None,
) -> pl.DataFrame:
    """``frame`` (one row per period and line; a line is a platform and billing mode in a
    ``panel``) with a boolean column ``drawn``. ``real``: a boolean column, true where a
    point is a real price."""
    if frame.is_empty():
        return frame.with_columns(drawn=pl.lit(True))
    line = [panel, platform, billing]
    has_real = pl.col(real).any() if real is not None else pl.lit(False)
    newest = (
        frame.sort(period)
        .group_by(line, maintain_order=True)
        .agg(pl.col(value).drop_nulls().last().alias("_last"), has_real.alias("_real"))
    )
    extreme = (pl.col("_last") == pl.col("_last").min().over(panel, billing)) | (
        pl.col("_last") == pl.col("_last").max().over(panel, billing)
    )
    ranked = (
        newest.with_columns(
            _priority=pl.when(pl.col(platform).is_in(list(chosen)))
            .then(0)
            .when(extreme)
            .then(1)
            .when(pl.col("_real"))
            .then(2)
            .otherwise(3)
        )
        .sort(panel, "_priority", "_last", platform, nulls_last=True)
        .with_columns(_order=pl.int_range(1, pl.len() + 1).over(panel))
    )
    kept = ranked.filter(pl.col("_order") <= limit).select(line).with_columns(drawn=pl.lit(True))
    return frame.join(kept, on=line, how="left").with_columns(pl.col("drawn").fill_null(False))


def hidden_lines(frame: pl.DataFrame, panel: str, platform: str, billing: str) -> int:
    """How many lines ``pick_lines`` left out, over every panel."""
    if frame.is_empty() or "drawn" not in frame.columns:
        return 0
    lines = frame.select(panel, platform, billing, "drawn").unique()
    return int((~lines["drawn"]).sum())


def split_at_gaps(
    frame: pl.DataFrame, *, line: Sequence[str], period: str, grain: str
) -> pl.DataFrame:
    """``frame`` with an integer column ``segment``, counting from 0 within each ``line``
    (its key columns) and going up by one after every step between consecutive periods
    longer than ``MAX_GAP[grain]``. A chart that draws one path per line and segment breaks
    the line there instead of bridging the missing days."""
    if frame.is_empty():
        return frame.with_columns(segment=pl.lit(0, dtype=pl.Int64))
    key = list(line)
    step = pl.col(period).cast(pl.Date).diff().over(key)
    return (
        frame.sort([*key, period])
        .with_columns(segment=(step > MAX_GAP[grain]).fill_null(False).cast(pl.Int64))
        .with_columns(pl.col("segment").cum_sum().over(key))
    )
