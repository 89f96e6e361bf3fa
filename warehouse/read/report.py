"""Read-only SQL behind finance's monthly report (dashboard/report_xlsx.py builds the workbook).

A report month is a calendar month in UTC, [first day, first day of the next month). Each
figure is a median over the month's observations, not a mean of means: one listing scraped
hourly and one scraped daily weigh by what was observed. Month over month compares with the
same median of the month before (NULL when that month has no observation, never 0). Prices
are CNY per card-hour; a USD listing was converted at its day's ``fx_rate`` when it was
parsed (``fx_in_month`` says at which rates). Every row says whether it is SIMULATED.
"""

from __future__ import annotations

from datetime import date

import polars as pl

from warehouse.derive.index_method import METHOD
from warehouse.ingest.reference import PUBLISHED_SUFFIX
from warehouse.public import PUBLIC
from warehouse.read.batch import WAIT_S, Query, read_frames
from warehouse.read.index import FIGURES
from warehouse.read.months import (
    month_start,
    next_month,
    previous_month,
    same_days_sql,
    whole_sql,
)
from warehouse.store.db import read_frame
from warehouse.store.handle import Warehouse


def _bounds(month: date, previous: bool = False) -> dict[str, date]:
    """The query parameters: $month, $next and, for month over month, $previous."""
    bounds = {"month": month_start(month), "next": next_month(month)}
    return bounds | ({"previous": previous_month(month)} if previous else {})


# The month before is compared over the same days: the whole month when the report's month
# has data on its last day, else days 1 to the day of its newest observation (a month in
# progress against all of the month before was the dishonest figure of issue 30).
_SAME_DAYS = same_days_sql("observed_at", "cut.through", "cut.whole_month")
_MEDIANS = f"""
    WITH reach AS (
        SELECT max(observed_at)::DATE AS through FROM offer
        WHERE gpu <> 'unknown' AND {PUBLIC}
          AND observed_at >= $month::TIMESTAMP AND observed_at < $next::TIMESTAMP
    ), cut AS (
        SELECT through, coalesce({whole_sql("through")}, true) AS whole_month FROM reach
    ), m AS (
        SELECT date_trunc('month', observed_at)::DATE AS month, gpu, source, billing,
               median(cny_per_card_hour)::DOUBLE AS median_cny_per_card_hour,
               count(*) AS observations, count(DISTINCT observed_at::DATE) AS days,
               string_agg(DISTINCT currency, ', ' ORDER BY currency) AS currencies,
               bool_or(simulated) AS simulated, min(observed_at) AS first_observed_at,
               max(observed_at) AS last_observed_at
        FROM offer, cut
        WHERE gpu <> 'unknown' AND {PUBLIC}
          AND observed_at >= $previous::TIMESTAMP AND observed_at < $next::TIMESTAMP
          AND (observed_at >= $month::TIMESTAMP OR {_SAME_DAYS})
        GROUP BY month, gpu, source, billing
    ), medians AS (
        SELECT c.gpu, c.source, c.billing, c.median_cny_per_card_hour,
               p.median_cny_per_card_hour AS previous_median_cny_per_card_hour,
               c.median_cny_per_card_hour / p.median_cny_per_card_hour - 1 AS mom,
               c.observations, c.days, c.currencies, c.simulated,
               c.first_observed_at, c.last_observed_at,
               (SELECT through FROM cut) AS month_through,
               (SELECT whole_month FROM cut) AS whole_month
        FROM m c
        LEFT JOIN m p ON p.gpu = c.gpu AND p.source = c.source AND p.billing = c.billing
                     AND p.month = $previous
        WHERE c.month = $month
    )
"""


def platform_medians_query(month: date) -> Query:
    """The SQL and parameters of ``platform_medians``."""
    return (
        _MEDIANS + "SELECT * FROM medians ORDER BY gpu, billing, median_cny_per_card_hour, source",
        _bounds(month, previous=True),
    )


def platform_medians(warehouse: Warehouse, month: date) -> pl.DataFrame:
    """Per card, platform and billing mode: the month's median CNY per card-hour, the month
    before's over the same days (``whole_month``: all of it; else its days 1 to the day of
    ``month_through``, the report month's newest observation), month over month (a
    fraction: 0.05 = +5 %), how many observations and days, the currencies listed in,
    SIMULATED or not, and the first and last observation."""
    return read_frame(warehouse, *platform_medians_query(month))


