"""Money is converted at load, at the rate of each row's own day (warehouse.ingest.money):
the latest ``fx_rate`` on or before it, the configured default (labelled) before every stored
one; a re-parse converts at the page's own day, not at today's rate."""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from scrapers.collect import ParsedPage, Snapshot
from scrapers.fx import CONFIGURED_DEFAULT, FxRate, FxRates
from scrapers.http import FetchedPage
from scrapers.rows import OfferRow, ParseError
from tests.support.handles import warehouse_at
from tests.support.listed_usd import ListedAdapter, usd_offer
from warehouse.ingest.fx_rates import store_rates
from warehouse.ingest.load import load_snapshot
from warehouse.ingest.money import PricedOffer, at_default, convert
from warehouse.ingest.quarantine import row_from_json
from warehouse.ingest.reparse import reparse
from warehouse.read.compare import fx_rates_on
from warehouse.store.db import read_frame, write_connection

D = Decimal
DEFAULT = FxRate(date(2026, 9, 1), "USD", D("7.10"), f"{CONFIGURED_DEFAULT}: test")
STORED = [
    FxRate(date(2023, 5, 1), "USD", D("6.90"), "https://fx.example"),
    FxRate(date(2026, 9, 3), "USD", D("7.20"), "https://fx.example"),
    FxRate(date(2026, 9, 5), "USD", D("7.30"), "https://fx.example"),
]
URL = "https://cloud.example/pricing"


def load(path: Path, at: datetime, body: bytes = b"2.5", defaults=(DEFAULT,)):
    page = FetchedPage(URL, 200, body, "text/html", at)
    parsed = ParsedPage(page, ListedAdapter().parse(body, URL, at), None)
    snap = Snapshot("examplecloud", "offers", at, None, [parsed])
    return load_snapshot(warehouse_at(path), snap, profile="live", fx_defaults=defaults)


def stored_cny(path: Path) -> list[tuple]:
    return read_frame(
        warehouse_at(path),
        "SELECT observed_at::DATE, price, currency, cny_per_card_hour FROM offer ORDER BY 1",
    ).rows()


def with_rates(path: Path, rates: list[FxRate]) -> None:
    with write_connection(warehouse_at(path)) as con:
        store_rates(con, rates)


def test_a_usd_row_is_converted_at_the_latest_rate_on_or_before_its_day(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with_rates(path, STORED)
    for at, body in (
        (datetime(2026, 9, 4, 23, 0), b"2.5"),  # the 3rd's rate
        (datetime(2026, 9, 5, 0, 30), b"2.6"),  # its own day's
        (datetime(2023, 6, 1, 12, 0), b"2.7"),  # a 2023 price: the 2023 rate
    ):
        assert load(path, at, body).status == "ok"
    assert stored_cny(path) == [
        (date(2023, 6, 1), D("2.7000"), "USD", D("18.630000")),  # 2.7 × 6.90
        (date(2026, 9, 4), D("2.5000"), "USD", D("18.000000")),  # 2.5 × 7.20
        (date(2026, 9, 5), D("2.6000"), "USD", D("18.980000")),  # 2.6 × 7.30
    ]


def test_a_day_before_every_stored_rate_uses_the_configured_default_labelled(
    tmp_path: Path,
) -> None:
    path = tmp_path / "w.duckdb"
    summary = load(path, datetime(2024, 3, 1, 8, 0))
    assert summary.status == "ok"
    assert stored_cny(path) == [(date(2024, 3, 1), D("2.5000"), "USD", D("17.750000"))]
    assert summary.fx_note == "1 row(s) converted at the configured default 7.10 CNY/USD"
    # the rate a row of that day was converted at, as the warehouse shows it
    shown = fx_rates_on(warehouse_at(path), date(2024, 3, 1)).rows()
    assert shown == [("USD", date(2026, 9, 1), 7.10, DEFAULT.source)]
    priced = convert(usd_offer(datetime(2024, 3, 1)), FxRates((), (DEFAULT,)))
    assert at_default(priced) and priced.fx == DEFAULT
    # a known rate is not labelled as the default
    known = convert(usd_offer(datetime(2026, 9, 4)), FxRates(tuple(STORED), (DEFAULT,)))
    assert not at_default(known) and known.fx.source == "https://fx.example"


def test_a_currency_without_any_rate_rejects_its_page_never_a_guess(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    summary = load(path, datetime(2026, 9, 4, 3, 0), defaults=())
    assert summary.status == "failed"
    assert "no USD→CNY rate" in (summary.error or "")
    assert stored_cny(path) == []
    with pytest.raises(ParseError, match="no USD→CNY rate"):
        convert(usd_offer(datetime(2026, 9, 4)), FxRates())


def test_a_cny_row_is_its_own_figure_and_parsed_rows_carry_no_converted_money() -> None:
    row = usd_offer(datetime(2026, 9, 4))
    assert not hasattr(row, "cny_per_card_hour")
    cny = OfferRow(**{**row.to_dict(), "currency": "CNY", "unit": "CNY/card-hour"})
    priced = convert(cny, FxRates())
    assert priced.cny_per_card_hour == D("2.500000") and priced.fx.source == "identity"


def test_a_priced_row_survives_the_quarantine_round_trip() -> None:
    priced = convert(usd_offer(datetime(2026, 9, 4)), FxRates(tuple(STORED)))
    text = json.dumps(priced.to_dict() | {"_table": "offer"}, default=str)
    again = row_from_json(text)
    assert isinstance(again, PricedOffer) and again == priced


def test_reparse_converts_at_the_pages_own_day(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with_rates(path, STORED[:2])
    at = datetime(2026, 9, 4, 3, 0)
    assert load(path, at).status == "ok"
    assert stored_cny(path) == [(date(2026, 9, 4), D("2.5000"), "USD", D("18.000000"))]
    # later: the day's own rate becomes known (a history import), and a newer one too
    with_rates(
        path,
        [
            FxRate(date(2026, 9, 4), "USD", D("7.40"), "https://ecb.example"),
            FxRate(date(2026, 12, 1), "USD", D("8.00"), "https://ecb.example"),
        ],
    )
    summary = reparse(
        warehouse_at(path), ListedAdapter(), "examplecloud", run_derive=False,
        fx_defaults=(DEFAULT,),
    )  # fmt: skip
    assert (summary.pages, summary.ok, summary.errors) == (1, 1, 0)
    assert stored_cny(path) == [(date(2026, 9, 4), D("2.5000"), "USD", D("18.500000"))]  # × 7.40
