"""Derived metrics: card_value, monthly_discount, breakeven and market_premium.

``derive`` computes only the snapshots not derived yet, in one transaction. A snapshot is
every offer (or spot quote) of one source with one ``observed_at``; the ledger
``derived_snapshot`` remembers each derived snapshot with its row count, so a snapshot
whose pages arrive late (count changed) is derived again and everything else is left alone.
The work of a run therefore grows with the new snapshots, not with the history. Formulas,
units and the matching rules are in docs/METRICS.md.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from datetime import datetime

import duckdb

from scrapers.rows import HOURS_PER_MONTH
from warehouse.derive.index import IndexSummary, refresh_index
from warehouse.derive.rollup import rebuild_offer_daily, refresh_offer_daily
from warehouse.public import public
from warehouse.store.config import IndexGates
from warehouse.store.db import (
    WarehouseBusy,
    drop_work_tables,
    utcnow,
    with_more_memory,
    write_connection,
)
from warehouse.store.handle import Warehouse
from warehouse.store.serving import SyncSummary, mark_all, mark_changed, sync

DERIVED_TABLES = ("card_value", "monthly_discount", "breakeven", "market_premium")

# The cross-platform line uses each platform's newest snapshot no older than this.
CHEAPEST_MAX_AGE_HOURS = 72
# A listing is compared with market quotes no older than this.
QUOTE_MAX_AGE_DAYS = 31
# |stated − computed| above this is a disagreement (prices rounded to the cent move a ratio
# by at most 0.005 / list price, well under 0.01 for any list price above ¥0.50).
DISCOUNT_TOLERANCE = 0.01
CHEAPEST = "cheapest"
NATIONAL_AVERAGE = "全国均值"

# Which comparison class a row belongs to: listings are only compared with quotes of the same
# class, and the cheapest line only mixes platforms of the same class.
_CLASS = (
    "CASE WHEN {t}.source LIKE '%-published' THEN 'published' "
    "WHEN {t}.simulated THEN 'simulated' ELSE 'live' END"
)


class ReferenceMissing(RuntimeError):
    """gpu_spec is empty: load the reference data before deriving."""


@dataclass(frozen=True, slots=True)
class DeriveSummary:
    offer_snapshots: int  # offer snapshots (re)derived
    quote_snapshots: int  # new quote snapshots taken into account
    rows: dict[str, int]  # rows written per derived table
    seconds: float
    full: bool
    memory_limit: str | None = None  # the larger DuckDB limit a backlog needed, if any
    serving: SyncSummary | None = None  # the serving copy brought up to date after it
    serving_error: str | None = None  # why it could not be (its days stay queued)
    index: IndexSummary | None = None  # what the price index step did (docs/INDEX.md)

    def line(self) -> str:
        written = ", ".join(f"{t} {n}" for t, n in self.rows.items())
        what = "full recompute" if self.full else "incremental"
        line = (
            f"derive ({what}): {self.offer_snapshots} offer snapshot(s), "
            f"{self.quote_snapshots} quote snapshot(s); rows {written}; {self.seconds:.3f} s"
        )
        if self.memory_limit is not None:
            line += f" (a backlog: needed DuckDB memory_limit {self.memory_limit})"
        if self.serving is not None:
            line += f"; {self.serving.line()}"
        if self.serving_error is not None:
            line += f"; serving copy NOT updated: {self.serving_error}"
        return line


def derive(
    warehouse: Warehouse, *, full: bool = False, now: datetime | None = None
) -> DeriveSummary:
    """Derive every snapshot not derived yet (``full``: forget the ledger, derive all), then
    bring the dashboard's serving copy up to date (warehouse.store.serving). A copy that fails is
    reported in the summary and retried by the next run; the derive itself stands."""
    with write_connection(warehouse) as con:  # one connection for both steps
        summary = _derive_tables(con, warehouse, full=full, now=now)
        try:
            return replace(summary, serving=sync(con, warehouse))
        except SYNC_ERRORS as exc:
            return replace(summary, serving_error=sync_error(exc))


def derive_tables(
    warehouse: Warehouse, *, full: bool = False, now: datetime | None = None
) -> DeriveSummary:
    """The derive step alone: the derived tables, and the serving days it changed queued in
    ``serving_outbox`` (the Dagster asset ``serving_copy`` copies them afterwards)."""
    with write_connection(warehouse) as con:
        return _derive_tables(con, warehouse, full=full, now=now)


def _derive_tables(
    con: duckdb.DuckDBPyConnection, warehouse: Warehouse, *, full: bool, now: datetime | None
) -> DeriveSummary:
    # A backlog that does not fit the warehouse's DuckDB limit is run again with more
    # (warehouse.store.db.with_more_memory); the summary says what it needed.
    summary, limit = with_more_memory(
        con,
        lambda: derive_with(con, full=full, now=now, index=warehouse.config.index),
        configured=warehouse.memory_limit,
    )
    return replace(summary, memory_limit=limit)


# What a serving copy that cannot be written raises (locked by readers for too long, a full
# disk, a DuckDB error): its days stay queued for the next sync, the derive stands.
SYNC_ERRORS = (WarehouseBusy, duckdb.Error, OSError)


def sync_serving(warehouse: Warehouse) -> SyncSummary:
    """Copy the days ``derive_tables`` queued to the serving copy; raises ``SYNC_ERRORS``."""
    with write_connection(warehouse) as con:
        return sync(con, warehouse)


def sync_error(exc: BaseException) -> str:
    """How a failed sync is reported (``DeriveSummary.serving_error``, asset metadata)."""
    return f"{type(exc).__name__}: {exc}"


def derive_with(
    con: duckdb.DuckDBPyConnection,
    *,
    full: bool = False,
    now: datetime | None = None,
    index: IndexGates | None = None,
) -> DeriveSummary:
    """Derive the pending snapshots in one transaction: the derived tables, the rollups and
    the price index (``index``: its gates, ``[index]``; default the bundled ones)."""
    started = time.perf_counter()
    if con.execute("SELECT count(*) FROM gpu_spec").fetchone()[0] == 0:
        raise ReferenceMissing("gpu_spec is empty: load the reference data (reference_data) first")
    con.execute("BEGIN TRANSACTION")
    try:
        if full:
            for table in (*DERIVED_TABLES, "derived_snapshot"):
                con.execute(f"DELETE FROM {table}")
        offers, quotes = _pending(con)
        rows: dict[str, int] = dict.fromkeys(DERIVED_TABLES, 0)
        if full:
            rows["offer_daily"] = rebuild_offer_daily(con)
        elif offers:
            rows["offer_daily"] = refresh_offer_daily(con)
        if offers:
            _snapshot_offers(con)
            rows["card_value"] = _card_value(con)
            rows["monthly_discount"] = _monthly_discount(con)
            rows["breakeven"] = _breakeven_platform(con) + _breakeven_cheapest(con)
        if offers or quotes:
            rows["market_premium"] = _market_premium(con)
        # The price index reads the same pending snapshots (docs/INDEX.md), in this transaction.
        indexed = refresh_index(
            con, "pending_offer", gates=index or IndexGates(), now=now or utcnow(), full=full
        )
        rows["price_index"] = indexed.revisions
        _record(con, now or utcnow())
        if full:
            mark_all(con)
        else:
            mark_changed(con, "pending_offer", "pending_quote")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    finally:
        drop_work_tables(con, "pending_offer", "pending_quote", "snap_offer")
    return DeriveSummary(offers, quotes, rows, time.perf_counter() - started, full, index=indexed)


def _pending(con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """Temp tables of the offer and quote snapshots whose rows are not derived yet.

    Fast path: when the table's row count (kept by DuckDB, no scan) equals the ledger's rows
    plus the rows observed after the ledger's newest snapshot, every pending snapshot is one
    of those newer ones, and only they are read (zone maps skip the history). Otherwise (a
    backfilled past day, a late page, deleted rows) every snapshot is counted again.
    """
    for kind, table in (("offer", "offer"), ("quote", "spot_quote")):
        # The seeds' published prices keep their article dates: they do not move the watermark
        # (the row-count check below still sees a pending published snapshot).
        done_rows, newest = con.execute(
            "SELECT coalesce(sum(row_count), 0), "
            "max(observed_at) FILTER (WHERE source NOT LIKE '%-published') "
            "FROM derived_snapshot WHERE kind = ?",
            [kind],
        ).fetchone()
        if newest is not None:
            _pending_snapshots(con, kind, table, "t.observed_at > $newest", {"newest": newest})
            total = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            new_rows = con.execute(
                f"SELECT coalesce(sum(row_count), 0) FROM pending_{kind}"
            ).fetchone()[0]
            if done_rows + new_rows == total:
                continue
        _pending_snapshots(con, kind, table, "true", {})
    offers = con.execute("SELECT count(*) FROM pending_offer").fetchone()[0]
    quotes = con.execute("SELECT count(*) FROM pending_quote").fetchone()[0]
    return offers, quotes


def _pending_snapshots(
    con: duckdb.DuckDBPyConnection, kind: str, table: str, where: str, params: dict
) -> None:
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE pending_{kind} AS
        WITH snap AS (
            SELECT t.source, t.observed_at, count(*)::INTEGER AS row_count,
                   any_value({_CLASS.format(t="t")}) AS class
            FROM {table} t
            WHERE {where}
            GROUP BY t.source, t.observed_at
        )
        SELECT s.* FROM snap s
        LEFT JOIN derived_snapshot d
          ON d.kind = '{kind}' AND d.source = s.source AND d.observed_at = s.observed_at
        WHERE d.row_count IS DISTINCT FROM s.row_count
        """,
        params or None,
    )


