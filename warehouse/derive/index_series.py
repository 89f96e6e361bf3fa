"""The price index's second step: each touched series (kind, card, rent mode) from its first
touched day on, from ``index_platform_day``, then a revision appended to ``price_index`` for
every day whose published figures changed.

Method v1 (docs/INDEX.md): the day's value is the median across platforms of their medians
(one vote each), published when at least ``min_platforms`` quote; the 1-, 7- and 30-day
changes are over the platforms that quote on both days (a matched sample), when both days
are published; the level is 100 on the series' first published day and moves by each
published day's matched ratio to the previous published day (the ratio of the values when
no platform quotes on both); the sold-out share is over the platforms that give stock.

What a day needs from before its series' first touched day (``since``) is read, not
recomputed: the platforms' medians 1 to 30 days back (``index_platform_day``), and the
newest published day before it with its level and value, and the newest quoting day's
platform set (the current revisions of ``price_index``). So a run's work is the days from
``since`` on, whatever the history.
"""

from __future__ import annotations

from datetime import date, datetime

import duckdb

from warehouse.derive.index_method import (
    CHANGE_DAYS,
    MIN_PLATFORMS,
    PUBLISHED,
    RELATIVE_TOLERANCE,
    WITHHELD,
)
from warehouse.store.config import IndexGates
from warehouse.store.db import drop_work_tables

_KEY = ("kind", "gpu", "billing")
_SAME_SERIES = " AND ".join(f"{{a}}.{k} = {{b}}.{k}" for k in _KEY)
WORK_TABLES = ("ix_from", "ix_day", "ix_anchor", "ix_new", "ix_changed")


def same_series(a: str, b: str) -> str:
    return _SAME_SERIES.format(a=a, b=b)


def compute_series(
    con: duckdb.DuckDBPyConnection, method: str, gates: IndexGates, now: datetime
) -> tuple[int, int]:
    """Recompute every series of the temp table ``index_touched`` from its first touched
    day on and append the revisions; returns (days computed, revisions appended)."""
    try:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE ix_from AS SELECT kind, gpu, billing, min(day) AS since "
            "FROM index_touched GROUP BY ALL"
        )
        low = con.execute("SELECT min(since) FROM ix_from").fetchone()[0]
        if low is None:
            return 0, 0
        _day_stats(con, method, gates, low)
        _anchors(con, method)
        _new_rows(con, gates, low)
        days = con.execute("SELECT count(*) FROM ix_new").fetchone()[0]
        return days, _append_revisions(con, method, gates, now, low)
    finally:
        drop_work_tables(con, *WORK_TABLES)


