"""Where a real price comes from, shortened for reading.

A real row cites its origin (warehouse.derive.rollup keeps the first citation of each
point): the Internet Archive's URL of a pricing-page capture
(``https://web.archive.org/web/20230929070808id_/https://www.runpod.io/gpu-instance/pricing``),
the GitHub URL of a catalog commit, a tracker file's citation with its lines and digest, or
a seed article's. Whole, they are too long to read beside a price; the chart's tooltip and
the table's last column keep them whole, and the rest of the page shows them short: the
archive, the capture's day and the page; the repository and the commit's first seven
digits; any other citation without its embedded URLs, cut at ``LIMIT`` characters.
"""

from __future__ import annotations

import re

import polars as pl

from dashboard.i18n import t

LIMIT = 64
_WAYBACK = re.compile(
    r"^https?://web\.archive\.org/web/(\d{4})(\d{2})(\d{2})\d*(?:[a-z]{2}_)?/"
    r"(?:https?://)?(?:www\.)?(?P<page>.+?)/?$"
)
_COMMIT = re.compile(
    r"^https?://github\.com/(?P<repo>[^/\s]+/[^/\s]+)/commit/(?P<sha>[0-9a-f]{7,})"
)
_EMBEDDED_URL = re.compile(r"\s*\(https?://[^)\s]*\)")


def short_origin(origin: str) -> str:
    """``origin`` shortened for reading."""
    if wayback := _WAYBACK.match(origin):
        year, month, day = wayback.group(1, 2, 3)
        return f"web.archive.org {year}-{month}-{day} · {_cut(wayback['page'], LIMIT - 28)}"
    if commit := _COMMIT.match(origin):
        return f"{commit['repo']}@{commit['sha'][:7]}"
    return _cut(_EMBEDDED_URL.sub("", origin), LIMIT)


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def origin_columns(frame: pl.DataFrame) -> list[pl.Expr]:
    """The origin columns of a table of points (``simulated``, ``origin``, ``origins``):
    ``origin``, short, with how many more citations the point holds ("… (+2)"), or what a
    point that cites nothing is (SIMULATED; a live scrape, whose page is in raw_page); and
    ``origin (whole)``, its first citation whole. The short forms are made here, on the
    script's thread (the page's language is not readable on a polars worker thread)."""
    shorts = {o: short_origin(o) for o in frame["origin"].drop_nulls().unique().to_list()}
    short = pl.col("origin").replace_strict(shorts, default=None, return_dtype=pl.String)
    more = pl.format("{} (+{})", short, pl.col("origins") - 1)
    return [
        pl.when(pl.col("origin").is_not_null())
        .then(pl.when(pl.col("origins") > 1).then(more).otherwise(short))
        .when(pl.col("simulated"))
        .then(pl.lit(t("origin.simulated")))
        .otherwise(pl.lit(t("origin.live")))
        .alias("origin"),
        pl.col("origin").alias("origin_whole"),
    ]