def _pending_bounds(con: duckdb.DuckDBPyConnection) -> dict:
    low, high = _bounds(con, "pending_offer", "observed_at")
    return {"low": low, "high": high}


def _snapshot_offers(con: duckdb.DuckDBPyConnection) -> None:
    """The offers of the pending snapshots (known cards only), with a per-card month price."""
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE snap_offer AS
        SELECT o.*,
               CASE o.unit
                   WHEN 'CNY/server-month' THEN o.price / o.gpu_count
                   WHEN 'CNY/card-month' THEN o.price
                   ELSE o.cny_per_card_hour * {HOURS_PER_MONTH}
               END::DECIMAL(18, 6) AS cny_per_card_month
        FROM offer o
        JOIN pending_offer p ON p.source = o.source AND p.observed_at = o.observed_at
        WHERE o.gpu <> 'unknown' AND {public("o")}
          AND o.observed_at >= $low AND o.observed_at <= $high
        """,
        _pending_bounds(con),
    )


def _replace(con: duckdb.DuckDBPyConnection, table: str, select: str) -> int:
    """Delete the pending snapshots' rows of ``table`` and insert ``select`` instead."""
    con.execute(
        f"DELETE FROM {table} t USING pending_offer p "
        "WHERE t.observed_at >= $low AND t.observed_at <= $high "
        "AND t.source = p.source AND t.observed_at = p.observed_at",
        _pending_bounds(con),
    )
    return con.execute(f"INSERT INTO {table} BY NAME {select}").fetchone()[0]


