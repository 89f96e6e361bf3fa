"""Read-only SQL behind the dashboard pages that warehouse.read.prices and
warehouse.read.metrics do not already provide.

Every function opens the warehouse read-only for one query (``read_frame``), so a page
never holds the file while the pipeline wants to write. Filters (one
warehouse.read.filters.OfferFilter) are pushed into SQL so a page over years of hourly
history only moves the rows it draws.

The price trend, band and month-over-month queries read the daily pre-aggregate
``offer_daily`` (warehouse.derive.rollup, kept by the derive step), so they cost the same whether
the warehouse holds one year or five (docs/PERFORMANCE.md): from the serving copy beside
the warehouse when there is one (warehouse.store.serving: opened in milliseconds, where the
warehouse itself takes ~150 ms at five years), else from the warehouse plus the raw offers
observed after the rollup's watermark.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from typing import Any, Literal

import duckdb
import polars as pl

from warehouse.public import PUBLIC
from warehouse.read import unknown_cards
from warehouse.read.batch import WAIT_S, read_frames
from warehouse.read.filters import NO_REGION, OfferFilter
from warehouse.read.months import same_days_sql, whole_sql
from warehouse.read.stats import SOURCE_RUNS
from warehouse.store.db import read_connection
from warehouse.store.handle import Warehouse
from warehouse.store.serving import read_served, serving_connection

__all__ = ["GRAINS", "NO_REGION", "Grain", "OfferFilter"]  # NO_REGION: for the compare page

Grain = Literal["day", "week", "month"]
GRAINS: tuple[Grain, ...] = ("day", "week", "month")


# The columns of the ``daily`` CTE a rollup row gives; the origin's come after them.
_ROLLED = (
    "observations AS n, sum_cny_per_card_hour AS total, min_cny_per_card_hour AS low, "
    "max_cny_per_card_hour AS high, simulated, last_observed_at AS last_seen"
)
# A warehouse from before migration 012 has no origin in its rollups.
_NO_ORIGIN = "NULL::VARCHAR AS origin, 0 AS origins"


def _daily_sql(
    offers: OfferFilter,
    watermark: object,
    rollup: bool,
    start: bool,
    months: bool = False,
    tail: bool = True,
    origin: bool = True,
    tiers: bool = True,
) -> str:
    """A CTE ``daily``: per day, card, platform, billing, region and kind of data (real or
    simulated) the observations, their sum, low, high, newest time and origin (the first
    citation, and how many): offer_daily up to its watermark, raw offers after it.

    ``start``: whether the rows begin at the filter's start (the changes queries need the
    months before it). ``months``: whole calendar months in [$month_low, $month_high) come
    from offer_monthly as one row dated the 1st (only for callers that group by month).
    ``tail``: False on the serving copy, which holds no raw offers (warehouse.store.serving).
    ``origin``: False on a warehouse whose rollups predate migration 012; ``tiers``: False on
    one whose offers have no price tier yet (migration 013: all of them are list prices)."""
    start = start and offers.start is not None
    since = " AND observed_at >= $start::TIMESTAMP" if start else ""
    until = " AND observed_at < $end::TIMESTAMP + INTERVAL 1 DAY" if offers.end is not None else ""
    tail_after = "observed_at > $watermark::TIMESTAMP AND " if watermark is not None else ""
    rolled = offers.where(region="region", at=None)  # the rollups' region is never NULL
    cited = "origin, origins" if origin else _NO_ORIGIN
    parts = []
    if rollup and watermark is not None:
        day_since = " AND day >= $start::DATE" if start else ""
        day_until = " AND day <= $end::DATE" if offers.end is not None else ""
        day_not_in_months = " AND (day < $month_low OR day >= $month_high)" if months else ""
        parts.append(
            f"""
            SELECT day, gpu, source, billing, region, {_ROLLED}, {cited}
            FROM offer_daily
            WHERE {rolled}{day_until}{day_since}{day_not_in_months}
            """
        )
        if months:
            parts.append(
                f"""
                SELECT month AS day, gpu, source, billing, region, {_ROLLED}, {cited}
                FROM offer_monthly
                WHERE {rolled} AND month >= $month_low AND month < $month_high
                """
            )
    if tail:
        public = f" AND {PUBLIC}" if tiers else ""
        parts.append(_tail_sql(tail_after, offers.where(at=None) + until + since + public))
    return "daily AS (" + " UNION ALL ".join(parts) + ")"


def _tail_sql(tail_after: str, where: str) -> str:
    return f"""
        SELECT observed_at::DATE AS day, gpu, source, billing,
               coalesce(region, '{NO_REGION}') AS region, count(*) AS n,
               sum(cny_per_card_hour)::DECIMAL(38, 6) AS total, min(cny_per_card_hour) AS low,
               max(cny_per_card_hour) AS high, simulated, max(observed_at) AS last_seen,
               arg_min(citation, observed_at)
                   FILTER (WHERE citation IS NOT NULL AND NOT simulated) AS origin,
               (count(DISTINCT citation) FILTER (WHERE NOT simulated))::INTEGER AS origins
        FROM offer
        WHERE {tail_after}gpu <> 'unknown' AND {where}
        GROUP BY ALL
        """


def _whole_months(start: date | None, end: date) -> tuple[date, date]:
    """[low, high): the first days of the calendar months wholly inside [start, end]."""
    low = date(1900, 1, 1) if start is None else start
    if low.day != 1:
        low = (low.replace(day=1) + timedelta(days=32)).replace(day=1)
    high = (end + timedelta(days=1)).replace(day=1)
    return low, max(low, high)


def _read_daily(
    warehouse: Warehouse,
    sql: str,
    offers: OfferFilter,
    *,
    start: bool,
    by_month: bool = False,
    **params: Any,
) -> pl.DataFrame:
    """Run ``sql`` (which starts its WITH list with ``{daily}``) for the ``offers`` filter
    and the further ``params``: on the serving copy when there is one
    (warehouse.store.serving: its rollups, opened in milliseconds), else on the warehouse,
    where the rollups up to their watermark are joined by the raw offers after it.
    ``by_month``: the query groups by calendar month, so whole months may come from
    offer_monthly."""
    params = offers.params() | params
    with serving_connection(warehouse) as served:
        if served is not None and served[1].watermark is not None:
            con, state = served
            return _run_daily(
                con, sql, offers, params, state.watermark, start, by_month, tail=False
            )
    with read_connection(warehouse) as con:
        watermark, rollup, origin = _rollup_state(con)
        return _run_daily(
            con, sql, offers, params, watermark, start, by_month, rollup=rollup, origin=origin,
            tiers=_has_tiers(con),
        )  # fmt: skip


def _rollup_state(con: duckdb.DuckDBPyConnection) -> tuple[object, bool, bool]:
    """The warehouse's rollup watermark, whether it has rollups at all (migration 005) and
    whether they keep real and simulated apart with their origin (migration 012)."""
    try:
        watermark = con.execute("SELECT max(last_observed_at) FROM offer_daily").fetchall()
    except duckdb.CatalogException:  # a warehouse from before migration 005
        return None, False, False
    columns = {d[0] for d in con.execute("SELECT * FROM offer_daily LIMIT 0").description}
    return watermark[0][0], True, "origin" in columns


def _has_tiers(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether offers carry their price tier (migration 013); before it every one is a list
    price, and a dashboard reading a warehouse not upgraded yet still draws it."""
    return "tier" in {d[0] for d in con.execute("SELECT * FROM offer LIMIT 0").description}


