"""The pre-aggregated offer tables ``offer_daily`` and ``offer_monthly`` (migration 005),
kept incrementally.

A row aggregates one day (month) of one platform, card, billing mode and region, and of one
kind of data: real and SIMULATED rows of the same source and day are two rows (``simulated``
is part of the key since migration 012), so a trend never averages an imported real capture
with the demo's simulated price of that day. A real row also keeps where its prices come
from: ``origin``, the citation of its earliest cited observation (the Internet Archive URL
of a capture, the GitHub URL of a catalog commit, a tracker file's or a seed's citation),
and ``origins``, how many distinct citations it holds (a month: the days' counts summed).
Simulated rows and real rows without a citation (a live scrape: its page is in raw_page)
have no origin and ``origins = 0``.

``refresh_offer_daily`` runs inside the derive step's transaction: for every (day, source)
that holds a pending offer snapshot it deletes that day's rows and aggregates the day again
from ``offer``, then each (month, source) of those days again from ``offer_daily``. Its
work therefore grows with the new snapshots (one day of one platform each), never with
the history; the literal day bounds let DuckDB skip every row group of ``offer`` outside
them by its min/max (zone maps).

Readers (warehouse.read.dashboard) read both from the serving copy (warehouse.store.serving),
which the derive step brings up to date after every run; without one, from the warehouse,
combined with the raw offers observed after the watermark (``max(last_observed_at)``).
"""

from __future__ import annotations

from datetime import timedelta

import duckdb

from warehouse.public import PUBLIC
from warehouse.store.db import drop_work_tables

NO_REGION = "(none)"

# One row of offer_daily, aggregated from raw offers; {where} narrows the offers.
DAILY_SELECT = f"""
    SELECT observed_at::DATE AS day, source, gpu, billing,
           coalesce(region, '{NO_REGION}') AS region,
           count(*) AS observations,
           sum(cny_per_card_hour)::DECIMAL(38, 6) AS sum_cny_per_card_hour,
           min(cny_per_card_hour) AS min_cny_per_card_hour,
           max(cny_per_card_hour) AS max_cny_per_card_hour,
           simulated,
           min(observed_at) AS first_observed_at, max(observed_at) AS last_observed_at,
           arg_min(citation, observed_at) FILTER (WHERE citation IS NOT NULL AND NOT simulated)
               AS origin,
           (count(DISTINCT citation) FILTER (WHERE NOT simulated))::INTEGER AS origins
    FROM offer
    WHERE gpu <> 'unknown' AND {PUBLIC} AND {{where}}
    GROUP BY ALL
"""

# One row of offer_monthly, aggregated from offer_daily; {where} narrows the days.
MONTHLY_SELECT = """
    SELECT date_trunc('month', day)::DATE AS month, source, gpu, billing, region,
           sum(observations)::BIGINT AS observations,
           sum(sum_cny_per_card_hour)::DECIMAL(38, 6) AS sum_cny_per_card_hour,
           min(min_cny_per_card_hour) AS min_cny_per_card_hour,
           max(max_cny_per_card_hour) AS max_cny_per_card_hour,
           simulated,
           min(first_observed_at) AS first_observed_at, max(last_observed_at) AS last_observed_at,
           arg_min(origin, first_observed_at) FILTER (WHERE origin IS NOT NULL) AS origin,
           sum(origins)::INTEGER AS origins
    FROM offer_daily
    WHERE {where}
    GROUP BY ALL
"""


def refresh_offer_daily(con: duckdb.DuckDBPyConnection, pending: str = "pending_offer") -> int:
    """Re-aggregate every (day, source) of the snapshots in table ``pending``
    (columns source, observed_at); returns the rows written."""
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE daily_key AS "
        f"SELECT DISTINCT source, observed_at::DATE AS day FROM {pending}"
    )
    try:
        low, high = con.execute("SELECT min(day), max(day) FROM daily_key").fetchone()
        if low is None:
            return 0
        bounds = {"low": low, "end": high + timedelta(days=1)}
        con.execute(
            "DELETE FROM offer_daily d USING daily_key k "
            "WHERE d.day >= $low AND d.day <= $high AND d.source = k.source AND d.day = k.day",
            {"low": low, "high": high},
        )
        written = con.execute(
            "INSERT INTO offer_daily BY NAME "
            + DAILY_SELECT.format(
                where="observed_at >= $low::TIMESTAMP AND observed_at < $end::TIMESTAMP "
                "AND (source, observed_at::DATE) IN (SELECT (source, day) FROM daily_key)"
            ),
            bounds,
        ).fetchone()[0]
        # The months of those days, again from offer_daily (at most 31 days each).
        con.execute(
            "CREATE OR REPLACE TEMP TABLE monthly_key AS "
            "SELECT DISTINCT source, date_trunc('month', day)::DATE AS month FROM daily_key"
        )
        low, high = con.execute("SELECT min(month), max(month) FROM monthly_key").fetchone()
        con.execute(
            "DELETE FROM offer_monthly m USING monthly_key k WHERE m.month >= $low "
            "AND m.month <= $high AND m.source = k.source AND m.month = k.month",
            {"low": low, "high": high},
        )
        con.execute(
            "INSERT INTO offer_monthly BY NAME "
            + MONTHLY_SELECT.format(
                where="day >= $low AND day < $high + INTERVAL 1 MONTH "
                "AND (source, date_trunc('month', day)::DATE) "
                "IN (SELECT (source, month) FROM monthly_key)"
            ),
            {"low": low, "high": high},
        )
        return written
    finally:
        drop_work_tables(con, "daily_key", "monthly_key")


def rebuild_offer_daily(con: duckdb.DuckDBPyConnection) -> int:
    """Forget offer_daily and offer_monthly and aggregate every offer again (full recompute)."""
    con.execute("DELETE FROM offer_daily")
    con.execute("DELETE FROM offer_monthly")
    written = con.execute(
        "INSERT INTO offer_daily BY NAME " + DAILY_SELECT.format(where="true") + " ORDER BY 1, 2"
    ).fetchone()[0]
    con.execute(
        "INSERT INTO offer_monthly BY NAME "
        + MONTHLY_SELECT.format(where="true")
        + " ORDER BY 1, 2"
    )
    return written