def _card_value(con: duckdb.DuckDBPyConnection) -> int:
    return _replace(
        con,
        "card_value",
        """
        WITH best AS (
            SELECT observed_at, source, gpu, billing,
                   arg_min(offer_id, cny_per_card_hour) AS offer_id,
                   count(*)::INTEGER AS offers,
                   min(cny_per_card_hour) AS cny_per_card_hour,
                   bool_or(simulated) AS simulated
            FROM snap_offer
            GROUP BY observed_at, source, gpu, billing
        )
        SELECT b.*,
               b.cny_per_card_hour::DOUBLE / s.fp16_tflops_dense AS cny_per_tflop_hour,
               b.cny_per_card_hour::DOUBLE / s.vram_gb AS cny_per_gb_hour,
               b.cny_per_card_hour::DOUBLE / (s.bandwidth_gbs / 1000.0) AS cny_per_tbps_hour
        FROM best b LEFT JOIN gpu_spec s ON s.gpu = b.gpu
        """,
    )


def _monthly_discount(con: duckdb.DuckDBPyConnection) -> int:
    # Every prepaid term (包日 / 包周 / 包月 / 包年) against the hourly list price: the same
    # listing's hourly row; without one, the term's own list_price converted with that row's
    # unit factor (cny_per_card_hour / price).
    return _replace(
        con,
        "monthly_discount",
        f"""
        WITH pair AS (
            SELECT m.observed_at, m.source, m.gpu, m.offer_id, m.billing AS term,
                   coalesce(
                       h.cny_per_card_hour,
                       round(m.list_price::DOUBLE * m.cny_per_card_hour::DOUBLE
                             / m.price::DOUBLE, 6)::DECIMAL(18, 6)
                   ) AS list_cny_per_card_hour,
                   m.cny_per_card_hour AS monthly_cny_per_card_hour,
                   m.stated_discount, m.discount_label, m.simulated
            FROM snap_offer m
            LEFT JOIN snap_offer h
              ON h.source = m.source AND h.observed_at = m.observed_at
             AND h.offer_id = m.offer_id AND h.billing = 'hourly'
            WHERE m.billing IN ('daily', 'weekly', 'monthly', 'yearly')
              AND (h.offer_id IS NOT NULL OR m.list_price IS NOT NULL)
        ), ratio AS (
            SELECT *, monthly_cny_per_card_hour::DOUBLE / list_cny_per_card_hour::DOUBLE
                      AS discount_ratio
            FROM pair
        )
        SELECT *, stated_discount::DOUBLE - discount_ratio AS stated_minus_computed,
               coalesce(abs(stated_discount::DOUBLE - discount_ratio) > {DISCOUNT_TOLERANCE},
                        false) AS disagrees
        FROM ratio
        """,
    )


