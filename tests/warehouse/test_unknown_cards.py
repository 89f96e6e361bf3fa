"""warehouse.read.unknown_cards: the card names still met as ``unknown`` in offer and, not
loaded, in quarantine, once per source and name, the newest first seen first."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from scrapers.collect import ParsedPage, Snapshot
from scrapers.http import FetchedPage
from scrapers.rows import OfferRow
from tests.support.handles import warehouse_at
from warehouse.ingest.load import load_snapshot
from warehouse.ingest.quarantine import QuarantinePolicy
from warehouse.read.unknown_cards import UnknownCard, unknown_cards
from warehouse.store.db import WarehouseMissing, read_frame, write_connection
from warehouse.store.handle import Warehouse

T0 = datetime(2026, 9, 4, 2, 0)
DAY = timedelta(days=1)
KNOWN = OfferRow(
    observed_at=T0, source="jygpu", offer_id="c-4090", gpu="rtx4090-24g",
    gpu_name_raw="RTX 4090 24GB", gpu_count=1, vram_gb=24, billing="hourly",
    price=Decimal("1.96"), currency="CNY", unit="CNY/card-hour", unit_raw="元/时",
    per_card_hour=Decimal("1.96"), list_price=Decimal("1.96"), simulated=True,
)  # fmt: skip
POLICY = QuarantinePolicy(jump_factor=3.0, confirm_snapshots=3)


def unknown(offer_id: str, name: str, days: int = 0, **changes: object) -> OfferRow:
    return replace(
        KNOWN, offer_id=offer_id, gpu="unknown", gpu_name_raw=name,
        observed_at=T0 + days * DAY, **changes,
    )  # fmt: skip


def load(warehouse: Warehouse, *rows: OfferRow, source: str = "jygpu") -> None:
    when = rows[0].observed_at
    rows = tuple(replace(r, source=source) for r in rows)
    body = json.dumps([r.to_dict() for r in rows], default=str).encode()
    fetched = FetchedPage(f"http://127.0.0.1/{source}", 200, body, "text/html", when)
    snapshot = Snapshot(source, "offers", when, None, [ParsedPage(fetched, list(rows), None)])
    load_snapshot(warehouse, snapshot, profile="demo", quarantine=POLICY)


@pytest.fixture
def warehouse(tmp_path: Path) -> Warehouse:
    return warehouse_at(tmp_path / "w.duckdb")


def test_names_per_source_with_counts_newest_first(warehouse: Warehouse) -> None:
    load(warehouse, KNOWN, unknown("a", "RTX 9090 Ti"), unknown("b", "MTT S4000"))
    load(warehouse, replace(KNOWN, observed_at=T0 + DAY), unknown("a", "RTX 9090 Ti", 1))
    load(warehouse, unknown("z", "RTX 9090 Ti", 2), source="autodl")
    got = unknown_cards(warehouse)
    assert [(c.source, c.gpu_name_raw, c.offer_rows, c.quarantine_rows) for c in got] == [
        ("autodl", "RTX 9090 Ti", 1, 0),  # first seen on day 2: the newest
        ("jygpu", "MTT S4000", 1, 0),  # day 0, sources and names in order
        ("jygpu", "RTX 9090 Ti", 2, 0),
    ]
    assert got[2] == UnknownCard("jygpu", "RTX 9090 Ti", 2, 0, T0, T0 + DAY, True)
    assert got[2].rows == 2
    # the load noted each in quarantine too (status noted): counted once, from offer
    noted = read_frame(warehouse, "SELECT count(*) FROM quarantine WHERE status = 'noted'")
    assert noted.item() == 4


def test_a_held_row_with_an_unknown_card_counts_though_never_loaded(warehouse: Warehouse) -> None:
    # an impossible unit holds the row: it never reaches offer
    load(warehouse, KNOWN, unknown("x", "Quadro GV100", unit="CNY/card-fortnight"))
    load(warehouse, unknown("y", "Quadro GV100", 1))
    (card,) = unknown_cards(warehouse)
    assert (card.source, card.gpu_name_raw) == ("jygpu", "Quadro GV100")
    assert (card.offer_rows, card.quarantine_rows, card.rows) == (1, 1, 2)
    assert (card.first_seen, card.last_seen) == (T0, T0 + DAY)
    with write_connection(warehouse) as con:  # rejected by hand: still met
        con.execute("UPDATE quarantine SET status = 'rejected' WHERE status = 'held'")
    assert unknown_cards(warehouse)[0].quarantine_rows == 1


def test_real_rows_are_not_simulated_and_known_cards_are_not_listed(warehouse: Warehouse) -> None:
    load(warehouse, replace(KNOWN, simulated=False), unknown("r", "B300", simulated=False))
    (card,) = unknown_cards(warehouse)
    assert card.gpu_name_raw == "B300" and card.simulated is False


def test_nothing_unknown_is_an_empty_list(warehouse: Warehouse) -> None:
    load(warehouse, KNOWN)
    assert unknown_cards(warehouse) == []


def test_no_warehouse_is_warehouse_missing(tmp_path: Path) -> None:
    with pytest.raises(WarehouseMissing):
        unknown_cards(warehouse_at(tmp_path / "none.duckdb"))