def _run_daily(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    offers: OfferFilter,
    params: dict[str, Any],
    watermark: object,
    start: bool,
    by_month: bool,
    *,
    rollup: bool = True,
    tail: bool = True,
    origin: bool = True,
    tiers: bool = True,
) -> pl.DataFrame:
    if watermark is not None and tail:
        params = params | {"watermark": watermark}
    # Whole months need a last day; with none, the days come from offer_daily alone.
    months = by_month and rollup and watermark is not None and offers.end is not None
    if months:
        low, high = _whole_months(offers.start if start else None, offers.end)
        params = params | {"month_low": low, "month_high": high}
    daily = _daily_sql(offers, watermark, rollup, start, months, tail, origin, tiers)
    return con.sql(sql.format(daily=daily), params=params).pl()


def _grain(grain: str) -> str:
    if grain not in GRAINS:
        raise ValueError(f"grain {grain!r} is not one of {', '.join(GRAINS)}")
    return grain


def trend_options(warehouse: Warehouse) -> pl.DataFrame:
    """What the trend filters can offer: each (card, platform, billing, region) present,
    with its first and last day, and the first day of its real (not simulated) prices
    (from offer_daily plus the offers newer than it)."""
    raw = f"""
        SELECT gpu, source, billing, coalesce(region, '{NO_REGION}') AS region,
               observed_at AS first_at, observed_at AS last_at, 1 AS n, simulated
        FROM offer WHERE gpu <> 'unknown' {{public}} {{after}}
    """
    daily = (
        "SELECT gpu, source, billing, region, first_observed_at AS first_at, "
        "last_observed_at AS last_at, observations AS n, simulated FROM offer_daily"
    )
    options = """
        SELECT gpu, source, billing, region,
               min(first_at)::DATE AS first_day, max(last_at)::DATE AS last_day,
               sum(n)::BIGINT AS observations, bool_or(simulated) AS simulated,
               (min(first_at) FILTER (WHERE NOT simulated))::DATE AS first_real_day
        FROM ({rows}) GROUP BY ALL ORDER BY gpu, source, billing, region
    """
    with serving_connection(warehouse) as served:
        if served is not None:
            return served[0].sql(options.format(rows=daily)).pl()
    with read_connection(warehouse) as con:
        watermark = _rollup_state(con)[0]
        public = f"AND {PUBLIC}" if _has_tiers(con) else ""
        if watermark is None:
            rows, params = raw.format(after="", public=public), None
        else:
            after = "AND observed_at > $watermark"
            rows = daily + " UNION ALL " + raw.format(after=after, public=public)
            params = {"watermark": watermark}
        return con.sql(options.format(rows=rows), params=params).pl()


