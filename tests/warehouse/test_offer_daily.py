"""offer_daily (migration 005) equals the daily aggregate of the raw offers, kept
incrementally by the derive step, and the fast pending-snapshot path still finds a
backfilled past day; the dashboard's trend query gives the same figures from it."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tests.support.demo_days import insert, load_demo_day
from tests.support.demo_days import warehouse as warehouse
from tests.support.handles import warehouse_at
from tests.warehouse.derive.rows import listing
from warehouse.derive.metrics import derive
from warehouse.derive.rollup import DAILY_SELECT
from warehouse.read.dashboard import price_trend
from warehouse.read.filters import OfferFilter
from warehouse.store.db import read_frame, write_connection
from warehouse.store.handle import Warehouse
from warehouse.store.serving import remove, serving_path

KEYS = ["day", "source", "gpu", "billing", "region", "simulated"]
COLUMNS = [
    *KEYS,
    "observations",
    "sum_cny_per_card_hour",
    "min_cny_per_card_hour",
    "max_cny_per_card_hour",
    "first_observed_at",
    "last_observed_at",
    "origin",
    "origins",
]


def rollup(path: Path) -> pl.DataFrame:
    return read_frame(warehouse_at(path), "SELECT * FROM offer_daily").select(COLUMNS).sort(KEYS)


def from_raw(path: Path) -> pl.DataFrame:
    return (
        read_frame(warehouse_at(path), DAILY_SELECT.format(where="true")).select(COLUMNS).sort(KEYS)
    )


MONTH_COLUMNS = ["month", *COLUMNS[1:]]


def monthly(path: Path) -> pl.DataFrame:
    return (
        read_frame(warehouse_at(path), "SELECT * FROM offer_monthly")
        .select(MONTH_COLUMNS)
        .sort(MONTH_COLUMNS[:6])
    )


def monthly_from_raw(path: Path) -> pl.DataFrame:
    """Straight from the raw offers (not from offer_daily)."""
    return (
        read_frame(
            warehouse_at(path),
            """
            SELECT date_trunc('month', observed_at)::DATE AS month, source, gpu, billing,
                   coalesce(region, '(none)') AS region, count(*) AS observations,
                   sum(cny_per_card_hour)::DECIMAL(38, 6) AS sum_cny_per_card_hour,
                   min(cny_per_card_hour) AS min_cny_per_card_hour,
                   max(cny_per_card_hour) AS max_cny_per_card_hour,
                   simulated, min(observed_at) AS first_observed_at,
                   max(observed_at) AS last_observed_at,
                   arg_min(citation, observed_at) FILTER (WHERE citation IS NOT NULL
                                                          AND NOT simulated) AS origin,
                   -- a month's origins: its days' distinct citations, summed
                   count(DISTINCT (observed_at::DATE, citation))
                       FILTER (WHERE citation IS NOT NULL AND NOT simulated)::INTEGER AS origins
            FROM offer WHERE gpu <> 'unknown' GROUP BY ALL
            """,
        )
        .select(MONTH_COLUMNS)
        .sort(MONTH_COLUMNS[:6])
    )


def drop_serving_copy(where: Path | Warehouse) -> None:
    """These tests read the warehouse itself (rollup + raw tail): the path readers take
    when there is no serving copy; tests/warehouse/test_serving.py covers the copy."""
    path = warehouse_at(where).path
    remove(serving_path(path))
    assert not serving_path(path).exists()


def assert_rollups_match(path: Path) -> None:
    assert_frame_equal(rollup(path), from_raw(path))
    assert_frame_equal(monthly(path), monthly_from_raw(path))


def test_offer_daily_equals_raw_aggregate_incrementally(warehouse: Warehouse) -> None:
    derive(warehouse)
    for day in (date(2026, 9, 1), date(2026, 9, 2)):
        load_demo_day(warehouse, day)
        derive(warehouse)
        assert_rollups_match(warehouse)
    # Hour by hour on one day: each snapshot re-aggregates only its own day and source.
    t0 = datetime(2026, 9, 3, 0)
    for hour, price in enumerate(("2.00", "2.20", "2.60")):
        insert(
            warehouse,
            listing(
                t0 + timedelta(hours=hour), "testcloud", "h100-80g", hourly=price, region="北京"
            ),
        )
        summary = derive(warehouse)
        assert summary.offer_snapshots == 1
    assert_rollups_match(warehouse)
    row = read_frame(
        warehouse,
        "SELECT * FROM offer_daily WHERE source = 'testcloud' AND billing = 'hourly'",
    ).row(0, named=True)
    assert row["observations"] == 3
    assert float(row["sum_cny_per_card_hour"]) == pytest.approx(6.8)
    assert float(row["min_cny_per_card_hour"]) == 2.0
    assert float(row["max_cny_per_card_hour"]) == 2.6
    # No duplicate keys.
    frame = rollup(warehouse)
    assert frame.select(KEYS).is_duplicated().sum() == 0


def test_backfilled_past_day_is_found_and_rolled_up(warehouse: Warehouse) -> None:
    load_demo_day(warehouse, date(2026, 9, 10))
    derive(warehouse)
    # A past day loaded after a newer one: not newer than the ledger, so the slow path.
    load_demo_day(warehouse, date(2026, 8, 1))
    summary = derive(warehouse)
    assert summary.offer_snapshots >= 1
    assert_rollups_match(warehouse)
    # Nothing new: nothing derived.
    assert derive(warehouse).offer_snapshots == 0


def test_full_recompute_rebuilds_offer_daily(warehouse: Warehouse) -> None:
    load_demo_day(warehouse, date(2026, 9, 1))
    derive(warehouse)
    with write_connection(warehouse) as con:
        con.execute("DELETE FROM offer_daily")
    derive(warehouse, full=True)
    assert_rollups_match(warehouse)


def test_migration_rolls_up_offers_loaded_before_it(warehouse: Warehouse) -> None:
    load_demo_day(warehouse, date(2026, 9, 1))
    with write_connection(warehouse) as con:
        con.execute("DROP TABLE offer_daily")
        con.execute("DROP TABLE offer_monthly")
        con.execute("DELETE FROM schema_migration WHERE version IN (5, 12)")
    with write_connection(warehouse):
        pass  # migrates again: 005 rolls the offers up, 012 adds the origins
    assert_rollups_match(warehouse)


def test_trend_reads_rollup_plus_underived_tail(warehouse: Warehouse) -> None:
    """The trend query over offer_daily + offers newer than its watermark (loaded, not
    derived yet) equals the plain mean of the raw offers."""
    load_demo_day(warehouse, date(2026, 9, 10))
    derive(warehouse)
    load_demo_day(warehouse, date(2026, 9, 11))  # loaded, not derived yet
    drop_serving_copy(warehouse)
    args = OfferFilter(
        gpus=("rtx4090-24g", "h100-80g", "910b-64g"),
        sources=("jygpu",),
        billing=("hourly", "monthly", "bare_metal_monthly"),
        regions=tuple(
            read_frame(warehouse, "SELECT DISTINCT coalesce(region, '(none)') r FROM offer")[
                "r"
            ].to_list()
        ),
        start=date(2026, 9, 10),
        end=date(2026, 9, 11),
    )
    got = price_trend(warehouse, "day", args)
    expected = read_frame(
        warehouse,
        "SELECT observed_at::DATE AS period, gpu, source, billing, "
        "avg(cny_per_card_hour)::DOUBLE AS v, count(*) AS n FROM offer "
        "WHERE source = 'jygpu' AND list_contains($gpus, gpu) "
        "AND observed_at >= '2026-09-10' GROUP BY ALL "
        "ORDER BY period, gpu, source, billing",
        {"gpus": list(args.gpus or ())},
    )
    assert got.height == expected.height > 0
    assert got["period"].n_unique() == 2
    assert got["cny_per_card_hour"].to_list() == pytest.approx(expected["v"].to_list())
    assert got["observations"].to_list() == expected["n"].to_list()


@pytest.mark.parametrize("start", [date(2026, 7, 31), date(2026, 8, 1)])
def test_monthly_trend_from_whole_months_and_edge_days(warehouse: Warehouse, start: date) -> None:
    """Month grain: whole months from offer_monthly, the partial edge months from
    offer_daily, and a start in the middle of a month still cuts at that day."""
    for day in (date(2026, 7, 30), date(2026, 7, 31), date(2026, 8, 15), date(2026, 9, 10)):
        load_demo_day(warehouse, day)
    derive(warehouse)
    load_demo_day(warehouse, date(2026, 9, 11))  # loaded, not derived yet
    drop_serving_copy(warehouse)
    regions = tuple(
        read_frame(warehouse, "SELECT DISTINCT coalesce(region, '(none)') r FROM offer")[
            "r"
        ].to_list()
    )
    got = price_trend(
        warehouse,
        "month",
        OfferFilter(
            gpus=("rtx4090-24g", "910b-64g"),
            sources=("jygpu",),
            billing=("hourly", "monthly"),
            regions=regions,
            start=start,
            end=date(2026, 9, 11),
        ),
    )
    expected = read_frame(
        warehouse,
        "SELECT date_trunc('month', observed_at)::DATE AS period, gpu, source, billing, "
        "avg(cny_per_card_hour)::DOUBLE AS v, count(*) AS n FROM offer "
        "WHERE source = 'jygpu' AND gpu IN ('rtx4090-24g', '910b-64g') "
        "AND billing IN ('hourly', 'monthly') AND observed_at >= $start "
        "AND observed_at < '2026-09-12' GROUP BY ALL ORDER BY period, gpu, source, billing",
        {"start": start},
    )
    assert got["period"].to_list() == expected["period"].to_list()
    assert got["cny_per_card_hour"].to_list() == pytest.approx(expected["v"].to_list())
    assert got["observations"].to_list() == expected["n"].to_list()


def test_trend_options_from_rollup_equal_raw(warehouse: Warehouse) -> None:
    from warehouse.read.dashboard import trend_options

    load_demo_day(warehouse, date(2026, 9, 10))
    derive(warehouse)
    load_demo_day(warehouse, date(2026, 9, 11))  # loaded, not derived yet
    drop_serving_copy(warehouse)
    expected = read_frame(
        warehouse,
        """
        SELECT gpu, source, billing, coalesce(region, '(none)') AS region,
               min(observed_at)::DATE AS first_day, max(observed_at)::DATE AS last_day,
               count(*) AS observations, bool_or(simulated) AS simulated,
               min(observed_at) FILTER (WHERE NOT simulated)::DATE AS first_real_day
        FROM offer WHERE gpu <> 'unknown'
        GROUP BY ALL ORDER BY gpu, source, billing, region
        """,
    )
    assert_frame_equal(trend_options(warehouse), expected, check_dtypes=False)
