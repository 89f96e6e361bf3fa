"""FX: latest rate on or before the day, the configured default before the first one, a
fetched rate over a default of the same day; the optional daily source's JSON."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from scrapers.fx import FxRate, FxRates, parse_rates
from scrapers.rows import ParseError

D = Decimal
DEFAULT = FxRate(date(2026, 9, 1), "USD", D("7.10"), "configured default (gpuprice.toml [fx])")


def test_latest_rate_on_or_before_the_day() -> None:
    rates = FxRates(
        (FxRate(date(2026, 9, 3), "USD", D("7.20"), "src"),
         FxRate(date(2026, 9, 10), "USD", D("7.05"), "src")),
        (DEFAULT,),
    )  # fmt: skip
    assert rates.rate("USD", date(2026, 9, 2)).cny_per_unit == D("7.10")
    assert rates.rate("usd", date(2026, 9, 3)).cny_per_unit == D("7.20")
    assert rates.rate("USD", date(2026, 9, 9)).cny_per_unit == D("7.20")
    assert rates.rate("USD", date(2026, 12, 1)).cny_per_unit == D("7.05")
    # older than every rate: the configured default, labelled as such
    early = rates.rate("USD", date(2025, 1, 1))
    assert early.cny_per_unit == D("7.10") and early.source.startswith("configured default")
    assert rates.to_cny(D("2.69"), "USD", date(2026, 9, 4)) == D("19.368000")
    assert rates.rate("CNY", date(2026, 9, 4)).cny_per_unit == 1


def test_a_fetched_rate_wins_over_the_default_of_the_same_day() -> None:
    fetched = FxRate(date(2026, 9, 1), "USD", D("7.1234"), "https://open.er-api.com/v6/latest/USD")
    assert FxRates((fetched,), (DEFAULT,)).rate("USD", date(2026, 9, 1)) == fetched
    assert FxRates((DEFAULT, fetched), (DEFAULT,)).rate("USD", date(2026, 9, 2)) == fetched


def test_no_rate_is_an_error_not_a_guess() -> None:
    with pytest.raises(ParseError, match="no EUR→CNY rate"):
        FxRates((), (DEFAULT,)).rate("EUR", date(2026, 9, 4))


def test_parse_rates_of_an_er_api_document() -> None:
    stamp = int(datetime(2026, 9, 4, 0, 2, tzinfo=UTC).timestamp())
    body = json.dumps(
        {"result": "success", "base_code": "USD", "time_last_update_unix": stamp,
         "rates": {"USD": 1, "CNY": 7.1234, "EUR": 0.92}}
    ).encode()  # fmt: skip
    (usd,) = parse_rates(body, "https://fx.example/USD")
    assert (usd.day, usd.currency, usd.cny_per_unit) == (date(2026, 9, 4), "USD", D("7.123400"))
    base_cny = json.dumps(
        {"result": "success", "base_code": "CNY", "time_last_update_unix": stamp,
         "rates": {"CNY": 1, "USD": 0.14}}
    ).encode()  # fmt: skip
    assert parse_rates(base_cny, "u")[0].cny_per_unit == D("7.142857")
    with pytest.raises(ParseError, match="result=success"):
        parse_rates(b'{"result": "error", "error-type": "quota-reached"}', "u")
    with pytest.raises(ParseError, match="not JSON"):
        parse_rates(b"<html>", "u")


def test_a_deeply_nested_rate_document_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="nested"):
        parse_rates(b"[" * 200_000 + b"]" * 200_000, "u")
