"""The serving copy (warehouse.store.serving): the dashboard's queries give the same answers from
it as from the warehouse, it is kept incrementally (a new snapshot copies its own day only)
and equals a full copy, and every way it can go wrong (locked by readers, damaged, another
layout, a restored warehouse) leaves correct answers."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tests.support.demo_days import insert, load_demo_day
from tests.support.demo_days import warehouse as warehouse
from tests.support.handles import warehouse_at
from tests.warehouse.derive.rows import listing
from warehouse.derive.metrics import derive
from warehouse.read import dashboard as dq
from warehouse.read import metrics as metric_queries
from warehouse.read import prices as queries
from warehouse.read.filters import OfferFilter
from warehouse.read.recommender import latest_card_prices
from warehouse.store import serving
from warehouse.store.backup import backup
from warehouse.store.db import read_frame
from warehouse.store.handle import Warehouse
from warehouse.store.restore import restore
from warehouse.store.serving import serving_path

SERVED_TABLES = (
    "breakeven_daily",
    "offer_daily",
    "offer_monthly",
    "spot_quote",
    "offer_latest",
    "card_value_latest",
    "breakeven_latest",
    "gpu_spec",
)


def served_table(where: Path | Warehouse, table: str) -> pl.DataFrame:
    # the serving copy: a local file, also when the warehouse is a DuckLake
    warehouse = warehouse_at(where)
    frame = read_frame(warehouse.local(serving_path(warehouse.path)), f"SELECT * FROM {table}")
    return frame.sort(frame.columns)


def outbox(path: Path) -> list[tuple]:
    return read_frame(
        warehouse_at(path), "SELECT source, day FROM serving_outbox ORDER BY ALL"
    ).rows()


def history(path: Path) -> None:
    """Four demo days derived one by one, a past day backfilled after them, then hour by
    hour snapshots of a hand-made platform whose newest card goes away in a re-derive."""
    for day in (date(2026, 8, 30), date(2026, 8, 31), date(2026, 9, 1), date(2026, 9, 10)):
        load_demo_day(path, day)
        derive(warehouse_at(path))
    load_demo_day(path, date(2026, 7, 15))  # backfilled past day
    derive(warehouse_at(path))
    t0 = datetime(2026, 9, 10, 6)
    for hour, price in enumerate(("14.10", "14.70", "13.90")):
        insert(path, listing(t0 + timedelta(hours=hour), "testcloud", "h100-80g", hourly=price))
        assert (
            derive(warehouse_at(path)).serving.days == 1
        )  # one platform-day copied, not the history


def all_queries(path: Path) -> dict[str, Callable[[], pl.DataFrame]]:
    opts = dq.trend_options(warehouse_at(path))
    filters = OfferFilter(
        gpus=tuple(sorted(opts["gpu"].unique())),
        sources=tuple(sorted(opts["source"].unique())),
        billing=tuple(sorted(opts["billing"].unique())),
        regions=tuple(sorted(opts["region"].unique())),
        start=date(2026, 7, 1),
        end=date(2026, 9, 10),
    )
    found = {
        f"{name} {grain}": (lambda f=fn, g=grain: f(path, g, filters))
        for name, fn in (("trend", dq.price_trend), ("band", dq.price_band))
        for grain in ("day", "week", "month")
    }
    found |= {
        f"trend apart {grain}": (lambda g=grain: dq.price_trend(path, g, filters, apart=True))
        for grain in ("day", "week", "month")
    }
    return found | {
        "trend_options": lambda: dq.trend_options(warehouse_at(path)),
        "monthly_changes": lambda: dq.monthly_changes(warehouse_at(path), filters),
        "card_changes": lambda: dq.card_changes(warehouse_at(path), filters),
        "quote_trend": lambda: dq.quote_trend(
            warehouse_at(path),
            "day",
            OfferFilter(gpus=filters.gpus, start=filters.start, end=filters.end),
        ),
        "value_board": lambda: dq.value_board(warehouse_at(path)),
        "latest_breakeven": lambda: metric_queries.latest_breakeven(warehouse_at(path)),
        "latest_breakeven h100": lambda: metric_queries.latest_breakeven(
            warehouse_at(path), "h100-80g"
        ),
        "latest_offers": lambda: queries.latest_offers(warehouse_at(path)),
        "latest_card_prices": lambda: latest_card_prices(warehouse_at(path)),
        "latest_card_prices testcloud": lambda: latest_card_prices(warehouse_at(path), "testcloud"),
        "breakeven_daily h100 cheapest": lambda: metric_queries.breakeven_daily(
            warehouse_at(path), "h100-80g", "cheapest"
        ),
        "breakeven_daily h100 testcloud": lambda: metric_queries.breakeven_daily(
            warehouse_at(path), "h100-80g", "testcloud"
        ),
    }


def same(got: pl.DataFrame | list, expected: pl.DataFrame | list, name: str) -> None:
    if isinstance(got, list):  # the recommender's reads are rows (dicts), not frames
        assert got == expected, name
        return
    try:
        assert_frame_equal(got, expected, check_dtypes=False)
    except AssertionError as exc:
        raise AssertionError(f"{name}: {exc}") from None


def without_copy(where: Path | Warehouse, fn: Callable[[], pl.DataFrame]) -> pl.DataFrame:
    """``fn`` with the serving copy moved away: the warehouse path."""
    target = serving_path(warehouse_at(where).path)
    aside = target.with_name("aside.duckdb")
    target.rename(aside)
    try:
        return fn()
    finally:
        aside.rename(target)


def test_served_queries_equal_warehouse_queries(warehouse: Warehouse) -> None:
    history(warehouse)
    assert serving_path(warehouse.path).exists() and outbox(warehouse) == []
    for name, fn in all_queries(warehouse).items():
        served = fn()
        # A band needs two platforms on a card: not every card has them here.
        assert len(served) > 0 or name.startswith("band"), name
        same(served, without_copy(warehouse, fn), name)
    # The trend includes the backfilled past day and the hour-by-hour platform.
    trend = all_queries(warehouse)["trend day"]()
    assert date(2026, 7, 15) in trend["period"].to_list()
    assert "testcloud" in trend["source"].to_list()
    latest = metric_queries.latest_breakeven(warehouse, "h100-80g")
    assert latest.filter(pl.col("source") == "testcloud")["observed_at"].to_list() == [
        datetime(2026, 9, 10, 8)
    ]


def test_incremental_copy_equals_full_copy(warehouse: Warehouse) -> None:
    history(warehouse)
    # A late page: the newest testcloud snapshot gets another card, which is re-derived.
    insert(warehouse, listing(datetime(2026, 9, 10, 8), "testcloud", "a100-80g", hourly="6.40"))
    assert derive(warehouse).offer_snapshots == 1
    incremental = {t: served_table(warehouse, t) for t in SERVED_TABLES}
    serving.remove(serving_path(warehouse.path))
    summary = derive(warehouse)  # nothing to derive; the missing copy is rebuilt whole
    assert summary.offer_snapshots == 0 and summary.serving.full
    for table in SERVED_TABLES:
        same(incremental[table], served_table(warehouse, table), table)
    assert incremental["card_value_latest"].filter(pl.col("gpu") == "a100-80g").height >= 1


def test_copy_follows_a_full_recompute_and_a_new_layout(warehouse: Warehouse) -> None:
    load_demo_day(warehouse, date(2026, 9, 10))
    assert derive(warehouse).serving.full  # the first copy is a full one
    assert derive(warehouse, full=True).serving.full  # a recompute copies everything
    assert outbox(warehouse) == []
    con = duckdb.connect(str(serving_path(warehouse.path)))
    con.execute("UPDATE serving_state SET layout = layout - 1")
    con.close()
    # Readers do not use a copy of another layout, and the next sync rebuilds it.
    assert not served_state_ok(warehouse)
    assert dq.value_board(warehouse).height > 0
    assert derive(warehouse).serving.full
    assert served_state_ok(warehouse)


def served_state_ok(path: Path) -> bool:
    with serving.serving_connection(warehouse_at(path)) as served:
        return served is not None


def test_damaged_copy_falls_back_then_is_rebuilt(warehouse: Warehouse) -> None:
    load_demo_day(warehouse, date(2026, 9, 10))
    derive(warehouse)
    expected = dq.value_board(warehouse)
    serving_path(warehouse.path).write_bytes(b"this is not a DuckDB file" * 100)
    assert_frame_equal(dq.value_board(warehouse), expected)  # from the warehouse
    summary = derive(warehouse)
    assert summary.serving_error is None and summary.serving.full
    assert served_state_ok(warehouse)
    assert_frame_equal(dq.value_board(warehouse), expected)


HOLD = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_locked_copy_keeps_days_queued_for_the_next_run(
    warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_demo_day(warehouse, date(2026, 9, 10))
    derive(warehouse)
    monkeypatch.setattr(serving, "SYNC_WAIT_S", 0.5)
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(HOLD), str(serving_path(warehouse.path)), "30"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        load_demo_day(warehouse, date(2026, 9, 11))
        summary = derive(warehouse)
        # The derive stands; the copy could not be written and says so.
        assert summary.offer_snapshots >= 1
        assert summary.serving is None and "locked" in summary.serving_error
        assert "NOT updated" in summary.line()
        assert {day for _, day in outbox(warehouse)} == {date(2026, 9, 11)}
    finally:
        holder.kill()
        holder.wait()
    # Readers keep the last good copy (without the new day) ...
    assert date(2026, 9, 11) not in dq.trend_options(warehouse)["last_day"].to_list()
    # ... and the next run, with nothing new to derive, copies the queued day.
    summary = derive(warehouse)
    assert summary.offer_snapshots == 0 and summary.serving.days == len({"jygpu", "smm"})
    assert outbox(warehouse) == []
    assert date(2026, 9, 11) in dq.trend_options(warehouse)["last_day"].to_list()


def test_restore_drops_the_copy_of_the_replaced_warehouse(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    load_demo_day(warehouse, date(2026, 9, 10))
    derive(warehouse)
    backup(warehouse, tmp_path / "bk")
    load_demo_day(warehouse, date(2026, 9, 11))
    derive(warehouse)
    assert date(2026, 9, 11) in dq.trend_options(warehouse)["last_day"].to_list()
    restore(warehouse, tmp_path / "bk")
    assert not serving_path(warehouse.path).exists()
    assert date(2026, 9, 11) not in dq.trend_options(warehouse)["last_day"].to_list()
    assert derive(warehouse).serving.full


def test_readers_wait_for_a_sync_in_progress(warehouse: Warehouse) -> None:
    """A dashboard query during a sync waits for it (the writer holds the copy for one
    transaction) instead of failing or reading a half-written copy."""
    load_demo_day(warehouse, date(2026, 9, 10))
    derive(warehouse)
    released = warehouse.path.parent / "writer-released"
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import sys, time, duckdb
                con = duckdb.connect(sys.argv[1])
                con.execute("BEGIN; DELETE FROM offer_daily")
                print("writing", flush=True)
                time.sleep(1.5)
                con.execute("ROLLBACK")
                con.close()
                open(sys.argv[2], "w").close()
                """
            ),
            str(serving_path(warehouse.path)),
            str(released),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout.readline().strip() == "writing"
        options = dq.trend_options(warehouse)
        assert released.exists()  # it waited for the lock: it answered once the writer let go
        assert options.height > 0
    finally:
        writer.wait(timeout=30)


def test_breakeven_daily_is_the_mean_of_each_days_snapshots(warehouse: Warehouse) -> None:
    """The served daily breakeven equals the page's own daily downsampling of the full
    history (Polars, independent of the SQL), for a platform and the cheapest line."""
    history(warehouse)
    for source in ("testcloud", "cheapest", "jygpu"):
        full = metric_queries.breakeven_history(warehouse, "h100-80g", source)
        expected = (
            full.group_by(pl.col("observed_at").dt.truncate("1d"))
            .agg(
                pl.col("breakeven_hours_vs_hourly", "breakeven_hours_vs_monthly").mean(),
                pl.col("simulated").any(),
                pl.len().alias("snapshots"),
            )
            .sort("observed_at")
        )
        got = metric_queries.breakeven_daily(warehouse, "h100-80g", source)
        assert got.height == expected.height > 0, source
        same(got, expected.select(got.columns), f"breakeven_daily {source}")