def serving_freshness(warehouse: Warehouse) -> pl.DataFrame:
    """When the serving copy (warehouse.store.serving) was last brought up to date and the newest
    observation its rollups hold; no row when there is no copy (pages then read the
    warehouse, raw offers included)."""
    schema = {"synced_at": pl.Datetime("us"), "watermark": pl.Datetime("us")}
    with serving_connection(warehouse) as served:
        if served is None:
            return pl.DataFrame(schema=schema)
        state = served[1]
        return pl.DataFrame(
            {"synced_at": [state.synced_at], "watermark": [state.watermark]}, schema
        )


def price_trend(
    warehouse: Warehouse, grain: Grain, offers: OfferFilter, apart: bool = False
) -> pl.DataFrame:
    """Mean CNY per card-hour per period (day, week from Monday, or month), card, platform
    and billing mode, with the period's low and high and how many observations it holds.

    ``apart``: real and simulated prices of a line are two series (a row each per period,
    ``simulated`` saying which), and a real row says where its prices come from: ``origin``,
    the first citation of the period (a capture's archive URL, a commit, a file's or a
    seed's citation; NULL for a live scrape), and ``origins``, how many citations it holds
    (per day the most any one region holds, summed over the period's days: the regions of
    one catalog version share its commit). Without it, one row per line and period,
    ``simulated`` when any of its prices is (the comparison page's daily prices)."""
    if not apart:
        sql = """
        WITH {daily}
        SELECT date_trunc($grain, day)::DATE AS period, gpu, source, billing,
               (sum(total) / sum(n))::DOUBLE AS cny_per_card_hour,
               min(low)::DOUBLE AS low, max(high)::DOUBLE AS high,
               sum(n)::BIGINT AS observations, bool_or(simulated) AS simulated
        FROM daily
        GROUP BY ALL ORDER BY period, gpu, source, billing
        """
    else:
        sql = """
        WITH {daily}, per_day AS (
            SELECT day, gpu, source, billing, simulated, sum(total) AS total, sum(n) AS n,
                   min(low) AS low, max(high) AS high, min(origin) AS origin,
                   max(origins) AS origins
            FROM daily GROUP BY ALL
        )
        SELECT date_trunc($grain, day)::DATE AS period, gpu, source, billing, simulated,
               (sum(total) / sum(n))::DOUBLE AS cny_per_card_hour,
               min(low)::DOUBLE AS low, max(high)::DOUBLE AS high,
               sum(n)::BIGINT AS observations,
               arg_min(origin, day) FILTER (WHERE origin IS NOT NULL) AS origin,
               sum(origins)::BIGINT AS origins
        FROM per_day
        GROUP BY ALL ORDER BY period, gpu, source, billing, simulated
        """
    return _read_daily(
        warehouse, sql, offers, start=True, by_month=grain == "month", grain=_grain(grain)
    )


