"""The price index's first step: per platform, the median of its listings in its last
snapshot of the day (``index_platform_day``), for the (source, day)s a derive touches.

Method v1 (docs/INDEX.md): a platform's snapshot is every row it listed at one
``observed_at``; its last snapshot of a UTC day is the one with the latest ``observed_at`` of
that day, per kind of data (a real capture and the demo's SIMULATED prices of one source
are two platforms' days that never meet). In it, per card and rent mode: the median CNY per
card-hour of the listings the public pays for whose stock is not 0 (unknown stock counts),
how many there were, how many were sold out and how many gave their stock. Quarantined and
rejected rows never reach ``offer``, so they never enter.
"""

from __future__ import annotations

from datetime import timedelta

import duckdb

from warehouse.derive.index_method import MODES_SQL, kind_sql
from warehouse.public import public

# Every platform-day of the (source, day)s in the temp table index_key; $low / $end are
# literal day bounds, so DuckDB skips every row group of offer outside them.
PLATFORM_SELECT = """
    WITH listed AS (
        SELECT o.observed_at::DATE AS day, {kind} AS kind, o.source, o.observed_at, o.gpu,
               o.billing, o.offer_id, o.cny_per_card_hour, o.stock, {public} AS public
        FROM offer o
        WHERE o.observed_at >= $low::TIMESTAMP AND o.observed_at < $end::TIMESTAMP
          AND (o.source, o.observed_at::DATE) IN (SELECT (source, day) FROM index_key)
    ), last AS (
        SELECT day, kind, source, max(observed_at) AS snapshot_at FROM listed GROUP BY ALL
    )
    SELECT l.day, l.kind, l.gpu, l.billing, l.source, s.snapshot_at,
           median(l.cny_per_card_hour::DOUBLE) FILTER (WHERE l.stock IS DISTINCT FROM 0)
               AS median_cny_per_card_hour,
           (count(*) FILTER (WHERE l.stock IS DISTINCT FROM 0))::INTEGER AS listings,
           (count(*) FILTER (WHERE l.stock = 0))::INTEGER AS sold_out,
           count(l.stock)::INTEGER AS stock_known,
           sha256(string_agg(concat_ws('|', l.offer_id, l.billing, l.cny_per_card_hour,
                                       l.stock), ';' ORDER BY l.offer_id, l.billing))
               AS inputs_hash
    FROM listed l
    JOIN last s ON s.day = l.day AND s.kind = l.kind AND s.source = l.source
               AND s.snapshot_at = l.observed_at
    WHERE l.public AND l.gpu <> 'unknown' AND l.billing IN ({modes})
    GROUP BY ALL
"""


def refresh_platform_days(con: duckdb.DuckDBPyConnection) -> int:
    """Replace the ``index_platform_day`` rows of every (source, day) in the temp table
    ``index_key`` with what ``offer`` holds now, and add the series-days they were or are
    part of to the temp table ``index_touched`` (kind, gpu, billing, day). Returns the rows
    written."""
    low, high = con.execute("SELECT min(day), max(day) FROM index_key").fetchone()
    if low is None:
        return 0
    days = {"low": low, "high": high}
    touched = (
        "SELECT DISTINCT p.kind, p.gpu, p.billing, p.day FROM index_platform_day p "
        "JOIN index_key k ON k.source = p.source AND k.day = p.day "
        "WHERE p.day >= $low AND p.day <= $high"
    )
    con.execute(f"INSERT INTO index_touched {touched}", days)  # what was there
    con.execute(
        "DELETE FROM index_platform_day p USING index_key k "
        "WHERE p.day >= $low AND p.day <= $high AND p.source = k.source AND p.day = k.day",
        days,
    )
    select = PLATFORM_SELECT.format(kind=kind_sql("o"), public=public("o"), modes=MODES_SQL)
    written = con.execute(
        f"INSERT INTO index_platform_day BY NAME {select}",
        {"low": low, "end": high + timedelta(days=1)},
    ).fetchone()[0]
    con.execute(f"INSERT INTO index_touched {touched}", days)  # what is there now
    return written