def _day_stats(con: duckdb.DuckDBPyConnection, method: str, gates: IndexGates, low: date) -> None:
    """``ix_day``: each day of the touched series from 30 days before ``since`` (the days the
    changes look back to) with the platforms' figures summed up, and each touched day that
    no platform quotes any more (``present`` false)."""
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE ix_day AS
        WITH days AS (
            SELECT p.kind, p.gpu, p.billing, p.day,
                   (count(*) FILTER (WHERE p.listings > 0))::INTEGER AS platforms,
                   sum(p.listings)::INTEGER AS observations,
                   median(p.median_cny_per_card_hour) AS median_all,
                   (sum(p.sold_out) FILTER (WHERE p.stock_known > 0))::DOUBLE
                       / sum(p.stock_known) FILTER (WHERE p.stock_known > 0) AS sold_out_share,
                   (count(*) FILTER (WHERE p.stock_known > 0))::INTEGER AS stock_platforms,
                   string_agg(p.source, ',' ORDER BY p.source) FILTER (WHERE p.listings > 0)
                       AS platform_set,
                   max(p.snapshot_at) AS last_snapshot_at,
                   sha256($prefix || string_agg(p.source || ':' || p.inputs_hash, ','
                                                ORDER BY p.source)) AS inputs_hash
            FROM index_platform_day p JOIN ix_from f ON {same_series("p", "f")}
            WHERE p.day >= $low::DATE - 30 AND p.day >= f.since - 30
            GROUP BY ALL
        ), keys AS (
            SELECT kind, gpu, billing, day FROM days
            UNION SELECT kind, gpu, billing, day FROM index_touched
        )
        SELECT k.*, d.day IS NOT NULL AS present,
               coalesce(d.platforms, 0) AS platforms, coalesce(d.observations, 0) AS observations,
               d.median_all, d.sold_out_share, coalesce(d.stock_platforms, 0) AS stock_platforms,
               d.platform_set, d.last_snapshot_at,
               coalesce(d.inputs_hash, sha256($prefix)) AS inputs_hash,
               CASE WHEN coalesce(d.platforms, 0) >= $min THEN '{PUBLISHED}'
                    ELSE '{WITHHELD}' END AS status
        FROM keys k LEFT JOIN days d USING (kind, gpu, billing, day)
        """,
        {"low": low, "min": gates.min_platforms, "prefix": f"{method}|"},
    )


def _anchors(con: duckdb.DuckDBPyConnection, method: str) -> None:
    """``ix_anchor``: per touched series, from its current revisions before ``since``: the
    newest published day with its value and level, and the newest quoting day's platforms."""
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE ix_anchor AS
        SELECT c.kind, c.gpu, c.billing,
               max(c.day) FILTER (WHERE c.status = '{PUBLISHED}') AS pub_day,
               arg_max(c.value_cny_per_card_hour, c.day) FILTER (WHERE c.status = '{PUBLISHED}')
                   AS pub_value,
               arg_max(c.level, c.day) FILTER (WHERE c.status = '{PUBLISHED}') AS pub_level,
               arg_max(c.platform_set, c.day) FILTER (WHERE c.platforms > 0) AS prev_set
        FROM price_index c JOIN ix_from f ON {same_series("c", "f")}
        WHERE c.method = $method AND c.superseded_at IS NULL AND c.day < f.since
        GROUP BY ALL
        """,
        {"method": method},
    )


def _matched(rows: str, back: str, extra: str = "", where: str = "") -> str:
    """The matched sample of two days of a series (each row of ``rows``: its ``day`` and the
    day ``back``): the median of the platforms' medians on the day over their median on the
    day back, over the platforms quoting on both, and how many they are."""
    return f"""
        SELECT r.kind, r.gpu, r.billing, r.day, {extra}
               median(a.median_cny_per_card_hour) / median(b.median_cny_per_card_hour) AS ratio,
               count(*)::INTEGER AS used
        FROM {rows} r
        JOIN index_platform_day a ON {same_series("a", "r")} AND a.day = r.day
        JOIN index_platform_day b ON {same_series("b", "r")} AND b.day = {back}
                                  AND b.source = a.source
        WHERE a.listings > 0 AND b.listings > 0 AND a.day >= $low AND b.day >= $back_low {where}
        GROUP BY ALL
    """


def _new_rows(con: duckdb.DuckDBPyConnection, gates: IndexGates, low: date) -> None:
    """``ix_new``: every day of the touched series from ``since`` on, as it would be
    published now."""
    back_low = con.execute(
        "SELECT least(min(pub_day), $low::DATE - 30) FROM ix_anchor", {"low": low}
    ).fetchone()[0]
    changes = _matched("back", "r.day - r.n", extra="r.n,")
    links = _matched("ordered", "r.prev_day", where="AND NOT r.anchor")
    change_columns = ", ".join(
        f"max(c.ratio - 1) FILTER (WHERE c.n = {n}) AS change_{n}d, "
        f"max(c.used) FILTER (WHERE c.n = {n}) AS change_{n}d_platforms"
        for n in CHANGE_DAYS
    )
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE ix_new AS
        WITH emit AS (
            SELECT d.* FROM ix_day d JOIN ix_from f ON {same_series("d", "f")}
            WHERE d.day >= f.since
        ), back AS (
            SELECT e.kind, e.gpu, e.billing, e.day, n.n FROM emit e
            CROSS JOIN (SELECT unnest({list(CHANGE_DAYS)}) AS n) n
            JOIN ix_day p ON {same_series("p", "e")} AND p.day = e.day - n.n
                         AND p.status = '{PUBLISHED}'
            WHERE e.status = '{PUBLISHED}'
        ), matched_changes AS (
            {changes}
        ), by_days AS (
            SELECT kind, gpu, billing, day, {change_columns} FROM matched_changes c GROUP BY ALL
        ), pubs AS (
            SELECT kind, gpu, billing, day, median_all AS value, false AS anchor
            FROM emit WHERE status = '{PUBLISHED}'
            UNION ALL
            SELECT kind, gpu, billing, pub_day, pub_value, true FROM ix_anchor
            WHERE pub_day IS NOT NULL
        ), ordered AS (
            SELECT *, lag(day) OVER w AS prev_day, lag(value) OVER w AS prev_value FROM pubs
            WINDOW w AS (PARTITION BY kind, gpu, billing ORDER BY day)
        ), link_match AS (
            {links}
        ), linked AS (
            SELECT o.kind, o.gpu, o.billing, o.day,
                   CASE WHEN o.prev_day IS NULL THEN 1.0
                        ELSE coalesce(m.ratio, o.value / o.prev_value) END AS link
            FROM ordered o LEFT JOIN link_match m USING (kind, gpu, billing, day)
            WHERE NOT o.anchor
        ), levels AS (
            SELECT l.kind, l.gpu, l.billing, l.day,
                   coalesce(a.pub_level, 100.0) * exp(sum(ln(l.link)) OVER (
                       PARTITION BY l.kind, l.gpu, l.billing ORDER BY l.day
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)) AS level
            FROM linked l LEFT JOIN ix_anchor a USING (kind, gpu, billing)
        ), sets AS (
            SELECT e.kind, e.gpu, e.billing, e.day,
                   coalesce(last_value(e.platform_set IGNORE NULLS) OVER (
                       PARTITION BY e.kind, e.gpu, e.billing ORDER BY e.day
                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), a.prev_set) AS prev_set
            FROM emit e LEFT JOIN ix_anchor a USING (kind, gpu, billing)
        )
        SELECT e.kind, e.gpu, e.billing, e.day, e.present, e.status,
               CASE WHEN e.status = '{WITHHELD}' THEN '{MIN_PLATFORMS}' END AS gate,
               CASE WHEN e.status = '{WITHHELD}'
                    THEN e.platforms || ' platform(s) quoted; at least ' || $min || ' needed'
               END AS gate_reason,
               CASE WHEN e.status = '{PUBLISHED}' THEN e.median_all END
                   AS value_cny_per_card_hour,
               e.platforms, e.observations, e.sold_out_share, e.stock_platforms,
               p.* EXCLUDE (kind, gpu, billing, day), v.level,
               coalesce(e.platform_set, '') AS platform_set,
               coalesce(coalesce(e.platform_set, '') <> s.prev_set, false) AS platforms_changed,
               e.last_snapshot_at, e.inputs_hash
        FROM emit e
        LEFT JOIN by_days p USING (kind, gpu, billing, day)
        LEFT JOIN levels v USING (kind, gpu, billing, day)
        LEFT JOIN sets s USING (kind, gpu, billing, day)
        """,
        {"low": low, "back_low": back_low, "min": gates.min_platforms},
    )


