"""Price text, unit and discount parsing: exact values, and loud failures."""

from __future__ import annotations

from decimal import Decimal

import pytest

from scrapers.rows import ParseError
from scrapers.units import parse_discount, parse_price, to_cny_per_card_hour

D = Decimal


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("¥1.96/时", D("1.96"), "元/时"),
        ("1.96 元/小时", D("1.96"), "元/小时"),
        ("¥7,920/月", D("7920"), "元/月"),
        ("￥1,074", D("1074"), "元"),
        ("7.47 元/卡时", D("7.47"), "元/卡时"),
        ("¥12.5/天", D("12.5"), "元/天"),
        ("¥84,480 /月", D("84480"), "元/月"),
        ("¥1,234,567.50/月", D("1234567.50"), "元/月"),
        ("1.26", D("1.26"), ""),
        ("  ¥ 6.20 / 时 ", D("6.20"), "元/时"),
    ],
)
def test_parse_price(text: str, value: Decimal, unit: str) -> None:
    parsed_value, parsed_unit = parse_price(text)
    assert parsed_value == value
    assert str(parsed_value) == str(value)  # listed precision kept ("6.20", not "6.2")
    assert parsed_unit == unit


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("面议", "no price"),
        ("咨询客服", "no price"),
        ("", "no price"),
        ("--", "no price"),
        ("-1.96", "not a price"),
        ("0", "positive"),
        ("¥0.00/时", "positive"),
        ("1.9.6", "unexpected text"),
        ("1,96", "unexpected text"),
        ("¥7,9200/月", "unexpected text"),
        ("约¥1,074", "not a price"),
        ("USD 2.00/h", "not a price"),
        ("1.96 美元/时", "unexpected text"),
    ],
)
def test_parse_price_rejects(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_price(text)


@pytest.mark.parametrize(
    ("price", "unit_raw", "gpus", "per", "unit", "per_card_hour"),
    [
        ("1.96", "元/时", 1, "card", "CNY/card-hour", "1.960000"),
        ("1.96", "元/小时", 1, "machine", "CNY/card-hour", "1.960000"),  # 1-card machine
        ("7.47", "元/卡时", 1, "card", "CNY/card-hour", "7.470000"),
        ("2.00", "元/h", 1, "card", "CNY/card-hour", "2.000000"),
        ("20", "元/时", 8, "machine", "CNY/server-hour", "2.500000"),
        ("12.5", "元/天", 1, "card", "CNY/card-day", "0.520833"),
        ("240", "元/日", 8, "machine", "CNY/server-day", "1.250000"),
        ("7920", "元/月", 8, "machine", "CNY/server-month", "1.375000"),
        ("84480", "元/月", 8, "machine", "CNY/server-month", "14.666667"),
        ("990", "元/月", 1, "card", "CNY/card-month", "1.375000"),
        ("990", "元/卡/月", 8, "card", "CNY/card-month", "1.375000"),
    ],
)
def test_to_cny_per_card_hour(
    price: str, unit_raw: str, gpus: int, per: str, unit: str, per_card_hour: str
) -> None:
    got_unit, got = to_cny_per_card_hour(D(price), unit_raw, gpus, per=per)  # type: ignore[arg-type]
    assert (got_unit, got) == (unit, D(per_card_hour))
    assert got.as_tuple().exponent == -6


def test_breakeven_arithmetic_of_seed_003() -> None:
    # Seed 003 §六: 7,920/8 = 990 per card-month; 990/1.96 ≈ 505 h and 990/1.57 ≈ 630 h.
    _, bare = to_cny_per_card_hour(D("7920"), "元/月", 8, per="machine")
    assert round(bare * 720 / D("1.96")) == 505
    assert round(bare * 720 / D("1.57")) == 631  # the seed rounds 630.57 down to "约 630"


@pytest.mark.parametrize(
    ("unit_raw", "gpus", "per", "message"),
    [
        ("元/季", 1, "card", "unknown unit"),
        ("元", 1, "card", "unknown unit"),  # a sum with no period
        ("", 1, "card", "unknown unit"),
        ("美元/时", 1, "card", "unknown unit"),
        ("元/卡时", 8, "machine", "per card"),  # unit contradicts the caller
        ("元/台/月", 8, "card", "per machine"),
        ("元/时", 0, "card", "gpu_count"),
    ],
)
def test_to_cny_per_card_hour_rejects(unit_raw: str, gpus: int, per: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        to_cny_per_card_hour(D("1.96"), unit_raw, gpus, per=per)  # type: ignore[arg-type]


def test_to_cny_per_card_hour_rejects_non_positive_price() -> None:
    with pytest.raises(ParseError, match="positive"):
        to_cny_per_card_hour(D("0"), "元/时", 1)


@pytest.mark.parametrize(
    ("label", "ratio"),
    [
        ("8折", "0.80"),
        ("95折", "0.95"),
        ("9.5折", "0.95"),
        ("93折", "0.93"),
        ("85折", "0.85"),
        ("9折", "0.90"),
        ("八五折", "0.85"),
        ("八折", "0.80"),
        ("(95 折)", "0.95"),
        ("95折", "0.95"),  # full-width digits
    ],
)
def test_parse_discount(label: str, ratio: str) -> None:
    assert parse_discount(label) == D(ratio)


@pytest.mark.parametrize("label", ["", "无折扣", "原价", "--"])
def test_parse_discount_none_when_no_discount(label: str) -> None:
    assert parse_discount(label) is None


@pytest.mark.parametrize("label", ["折", "10折", "0折", "90折", "0.95", "半价", "95%", "9.5.1折"])
def test_parse_discount_rejects(label: str) -> None:
    with pytest.raises(ParseError, match="not a discount"):
        parse_discount(label)