_REASONS = """
    CASE
        WHEN {bm} IS NULL AND {rate} IS NULL THEN 'no bare-metal and no {what} offer for this card in this snapshot'
        WHEN {bm} IS NULL THEN 'no bare-metal offer for this card in this snapshot'
        WHEN {rate} IS NULL THEN 'no {what} offer for this card in this snapshot'
    END
"""


# The cheapest weekly / yearly plan per card-hour of a snapshot, and its offer.
_PLAN = """
    min(cny_per_card_hour) FILTER (WHERE billing = '{term}') AS {term},
    arg_min(offer_id, cny_per_card_hour) FILTER (WHERE billing = '{term}') AS {term}_offer
"""
# The same over every platform's newest snapshot (the cheapest line).
_CHEAPEST_PLAN = """
    min(p.{term}_cny_per_card_hour) AS {term},
    arg_min(p.source || '/' || p.{term}_offer, p.{term}_cny_per_card_hour) AS {term}_offer
"""


def _breakeven_columns(bm: str, hourly: str, monthly: str) -> str:
    return f"""
        {bm}::DOUBLE / {hourly}::DOUBLE AS breakeven_hours_vs_hourly,
        {bm}::DOUBLE / {monthly}::DOUBLE AS breakeven_hours_vs_monthly,
        {bm}::DOUBLE / weekly::DOUBLE AS breakeven_hours_vs_weekly,
        {bm}::DOUBLE / yearly::DOUBLE AS breakeven_hours_vs_yearly,
        weekly AS weekly_cny_per_card_hour, yearly AS yearly_cny_per_card_hour,
        weekly_offer, yearly_offer,
        {_REASONS.format(bm=bm, rate=hourly, what="hourly")} AS reason_vs_hourly,
        {_REASONS.format(bm=bm, rate=monthly, what="monthly-plan")} AS reason_vs_monthly
    """


