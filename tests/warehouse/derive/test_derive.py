"""Derived metrics on hand-computed cases: the seeds' published prices and made-up snapshots."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from tests.support.demo_days import insert
from tests.support.handles import warehouse_at
from tests.warehouse.derive.rows import listing, quote
from warehouse.derive.metrics import ReferenceMissing, derive
from warehouse.read.metrics import check_breakeven, check_discount_stated, cost_lines_for
from warehouse.store.db import read_frame, write_connection
from warehouse.store.handle import Warehouse

SEP_04 = datetime(2026, 9, 4)
T0 = datetime(2026, 10, 1, 2)


def one(path: Path, sql: str, params: list | None = None) -> dict:
    frame = read_frame(warehouse_at(path), sql, params)
    assert frame.height == 1, frame
    return frame.row(0, named=True)


# -- the seeds' published prices (source jygpu-published, 2026-09-04) ----------------------


def test_seed_003_breakeven_for_the_4090(warehouse: Warehouse) -> None:
    derive(warehouse)
    row = one(
        warehouse,
        "SELECT * FROM breakeven WHERE source = 'jygpu-published' AND gpu = 'rtx4090-24g' "
        "AND observed_at = ?",
        [SEP_04],
    )
    # ¥7,920 for 8 cards a month → ¥990 per card-month; ÷ ¥1.96 and ÷ ¥1.57 per hour.
    assert row["bare_metal_cny_per_card_month"] == Decimal("990")
    assert row["list_cny_per_card_hour"] == Decimal("1.96")
    assert row["monthly_cny_per_card_hour"] == Decimal("1.57")
    assert row["breakeven_hours_vs_hourly"] == pytest.approx(990 / 1.96)
    assert round(row["breakeven_hours_vs_hourly"]) == 505
    assert row["breakeven_hours_vs_monthly"] == pytest.approx(990 / 1.57)
    assert int(row["breakeven_hours_vs_monthly"]) == 630
    assert row["reason_vs_hourly"] is None and row["reason_vs_monthly"] is None


def test_seed_003_discount_ratios_are_080_and_the_labels_disagree(warehouse: Warehouse) -> None:
    derive(warehouse)
    rows = read_frame(
        warehouse,
        "SELECT gpu, list_cny_per_card_hour, monthly_cny_per_card_hour, discount_ratio, "
        "stated_discount, discount_label, disagrees FROM monthly_discount "
        "WHERE source = 'jygpu-published' AND observed_at = ? ORDER BY gpu",
        [SEP_04],
    )
    got = {r["gpu"]: r for r in rows.iter_rows(named=True)}
    assert set(got) == {"rtx4090-24g", "910b-64g", "h20-96g"}
    assert got["rtx4090-24g"]["discount_ratio"] == pytest.approx(1.57 / 1.96)
    assert got["910b-64g"]["discount_ratio"] == pytest.approx(3.58 / 4.47)
    assert got["h20-96g"]["discount_ratio"] == pytest.approx(6.20 / 7.75)
    assert {round(r["discount_ratio"], 2) for r in got.values()} == {0.80}
    # The stated discount is kept as printed, and a disagreement is flagged, not corrected.
    assert got["rtx4090-24g"]["stated_discount"] == Decimal("0.95")
    assert got["910b-64g"]["stated_discount"] == Decimal("0.93")
    assert got["h20-96g"]["stated_discount"] == Decimal("0.80")
    assert got["rtx4090-24g"]["disagrees"] and got["910b-64g"]["disagrees"]
    assert not got["h20-96g"]["disagrees"]
    outcome = check_discount_stated(warehouse)
    assert not outcome.passed and outcome.failing_rows == 2
    assert any("rtx4090-24g" in e and "95折" in e and "0.801" in e for e in outcome.examples)


def test_a_missing_mode_is_null_with_a_reason_never_zero(warehouse: Warehouse) -> None:
    derive(warehouse)
    h20 = one(
        warehouse,
        "SELECT * FROM breakeven WHERE source = 'jygpu-published' AND gpu = 'h20-96g'",
    )
    assert h20["bare_metal_cny_per_card_month"] is None
    assert h20["breakeven_hours_vs_hourly"] is None and h20["breakeven_hours_vs_monthly"] is None
    assert "no bare-metal offer" in h20["reason_vs_hourly"]
    assert "no bare-metal offer" in h20["reason_vs_monthly"]
    h100 = one(
        warehouse,
        "SELECT * FROM breakeven WHERE source = 'jygpu-published' AND gpu = 'h100-80g' "
        "AND observed_at = ?",
        [SEP_04],
    )
    assert h100["bare_metal_cny_per_card_month"] == Decimal("10560")  # 84,480 / 8
    assert h100["breakeven_hours_vs_hourly"] is None
    assert h100["reason_vs_hourly"] == "no hourly offer for this card in this snapshot"
    assert h100["reason_vs_monthly"] == "no monthly-plan offer for this card in this snapshot"
    assert check_breakeven(warehouse).passed
    zero = read_frame(
        warehouse,
        "SELECT count(*) AS n FROM breakeven WHERE breakeven_hours_vs_hourly = 0 "
        "OR breakeven_hours_vs_monthly = 0 OR bare_metal_cny_per_card_month = 0",
    ).item()
    assert zero == 0


def test_card_value_per_tflop_gb_and_tbps(warehouse: Warehouse) -> None:
    derive(warehouse)
    row = one(
        warehouse,
        "SELECT * FROM card_value WHERE source = 'jygpu-published' AND gpu = 'rtx4090-24g' "
        "AND billing = 'hourly' AND observed_at = ?",
        [SEP_04],
    )
    # RTX 4090: 330.3 dense FP16 TFLOPS, 24 GB, 1008 GB/s (gpu_spec).
    assert row["cny_per_card_hour"] == Decimal("1.96")
    assert row["cny_per_tflop_hour"] == pytest.approx(1.96 / 330.3)
    assert row["cny_per_gb_hour"] == pytest.approx(1.96 / 24)
    assert row["cny_per_tbps_hour"] == pytest.approx(1.96 / 1.008)
    bm = one(
        warehouse,
        "SELECT * FROM card_value WHERE source = 'jygpu-published' AND gpu = 'h100-80g' "
        "AND billing = 'bare_metal_monthly' AND observed_at = ?",
        [SEP_04],
    )
    per_hour = 84480 / 8 / 720
    assert float(bm["cny_per_card_hour"]) == pytest.approx(per_hour, abs=1e-6)
    assert bm["cny_per_tflop_hour"] == pytest.approx(per_hour / 989.4, rel=1e-6)
    assert bm["cny_per_tbps_hour"] == pytest.approx(per_hour / 3.35, rel=1e-6)


def test_market_premium_of_the_published_prices(warehouse: Warehouse) -> None:
    derive(warehouse)
    rows = read_frame(
        warehouse,
        "SELECT billing, gpu, match, quote_region, quote_cny_per_card_hour, premium_ratio, "
        "premium_cny_per_card_hour, quote_source FROM market_premium "
        "WHERE source = 'jygpu-published' ORDER BY gpu, billing",
    )
    got = {(r["gpu"], r["billing"]): r for r in rows.iter_rows(named=True)}
    hourly = got[("rtx4090-24g", "hourly")]
    # Published listings carry no region: the national average of the published SMM quotes
    # (only 长三角 ¥1.26 for the 4090). July's listings predate every quote: no row.
    assert hourly["match"] == "national_average" and hourly["quote_region"] == "全国均值"
    assert hourly["quote_source"] == "smm-published"
    assert hourly["quote_cny_per_card_hour"] == pytest.approx(1.26)
    assert hourly["premium_ratio"] == pytest.approx(1.96 / 1.26 - 1)
    assert hourly["premium_cny_per_card_hour"] == pytest.approx(0.70)
    assert got[("h20-96g", "monthly")]["premium_ratio"] == pytest.approx(6.20 / 7.47 - 1)
    assert ("h100-80g", "bare_metal_monthly") not in got  # no published H100 quote
    assert (
        read_frame(
            warehouse, "SELECT count(*) FROM market_premium WHERE observed_at < ?", [SEP_04]
        ).item()
        == 0
    )


def test_cost_lines_cross_at_the_breakeven() -> None:
    lines = cost_lines_for(990.0, 1.96, 1.57, step=1)
    assert set(lines["mode"]) == {"hourly container", "monthly-plan container", "bare metal"}
    assert lines["usage_hours"].min() == 0 and lines["usage_hours"].max() == 720

    def cost(mode: str, hours: int) -> float:
        return lines.filter((lines["mode"] == mode) & (lines["usage_hours"] == hours)).item(
            0, "cny_per_card_month"
        )

    assert cost("bare metal", 0) == cost("bare metal", 720) == 990.0
    assert cost("hourly container", 505) < 990.0 < cost("hourly container", 506)
    assert cost("monthly-plan container", 630) < 990.0 < cost("monthly-plan container", 631)
    assert cost("hourly container", 720) == pytest.approx(720 * 1.96)
    only_bm = cost_lines_for(990.0, None, None, step=10)
    assert set(only_bm["mode"]) == {"bare metal"} and only_bm["usage_hours"].max() == 720


def test_derive_needs_the_reference_data(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with write_connection(warehouse_at(path)):
        pass
    with pytest.raises(ReferenceMissing, match="reference"):
        derive(warehouse_at(path))


# -- made-up snapshots ---------------------------------------------------------------------


def test_cheapest_listing_per_mode_and_monthly_discount_pairs_by_listing(
    warehouse: Warehouse,
) -> None:
    insert(
        warehouse,
        listing(T0, "mk", "rtx4090-24g", hourly="2.00", monthly="1.80", stated="0.90", tag="-a")
        + listing(T0, "mk", "rtx4090-24g", hourly="1.60", monthly="1.50", stated="0.95", tag="-b")
        + listing(T0, "mk", "rtx4090-24g", bare_metal="8000", tag="-x")
        + listing(T0, "mk", "rtx4090-24g", bare_metal="7200", tag="-y"),
    )
    derive(warehouse)
    be = one(warehouse, "SELECT * FROM breakeven WHERE source = 'mk'")
    assert be["bare_metal_cny_per_card_month"] == Decimal("900")  # 7200 / 8
    assert be["list_cny_per_card_hour"] == Decimal("1.6")
    assert be["monthly_cny_per_card_hour"] == Decimal("1.5")
    assert be["breakeven_hours_vs_hourly"] == pytest.approx(900 / 1.6)
    assert be["breakeven_hours_vs_monthly"] == pytest.approx(900 / 1.5)
    assert (be["bare_metal_offer"], be["hourly_offer"]) == ("bm-rtx4090-24g-y", "ctr-rtx4090-24g-b")
    cv = one(warehouse, "SELECT * FROM card_value WHERE source = 'mk' AND billing = 'hourly'")
    assert cv["offers"] == 2 and cv["cny_per_card_hour"] == Decimal("1.6")
    discounts = read_frame(
        warehouse,
        "SELECT offer_id, discount_ratio, disagrees FROM monthly_discount WHERE source = 'mk' "
        "ORDER BY offer_id",
    ).rows()
    assert discounts[0][0] == "ctr-rtx4090-24g-a"
    assert discounts[0][1] == pytest.approx(0.9) and not discounts[0][2]
    assert discounts[1][1] == pytest.approx(1.5 / 1.6) and discounts[1][2]  # 0.9375 vs 0.95


def test_only_new_snapshots_are_derived(warehouse: Warehouse) -> None:
    insert(warehouse, listing(T0, "mk", "rtx4090-24g", hourly="2.00", bare_metal="8000"))
    first = derive(warehouse)
    assert first.offer_snapshots == 3  # two published + the new one
    # Tamper with a derived row: an incremental derive must not even look at it again.
    with write_connection(warehouse) as con:
        con.execute("UPDATE breakeven SET breakeven_hours_vs_hourly = 1 WHERE source = 'mk'")
    assert derive(warehouse).offer_snapshots == 0
    later = T0 + timedelta(hours=1)
    insert(warehouse, listing(later, "mk", "rtx4090-24g", hourly="2.50", bare_metal="8000"))
    second = derive(warehouse)
    assert second.offer_snapshots == 1
    assert second.rows["breakeven"] == 2  # that snapshot's platform row and cheapest row
    history = read_frame(
        warehouse,
        "SELECT observed_at, breakeven_hours_vs_hourly AS h FROM breakeven "
        "WHERE source = 'mk' ORDER BY observed_at",
    ).rows()
    assert history == [(T0, 1.0), (later, pytest.approx(1000 / 2.5))]
    full = derive(warehouse, full=True)
    assert full.full and full.offer_snapshots == 4
    assert read_frame(
        warehouse,
        "SELECT breakeven_hours_vs_hourly FROM breakeven WHERE source = 'mk' AND observed_at = ?",
        [T0],
    ).item() == pytest.approx(1000 / 2.0)


def test_a_page_loaded_late_rederives_its_snapshot(warehouse: Warehouse) -> None:
    insert(warehouse, listing(T0, "mk", "rtx4090-24g", hourly="2.00", monthly="1.60"))
    derive(warehouse)
    before = one(warehouse, "SELECT * FROM breakeven WHERE source = 'mk'")
    assert before["breakeven_hours_vs_hourly"] is None
    assert before["reason_vs_hourly"] == "no bare-metal offer for this card in this snapshot"
    # The bare-metal page of the same snapshot (same observed_at) arrives on a later run.
    insert(warehouse, listing(T0, "mk", "rtx4090-24g", bare_metal="8000"))
    assert derive(warehouse).offer_snapshots == 1
    after = one(warehouse, "SELECT * FROM breakeven WHERE source = 'mk'")
    assert after["breakeven_hours_vs_hourly"] == pytest.approx(500.0)
    assert after["breakeven_hours_vs_monthly"] == pytest.approx(625.0)
    assert after["reason_vs_hourly"] is None
    assert read_frame(warehouse, "SELECT count(*) FROM card_value WHERE source = 'mk'").item() == 3


def test_cheapest_line_mixes_platforms_but_not_stale_or_published(warehouse: Warehouse) -> None:
    insert(
        warehouse,
        listing(T0, "a", "rtx4090-24g", hourly="2.00", monthly="1.70", bare_metal="9600")
        + listing(T0 + timedelta(minutes=5), "b", "rtx4090-24g", hourly="2.40", bare_metal="7200")
        # a third platform, but its newest snapshot is 4 days old: left out
        + listing(T0 - timedelta(days=4), "c", "rtx4090-24g", hourly="1.00", bare_metal="100")
        # and a published (real) price at the same time as the simulated ones: never mixed
        + listing(
            T0, "x-published", "rtx4090-24g", hourly="0.50", bare_metal="80", simulated=False
        ),
    )
    derive(warehouse)
    line = read_frame(
        warehouse,
        "SELECT * FROM breakeven WHERE source = 'cheapest' AND gpu = 'rtx4090-24g' "
        "ORDER BY observed_at",
    )
    assert line["observed_at"].to_list() == [
        T0 - timedelta(days=4),
        T0,
        T0 + timedelta(minutes=5),
    ]
    at_b = line.row(2, named=True)
    assert at_b["scope"] == "cheapest" and at_b["simulated"]
    assert at_b["bare_metal_cny_per_card_month"] == Decimal("900")  # b: 7200 / 8
    assert at_b["list_cny_per_card_hour"] == Decimal("2")  # a
    assert at_b["monthly_cny_per_card_hour"] == Decimal("1.7")  # a
    assert at_b["breakeven_hours_vs_hourly"] == pytest.approx(450.0)
    assert (
        at_b["bare_metal_offer"] == "b/bm-rtx4090-24g"
        and at_b["hourly_offer"] == "a/ctr-rtx4090-24g"
    )
    at_a = line.row(1, named=True)  # at T0 only a (b not yet, c stale)
    assert at_a["bare_metal_cny_per_card_month"] == Decimal("1200")
    assert at_a["breakeven_hours_vs_hourly"] == pytest.approx(600.0)


def test_a_late_snapshot_moves_the_cheapest_line_for_72_hours_as_a_full_derive_does(
    warehouse: Warehouse,
) -> None:
    """A snapshot loaded late changes the cheapest line at the later times within 72 h of it
    (and at no other), and a platform's newest snapshot counts only while under 72 h old:
    the incremental derive and a full one agree."""
    times = [T0, T0 + timedelta(hours=2), T0 + timedelta(hours=80)]
    insert(warehouse, [r for t in times for r in listing(t, "a", "rtx4090-24g", hourly="2.00")])
    derive(warehouse)
    late = T0 + timedelta(hours=1)
    insert(warehouse, listing(late, "b", "rtx4090-24g", hourly="1.00"))
    derive(warehouse)
    sql = (
        "SELECT observed_at, list_cny_per_card_hour FROM breakeven "
        "WHERE source = 'cheapest' AND gpu = 'rtx4090-24g' ORDER BY observed_at"
    )
    expected = [
        (T0, Decimal("2")),  # b not yet listed
        (late, Decimal("1")),
        (T0 + timedelta(hours=2), Decimal("1")),  # b's, an hour old
        (T0 + timedelta(hours=80), Decimal("2")),  # b's is 79 h old: left out
    ]
    assert read_frame(warehouse, sql).rows() == expected
    derive(warehouse, full=True)
    assert read_frame(warehouse, sql).rows() == expected


def test_market_premium_matches_region_else_national_average(warehouse: Warehouse) -> None:
    q_day = T0 - timedelta(hours=8)
    insert(
        warehouse,
        [
            quote(q_day, "mq", "rtx4090-24g", "长三角", "1.20"),
            quote(q_day, "mq", "rtx4090-24g", "京津冀", "1.40"),
            quote(q_day - timedelta(days=1), "mq", "rtx4090-24g", "长三角", "9.99"),  # older
            quote(T0 + timedelta(hours=1), "mq", "rtx4090-24g", "长三角", "5.00"),  # later
        ],
    )
    insert(
        warehouse,
        listing(T0, "mk", "rtx4090-24g", hourly="1.50", region="华东-杭州", tag="-hz")
        + listing(T0, "mk", "rtx4090-24g", hourly="1.65", region="华北-乌兰察布", tag="-nm"),
    )
    derive(warehouse)
    rows = {
        r["offer_id"]: r
        for r in read_frame(
            warehouse, "SELECT * FROM market_premium WHERE source = 'mk'"
        ).iter_rows(named=True)
    }
    hz = rows["ctr-rtx4090-24g-hz"]
    assert (hz["match"], hz["quote_region"], hz["quote_regions"]) == ("region", "长三角", 1)
    assert hz["quote_observed_at"] == q_day
    assert hz["quote_cny_per_card_hour"] == pytest.approx(1.20)
    assert hz["premium_ratio"] == pytest.approx(1.50 / 1.20 - 1)
    nm = rows["ctr-rtx4090-24g-nm"]  # 乌兰察布 is in no quoted zone
    assert (nm["match"], nm["quote_region"], nm["quote_regions"]) == (
        "national_average",
        "全国均值",
        2,
    )
    assert nm["quote_cny_per_card_hour"] == pytest.approx(1.30)
    assert nm["premium_cny_per_card_hour"] == pytest.approx(0.35)


def test_a_quote_loaded_late_updates_the_premium_from_its_time_on(warehouse: Warehouse) -> None:
    insert(warehouse, [quote(T0 - timedelta(days=2), "mq", "rtx4090-24g", "长三角", "1.00")])
    insert(warehouse, listing(T0, "mk", "rtx4090-24g", hourly="1.50", region="上海"))
    derive(warehouse)
    premium = "SELECT quote_cny_per_card_hour FROM market_premium WHERE source = 'mk'"
    assert read_frame(warehouse, premium).item() == pytest.approx(1.00)
    insert(warehouse, [quote(T0 - timedelta(hours=1), "mq", "rtx4090-24g", "长三角", "1.25")])
    summary = derive(warehouse)
    assert summary.offer_snapshots == 0 and summary.quote_snapshots == 1
    assert read_frame(warehouse, premium).item() == pytest.approx(1.25)