def price_band(
    warehouse: Warehouse,
    grain: Grain,
    offers: OfferFilter,
) -> pl.DataFrame:
    """Per period, card, billing mode and kind of data (real or simulated: never one band
    over both): min, median and max across platforms of each platform's period mean (the
    band finance reads the market's spread from). Only where at least two platforms of
    that kind quote: a band of one is that platform's line again."""
    return _read_daily(
        warehouse,
        """
        WITH {daily}, series AS (
            SELECT date_trunc($grain, day)::DATE AS period, gpu, source, billing, simulated,
                   (sum(total) / sum(n))::DOUBLE AS v
            FROM daily
            GROUP BY ALL
        )
        SELECT period, gpu, billing, simulated, min(v) AS band_min, median(v) AS band_median,
               max(v) AS band_max, count(*) AS platforms
        FROM series GROUP BY ALL HAVING count(*) >= 2 ORDER BY period, gpu, billing, simulated
        """,
        offers,
        start=True,
        by_month=grain == "month",
        grain=_grain(grain),
    )


def quote_trend(warehouse: Warehouse, grain: Grain, offers: OfferFilter) -> pl.DataFrame:
    """Market quotes (spot_quote) per period, card, platform and kind of data (real or
    simulated): the mean over regions of each region's period mean, so a region quoted more
    often does not weigh more, and for real quotes their first citation (``origin``) and how
    many distinct ones (``origins``). Quotes have no billing mode (their basis says what was
    quoted): a filter on it is refused."""
    if offers.billing is not None:
        raise ValueError("market quotes have no billing mode to filter on")
    return read_served(
        warehouse,
        f"""
        WITH per_region AS (
            SELECT date_trunc($grain, observed_at)::DATE AS period, gpu, source, region, basis,
                   simulated, avg(cny_per_card_hour)::DOUBLE AS v,
                   arg_min(citation, observed_at)
                       FILTER (WHERE citation IS NOT NULL AND NOT simulated) AS origin,
                   list(DISTINCT citation) FILTER (WHERE NOT simulated) AS cited
            FROM spot_quote
            WHERE gpu <> 'unknown' AND {offers.where()}
            GROUP BY ALL
        )
        SELECT period, gpu, source, simulated, string_agg(DISTINCT basis, ', ') AS basis,
               avg(v) AS cny_per_card_hour, count(DISTINCT region) AS regions,
               min(origin) AS origin,
               coalesce(len(list_distinct(flatten(list(cited)))), 0)::BIGINT AS origins
        FROM per_region GROUP BY period, gpu, source, simulated
        ORDER BY period, gpu, source, simulated
        """,
        offers.params() | {"grain": _grain(grain)},
    )


def _changes_sql(keys: str, monthly: str, extra: str = "") -> str:
    """Per ``keys``, its newest month in [start, end] against the month before and the same
    month a year before: whole months when the newest month's data reaches its last day,
    else month to date against the same days (1 to the newest day's day of the month) of
    the earlier months. ``monthly`` turns ``series`` (per month, card, platform, billing and
    kind of data: ``v`` over the compared days, ``simulated`` and ``real``) into the rows
    compared; ``extra``: more columns of them (", cur.platforms"). ``mixed``, ``mom_mixed``
    and ``yoy_mixed`` say when a figure mixes real and simulated prices: the month itself,
    or the month against the month before or the year-ago month (only when ``simulated``
    is not a key)."""
    names = keys.split(", ")
    on = " AND ".join(f"{{t}}.{k} = c.{k}" for k in names)
    kind = "" if "simulated" in names else "cur.simulated,"

    def mixes(other: str) -> str:
        return (
            f"coalesce((cur.simulated OR {other}.simulated) AND (cur.real OR {other}.real), false)"
        )

    compared = same_days_sql("d.day", "c.last_day", "c.whole")  # warehouse.read.months
    # Braces doubled: the caller fills {daily} in (_read_daily).
    return f"""
        WITH {{daily}}, d AS (
            SELECT *, date_trunc('month', day)::DATE AS month FROM daily
        ), newest AS (
            SELECT {keys}, max(day) AS last_day FROM d
            WHERE month >= date_trunc('month', $since_month::DATE)::DATE GROUP BY ALL
        ), cut AS (
            SELECT *, date_trunc('month', last_day)::DATE AS month,
                   {whole_sql("last_day")} AS whole
            FROM newest
        ), series AS (
            SELECT d.month, d.gpu, d.source, d.billing, d.simulated, NOT d.simulated AS real,
                   (sum(d.total) FILTER (WHERE {compared})
                    / sum(d.n) FILTER (WHERE {compared}))::DOUBLE AS v,
                   max(d.last_seen) AS last_seen
            FROM d JOIN cut c ON {on.format(t="d")}
            GROUP BY ALL
        ), m AS ({monthly})
        SELECT {", ".join(f"c.{k}" for k in names)}, c.last_day, c.month, c.whole,
               cur.v AS cny_per_card_hour, prev.v AS previous_month,
               year_ago.v AS year_ago, cur.v / prev.v - 1 AS mom, cur.v / year_ago.v - 1 AS yoy,
               {kind} cur.last_seen, cur.simulated AND cur.real AS mixed,
               {mixes("prev")} AS mom_mixed, {mixes("year_ago")} AS yoy_mixed{extra}
        FROM cut c
        JOIN m cur ON {on.format(t="cur")} AND cur.month = c.month
        LEFT JOIN m prev ON {on.format(t="prev")} AND prev.month = c.month - INTERVAL 1 MONTH
        LEFT JOIN m year_ago
          ON {on.format(t="year_ago")} AND year_ago.month = c.month - INTERVAL 12 MONTH
        ORDER BY {", ".join(f"c.{k}" for k in names)}
    """


