"""Read-only views of the price index (docs/INDEX.md): the series as published now or as of a
past time, the front page's overview and the outside figures' spreads (the asset check of
the gates: warehouse.read.index_checks). Every function opens the warehouse read-only, per
query (or one connection per page: warehouse.read.batch). Kept light to import:
`gpuprice index` answers within a second (docs/PERFORMANCE.md)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

import polars as pl

from warehouse.derive.index_method import METHOD, PUBLISHED, WITHHELD
from warehouse.read.batch import WAIT_S, Query, read_frames
from warehouse.store.db import read_connection, read_frame
from warehouse.store.handle import Warehouse

# What a row of `gpuprice index` and of the open dataset holds, in this order; the first
# fifteen are the JSON fields (value: CNY per card-hour, changes: fractions,
# 0.05 = +5 %).
COLUMNS = (
    "day", "card", "billing", "kind", "value", "platforms", "observations", "sold_out_share",
    "status", "gate", "change_1d", "change_7d", "change_30d", "level", "method",
    "gate_reason", "stock_platforms", "change_1d_platforms", "change_7d_platforms",
    "change_30d_platforms", "platform_set", "platforms_changed", "last_snapshot_at",
    "revision", "published_at", "superseded_at", "inputs_hash", "gates",
)  # fmt: skip
_SELECT = """
    day, gpu AS card, billing, kind, value_cny_per_card_hour AS value, platforms,
    observations, sold_out_share, status, gate, change_1d, change_7d, change_30d, level,
    method, gate_reason, stock_platforms, change_1d_platforms, change_7d_platforms,
    change_30d_platforms, platform_set, platforms_changed, last_snapshot_at, revision,
    published_at, superseded_at, inputs_hash, gates
"""
# The revision a day had at $as_of (NULL: the current one).
AS_OF = """
    CASE WHEN $as_of IS NULL THEN superseded_at IS NULL
         ELSE published_at <= $as_of AND (superseded_at IS NULL OR superseded_at > $as_of) END
