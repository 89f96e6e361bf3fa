"""The rollups keep real and simulated prices apart, and real ones with their origin
(migration 012): a day holding an imported real capture and the demo's simulated prices of
the same source is two rows, never one average; the trend, band, quote and month-over-month
queries keep them apart too and say where a real point comes from; and a warehouse of the
previous schema upgrades (its rollups split, its serving copy rebuilt)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from scrapers.rows import Row
from tests.support.demo_days import warehouse as warehouse
from tests.support.handles import warehouse_at
from tests.warehouse.derive.rows import listing, quote
from warehouse.derive.metrics import derive
from warehouse.ingest.insert import insert_rows
from warehouse.ingest.reference import load_reference
from warehouse.read import dashboard as dq
from warehouse.read.filters import OfferFilter
from warehouse.store import serving
from warehouse.store.db import migration_files, read_frame, utcnow, write_connection
from warehouse.store.handle import Warehouse

DAY = date(2026, 8, 10)
# Two captures of RunPod's pricing page on one day, as the Internet Archive names them.
CAPTURE = "https://web.archive.org/web/20260810083000id_/https://www.runpod.io/pricing"
LATER = "https://web.archive.org/web/20260810200000id_/https://www.runpod.io/gpu-instance/pricing"
NEXT = "https://web.archive.org/web/20260811090000id_/https://www.runpod.io/pricing"
COMMIT = "https://github.com/skypilot-org/skypilot-catalog/commit/0123456789abcdef"
H100 = OfferFilter(gpus=("h100-80g",), sources=("runpod",), start=DAY, end=date(2026, 8, 16))


def at(day: date, hour: int) -> datetime:
    return datetime(day.year, day.month, day.day, hour)


Add = Callable[[list[Row], str | None, str], object]


def adder(where: Path | Warehouse) -> Add:
    """Rows as a load stores them (a history import's rows cite their capture), each call in
    its own write connection."""

    def add(rows: list[Row], citation: str | None, tag: str) -> None:
        with write_connection(warehouse_at(where)) as con:
            insert_rows(con, rows, page=f"page-{tag}", run_id=f"run-{tag}", citation=citation)

    return add


def put(where: Path | Warehouse, rows: list[Row], citation: str | None, tag: str) -> None:
    adder(where)(rows, citation, tag)


def runpod_day(add: Add) -> None:
    """2026-08-10: RunPod's SIMULATED demo prices in two regions, and the same day's two real
    captures (the first lists both regions, the later one the first region only); the next
    day one more real capture."""
    for region, price in (("US-TX", "20.00"), ("EU-RO", "22.00")):
        add(
            listing(at(DAY, 2), "runpod", "h100-80g", hourly=price, region=region, tag=region),
            None,
            f"sim-{region}",
        )
        add(
            listing(at(DAY, 8), "runpod", "h100-80g", hourly="16.00", region=region,
                    simulated=False, tag=region),
            CAPTURE,
            f"real-{region}",
        )  # fmt: skip
    add(
        listing(at(DAY, 20), "runpod", "h100-80g", hourly="17.00", region="US-TX",
                simulated=False, tag="US-TX"),
        LATER,
        "later",
    )  # fmt: skip
    add(
        listing(at(date(2026, 8, 11), 9), "runpod", "h100-80g", hourly="18.00", region="US-TX",
                simulated=False, tag="US-TX"),
        NEXT,
        "next",
    )  # fmt: skip


def rollup(where: Path | Warehouse, table: str = "offer_daily") -> list[dict]:
    return read_frame(
        warehouse_at(where),
        f"SELECT * FROM {table} WHERE source = 'runpod' ORDER BY ALL",
    ).to_dicts()


def test_a_real_and_a_simulated_day_of_one_source_stay_apart(warehouse: Warehouse) -> None:
    runpod_day(adder(warehouse))
    derive(warehouse)
    day = [r for r in rollup(warehouse) if r["day"] == DAY]
    kinds = {(r["region"], r["simulated"]): r for r in day}
    assert set(kinds) == {(r, s) for r in ("US-TX", "EU-RO") for s in (True, False)}
    real_tx, sim_tx = kinds["US-TX", False], kinds["US-TX", True]
    assert (real_tx["observations"], float(real_tx["sum_cny_per_card_hour"])) == (2, 33.0)
    assert (real_tx["origin"], real_tx["origins"]) == (CAPTURE, 2)  # the earlier capture first
    assert (kinds["EU-RO", False]["origin"], kinds["EU-RO", False]["origins"]) == (CAPTURE, 1)
    assert (sim_tx["observations"], float(sim_tx["sum_cny_per_card_hour"])) == (1, 20.0)
    assert (sim_tx["origin"], sim_tx["origins"]) == (None, 0)
    month = {(r["region"], r["simulated"]): r for r in rollup(warehouse, "offer_monthly")}
    assert month["US-TX", False]["observations"] == 3  # 08-10 twice, 08-11 once
    assert (month["US-TX", False]["origin"], month["US-TX", False]["origins"]) == (CAPTURE, 3)
    assert (month["US-TX", True]["origin"], month["US-TX", True]["origins"]) == (None, 0)


def test_the_trend_draws_each_kind_with_its_origin(warehouse: Warehouse) -> None:
    runpod_day(adder(warehouse))
    derive(warehouse)
    trend = dq.price_trend(warehouse, "day", H100, apart=True)
    first = {r["simulated"]: r for r in trend.filter(pl.col("period") == DAY).to_dicts()}
    # the real point is the mean of the real prices alone, the simulated one of its own
    assert first[False]["cny_per_card_hour"] == pytest.approx((16 + 16 + 17) / 3)
    assert first[True]["cny_per_card_hour"] == pytest.approx(21.0)
    # the regions of one capture share it: two captures that day, not three
    assert (first[False]["origin"], first[False]["origins"]) == (CAPTURE, 2)
    assert (first[True]["origin"], first[True]["origins"]) == (None, 0)
    week = dq.price_trend(warehouse, "week", H100, apart=True).filter(~pl.col("simulated"))
    assert week.select("origin", "origins").row(0) == (CAPTURE, 3)  # 08-10's two, 08-11's
    # together (the comparison page's daily prices): one row a day, simulated when any is
    merged = dq.price_trend(warehouse, "day", H100).filter(pl.col("period") == DAY)
    assert merged.height == 1 and merged["simulated"].item() is True
    assert merged["cny_per_card_hour"].item() == pytest.approx((16 + 16 + 17 + 20 + 22) / 5)
    # the band: never across kinds; two simulated platforms make one
    put(
        warehouse,
        listing(at(DAY, 2), "vastai", "h100-80g", hourly="19.00", tag="v"),
        None,
        "vastai",
    )
    derive(warehouse)
    band = dq.price_band(warehouse, "day", OfferFilter(gpus=("h100-80g",), start=DAY, end=DAY))
    assert band.select("simulated", "platforms").rows() == [(True, 2)]
    # the serving copy and the warehouse give the same answer
    served = dq.price_trend(warehouse, "week", H100, apart=True)
    copy = serving.serving_path(warehouse.path)
    copy.rename(copy.with_name("aside.duckdb"))
    assert_frame_equal(dq.price_trend(warehouse, "week", H100, apart=True), served)


def test_real_quotes_carry_their_origin(warehouse: Warehouse) -> None:
    put(warehouse, [quote(at(DAY, 2), "smm", "rtx4090-24g", "长三角", "1.30")], None, "q-sim")
    put(
        warehouse,
        [quote(at(DAY, 3), "smm", "rtx4090-24g", r, "1.20", simulated=False) for r in ("长三角", "京津冀")],
        "seed 003 FAQ Q1 (SMM 2026-08-10)",
        "q-real",
    )  # fmt: skip
    derive(warehouse)
    quotes = dq.quote_trend(warehouse, "day", OfferFilter(gpus=("rtx4090-24g",), start=DAY))
    rows = {r["simulated"]: r for r in quotes.filter(pl.col("source") == "smm").to_dicts()}
    assert (rows[False]["origin"], rows[False]["origins"], rows[False]["regions"]) == (
        "seed 003 FAQ Q1 (SMM 2026-08-10)",
        1,
        2,
    )
    assert (rows[True]["origin"], rows[True]["origins"]) == (None, 0)


def test_month_over_month_says_when_it_mixes_kinds(warehouse: Warehouse) -> None:
    """August real (imported), September simulated (the demo), the same card and platform:
    the platform's rows never compare one kind with the other; the card's KPI does, and
    says so."""
    put(
        warehouse,
        listing(at(DAY, 8), "runpod", "h100-80g", hourly="16.00", simulated=False),
        CAPTURE,
        "aug",
    )
    put(
        warehouse,
        listing(at(date(2026, 9, 10), 2), "runpod", "h100-80g", hourly="20.00"),
        None,
        "s",
    )
    derive(warehouse)
    window = OfferFilter(gpus=("h100-80g",), sources=("runpod",), start=date(2026, 8, 1),
                         end=date(2026, 9, 10))  # fmt: skip
    rows = dq.monthly_changes(warehouse, window).select("simulated", "month", "mom").rows()
    assert rows == [(False, date(2026, 8, 1), None), (True, date(2026, 9, 1), None)]
    kpi = dq.card_changes(warehouse, window).row(0, named=True)
    assert kpi["mom"] == pytest.approx(20 / 16 - 1)
    assert (kpi["simulated"], kpi["mixed"], kpi["mom_mixed"], kpi["yoy_mixed"]) == (
        True,
        False,
        True,
        False,
    )


# What offer_daily held before migration 012 (warehouse/derive/rollup.py then): simulated
# was bool_or over the group, and there was no origin.
OLD_DAILY = """
    INSERT INTO offer_daily
    SELECT observed_at::DATE, source, gpu, billing, coalesce(region, '(none)'), count(*),
           sum(cny_per_card_hour), min(cny_per_card_hour), max(cny_per_card_hour),
           bool_or(simulated), min(observed_at), max(observed_at)
    FROM offer WHERE gpu <> 'unknown' GROUP BY ALL
"""
OLD_MONTHLY = """
    INSERT INTO offer_monthly
    SELECT date_trunc('month', day)::DATE, source, gpu, billing, region, sum(observations),
           sum(sum_cny_per_card_hour), min(min_cny_per_card_hour), max(max_cny_per_card_hour),
           bool_or(simulated), min(first_observed_at), max(last_observed_at)
    FROM offer_daily GROUP BY ALL
"""


def at_011(path: Path) -> None:
    """A warehouse file as the previous schema (migrations 001–011) left it, with RunPod's
    real and simulated day rolled up together, a simulated-only day of jygpu, and a serving
    copy of the previous layout."""
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE schema_migration (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, "
        "applied_at TIMESTAMP NOT NULL)"
    )
    for version, name, sql in migration_files():
        if version < 12:
            con.execute(sql)
            con.execute("INSERT INTO schema_migration VALUES (?, ?, ?)", [version, name, utcnow()])

    def add(rows: list[Row], citation: str | None, tag: str) -> None:
        insert_rows(con, rows, page=f"page-{tag}", run_id=f"run-{tag}", citation=citation)

    # today's rows carry a price tier, which the old file's offer has no column for: given
    # one for the insert, then taken away again (all of them are list prices)
    tier_columns = ("tier VARCHAR", "tier_name VARCHAR", "tier_from DATE", "tier_to DATE")
    for column in tier_columns:
        con.execute(f"ALTER TABLE offer ADD COLUMN {column}")
    load_reference(con)
    runpod_day(add)
    add(listing(at(DAY, 2), "jygpu", "rtx4090-24g", hourly="1.90"), None, "jygpu")
    for column in tier_columns:
        con.execute(f"ALTER TABLE offer DROP COLUMN {column.split()[0]}")
    con.execute(OLD_DAILY)
    con.execute(OLD_MONTHLY)
    con.close()
    old = duckdb.connect(str(serving.serving_path(path)))
    old.execute("CREATE TABLE serving_state AS SELECT 2 AS layout, now() AS synced_at, "
                "TIMESTAMP '2026-08-11 09:00' AS watermark")  # fmt: skip
    old.execute("CREATE TABLE offer_daily AS SELECT 1 AS nothing")
    old.close()


def test_migration_012_upgrades_a_warehouse_of_the_previous_schema(tmp_path: Path) -> None:
    path = tmp_path / "gpuprice.duckdb"
    at_011(path)
    # lake-free on purpose: the file as the previous release left it
    before = Warehouse(path)
    old = read_frame(before, "SELECT * FROM offer_daily WHERE source = 'runpod' AND day = $d",
                     {"d": DAY})  # fmt: skip
    assert old.height == 2 and old["simulated"].all()  # one mixed row per region
    jygpu_before = read_frame(before, "SELECT * FROM offer_daily WHERE source = 'jygpu'")
    # A dashboard reading it before the upgrade still draws (no origin yet).
    unmigrated = dq.price_trend(before, "day", H100, apart=True)
    assert unmigrated["origin"].null_count() == unmigrated.height

    with write_connection(before) as con:  # what every command does first: migrate
        assert con.execute("SELECT max(version) FROM schema_migration").fetchone()[0] >= 12
    day = [r for r in rollup(before) if r["day"] == DAY]
    assert {(r["region"], r["simulated"], r["origin"]) for r in day} == {
        ("US-TX", False, CAPTURE),
        ("EU-RO", False, CAPTURE),
        ("US-TX", True, None),
        ("EU-RO", True, None),
    }
    months = {(r["region"], r["simulated"]): r["origins"] for r in rollup(before, "offer_monthly")}
    assert months == {("US-TX", False): 3, ("EU-RO", False): 1, ("US-TX", True): 0,
                      ("EU-RO", True): 0}  # fmt: skip
    # a simulated-only day is as it was, with no origin
    jygpu = read_frame(before, "SELECT * FROM offer_daily WHERE source = 'jygpu'")
    assert_frame_equal(jygpu.drop("origin", "origins"), jygpu_before)
    assert jygpu.select("origin", "origins").rows() == [(None, 0)]
    # The old serving copy is not read (another layout) but rebuilt by the next sync.
    with serving.serving_connection(before) as served:
        assert served is None
    from_warehouse = dq.price_trend(before, "day", H100, apart=True)
    assert from_warehouse.filter(~pl.col("simulated"))["origin"].to_list() == [CAPTURE, NEXT]
    assert derive(before).serving is not None
    with serving.serving_connection(before) as served:
        assert served is not None
    assert_frame_equal(dq.price_trend(before, "day", H100, apart=True), from_warehouse)
