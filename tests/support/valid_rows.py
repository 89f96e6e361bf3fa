"""What a parsed row must be for the fuzz tests: a row the parser and the load both accept."""

from __future__ import annotations

from decimal import Decimal

from scrapers.gpu_names import CANONICAL_GPUS
from scrapers.rows import UNKNOWN_GPU, OfferRow, SpotQuoteRow, row_problem
from warehouse.ingest.load import _invalid


def assert_valid(row: object, source: str) -> None:
    assert isinstance(row, OfferRow | SpotQuoteRow)
    assert row.source == source
    assert row.gpu == UNKNOWN_GPU or row.gpu in CANONICAL_GPUS
    assert isinstance(row.price, Decimal) and isinstance(row.cny_per_card_hour, Decimal)
    assert row_problem(row) is None, row_problem(row)  # what the parsers refuse
    problem = _invalid(row)  # what the load refuses, too
    assert problem is None, problem
