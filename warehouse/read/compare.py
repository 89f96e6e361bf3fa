"""Read-only SQL behind the platform comparison page: the same card on every platform today,
the cheapest platform and the spread, how each platform moved over a window, and the FX rate
the USD platforms were converted at.

"Today" is each platform's newest snapshot (the newest row of every listing, from the
serving copy's ``offer_latest`` when there is one), for platforms whose newest snapshot is at
most ``FRESH_HOURS`` older than the newest of all: a platform that stopped answering a week
ago is not quoting today. The seeds' published reference prices (``*-published``) are dated
articles, not platforms quoting now: they are left out here (the trend page shows them).
Prices are CNY per card-hour; a USD listing's was converted at the day's ``fx_rate`` when it
was loaded (warehouse.ingest.money), and ``fx_rates_on`` says which rate that was.
"""

from __future__ import annotations

from datetime import date

import polars as pl

from warehouse.ingest.reference import PUBLISHED_SUFFIX
from warehouse.read.dashboard import price_trend
from warehouse.read.filters import NO_REGION, OfferFilter
from warehouse.store.db import read_frame
from warehouse.store.handle import Warehouse
from warehouse.store.serving import read_served

# As the cross-platform cheapest line counts it (warehouse.derive.metrics): a platform's
# newest snapshot older than this, against the newest of all, is no longer today's price.
FRESH_HOURS = 72

_TODAY = f"""
    WITH latest AS (
        SELECT * FROM offer{{latest}}
        WHERE gpu <> 'unknown' AND NOT ends_with(source, '{PUBLISHED_SUFFIX}')
        QUALIFY row_number() OVER (PARTITION BY source, offer_id, billing
                                   ORDER BY observed_at DESC) = 1
    ), today AS (
        SELECT *, coalesce(region, '{NO_REGION}') AS region_name
        FROM latest
        QUALIFY observed_at = max(observed_at) OVER (PARTITION BY source)
            AND max(observed_at) OVER (PARTITION BY source)
                >= max(observed_at) OVER () - INTERVAL {FRESH_HOURS} HOUR
    )
"""


def compare_options(warehouse: Warehouse) -> pl.DataFrame:
    """What the comparison filters can offer: each (card, billing, region) quoted today,
    whether the card is domestic (gpu_spec.domestic: Chinese-made, e.g. Ascend 910B)."""
    return read_served(
        warehouse,
        _TODAY
        + """
        SELECT DISTINCT t.gpu, t.billing, t.region_name AS region,
               coalesce(s.domestic, false) AS domestic
        FROM today t LEFT JOIN gpu_spec s USING (gpu)
        ORDER BY t.gpu, t.billing, region
        """,
    )


def platform_prices(
    warehouse: Warehouse, offers: OfferFilter, domestic_only: bool = False
) -> pl.DataFrame:
    """Per card, billing mode and platform today: the cheapest listing's CNY per card-hour
    (within the chosen regions), as listed (price, currency, unit), when it was observed, and
    for its card and billing mode: the cheapest platform, the lowest and highest platform
    price, the spread (max / min and max − min in CNY) and the platform's rank (1 = cheapest).
    The filter's days, when set, bound the snapshot times."""
    return read_served(
        warehouse,
        _TODAY
        + f"""
        , cheapest AS (
            SELECT t.gpu, t.billing, t.source,
                   arg_min(t.cny_per_card_hour, t.cny_per_card_hour)::DOUBLE
                       AS cny_per_card_hour,
                   arg_min(t.price, t.cny_per_card_hour)::DOUBLE AS price,
                   arg_min(t.currency, t.cny_per_card_hour) AS currency,
                   arg_min(t.unit_raw, t.cny_per_card_hour) AS unit_raw,
                   arg_min(t.region_name, t.cny_per_card_hour) AS region,
                   arg_min(t.offer_id, t.cny_per_card_hour) AS offer_id,
                   count(*) AS listings, max(t.observed_at) AS observed_at,
                   bool_or(t.simulated) AS simulated,
                   coalesce(any_value(s.domestic), false) AS domestic
            FROM today t LEFT JOIN gpu_spec s USING (gpu)
            WHERE {offers.where(table="t.", region="t.region_name", at="t.observed_at")}
              AND (NOT $domestic_only OR coalesce(s.domestic, false))
            GROUP BY t.gpu, t.billing, t.source
        )
        SELECT *,
               rank() OVER card AS rank,
               count(*) OVER card_all AS platforms,
               first(source) OVER (card ROWS BETWEEN UNBOUNDED PRECEDING
                                   AND UNBOUNDED FOLLOWING) AS cheapest_source,
               min(cny_per_card_hour) OVER card_all AS card_min,
               max(cny_per_card_hour) OVER card_all AS card_max,
               max(cny_per_card_hour) OVER card_all / min(cny_per_card_hour) OVER card_all
                   AS spread_ratio,
               max(cny_per_card_hour) OVER card_all - min(cny_per_card_hour) OVER card_all
                   AS spread_cny
        FROM cheapest
        WINDOW card AS (PARTITION BY gpu, billing ORDER BY cny_per_card_hour, source),
               card_all AS (PARTITION BY gpu, billing)
        ORDER BY gpu, billing, cny_per_card_hour, source
        """,
        offers.params() | {"domestic_only": domestic_only},
    )


def platform_moves(warehouse: Warehouse, offers: OfferFilter) -> pl.DataFrame:
    """Per card, platform and billing mode over [start, end]: the first and last day's mean
    CNY per card-hour (warehouse.read.dashboard.price_trend, daily), the change between them
    and the window's low and high."""
    daily = price_trend(warehouse, "day", offers)
    return (
        daily.sort("period")
        .group_by("gpu", "source", "billing", maintain_order=True)
        .agg(
            pl.col("period").first().alias("first_day"),
            pl.col("cny_per_card_hour").first().alias("first_cny_per_card_hour"),
            pl.col("period").last().alias("last_day"),
            pl.col("cny_per_card_hour").last().alias("last_cny_per_card_hour"),
            pl.col("low").min().alias("low"),
            pl.col("high").max().alias("high"),
            pl.len().alias("days"),
            pl.col("simulated").any().alias("simulated"),
        )
        .with_columns(
            change=pl.col("last_cny_per_card_hour") / pl.col("first_cny_per_card_hour") - 1
        )
        .sort("gpu", "billing", "source")
    )


def fx_rates_on(warehouse: Warehouse, day: date) -> pl.DataFrame:
    """Per currency, the rate a listing observed on ``day`` was converted at: the newest
    ``fx_rate`` on or before the day, else the oldest one (the configured default, which
    the load uses before the first known day); its date and where it comes from."""
    return read_frame(
        warehouse,
        """
        SELECT currency, day, cny_per_unit::DOUBLE AS cny_per_unit, source
        FROM fx_rate
        QUALIFY row_number() OVER (
            PARTITION BY currency ORDER BY (day <= $day) DESC,
                                           CASE WHEN day <= $day THEN day END DESC, day) = 1
        ORDER BY currency
        """,
        {"day": day},
    )