"""


@dataclass(frozen=True, slots=True)
class IndexFilter:
    """Which rows: one card, one mode, a span of days, one kind, as of a time, a method."""

    card: str | None = None
    billing: str | None = None
    first: date | None = None
    last: date | None = None
    as_of: datetime | None = None  # naive UTC; None: as published now
    kind: str | None = None  # 'real' | 'SIMULATED'; None: both
    method: str = METHOD

    def where(self) -> str:
        return f"""
            method = $method AND ({AS_OF})
            AND ($card IS NULL OR gpu = $card) AND ($billing IS NULL OR billing = $billing)
            AND ($kind IS NULL OR kind = $kind)
            AND ($first IS NULL OR day >= $first) AND ($last IS NULL OR day <= $last)
        """

    def params(self) -> dict[str, object]:
        return {
            "method": self.method,
            "as_of": self.as_of,
            "card": self.card,
            "billing": self.billing,
            "kind": self.kind,
            "first": self.first,
            "last": self.last,
        }


def index_rows_query(chosen: IndexFilter) -> Query:
    return (
        f"SELECT {_SELECT} FROM price_index WHERE {chosen.where()} "
        "ORDER BY kind, card, billing, day",
        chosen.params(),
    )


def index_rows(warehouse: Warehouse, chosen: IndexFilter = IndexFilter()) -> pl.DataFrame:
    """The index's rows (COLUMNS), one per series and day, as published now or at
    ``chosen.as_of``; oldest day first."""
    return read_frame(warehouse, *index_rows_query(chosen))


def index_records(
    warehouse: Warehouse, chosen: IndexFilter = IndexFilter()
) -> tuple[list[str], list[tuple]]:
    """``index_rows`` as (column names, plain rows): what `gpuprice index` prints, read
    without Arrow (a frame would import pyarrow: a fifth of the command's time)."""
    with read_connection(warehouse) as con:
        cursor = con.execute(*index_rows_query(chosen))
        return [d[0] for d in cursor.description], cursor.fetchall()


def all_revisions(warehouse: Warehouse) -> pl.DataFrame:
    """Every revision of every method, current and superseded (the open dataset)."""
    return read_frame(
        warehouse,
        f"SELECT {_SELECT} FROM price_index ORDER BY method, kind, card, billing, day, revision",
    )


def index_kinds(warehouse: Warehouse) -> pl.DataFrame:
    """Per kind: days published and withheld, the first and newest day, the cards."""
    return read_frame(warehouse, *_kinds_query())


def _kinds_query() -> Query:
    return (
        f"""
        SELECT kind, count(*) FILTER (WHERE status = '{PUBLISHED}') AS published,
               count(*) FILTER (WHERE status = '{WITHHELD}') AS withheld,
               min(day) AS first_day, max(day) AS last_day,
               max(day) FILTER (WHERE status = '{PUBLISHED}') AS last_published_day,
               count(DISTINCT gpu) FILTER (WHERE status = '{PUBLISHED}') AS cards
        FROM price_index WHERE method = $method AND superseded_at IS NULL
        GROUP BY kind ORDER BY kind
        """,
        {"method": METHOD},
    )


def _series_query(days: int) -> Query:
    """The current rows of each kind over the ``days`` days up to that kind's newest day."""
    return (
        """
        SELECT day, kind, gpu AS card, billing, status, gate, gate_reason,
               value_cny_per_card_hour AS value, level, platforms, observations,
               sold_out_share, stock_platforms, change_1d, change_7d, change_30d,
               change_7d_platforms, change_30d_platforms, platform_set, platforms_changed,
               last_snapshot_at, (gates::JSON ->> 'min_platforms')::INTEGER AS gate_needs
        FROM price_index
        WHERE method = $method AND superseded_at IS NULL
        QUALIFY day > max(day) OVER (PARTITION BY kind) - $days
        ORDER BY kind, card, billing, day
        """,
        {"method": METHOD, "days": days},
    )


def index_history(warehouse: Warehouse, kind: str, rows: int = 5000) -> pl.DataFrame:
    """The newest ``rows`` current days of ``kind`` (every card and mode) with their status
    and platforms: where a kind's history is and why it was withheld (the front page's strip
    for a kind that published nothing lately)."""
    return read_frame(
        warehouse,
        """
        SELECT day, gpu AS card, billing, status, platforms, value_cny_per_card_hour AS value,
               (gates::JSON ->> 'min_platforms')::INTEGER AS gate_needs
        FROM price_index
        WHERE method = $method AND kind = $kind AND superseded_at IS NULL
        ORDER BY day DESC LIMIT $rows
        """,
        {"method": METHOD, "kind": kind, "rows": rows},
    )


# The basis of a market quote says which rent mode it prices: a whole server by the month
# (整机 … 包月) is bare metal, 包月 alone the monthly plan, by the hour hourly.
QUOTE_MODE = """
    CASE WHEN basis LIKE '%整机%' AND basis LIKE '%包月%' THEN 'bare_metal_monthly'
         WHEN basis LIKE '%包月%' THEN 'monthly'
         WHEN basis LIKE '%按时%' OR basis LIKE '%小时%' THEN 'hourly' END
"""
# Every outside figure beside the index of its day, mode and kind; $first / $end bound the
# days ($end exclusive, NULL: unbounded), $kind the kind (NULL: both).
FIGURES = f"""
    WITH figure AS (
        SELECT observed_at::DATE AS day, gpu, billing, source, 'real' AS kind,
               NULL::VARCHAR AS region, 'list price' AS basis,
               median(cny_per_card_hour::DOUBLE) AS figure, any_value(citation) AS citation
        FROM offer
        WHERE source LIKE '%-published' AND gpu <> 'unknown'
          AND ($first IS NULL OR observed_at >= $first::TIMESTAMP)
          AND ($end IS NULL OR observed_at < $end::TIMESTAMP)
        GROUP BY ALL
        UNION ALL
        SELECT observed_at::DATE, gpu, {QUOTE_MODE}, source,
               CASE WHEN simulated THEN 'SIMULATED' ELSE 'real' END, region, basis,
               arg_max(cny_per_card_hour::DOUBLE, observed_at),
               any_value(coalesce(citation, source))
        FROM spot_quote
        WHERE source IN ('smm', 'smm-published') AND quote_kind = 'market_average'
          AND gpu <> 'unknown'
          AND ($first IS NULL OR observed_at >= $first::TIMESTAMP)
          AND ($end IS NULL OR observed_at < $end::TIMESTAMP)
        GROUP BY ALL
    )
    SELECT f.day, f.gpu AS card, f.billing, f.kind, f.source, f.region, f.basis,
           f.figure AS figure_cny_per_card_hour, f.citation,
           i.status AS index_status, i.value_cny_per_card_hour AS index_cny_per_card_hour,
           i.platforms AS index_platforms,
           (i.gates::JSON ->> 'min_platforms')::INTEGER AS index_gate_needs,
           coalesce(i.gate_reason, CASE WHEN i.day IS NULL THEN 'no index that day' END)
               AS index_note,
           f.figure - i.value_cny_per_card_hour AS spread_cny_per_card_hour,
           f.figure / i.value_cny_per_card_hour - 1 AS spread_ratio
    FROM figure f
    LEFT JOIN price_index i
      ON i.method = $method AND i.superseded_at IS NULL AND i.kind = f.kind
     AND i.gpu = f.gpu AND i.billing = f.billing AND i.day = f.day
    WHERE f.billing IS NOT NULL AND ($kind IS NULL OR f.kind = $kind)
"""


def spreads_query(
    first: date | None = None, last: date | None = None, kind: str | None = None
) -> Query:
    """The outside figures (the seeds' published prices, SMM's quotes: each its last of the
    day) beside the index of the same day, mode and kind: the figure minus the index in CNY
    per card-hour and figure ÷ index − 1, NULL with the reason when that day's index was
    withheld or there was none."""
    end = last + timedelta(days=1) if last is not None else None
    return (
        FIGURES + " ORDER BY f.day DESC, f.source, card, f.billing, f.region",
        {"method": METHOD, "first": first, "end": end, "kind": kind},
    )


def spreads(
    warehouse: Warehouse,
    first: date | None = None,
    last: date | None = None,
    kind: str | None = None,
) -> pl.DataFrame:
    """``spreads_query`` read."""
    return read_frame(warehouse, *spreads_query(first, last, kind))


def index_overview(
    warehouse: Warehouse, days: int = 90, wait_s: float = WAIT_S
) -> dict[str, pl.DataFrame | None]:
    """The front page's tables in one read: ``kinds`` (index_kinds), ``series`` (the current
    rows of each kind over the last ``days`` days to its newest) and ``spreads`` (every
    outside figure beside the index)."""
    queries = {
        "kinds": _kinds_query(),
        "series": _series_query(days),
        "spreads": spreads_query(),
    }
    return read_frames(warehouse, queries, wait_s=wait_s)