def _breakeven_platform(con: duckdb.DuckDBPyConnection) -> int:
    con.execute(
        "DELETE FROM breakeven t USING pending_offer p "
        "WHERE t.observed_at >= $low AND t.observed_at <= $high AND t.scope = 'platform' "
        "AND t.source = p.source AND t.observed_at = p.observed_at",
        _pending_bounds(con),
    )
    return con.execute(
        f"""
        INSERT INTO breakeven BY NAME
        WITH modes AS (
            SELECT observed_at, source, gpu, bool_or(simulated) AS simulated,
                min(cny_per_card_month) FILTER (WHERE billing = 'bare_metal_monthly') AS bm,
                arg_min(offer_id, cny_per_card_month)
                    FILTER (WHERE billing = 'bare_metal_monthly') AS bare_metal_offer,
                min(cny_per_card_hour) FILTER (WHERE billing = 'hourly') AS hourly,
                arg_min(offer_id, cny_per_card_hour) FILTER (WHERE billing = 'hourly')
                    AS hourly_offer,
                min(cny_per_card_hour) FILTER (WHERE billing = 'monthly') AS monthly,
                arg_min(offer_id, cny_per_card_hour) FILTER (WHERE billing = 'monthly')
                    AS monthly_offer,
                {_PLAN.format(term="weekly")}, {_PLAN.format(term="yearly")}
            FROM snap_offer
            WHERE billing IN ('bare_metal_monthly', 'hourly', 'monthly', 'weekly', 'yearly')
            GROUP BY observed_at, source, gpu
        )
        SELECT observed_at, source, gpu, 'platform' AS scope, simulated,
               bm AS bare_metal_cny_per_card_month, hourly AS list_cny_per_card_hour,
               monthly AS monthly_cny_per_card_hour,
               bare_metal_offer, hourly_offer, monthly_offer,
               {_breakeven_columns("bm", "hourly", "monthly")}
        FROM modes
        """
    ).fetchone()[0]