def cheapest_platforms_query(month: date) -> Query:
    """The SQL and parameters of ``cheapest_platforms``."""
    return (
        _MEDIANS
        + f"""
        , ranked AS (
            SELECT *, row_number() OVER (PARTITION BY gpu, billing
                                         ORDER BY median_cny_per_card_hour, source) AS rank
            FROM medians WHERE NOT ends_with(source, '{PUBLISHED_SUFFIX}')
        )
        SELECT gpu, billing,
               arg_min(source, rank) AS cheapest_source,
               min(median_cny_per_card_hour) AS cheapest_median_cny_per_card_hour,
               arg_min(mom, rank) AS cheapest_mom,
               max(CASE WHEN rank = 2 THEN source END) AS runner_up_source,
               max(CASE WHEN rank = 2 THEN median_cny_per_card_hour END)
                   AS runner_up_median_cny_per_card_hour,
               arg_max(source, rank) AS dearest_source,
               max(median_cny_per_card_hour) AS dearest_median_cny_per_card_hour,
               max(median_cny_per_card_hour) / min(median_cny_per_card_hour) AS spread_ratio,
               max(median_cny_per_card_hour) - min(median_cny_per_card_hour) AS spread_cny,
               count(*) AS platforms, bool_or(simulated) AS simulated
        FROM ranked GROUP BY gpu, billing ORDER BY gpu, billing
        """,
        _bounds(month, previous=True),
    )


def cheapest_platforms(warehouse: Warehouse, month: date) -> pl.DataFrame:
    """Per card and billing mode: the platform with the lowest monthly median, its median
    and month over month, the runner-up, the dearest platform, the spread (max / min and
    max − min, CNY per card-hour) and how many platforms quote it. The seeds' published
    reference prices (``*-published``) are no platform and are left out, as in the
    cross-platform cheapest line (docs/METRICS.md)."""
    return read_frame(warehouse, *cheapest_platforms_query(month))


def breakeven_month_query(month: date) -> Query:
    """The SQL and parameters of ``breakeven_month``."""
    return (
        """
        SELECT gpu, source, scope,
               median(bare_metal_cny_per_card_month)::DOUBLE AS bare_metal_cny_per_card_month,
               median(list_cny_per_card_hour)::DOUBLE AS hourly_cny_per_card_hour,
               median(monthly_cny_per_card_hour)::DOUBLE AS monthly_cny_per_card_hour,
               median(breakeven_hours_vs_hourly)::DOUBLE AS breakeven_hours_vs_hourly,
               median(breakeven_hours_vs_monthly)::DOUBLE AS breakeven_hours_vs_monthly,
               count(*) AS snapshots, bool_or(simulated) AS simulated
        FROM breakeven
        WHERE observed_at >= $month::TIMESTAMP AND observed_at < $next::TIMESTAMP
        GROUP BY ALL
        ORDER BY gpu, scope DESC, source
        """,
        _bounds(month),
    )


def breakeven_month(warehouse: Warehouse, month: date) -> pl.DataFrame:
    """Per card and line (each platform, and the cross-platform ``cheapest`` line first):
    the month's median bare-metal CNY per card-month, hourly and monthly-plan CNY per
    card-hour, and breakeven hours per month against each, with the snapshots counted (a
    snapshot without a breakeven counts, its NULL does not: the median is of the others)."""
    return read_frame(warehouse, *breakeven_month_query(month))


def alerts_in_month_query(month: date) -> Query:
    """The SQL and parameters of ``alerts_in_month``."""
    return (
        """
        SELECT created_at, kind, rule, gpu, source, old_value, new_value, old_mode, new_mode,
               new_observed_at, delivered_at, message, params, simulated
        FROM alert
        WHERE created_at >= $month::TIMESTAMP AND created_at < $next::TIMESTAMP
          AND superseded IS NULL  -- standing alerts only (warehouse.derive.alerts)
        ORDER BY created_at, alert_id
        """,
        _bounds(month),
    )


def alerts_in_month(warehouse: Warehouse, month: date) -> pl.DataFrame:
    """The alerts raised (created) in the month, oldest first; not the ones a rule's later
    walk over its line took back (``superseded``, warehouse.derive.alerts)."""
    return read_frame(warehouse, *alerts_in_month_query(month))


def fx_in_month_query(month: date) -> Query:
    """The SQL and parameters of ``fx_in_month``."""
    return (
        """
        WITH listed AS (
            SELECT o.currency, o.source, o.observed_at, f.cny_per_unit, f.day AS rate_day,
                   f.source AS rate_source
            FROM (SELECT currency, source, observed_at, observed_at::DATE AS day FROM offer
                  WHERE gpu <> 'unknown' AND """
        + PUBLIC
        + """ AND currency <> 'CNY'
                    AND observed_at >= $month::TIMESTAMP AND observed_at < $next::TIMESTAMP) o
            ASOF LEFT JOIN fx_rate f ON o.currency = f.currency AND o.day >= f.day
        )
        SELECT currency, count(*) AS observations,
               string_agg(DISTINCT source, ', ' ORDER BY source) AS platforms,
               min(cny_per_unit)::DOUBLE AS low, max(cny_per_unit)::DOUBLE AS high,
               arg_max(cny_per_unit, observed_at)::DOUBLE AS last, max(rate_day) AS last_day,
               count(DISTINCT rate_day) AS days,
               string_agg(DISTINCT rate_source, '; ' ORDER BY rate_source) AS sources,
               count(*) FILTER (WHERE cny_per_unit IS NULL) AS unrated
        FROM listed GROUP BY currency ORDER BY currency
        """,
        _bounds(month),
    )


