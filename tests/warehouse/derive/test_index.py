"""The price index, method v1 (docs/INDEX.md), on hand-made days whose expected values are
worked out by hand in each test: per platform the median of its last snapshot's listings
not sold out, the median across platforms, withholding below three platforms, matched-sample
changes and the chain-linked level, the sold-out share, real and SIMULATED apart,
quarantined rows out, and a late page appending a revision that `--as-of` sees past."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest

from scrapers.collect import ParsedPage, Snapshot
from scrapers.http import FetchedPage
from scrapers.rows import OfferRow
from tests.support.demo_days import insert
from warehouse.derive.metrics import derive
from warehouse.ingest.load import load_snapshot
from warehouse.ingest.quarantine import QuarantinePolicy, decide
from warehouse.read.index import IndexFilter, index_rows
from warehouse.read.index_checks import check_index_gates
from warehouse.store.db import read_frame, write_connection
from warehouse.store.handle import Warehouse

CARD = "rtx4090-24g"
D1, D2, D3, D4, D5 = (date(2026, 10, day) for day in range(1, 6))


def at(day: date, hour: int) -> datetime:
    return datetime(day.year, day.month, day.day, hour)


def row(
    when: datetime,
    source: str,
    listing: str,
    price: str,
    *,
    stock: int | None = None,
    simulated: bool = True,
    gpu: str = CARD,
    billing: str = "hourly",
) -> OfferRow:
    value = Decimal(price)
    return OfferRow(
        observed_at=when, source=source, offer_id=listing, gpu=gpu, gpu_name_raw=gpu,
        gpu_count=1, vram_gb=24, billing=billing, price=value, currency="CNY",  # type: ignore[arg-type]
        unit="CNY/card-hour", unit_raw="元/时", per_card_hour=value, stock=stock,
        simulated=simulated,
    )  # fmt: skip


def platform(when: datetime, source: str, *prices: str, **extra) -> list[OfferRow]:
    """One snapshot: a listing per price, ids L0, L1, ..."""
    return [row(when, source, f"L{i}", p, **extra) for i, p in enumerate(prices)]


def series(
    warehouse: Warehouse, kind: str = "SIMULATED", as_of: datetime | None = None, **chosen
) -> dict[date, dict]:
    rows = index_rows(
        warehouse, IndexFilter(card=CARD, billing="hourly", kind=kind, as_of=as_of, **chosen)
    )
    return {r["day"]: r for r in rows.iter_rows(named=True)}


def load_days(warehouse: Warehouse) -> None:
    """Five days of four platforms (pa .. pd), one derive a day as the pipeline does."""
    days = {
        # pa's 02:00 snapshot is not its last of the day: only 08:00 counts (median 2.30);
        # pb: 2.20 is sold out (stock 0), 1.80 in stock, 2.00 stock unknown -> 1.90
        D1: platform(at(D1, 2), "pa", "2.00", "3.00")
        + platform(at(D1, 8), "pa", "2.10", "2.30", "2.50")
        + [row(at(D1, 8), "pb", "a", "1.80", stock=5), row(at(D1, 8), "pb", "b", "2.20", stock=0)]
        + [row(at(D1, 8), "pb", "c", "2.00")]
        + platform(at(D1, 9), "pc", "2.60"),
        D2: platform(at(D2, 8), "pa", "2.40")
        + platform(at(D2, 8), "pb", "2.00")
        + platform(at(D2, 8), "pc", "2.70")
        + platform(at(D2, 8), "pd", "5.00"),
        # pc drops out
        D3: platform(at(D3, 8), "pa", "2.50")
        + platform(at(D3, 8), "pb", "2.10")
        + platform(at(D3, 8), "pd", "5.10"),
        # a thin day: two platforms
        D4: platform(at(D4, 8), "pa", "2.60") + platform(at(D4, 8), "pb", "2.20"),
        D5: platform(at(D5, 8), "pa", "2.70")
        + platform(at(D5, 8), "pb", "2.30")
        + platform(at(D5, 8), "pd", "5.40"),
    }
    for day, rows in days.items():
        insert(warehouse, rows)
        derive(warehouse, now=at(day, 12))


def test_values_withholding_changes_and_level(warehouse: Warehouse) -> None:
    load_days(warehouse)
    got = series(warehouse)
    assert sorted(got) == [D1, D2, D3, D4, D5]
    d1, d2, d3, d4, d5 = (got[d] for d in (D1, D2, D3, D4, D5))
    # D1: pa 2.30 (last snapshot), pb median(1.80, 2.00) = 1.90, pc 2.60 -> 2.30
    assert d1["value"] == pytest.approx(2.30)
    assert (d1["platforms"], d1["observations"], d1["status"]) == (3, 6, "published")
    # sold out over the platforms giving stock: pb gives it for 2 listings, 1 sold out
    assert d1["sold_out_share"] == pytest.approx(0.5) and d1["stock_platforms"] == 1
    assert d1["level"] == pytest.approx(100.0) and d1["change_1d"] is None
    # D2: median(2.40, 2.00, 2.70, 5.00) = (2.40 + 2.70) / 2; the 1-day change over pa, pb,
    # pc only (pd is new): median(2.40, 2.00, 2.70) / median(2.30, 1.90, 2.60) - 1
    assert d2["value"] == pytest.approx(2.55)
    assert d2["change_1d"] == pytest.approx(2.40 / 2.30 - 1)
    assert d2["change_1d_platforms"] == 3
    assert d2["level"] == pytest.approx(100 * 2.40 / 2.30)
    assert d2["platforms_changed"] and d2["platform_set"] == "pa,pb,pc,pd"
    assert d2["sold_out_share"] is None and d2["stock_platforms"] == 0
    # D3: pc dropped out. The value falls (2.55 -> median(2.50, 2.10, 5.10) = 2.50) but the
    # platforms on both days all rose: median(2.50, 2.10, 5.10) / median(2.40, 2.00, 5.00)
    assert d3["value"] == pytest.approx(2.50)
    assert d3["change_1d"] == pytest.approx(2.50 / 2.40 - 1) and d3["change_1d"] > 0
    assert d3["change_1d_platforms"] == 3 and d3["platforms_changed"]
    assert d3["level"] == pytest.approx(100 * 2.40 / 2.30 * 2.50 / 2.40)
    # D4: two platforms: withheld, the gate stored, no value, no level, no change
    assert d4["status"] == "withheld" and d4["gate"] == "min_platforms"
    assert d4["value"] is None and d4["level"] is None and d4["change_1d"] is None
    assert d4["gate_reason"] == "2 platform(s) quoted; at least 3 needed"
    assert d4["platforms"] == 2
    # D5: its 1-day change needs D4 published (it is not); the level links to D3, the
    # previous published day, over pa, pb, pd: median(2.70, 2.30, 5.40) / median(2.50, ...)
    assert d5["value"] == pytest.approx(2.70) and d5["change_1d"] is None
    assert d5["level"] == pytest.approx(d3["level"] * 2.70 / 2.50)
    assert d5["platforms_changed"]  # pd is back after D4
    assert check_index_gates(warehouse).passed


def test_a_seven_day_change_is_matched_too(warehouse: Warehouse) -> None:
    # Day 1 and day 8: pa and pb on both; pc only on day 1, pd only on day 8.
    first, eighth = D1, D1 + timedelta(days=7)
    insert(
        warehouse,
        platform(at(first, 8), "pa", "2.00") + platform(at(first, 8), "pb", "3.00")
        + platform(at(first, 8), "pc", "1.00"),
    )  # fmt: skip
    insert(
        warehouse,
        platform(at(eighth, 8), "pa", "2.20") + platform(at(eighth, 8), "pb", "3.30")
        + platform(at(eighth, 8), "pd", "9.00"),
    )  # fmt: skip
    derive(warehouse)
    got = series(warehouse)
    # over pa and pb: median(2.20, 3.30) / median(2.00, 3.00) - 1 = 2.75 / 2.50 - 1 = +10 %
    assert got[eighth]["change_7d"] == pytest.approx(0.10)
    assert got[eighth]["change_7d_platforms"] == 2
    assert got[eighth]["change_1d"] is None and got[eighth]["change_30d"] is None
    # the level links day 8 to day 1 (no published day between) the same way
    assert got[eighth]["level"] == pytest.approx(110.0)


def test_real_and_simulated_on_one_day_are_two_series(warehouse: Warehouse) -> None:
    insert(
        warehouse,
        platform(at(D1, 8), "pa", "2.00") + platform(at(D1, 8), "pb", "2.40")
        + platform(at(D1, 8), "pc", "2.60")
        # the same platforms' real captures that day: other prices, and only two of them
        + platform(at(D1, 3), "pa", "9.00", simulated=False)
        + platform(at(D1, 3), "pb", "7.00", "8.00", simulated=False),
    )  # fmt: skip
    derive(warehouse)
    simulated, real = series(warehouse, "SIMULATED")[D1], series(warehouse, "real")[D1]
    assert simulated["value"] == pytest.approx(2.40) and simulated["platforms"] == 3
    assert real["status"] == "withheld" and real["platforms"] == 2
    assert real["observations"] == 3
    # with one gate less the real day is published: median(9.00, median(7.00, 8.00) = 7.50)
    relaxed = replace(warehouse, config=replace(warehouse.config, index=_gates(2)))
    derive(relaxed)
    real = series(warehouse, "real")[D1]
    assert real["status"] == "published" and real["value"] == pytest.approx(8.25)
    assert json.loads(real["gates"]) == {"min_platforms": 2}
    # the SIMULATED day is no different under the new gates, so it was not revised
    assert series(warehouse, "SIMULATED")[D1]["revision"] == 1


def _gates(n: int):
    from warehouse.store.config import IndexGates

    return IndexGates(min_platforms=n)


def test_sold_out_listings_leave_the_median_and_make_the_share(warehouse: Warehouse) -> None:
    insert(
        warehouse,
        [row(at(D1, 8), "pa", f"L{i}", p, stock=s) for i, (p, s) in
         enumerate((("1.00", 0), ("2.00", 3), ("3.00", 0), ("4.00", 1)))]
        # every listing of pb is sold out: pb does not quote, but it counts for the share
        + [row(at(D1, 8), "pb", "L0", "2.50", stock=0)]
        + platform(at(D1, 8), "pc", "3.00") + platform(at(D1, 8), "pd", "5.00"),
    )  # fmt: skip
    derive(warehouse)
    d1 = series(warehouse)[D1]
    # pa: median(2.00, 4.00) = 3.00; quoting pa, pc, pd -> median(3.00, 3.00, 5.00)
    assert d1["value"] == pytest.approx(3.00) and d1["platforms"] == 3
    assert d1["observations"] == 4  # pa 2, pc 1, pd 1
    # stock given by pa (4 listings, 2 sold out) and pb (1, sold out): 3 of 5
    assert d1["sold_out_share"] == pytest.approx(3 / 5) and d1["stock_platforms"] == 2
    assert d1["platform_set"] == "pa,pc,pd"


def test_other_cards_modes_unknown_and_published_rows_stay_out(warehouse: Warehouse) -> None:
    insert(
        warehouse,
        platform(at(D1, 8), "pa", "2.00") + platform(at(D1, 8), "pb", "2.20")
        + platform(at(D1, 8), "pc", "2.40")
        + [row(at(D1, 8), "pd", "x", "0.50", gpu="unknown")]
        + [row(at(D1, 8), "pd", "y", "0.60", billing="monthly")]
        + [row(at(D1, 8), "pd", "z", "0.70", gpu="h20-96g")]
        + [row(at(D1, 8), "jygpu-published", "p", "0.10")],
    )  # fmt: skip
    derive(warehouse)
    d1 = series(warehouse)[D1]
    assert d1["value"] == pytest.approx(2.20) and d1["platform_set"] == "pa,pb,pc"
    monthly = index_rows(warehouse, IndexFilter(card=CARD, billing="monthly"))
    assert monthly["platforms"].to_list() == [1]  # pd only: withheld


POLICY = QuarantinePolicy(jump_factor=3.0, confirm_snapshots=3)


def _load(warehouse: Warehouse, rows: list[OfferRow]) -> None:
    """Through the loader, as a run loads a page (so the quarantine screens it)."""
    when = rows[0].observed_at
    body = json.dumps([r.to_dict() for r in rows], default=str).encode()
    page = FetchedPage(f"http://127.0.0.1/{rows[0].source}", 200, body, "text/html", when)
    snapshot = Snapshot(rows[0].source, "offers", when, None, [ParsedPage(page, rows, None)])
    summary = load_snapshot(warehouse, snapshot, profile="demo", quarantine=POLICY)
    assert summary.status == "ok", summary.error


def test_a_quarantined_row_is_out_until_released(warehouse: Warehouse) -> None:
    for source, prices in (("pa", ("2.00", "2.20")), ("pb", ("2.40",)), ("pc", ("2.60",))):
        _load(warehouse, platform(at(D1, 8), source, *prices))
    # D2: pa's L1 jumps from 2.20 to 9.00 (> 3x): held in quarantine, the rest of the page loads
    _load(warehouse, platform(at(D2, 8), "pa", "2.00", "9.00"))
    for source, price in (("pb", "2.40"), ("pc", "2.60")):
        _load(warehouse, platform(at(D2, 8), source, price))
    held = read_frame(warehouse, "SELECT quarantine_id, status FROM quarantine")
    assert held["status"].to_list() == ["held"]
    derive(warehouse, now=at(D2, 12))
    d2 = series(warehouse)[D2]
    # pa without the held row: 2.00; median(2.00, 2.40, 2.60)
    assert d2["value"] == pytest.approx(2.40) and d2["observations"] == 3
    # accepted by hand: in offer from now on, so it counts: pa median(2.00, 9.00) = 5.50
    decide(warehouse, held["quarantine_id"].to_list(), accept=True)
    derive(warehouse, now=at(D2, 13))
    d2 = series(warehouse)[D2]
    assert d2["value"] == pytest.approx(2.60) and d2["observations"] == 4
    assert d2["revision"] == 2


def test_a_late_page_appends_a_revision_and_as_of_gives_the_old_value(
    warehouse: Warehouse,
) -> None:
    first = platform(at(D1, 8), "pa", "2.00") + platform(at(D1, 8), "pb", "2.40")
    insert(warehouse, first + platform(at(D1, 8), "pc", "3.00"))
    derive(warehouse, now=at(D1, 12))
    # pb's second page of the same 08:00 snapshot arrives late (another listing, 3.40)
    insert(warehouse, [row(at(D1, 8), "pb", "late", "3.40")])
    derive(warehouse, now=at(D2, 1))
    now = series(warehouse)[D1]
    # pb now median(2.40, 3.40) = 2.90: median(2.00, 2.90, 3.00)
    assert now["value"] == pytest.approx(2.90) and now["revision"] == 2
    assert now["published_at"] == at(D2, 1)
    before = series(warehouse, as_of=at(D1, 18))[D1]
    assert before["value"] == pytest.approx(2.40) and before["revision"] == 1
    assert before["superseded_at"] == at(D2, 1)
    assert before["inputs_hash"] != now["inputs_hash"]
    assert series(warehouse, as_of=at(D1, 11)) == {}  # nothing was published yet
    # both revisions are kept; deriving again with nothing new appends none
    derive(warehouse, now=at(D2, 2))
    revisions = read_frame(warehouse, "SELECT count(*) AS n FROM price_index WHERE gpu = ?", [CARD])
    assert revisions["n"].item() == 2


def test_a_revised_day_revises_the_later_levels(warehouse: Warehouse) -> None:
    for day, prices in ((D1, ("2.00", "2.00", "2.00")), (D2, ("2.20", "2.20", "2.20"))):
        for source, price in zip(("pa", "pb", "pc"), prices, strict=True):
            insert(warehouse, platform(at(day, 8), source, price))
        derive(warehouse, now=at(day, 12))
    assert series(warehouse)[D2]["level"] == pytest.approx(110.0)
    # a history import brings D1 a fourth platform and later snapshots of pa and pb: D1's
    # value and D2's change and level are revised; D2's value is not
    insert(warehouse, platform(at(D1, 3), "pd", "1.00"))
    insert(warehouse, platform(at(D1, 9), "pa", "1.00") + platform(at(D1, 9), "pb", "1.00"))
    derive(warehouse, now=at(D2, 13))
    got = series(warehouse)
    # D1: pa 1.00, pb 1.00 (their 09:00 snapshots), pc 2.00, pd 1.00 -> 1.00
    assert got[D1]["value"] == pytest.approx(1.00) and got[D1]["revision"] == 2
    # D2 over pa, pb, pc (pd not on D2): median(2.20 x3) / median(1.00, 1.00, 2.00) - 1
    assert got[D2]["change_1d"] == pytest.approx(1.20) and got[D2]["revision"] == 2
    assert got[D2]["value"] == pytest.approx(2.20)
    assert got[D2]["level"] == pytest.approx(220.0)  # 100 on D1 still
    assert series(warehouse, as_of=at(D2, 12))[D2]["level"] == pytest.approx(110.0)


def test_the_gate_check_fails_on_a_day_that_broke_its_gates(warehouse: Warehouse) -> None:
    load_days(warehouse)
    assert check_index_gates(warehouse).metadata == {"published_days": 4, "withheld_days": 1}
    with write_connection(warehouse) as con:
        # D4 (two platforms) said published; D1 withheld but with a value
        con.execute(
            "UPDATE price_index SET status = 'published', gate = NULL, "
            "value_cny_per_card_hour = 2.4, level = 101 WHERE day = ?",
            [D4],
        )
        con.execute("UPDATE price_index SET status = 'withheld', gate = NULL WHERE day = ?", [D1])
    outcome = check_index_gates(warehouse)
    assert not outcome.passed and outcome.failing_rows == 2
    assert any("2026-10-04" in e and "2 platform(s)" in e for e in outcome.examples)


def test_the_published_suffix_is_the_reference_datas() -> None:
    from warehouse.derive import index_method
    from warehouse.ingest import reference

    assert index_method.PUBLISHED_SUFFIX == reference.PUBLISHED_SUFFIX