def _breakeven_cheapest(con: duckdb.DuckDBPyConnection) -> int:
    """The cheapest-available line: at each scraped snapshot time t, per mode the lowest
    price among every platform's newest snapshot at or before t (at most 72 h old)."""
    window = f"INTERVAL {CHEAPEST_MAX_AGE_HOURS} HOUR"
    since, _ = _bounds(con, "pending_offer WHERE class <> 'published'", "observed_at")
    if since is None:
        return 0
    # Literal bounds (not subqueries) let DuckDB skip old row groups by their min/max.
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE cheapest_time AS
        WITH new AS (
            SELECT DISTINCT observed_at, class FROM pending_offer WHERE class <> 'published'
        ), snaps AS (
            SELECT DISTINCT b.observed_at, {_CLASS.format(t="b")} AS class
            FROM breakeven b
            WHERE b.scope = 'platform' AND b.source NOT LIKE '%-published'
              AND b.observed_at >= $since
        )
        -- the newest new snapshot at or before s (ASOF): s is affected when it lies within
        -- the window of that one (an older one's window ends sooner)
        SELECT s.observed_at AS t, s.class
        FROM snaps s ASOF JOIN new n ON n.class = s.class AND s.observed_at >= n.observed_at
        WHERE s.observed_at < n.observed_at + {window}
        """,
        {"since": since},
    )
    low, high = _bounds(con, "cheapest_time", "t")
    try:
        con.execute(
            "DELETE FROM breakeven b USING cheapest_time c "
            "WHERE b.scope = 'cheapest' AND b.observed_at = c.t AND b.simulated = (c.class = 'simulated')"
        )
        return con.execute(
            f"""
            INSERT INTO breakeven BY NAME
            WITH platform AS (
                SELECT b.*, {_CLASS.format(t="b")} AS class FROM breakeven b
                WHERE b.scope = 'platform' AND b.source NOT LIKE '%-published'
                  AND b.observed_at > $low - {window} AND b.observed_at <= $high
            ), snaps AS (
                SELECT DISTINCT source, class, observed_at FROM platform
            ), asked AS (
                SELECT c.t, c.class, s.source
                FROM cheapest_time c JOIN (SELECT DISTINCT source, class FROM snaps) s USING (class)
            ), newest AS (
                -- each platform's newest snapshot at or before t (ASOF), if within the window
                SELECT a.t, a.class, a.source, s.observed_at AS snap_at
                FROM asked a ASOF JOIN snaps s
                  ON s.source = a.source AND s.class = a.class AND a.t >= s.observed_at
                WHERE s.observed_at > a.t - {window}
            ), lines AS (
                SELECT n.t, n.class, p.gpu,
                    min(p.bare_metal_cny_per_card_month) AS bm,
                    arg_min(p.source || '/' || p.bare_metal_offer, p.bare_metal_cny_per_card_month)
                        AS bare_metal_offer,
                    min(p.list_cny_per_card_hour) AS hourly,
                    arg_min(p.source || '/' || p.hourly_offer, p.list_cny_per_card_hour)
                        AS hourly_offer,
                    min(p.monthly_cny_per_card_hour) AS monthly,
                    arg_min(p.source || '/' || p.monthly_offer, p.monthly_cny_per_card_hour)
                        AS monthly_offer,
                    {_CHEAPEST_PLAN.format(term="weekly")}, {_CHEAPEST_PLAN.format(term="yearly")}
                FROM newest n
                JOIN platform p ON p.source = n.source AND p.observed_at = n.snap_at
                GROUP BY n.t, n.class, p.gpu
            )
            SELECT t AS observed_at, '{CHEAPEST}' AS source, gpu, 'cheapest' AS scope,
                   class = 'simulated' AS simulated,
                   bm AS bare_metal_cny_per_card_month, hourly AS list_cny_per_card_hour,
                   monthly AS monthly_cny_per_card_hour,
                   bare_metal_offer, hourly_offer, monthly_offer,
                   {_breakeven_columns("bm", "hourly", "monthly")}
            FROM lines
            """,
            {"low": low, "high": high},
        ).fetchone()[0]
    finally:
        drop_work_tables(con, "cheapest_time")


def _market_premium(con: duckdb.DuckDBPyConnection) -> int:
    """Each listing of the affected snapshots vs the newest market quote at or before it.

    Affected: the new offer snapshots, and every offer snapshot of the same class at or after
    a new quote snapshot (a late quote changes what "newest" means from its time on).
    """
    quote_since = _bounds(con, "pending_quote", "observed_at")[0]
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE premium_snap AS
        SELECT source, observed_at FROM pending_offer
        UNION
        SELECT DISTINCT o.source, o.observed_at
        FROM offer o JOIN (
            SELECT class, min(observed_at) AS since FROM pending_quote GROUP BY class
        ) q ON o.observed_at >= q.since AND {_CLASS.format(t="o")} = q.class
        WHERE o.observed_at >= $quote_since
        """,
        {"quote_since": quote_since},
    )
    low, high = _bounds(con, "premium_snap", "observed_at")
    try:
        con.execute(
            "DELETE FROM market_premium t USING premium_snap p "
            "WHERE t.observed_at >= $low AND t.observed_at <= $high "
            "AND t.source = p.source AND t.observed_at = p.observed_at",
            {"low": low, "high": high},
        )
        return con.execute(
            f"""
            INSERT INTO market_premium BY NAME
            WITH snap_listing AS (
                SELECT o.observed_at, o.source, o.offer_id, o.billing, o.gpu, o.region,
                       o.cny_per_card_hour, o.simulated, {_CLASS.format(t="o")} AS class
                FROM offer o
                JOIN premium_snap p ON p.source = o.source AND p.observed_at = o.observed_at
                WHERE o.gpu <> 'unknown' AND {public("o")}
                  AND o.observed_at >= $low AND o.observed_at <= $high
            ), region_of AS (
                SELECT DISTINCT ON (l.region) l.region, r.market_region
                FROM (SELECT DISTINCT region FROM snap_listing) l
                JOIN region_market r ON contains(l.region, r.keyword)
                ORDER BY l.region, r.priority, r.keyword
            ), listing AS (
                SELECT l.*, g.market_region
                FROM snap_listing l LEFT JOIN region_of g ON g.region = l.region
            ), quote AS (
                SELECT q.observed_at, q.gpu, q.region, {_CLASS.format(t="q")} AS class,
                       avg(q.cny_per_card_hour::DOUBLE) AS price,
                       string_agg(DISTINCT q.source, ',' ORDER BY q.source) AS source,
                       string_agg(DISTINCT q.basis, ',' ORDER BY q.basis) AS basis
                FROM spot_quote q
                WHERE q.gpu <> 'unknown' AND q.quote_kind = 'market_average'
                  AND q.observed_at <= $high
                  AND q.observed_at >= $low - INTERVAL {QUOTE_MAX_AGE_DAYS} DAY
                GROUP BY ALL
            ), national AS (
                SELECT observed_at, gpu, class, avg(price) AS price,
                       count(*)::INTEGER AS regions,
                       string_agg(DISTINCT source, ',' ORDER BY source) AS source,
                       string_agg(DISTINCT basis, ',' ORDER BY basis) AS basis
                FROM quote GROUP BY ALL
            ), regional AS (
                SELECT l.*, q.observed_at AS quote_observed_at, q.price AS quote_price,
                       q.source AS quote_source, q.basis AS quote_basis
                FROM listing l ASOF LEFT JOIN quote q
                  ON q.class = l.class AND q.gpu = l.gpu AND q.region = l.market_region
                 AND l.observed_at >= q.observed_at
            ), matched AS (
                SELECT r.* EXCLUDE (quote_observed_at, quote_price, quote_source, quote_basis),
                       CASE WHEN r.quote_price IS NOT NULL
                             AND r.quote_observed_at > r.observed_at - INTERVAL {QUOTE_MAX_AGE_DAYS} DAY
                            THEN 'region' ELSE 'national_average' END AS match,
                       r.quote_observed_at AS regional_at, r.quote_price AS regional_price,
                       r.quote_source AS regional_source, r.quote_basis AS regional_basis
                FROM regional r
            ), with_national AS (
                SELECT m.*, n.observed_at AS national_at, n.price AS national_price,
                       n.regions AS national_regions, n.source AS national_source,
                       n.basis AS national_basis
                FROM matched m ASOF LEFT JOIN national n
                  ON n.class = m.class AND n.gpu = m.gpu AND m.observed_at >= n.observed_at
            ), chosen AS (
                SELECT observed_at, source, offer_id, billing, gpu, region, cny_per_card_hour,
                       simulated, match,
                       CASE match WHEN 'region' THEN market_region ELSE '{NATIONAL_AVERAGE}' END
                           AS quote_region,
                       CASE match WHEN 'region' THEN 1 ELSE national_regions END AS quote_regions,
                       CASE match WHEN 'region' THEN regional_source ELSE national_source END
                           AS quote_source,
                       CASE match WHEN 'region' THEN regional_at ELSE national_at END
                           AS quote_observed_at,
                       CASE match WHEN 'region' THEN regional_basis ELSE national_basis END
                           AS quote_basis,
                       CASE match WHEN 'region' THEN regional_price ELSE national_price END
                           AS quote_cny_per_card_hour
                FROM with_national
            )
            SELECT *, cny_per_card_hour::DOUBLE - quote_cny_per_card_hour
                          AS premium_cny_per_card_hour,
                   cny_per_card_hour::DOUBLE / quote_cny_per_card_hour - 1 AS premium_ratio
            FROM chosen
            WHERE quote_cny_per_card_hour IS NOT NULL
              AND quote_observed_at > observed_at - INTERVAL {QUOTE_MAX_AGE_DAYS} DAY
            """,
            {"low": low, "high": high},
        ).fetchone()[0]
    finally:
        drop_work_tables(con, "premium_snap")


def _bounds(con: duckdb.DuckDBPyConnection, table: str, column: str) -> tuple:
    return con.execute(f"SELECT min({column}), max({column}) FROM {table}").fetchone()


def _record(con: duckdb.DuckDBPyConnection, now: datetime) -> None:
    for kind in ("offer", "quote"):
        # DELETE + INSERT, not INSERT OR REPLACE: a DuckLake has no key (warehouse.store.lake)
        con.execute(
            f"DELETE FROM derived_snapshot d USING pending_{kind} p WHERE d.kind = '{kind}' "
            "AND d.source = p.source AND d.observed_at = p.observed_at"
        )
        con.execute(
            f"""
            INSERT INTO derived_snapshot
            SELECT '{kind}', source, observed_at, row_count, ? FROM pending_{kind}
            """,
            [now],
        )