def _read_changes(warehouse: Warehouse, sql: str, offers: OfferFilter) -> pl.DataFrame:
    """``sql`` (a ``_changes_sql``) over the days it needs: from twelve months before the
    month of ``offers.start`` (the year-ago month of any month compared) to ``offers.end``,
    day by day (a whole-month rollup cannot be cut at a day of the month)."""
    since = offers.start or date(1900, 1, 1)
    reach = (since.replace(day=1) - timedelta(days=366)).replace(day=1)
    return _read_daily(
        warehouse,
        sql,
        replace(offers, start=reach),
        start=True,
        since_month=since,
    )


def monthly_changes(
    warehouse: Warehouse,
    offers: OfferFilter,
) -> pl.DataFrame:
    """Per card, platform, billing mode and kind of data (real and simulated prices of one
    platform are two rows, each compared with its own kind, never with the other): its
    newest month's mean CNY per card-hour (the newest month in [start, end]), month over
    month and year over year, each over the same days (``whole``: whole months; else month
    to date, 1 to ``last_day``'s day of the month, against the same days of the earlier
    months). A previous or year-ago month with no observation in those days gives NULL,
    never 0."""
    return _read_changes(
        warehouse, _changes_sql("gpu, source, billing, simulated", "SELECT * FROM series"), offers
    )


def card_changes(
    warehouse: Warehouse,
    offers: OfferFilter,
) -> pl.DataFrame:
    """Per card and billing mode: the median across platforms of their means over the
    compared days (as ``monthly_changes`` chooses them, from the card's newest day; a
    platform's real and simulated prices count as two), its month over month, year over
    year (KPI cards); ``simulated`` when any price of the
    month is, and ``mixed`` / ``mom_mixed`` / ``yoy_mixed`` when a figure mixes real and
    simulated prices."""
    return _read_changes(
        warehouse,
        _changes_sql(
            "gpu, billing",
            "SELECT month, gpu, billing, median(v) AS v, "
            "bool_or(simulated) AS simulated, bool_or(real) AS real, "
            "max(last_seen) AS last_seen, count(v) AS platforms FROM series GROUP BY ALL",
            extra=", cur.platforms",
        ),
        offers,
    )


def value_board(warehouse: Warehouse) -> pl.DataFrame:
    """The newest card_value row per platform, card and billing mode, with the card's specs."""
    return read_served(
        warehouse,
        """
        WITH latest AS (
            SELECT * FROM card_value{latest}
            QUALIFY row_number() OVER (PARTITION BY source, gpu, billing
                                       ORDER BY observed_at DESC) = 1
        )
        SELECT v.gpu, v.source, v.billing, v.cny_per_card_hour::DOUBLE AS cny_per_card_hour,
               v.cny_per_tflop_hour, v.cny_per_gb_hour, v.cny_per_tbps_hour,
               s.vendor, s.vram_gb, s.memory_type, s.fp16_tflops_dense,
               s.bandwidth_gbs / 1000.0 AS bandwidth_tbs, s.interconnect, s.domestic,
               v.offers, v.offer_id, v.observed_at, v.simulated
        FROM latest v LEFT JOIN gpu_spec s USING (gpu)
        ORDER BY v.cny_per_card_hour, v.gpu, v.source, v.billing
        """,
    )


