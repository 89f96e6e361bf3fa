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

from dataclasses import replace
from datetime import date
from typing import Literal

import polars as pl

from warehouse.ingest.reference import PUBLISHED_SUFFIX
from warehouse.public import PUBLIC
from warehouse.read.batch import WAIT_S
from warehouse.read.dashboard import price_trend
from warehouse.read.filters import NO_REGION, OfferFilter
from warehouse.read.months import MonthToDate
from warehouse.store.db import read_frame
from warehouse.store.handle import Warehouse
from warehouse.store.serving import read_served

# As the cross-platform cheapest line counts it (warehouse.derive.metrics): a platform's
# newest snapshot older than this, against the newest of all, is no longer today's price.
FRESH_HOURS = 72

_TODAY = f"""
    WITH latest AS (
        SELECT * FROM offer{{latest}}
        WHERE gpu <> 'unknown' AND {PUBLIC} AND NOT ends_with(source, '{PUBLISHED_SUFFIX}')
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


Basis = Literal["cheapest", "median"]
BASES: tuple[Basis, ...] = ("cheapest", "median")


def _basis(basis: str) -> Basis:
    if basis not in BASES:
        raise ValueError(f"price basis {basis!r} is not one of {', '.join(BASES)}")
    return basis  # type: ignore[return-value]


def platform_prices(
    warehouse: Warehouse,
    offers: OfferFilter,
    domestic_only: bool = False,
    basis: Basis = "cheapest",
) -> pl.DataFrame:
    """Per card, billing mode and platform today, one price on the chosen ``basis``: the
    cheapest listing's CNY per card-hour (``cheapest``) or the median of the platform's
    listings (``median``), within the chosen regions; the cheapest listing as listed (price,
    currency, unit), when it was observed, how many listings; and for its card and billing
    mode: the lowest and highest platform price, the spread (max / min and max − min in
    CNY) and the platform's rank (1 = cheapest). The filter's days, when set, bound the
    snapshot times."""
    value = "min" if _basis(basis) == "cheapest" else "median"
    return read_served(
        warehouse,
        _TODAY
        + f"""
        , per_platform AS (
            SELECT t.gpu, t.billing, t.source,
                   {value}(t.cny_per_card_hour)::DOUBLE AS cny_per_card_hour,
                   min(t.cny_per_card_hour)::DOUBLE AS lowest_cny_per_card_hour,
                   median(t.cny_per_card_hour)::DOUBLE AS median_cny_per_card_hour,
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
        FROM per_platform
        WINDOW card AS (PARTITION BY gpu, billing ORDER BY cny_per_card_hour, source),
               card_all AS (PARTITION BY gpu, billing)
        ORDER BY gpu, billing, cny_per_card_hour, source
        """,
        offers.params() | {"domestic_only": domestic_only},
    )


def daily_prices(
    warehouse: Warehouse, offers: OfferFilter, basis: Basis = "cheapest"
) -> pl.DataFrame:
    """Per day in [start, end], card, platform and billing mode, the day's price on
    ``basis``: its lowest listing (the daily rollup's minimum over the chosen regions, from
    the serving copy) or the median of every listing observed that day (``median``: read
    from the offers themselves, which no rollup keeps). Columns: period (the day), gpu,
    source, billing, cny_per_card_hour, listings (observations), simulated."""
    if _basis(basis) == "cheapest":
        daily = price_trend(warehouse, "day", offers)
        return daily.select(
            "period",
            "gpu",
            "source",
            "billing",
            pl.col("low").alias("cny_per_card_hour"),
            pl.col("observations").alias("listings"),
            "simulated",
        )
    return read_frame(
        warehouse,
        f"""
        SELECT observed_at::DATE AS period, gpu, source, billing,
               median(cny_per_card_hour)::DOUBLE AS cny_per_card_hour,
               count(*) AS listings, bool_or(simulated) AS simulated
        FROM offer
        WHERE gpu <> 'unknown' AND {PUBLIC} AND {offers.where()}
        GROUP BY ALL ORDER BY period, gpu, source, billing
        """,
        offers.params(),
    )


def platform_moves(
    warehouse: Warehouse, offers: OfferFilter, basis: Basis = "cheapest"
) -> pl.DataFrame:
    """Per card, platform and billing mode over [start, end]: the first and last day's price
    on ``basis`` (``daily_prices``), the change between them and the window's low and high
    of that daily price."""
    return moves_of(daily_prices(warehouse, offers, basis))


def moves_of(daily: pl.DataFrame) -> pl.DataFrame:
    """``platform_moves`` of a ``daily_prices`` frame the caller already has."""
    return (
        daily.sort("period")
        .group_by("gpu", "source", "billing", maintain_order=True)
        .agg(
            pl.col("period").first().alias("first_day"),
            pl.col("cny_per_card_hour").first().alias("first_cny_per_card_hour"),
            pl.col("period").last().alias("last_day"),
            pl.col("cny_per_card_hour").last().alias("last_cny_per_card_hour"),
            pl.col("cny_per_card_hour").min().alias("low"),
            pl.col("cny_per_card_hour").max().alias("high"),
            pl.len().alias("days"),
            pl.col("simulated").any().alias("simulated"),
        )
        .with_columns(
            change=pl.col("last_cny_per_card_hour") / pl.col("first_cny_per_card_hour") - 1
        )
        .sort("gpu", "billing", "source")
    )


def month_changes(
    warehouse: Warehouse, offers: OfferFilter, day: date, basis: Basis = "cheapest"
) -> pl.DataFrame:
    """How prices moved this month, to ``day`` (the newest day quoted), on ``basis``.

    One row per card, billing mode and platform (``scope = 'platform'``), and one per card
    and billing mode for the market's cheapest (``scope = 'market'``: each day the lowest
    price across the platforms, ``first_source`` / ``last_source`` saying whose it was):

    * ``first_day`` / ``first_cny_per_card_hour``: the month's first day with a price,
      ``last_day`` / ``last_cny_per_card_hour`` the newest; ``change`` = last ÷ first − 1;
    * month over month, month to date against the same days of the month before:
      ``mtd_cny_per_card_hour`` is the mean daily price from the 1st to ``day``,
      ``previous_cny_per_card_hour`` the same over the previous month's days 1 to
      ``day``'s day of the month (``previous_from`` to ``previous_through``, the whole
      previous month when ``day`` ends its month); ``mom`` = mtd ÷ previous − 1 (NULL when
      the platform has no price in those days, never 0).
    """
    return month_changes_of(daily_prices(warehouse, month_window(offers, day), basis), day)


def month_window(offers: OfferFilter, day: date) -> OfferFilter:
    """``offers`` over the days ``month_changes`` reads: the 1st of last month to ``day``."""
    return replace(offers, start=MonthToDate(day).previous, end=day)


def month_changes_of(daily: pl.DataFrame, day: date) -> pl.DataFrame:
    """``month_changes`` of a ``daily_prices`` frame over ``month_window`` (the caller's)."""
    window = MonthToDate(day)
    market = (
        daily.sort("cny_per_card_hour", "source")
        .group_by("period", "gpu", "billing")
        .agg(pl.all().first())
        .select("period", "gpu", "billing", "source", "cny_per_card_hour", "simulated")
    )
    bounds = {
        "month": window.month,
        "day": day,
        "previous": window.previous,
        "through": window.through,
    }
    return pl.concat(
        [
            _changes(daily, ("gpu", "billing", "source"), bounds).with_columns(
                scope=pl.lit("platform")
            ),
            _changes(market, ("gpu", "billing"), bounds).with_columns(scope=pl.lit("market")),
        ],
        how="diagonal_relaxed",
    ).sort("gpu", "billing", "scope", "source")


def _changes(daily: pl.DataFrame, keys: tuple[str, ...], bounds: dict[str, date]) -> pl.DataFrame:
    """``month_changes`` over one daily series (``keys``: what a row is)."""
    value = pl.col("cny_per_card_hour")
    this = daily.filter(pl.col("period").is_between(bounds["month"], bounds["day"]))
    before = daily.filter(pl.col("period").is_between(bounds["previous"], bounds["through"]))
    moved = (
        this.sort("period")
        .group_by(keys, maintain_order=True)
        .agg(
            pl.col("period").first().alias("first_day"),
            value.first().alias("first_cny_per_card_hour"),
            pl.col("source").first().alias("first_source"),
            pl.col("period").last().alias("last_day"),
            value.last().alias("last_cny_per_card_hour"),
            pl.col("source").last().alias("last_source"),
            value.mean().alias("mtd_cny_per_card_hour"),
            pl.len().alias("days"),
            pl.col("simulated").any().alias("simulated"),
        )
    )
    earlier = before.group_by(keys).agg(value.mean().alias("previous_cny_per_card_hour"))
    if "source" not in keys:
        moved = moved.with_columns(source=pl.col("last_source"))
    return moved.join(earlier, on=list(keys), how="left").with_columns(
        change=pl.col("last_cny_per_card_hour") / pl.col("first_cny_per_card_hour") - 1,
        mom=pl.col("mtd_cny_per_card_hour") / pl.col("previous_cny_per_card_hour") - 1,
        month_from=pl.lit(bounds["month"]),
        month_through=pl.lit(bounds["day"]),
        previous_from=pl.lit(bounds["previous"]),
        previous_through=pl.lit(bounds["through"]),
    )


def fx_rates_on(warehouse: Warehouse, day: date, wait_s: float = WAIT_S) -> pl.DataFrame:
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
        wait_s=wait_s,
    )
