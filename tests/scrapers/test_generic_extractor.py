"""The generic extractor: price tables by header synonyms (Chinese and English) and
schema.org Offer JSON-LD, configured only by options; nothing guessed."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest

from scrapers.fx import FxRate, FxRates
from scrapers.rows import ParseError
from scrapers.sources import GenericOptions, build_adapter
from scrapers.sources.generic import GenericAdapter
from scrapers.units import parse_money, parse_period
from tests.scrapers.live_fixtures import GENERIC_EN, GENERIC_LD, GENERIC_ZH, read

D = Decimal
FETCHED = datetime(2026, 9, 4, 3, 0)
FX = FxRates((), (FxRate(date(2026, 9, 1), "USD", D("7.10"), "configured default"),))


def parse(name: str, **options) -> dict:
    adapter = build_adapter("examplecloud", "generic", fx=FX, options=options)
    return {r.offer_id: r for r in adapter.parse(read(name), "https://gpu.example.com/p", FETCHED)}


def test_chinese_headers_with_units_in_parentheses() -> None:
    rows = parse(GENERIC_ZH)
    hourly = rows["t2|NVIDIA GeForce RTX 4090|24|1|华东-杭州|按量价格"]
    assert (hourly.source, hourly.gpu, hourly.billing, hourly.price) == (
        "examplecloud", "rtx4090-24g", "hourly", D("1.89"),
    )  # fmt: skip
    assert (hourly.unit_raw, hourly.unit, hourly.cny_per_card_hour) == (
        "元/时", "CNY/card-hour", D("1.890000"),
    )  # fmt: skip
    monthly = rows["t2|NVIDIA GeForce RTX 4090|24|1|华东-杭州|包月价格"]
    assert (monthly.billing, monthly.price, monthly.unit) == (
        "monthly",
        D("1088"),
        "CNY/card-month",
    )
    # 8 cards, a price for the row's machine: per card-hour ÷ 8
    eight = rows["t2|RTX 4090|24|8|华东-杭州|按量价格"]
    assert (eight.gpu_count, eight.unit, eight.cny_per_card_hour) == (
        8, "CNY/server-hour", D("1.850000"),
    )  # fmt: skip
    assert rows["t2|昇腾910B|64|1|华南-深圳|按量价格"].gpu == "910b-64g"
    assert rows["t2|MTT S4000|48|1|华北-北京|按量价格"].gpu == "unknown"
    assert not any("A100-SXM4-80GB" in k and "包月" in k for k in rows)  # "-": no monthly price


def test_english_headers_unit_column_and_dollars() -> None:
    rows = parse(GENERIC_EN)
    h100 = rows["t1|H100 80GB HBM3|80|8|us-east|price"]
    assert (h100.gpu, h100.currency, h100.price, h100.unit) == (
        "h100-80g", "USD", D("17.92"), "USD/server-hour",
    )  # fmt: skip
    assert h100.cny_per_card_hour == D("15.904000")  # 17.92 / 8 × 7.10
    l40s = rows["t1|L40S|48|1|us-east|price"]
    assert l40s.unit == "USD/card-hour" and l40s.cny_per_card_hour == D("7.029000")


def test_schema_org_offers() -> None:
    rows = parse(GENERIC_LD, tables=False)
    assert rows["ld|RTX 5090 32GB 云主机|按量"].gpu == "rtx5090-32g"
    h20 = rows["ld|H20 96GB|包月"]
    assert (h20.gpu, h20.billing, h20.price, h20.unit) == (
        "h20-96g", "monthly", D("4150"), "CNY/card-month",
    )  # fmt: skip
    assert rows["ld|H20 96GB|按量"].cny_per_card_hour == D("7.200000")


def test_a_configured_unit_and_currency_fill_what_the_page_leaves_out() -> None:
    page = read(GENERIC_EN).replace(b"$", b"")
    page = page.replace(b"<th>Unit</th>", b"<th>Note</th>")
    bare = GenericAdapter("x", GenericOptions(), FX)
    with pytest.raises(ParseError, match="names no currency"):
        bare.parse(page, "https://x", FETCHED)
    configured = GenericAdapter("x", GenericOptions(currency="USD", unit="/hr"), FX)
    rows = configured.parse(page.replace(b"per GPU per hour", b"per hour"), "https://x", FETCHED)
    assert {r.currency for r in rows} == {"USD"} and {r.unit_raw for r in rows} == {"/hr"}


def test_a_page_with_no_price_table_names_the_headers_it_saw() -> None:
    with pytest.raises(ParseError, match=r"headers seen: .*按量\(元/时\)"):
        parse("generic_no_price_column.html")


@pytest.mark.parametrize(
    ("text", "value", "currency", "unit"),
    [
        ("$2.69/hr", "2.69", "USD", "/hr"),
        ("¥1.96/时", "1.96", "CNY", "/时"),
        ("￥7,920/月", "7920", "CNY", "/月"),
        ("7.75 元/卡时", "7.75", "CNY", "/卡时"),
        ("US$ 0.44 per hour", "0.44", "USD", "per hour"),
        ("1.89", "1.89", None, ""),
    ],
)
def test_parse_money(text: str, value: str, currency: str | None, unit: str) -> None:
    assert parse_money(text) == (D(value), currency, unit)


@pytest.mark.parametrize(
    ("unit", "expected"),
    [
        ("/hr", (1, None)),
        ("per GPU per hour", (1, "card")),
        ("元/卡时", (1, "card")),
        ("元/台/月", (720, "machine")),
        ("/month", (720, None)),
        ("/day", (24, None)),
        ("hourly", (1, None)),
    ],
)
def test_parse_period(unit: str, expected: tuple) -> None:
    assert parse_period(unit) == expected


@pytest.mark.parametrize("unit", ["", "GB", "/季", "hours"])
def test_unknown_periods_are_errors(unit: str) -> None:
    with pytest.raises(ParseError):
        parse_period(unit)
