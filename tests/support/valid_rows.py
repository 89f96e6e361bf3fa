"""What a parsed row must be for the fuzz tests: a row the parser and the load both accept."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from scrapers.fx import FxRate, FxRates
from scrapers.gpu_names import CANONICAL_GPUS
from scrapers.rows import UNKNOWN_GPU, OfferRow, SpotQuoteRow, row_problem
from warehouse.ingest.money import convert

# A USD rate for every day, as the load has one (the configured default before the first).
FX = FxRates((), (FxRate(date(2000, 1, 1), "USD", Decimal("7.10"), "test default"),))


def assert_valid(row: object, source: str) -> None:
    assert isinstance(row, OfferRow | SpotQuoteRow)
    assert row.source == source
    assert row.gpu == UNKNOWN_GPU or row.gpu in CANONICAL_GPUS
    assert isinstance(row.price, Decimal) and isinstance(row.per_card_hour, Decimal)
    assert row_problem(row) is None, row_problem(row)  # what a row refuses to be built as
    convert(row, FX)  # priced in CNY it is still a row (PricedOffer checks its CNY figure)
