"""Prices, billing periods, sizes, discounts and text normalisation: exact values, and loud
failures. (Price texts as the generic extractor reads them: test_generic_extractor.py; as
jygpu lists them in yuan: test_jygpu_parser.py.)"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest

from scrapers.rows import HOURS_PER_MONTH, ParseError
from scrapers.units import (
    CNY_PER_CARD_HOUR_QUANTUM,
    Per,
    currency_in,
    hours_for,
    nfkc,
    parse_discount,
    parse_gb,
    parse_money,
    parse_period,
    per_card_hour,
    size_gb,
)

D = Decimal


def to_cny_per_card_hour(
    price: Decimal, unit_raw: str, gpu_count: int, per: Per = "card"
) -> tuple[str, Decimal]:
    """A CNY listing's normalised unit and CNY per card-hour, as jygpu and SMM work them out:
    the unit's period for a price covering ``per``, the price per card-hour, 6 decimals."""
    hours = hours_for(unit_raw, per)
    unit, value = per_card_hour(price, "CNY", hours, gpu_count, per)
    return unit, value.quantize(CNY_PER_CARD_HOUR_QUANTUM, ROUND_HALF_UP)


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


def test_nfkc_folds_full_width_forms_and_collapses_whitespace() -> None:
    assert nfkc("  ＲＴＸ４０９０\u3000 24GB\t") == "RTX4090 24GB"
    assert nfkc("价格（元/时）：") == "价格(元/时):"
    assert nfkc("￥1,074") == "¥1,074"
    assert nfkc("") == ""


@pytest.mark.parametrize(
    ("text", "value", "currency", "unit"),
    [
        ("$2.69/hr", "2.69", "USD", "/hr"),
        ("US$ 1,074 per GPU per hour", "1074", "USD", "per GPU per hour"),
        ("2.69 USD/hr", "2.69", "USD", "/hr"),
        ("¥1.96/时", "1.96", "CNY", "/时"),
        ("  ３.５ 元 / 卡 / 小时 ", "3.5", "CNY", "/ 卡 / 小时"),
        ("RMB 3/台/月", "3", "CNY", "/台/月"),
        ("1.26", "1.26", None, ""),
        ("¥6.20", "6.20", "CNY", ""),
        ("￥7,920/月", "7920", "CNY", "/月"),
        ("7.75 元/卡时", "7.75", "CNY", "/卡时"),
        ("US$ 0.44 per hour", "0.44", "USD", "per hour"),
    ],
)
def test_parse_money(text: str, value: str, currency: str | None, unit: str) -> None:
    parsed = parse_money(text)
    assert parsed == (D(value), currency, unit)
    assert str(parsed[0]) == value  # the listed precision kept ("6.20", not "6.2")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("面议", "no price given"),
        ("Contact us", "no price given"),
        ("N/A", "no price given"),
        ("", "no price given"),
        ("约¥1,074", "not a price"),
        ("-1.96", "not a price"),
        ("0", "price must be positive"),
        ("$0.00/hr", "price must be positive"),
        ("$2 CNY", "names two currencies"),
        ("¥2 USD /mo", "names two currencies"),
    ],
)
def test_parse_money_rejects(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_money(text)


@pytest.mark.parametrize(
    ("unit", "expected"),
    [
        ("/hr", (1, None)),
        ("/月", (HOURS_PER_MONTH, None)),
        ("元/时", (1, None)),
        ("元/卡·时", (1, "card")),
        ("/ h", (1, None)),
        ("USD/hr", (1, None)),
        ("per GPU per hour", (1, "card")),
        ("Per Hour", (1, None)),
        ("/gpu-hr", (1, "card")),
        ("/card_month", (720, "card")),
        ("/server-hour", (1, "machine")),
        ("/instance/day", (24, "machine")),
        ("元/台/月", (720, "machine")),
        (" 元 / 卡 / 小时 ", (1, "card")),
        ("daily", (24, None)),
        ("monthly", (720, None)),
        ("hourly", (1, None)),
        ("/month", (720, None)),
        ("/day", (24, None)),
        ("元/卡时", (1, "card")),
    ],
)
def test_parse_period(unit: str, expected: tuple[int, str | None]) -> None:
    assert parse_period(unit) == expected


@pytest.mark.parametrize(
    ("unit", "message"),
    [
        ("/季", "unknown unit '/季': unknown billing period"),
        ("/卡", "unknown unit '/卡': unknown billing period"),
        ("/", "unknown unit '/': unknown billing period"),
        ("", "unknown unit '': it names no billing period"),
        ("hours", "unknown unit 'hours': it names no billing period"),
        ("GB", "unknown unit 'GB': it names no billing period"),
    ],
)
def test_parse_period_rejects(unit: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_period(unit)


def test_hours_for_checks_whom_the_unit_says_the_price_covers() -> None:
    assert hours_for("元/卡/天", "card") == 24
    assert hours_for("/hr", "machine") == 1
    with pytest.raises(ParseError, match="'/GPU/hr' is per card, but the price was said"):
        hours_for("/GPU/hr", "machine")


def test_per_card_hour_is_not_rounded() -> None:
    assert per_card_hour(D("2.69"), "USD", 1, 1, "card") == ("USD/card-hour", D("2.69"))
    assert per_card_hour(D("17.92"), "USD", 1, 8, "machine") == ("USD/server-hour", D("2.24"))
    unit, value = per_card_hour(D("1"), "CNY", 24, 3, "machine")
    assert unit == "CNY/server-day" and value == D(1) / 3 / 24


@pytest.mark.parametrize(
    ("text", "currency"),
    [("$/hr", "USD"), ("Price (USD)", "USD"), ("元/时", "CNY"), ("￥", "CNY"), ("RMB", "CNY"),
     ("per hour", None), ("", None), (None, None)],
)  # fmt: skip
def test_currency_in(text: str | None, currency: str | None) -> None:
    assert currency_in(text) == currency


@pytest.mark.parametrize(
    ("text", "gb"),
    [
        ("60GB", "60"),
        ("80 GB VRAM", "80"),
        ("24GB GDDR6X", "24"),
        ("24G", "24"),
        ("80 GiB", "80"),
        ("２４ＧＢ", "24"),
        ("2×3.84TB NVMe", "7680"),
        ("2 x 960GB", "1920"),
        ("1.5 GB", "1.5"),
        ("H100 80GB HBM3", "80"),
        ("24GDDR6X", None),  # that G starts a memory type
        ("48", None),  # no unit: not a size
        ("PCIe 4.0", None),
        ("", None),
    ],
)
def test_size_gb(text: str, gb: str | None) -> None:
    assert size_gb(text) == (None if gb is None else D(gb))


def test_parse_gb_wants_whole_gb() -> None:
    assert parse_gb("2×3.84TB NVMe", "disk") == 7680
    with pytest.raises(ParseError, match="disk: expected a size like '60GB'"):
        parse_gb("大", "disk")
    with pytest.raises(ParseError, match="disk: size '1.5GB' is not a whole number of GB"):
        parse_gb("1.5GB", "disk")
    with pytest.raises(ParseError, match="not a whole number"):
        parse_gb("0GB", "disk")