def fx_in_month(warehouse: Warehouse, month: date) -> pl.DataFrame:
    """Per currency other than CNY, what the month's listings in it were converted at, from
    those rows themselves (the report's own rows, not whatever fx_rate holds for the month):
    how many observations and which platforms; for each, the rate the load used (the newest
    ``fx_rate`` on or before its day, as warehouse.ingest.money prices it): lowest, highest,
    the newest and its day, how many days of rates, where they come from, and how many
    observations predate every stored rate (priced at a default no longer on record)."""
    return read_frame(warehouse, *fx_in_month_query(month))


def index_month_query(month: date) -> Query:
    """The SQL and parameters of ``index_month``."""
    return (
        """
        WITH days AS (
            SELECT kind, gpu, billing, day, status, value_cny_per_card_hour AS value, level,
                   platforms
            FROM price_index
            WHERE method = $method AND superseded_at IS NULL
              AND day >= $month AND day < $next
        ), before AS (
            SELECT kind, gpu, billing, arg_max(level, day) AS level_before,
                   max(day) AS day_before
            FROM price_index
            WHERE method = $method AND superseded_at IS NULL AND status = 'published'
              AND day < $month
            GROUP BY ALL
        )
        SELECT d.gpu, d.billing, d.kind, d.kind = 'SIMULATED' AS simulated,
               count(*) FILTER (WHERE d.status = 'published') AS published_days,
               count(*) FILTER (WHERE d.status = 'withheld') AS withheld_days,
               median(d.value) AS median_cny_per_card_hour,
               arg_max(d.value, d.day) FILTER (WHERE d.status = 'published')
                   AS last_cny_per_card_hour,
               max(d.day) FILTER (WHERE d.status = 'published') AS last_day,
               arg_max(d.level, d.day) FILTER (WHERE d.status = 'published')
                   / coalesce(any_value(b.level_before),
                              arg_min(d.level, d.day) FILTER (WHERE d.status = 'published'))
                   - 1 AS month_change,
               coalesce(any_value(b.day_before),
                        min(d.day) FILTER (WHERE d.status = 'published')) AS compared_with_day,
               avg(d.platforms) FILTER (WHERE d.status = 'published') AS mean_platforms
        FROM days d LEFT JOIN before b USING (kind, gpu, billing)
        GROUP BY d.gpu, d.billing, d.kind
        ORDER BY d.kind, published_days DESC, d.gpu, d.billing
        """,
        {"method": METHOD} | _bounds(month),
    )


def index_month(warehouse: Warehouse, month: date) -> pl.DataFrame:
    """The month's price index per card, rent mode and kind (docs/INDEX.md): days published
    and withheld, the median of its daily values, the last published value and its day, and
    the month's change (the chain-linked level of that day over the level of the last
    published day before the month, or of the month's first published day when there is
    none before it (``compared_with_day`` says which), minus 1: matched samples all the
    way)."""
    return read_frame(warehouse, *index_month_query(month))


def index_spreads_month_query(month: date) -> Query:
    """The SQL and parameters of ``index_spreads_month``."""
    return (
        f"""
        SELECT source, card AS gpu, billing, region, basis, kind, kind = 'SIMULATED' AS simulated,
               count(*) AS days, count(spread_ratio) AS days_compared,
               median(figure_cny_per_card_hour) AS figure_cny_per_card_hour,
               median(index_cny_per_card_hour) AS index_cny_per_card_hour,
               median(spread_cny_per_card_hour) AS spread_cny_per_card_hour,
               median(spread_ratio) AS spread_ratio, any_value(citation) AS citation
        FROM ({FIGURES}) spread
        GROUP BY ALL
        ORDER BY kind, source, gpu, billing, region
        """,
        {"method": METHOD, "first": month_start(month), "end": next_month(month), "kind": None},
    )


def index_spreads_month(warehouse: Warehouse, month: date) -> pl.DataFrame:
    """Per outside figure (a seed's published price, an SMM quote by card, region and basis)
    in the month: the days it was given and compared, the medians of the figure, the index
    of the same day, mode and kind, and the spread (CNY per card-hour and figure ÷ index − 1)."""
    return read_frame(warehouse, *index_spreads_month_query(month))


# The report's tables a warehouse may not have yet (no derive, no alerts, no FX table, no
# price index: migration 014).
OPTIONAL = ("breakeven", "alerts", "fx", "index", "index_spreads")


def month_report(
    warehouse: Warehouse, month: date, wait_s: float = WAIT_S
) -> dict[str, pl.DataFrame | None]:
    """Every table of the month's report, read in one connection (warehouse.read.batch): one
    wait for the lock while the pipeline writes, not five. Keys: medians, cheapest,
    breakeven, alerts, fx, index, index_spreads (the last five None on a warehouse without
    their table)."""
    queries = {
        "medians": platform_medians_query(month),
        "cheapest": cheapest_platforms_query(month),
        "breakeven": breakeven_month_query(month),
        "alerts": alerts_in_month_query(month),
        "fx": fx_in_month_query(month),
        "index": index_month_query(month),
        "index_spreads": index_spreads_month_query(month),
    }
    return read_frames(warehouse, queries, optional=OPTIONAL, wait_s=wait_s)