def split_current(board: pl.DataFrame, fresh_hours: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``value_board`` rows as (current, older): a row is current when it was observed at
    most ``fresh_hours`` before the newest row of the board. A platform's newest price can be
    years old (a real RunPod row from a history import); beside today's prices it is not a
    price anyone can rent at, so the page leaves it out and counts it instead."""
    if board.is_empty():
        return board, board
    cutoff = board["observed_at"].max() - timedelta(hours=fresh_hours)  # type: ignore[operator]
    fresh = pl.col("observed_at") >= cutoff
    return board.filter(fresh), board.filter(~fresh)


# The data-health page's tables, read together (``health``).
PARSER_STATES = (
    "SELECT source, profile, state, since, reason FROM source_health ORDER BY source, profile"
)
SCRAPE_FAILURES = """
    SELECT finished_at, source, status, as_of, pages, rows, error FROM scrape_run
    WHERE status IN ('failed', 'partial') ORDER BY finished_at DESC LIMIT $limit
"""
SNAPSHOT_ROWS = """
    WITH snaps AS (
        SELECT observed_at, source, 'offer' AS kind, count(*) AS rows,
               count(*) FILTER (WHERE gpu = 'unknown') AS unknown_gpu,
               bool_or(simulated) AS simulated
        FROM offer GROUP BY observed_at, source
        UNION ALL
        SELECT observed_at, source, 'spot_quote' AS kind, count(*) AS rows,
               count(*) FILTER (WHERE gpu = 'unknown') AS unknown_gpu,
               bool_or(simulated) AS simulated
        FROM spot_quote GROUP BY observed_at, source
    )
    SELECT * FROM snaps ORDER BY observed_at DESC, source, kind LIMIT $limit
"""
# The listings pages rejected, newest first (migration 013; a warehouse from before has none).
REJECTED_ROWS = """
    SELECT fetched_at, source, stage, position, reason, excerpt, url,
           count(*) OVER (PARTITION BY source) AS source_total
    FROM rejected_row ORDER BY fetched_at DESC, source, position LIMIT $limit
"""
# Rows held back from the tables, waiting for snapshots to agree or for a person to decide.
HELD_ROWS = """
    SELECT quarantine_id, created_at, source, gpu_name_raw, reason_kind, reason, price, unit,
           cny_per_card_hour, baseline_cny_per_card_hour, loadable
    FROM quarantine WHERE status = 'held' ORDER BY created_at DESC LIMIT $limit
"""


def health(
    warehouse: Warehouse,
    failures: int = 50,
    snapshots: int = 120,
    rejected: int = 200,
    held: int = 200,
    wait_s: float = WAIT_S,
    profile: str | None = None,
) -> dict[str, pl.DataFrame | None]:
    """The data-health page's tables, read in one connection (warehouse.read.batch):

    * ``sources``: per source (of ``profile``; None: all) its newest data and its newest
      success, each by the day the data is about, with when it was loaded and whether a live
      run or a backfill brought it, and how many runs failed or were partial
      (warehouse.read.stats.SOURCE_RUNS);
    * ``parsers``: per source and profile whether its pages still parse (source_health, the
      pipeline's drift check; None on a warehouse from before it);
    * ``failures``: the newest ``failures`` failed and partial scrapes with their errors;
    * ``snapshots``: rows per snapshot (one source, one observed_at) of offers and quotes,
      the newest ``snapshots``, with how many rows had an unknown card;
    * ``unknown``: GPU names no rule maps to a card, as printed, where and how often
      (warehouse.read.unknown_cards);
    * ``rejected``: the newest listings pages rejected, with where, why and an excerpt;
    * ``held``: the rows held in quarantine, with their reason."""
    return read_frames(
        warehouse,
        {
            "sources": (SOURCE_RUNS, {"profile": profile}),
            "parsers": (PARSER_STATES, None),
            "failures": (SCRAPE_FAILURES, {"limit": failures}),
            "snapshots": (SNAPSHOT_ROWS, {"limit": snapshots}),
            "unknown": (unknown_cards.SQL, unknown_cards.PARAMS),
            "rejected": (REJECTED_ROWS, {"limit": rejected}),
            "held": (HELD_ROWS, {"limit": held}),
        },
        optional=("parsers", "rejected"),
        wait_s=wait_s,
    )