# The columns a revision is about: a change in any of them (beyond RELATIVE_TOLERANCE for
# the doubles) appends one.
EXACT = (
    "status", "gate", "platforms", "observations", "stock_platforms", "change_1d_platforms",
    "change_7d_platforms", "change_30d_platforms", "platform_set", "platforms_changed",
    "inputs_hash",
)  # fmt: skip
APPROXIMATE = (
    "value_cny_per_card_hour", "sold_out_share", "change_1d", "change_7d", "change_30d",
    "level",
)  # fmt: skip


def _differs() -> str:
    exact = [f"n.{c} IS DISTINCT FROM c.{c}" for c in EXACT]
    approximate = [
        f"(n.{c} IS NULL) <> (c.{c} IS NULL) OR abs(n.{c} - c.{c}) > "
        f"{RELATIVE_TOLERANCE} * greatest(abs(n.{c}), abs(c.{c}))"
        for c in APPROXIMATE
    ]
    return " OR ".join(f"({test})" for test in exact + approximate)


def _append_revisions(
    con: duckdb.DuckDBPyConnection, method: str, gates: IndexGates, now: datetime, low: date
) -> int:
    """Append a revision for every new day and every day whose figures changed (a day that
    no platform quotes any more is kept as a withheld revision); mark what it supersedes."""
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE ix_changed AS
        SELECT n.* EXCLUDE (present), coalesce(c.revision, 0) + 1 AS revision
        FROM ix_new n
        LEFT JOIN price_index c
          ON c.method = $method AND c.superseded_at IS NULL AND c.day >= $low
         AND {same_series("c", "n")} AND c.day = n.day
        WHERE CASE WHEN c.revision IS NULL THEN n.present ELSE {_differs()} END
        """,
        {"method": method, "low": low},
    )
    con.execute(
        f"UPDATE price_index c SET superseded_at = $now FROM ix_changed n "
        f"WHERE c.method = $method AND c.superseded_at IS NULL AND c.day >= $low "
        f"AND {same_series('c', 'n')} AND c.day = n.day",
        {"method": method, "now": now, "low": low},
    )
    return con.execute(
        "INSERT INTO price_index BY NAME "
        "SELECT *, $method AS method, $now AS published_at, $gates AS gates FROM ix_changed",
        {"method": method, "now": now, "gates": gates.as_json()},
    ).fetchone()[0]
