"""The generic extractor: price tables by header synonyms (Chinese and English) and
schema.org Offer JSON-LD, configured only by options; nothing guessed."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest
from selectolax.lexbor import LexborHTMLParser

from scrapers.fx import FxRate, FxRates
from scrapers.rows import ParseError
from scrapers.sources import GenericOptions, _jsonld, build_adapter
from scrapers.sources.generic import GenericAdapter
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


# -- table shapes ----------------------------------------------------------------------------


def _html(body: str, head: str = "") -> bytes:
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>{head}</head><body>{body}</body></html>"
    ).encode()


def _rows(body: bytes, **options) -> list[tuple[str, str, str, str]]:
    adapter = GenericAdapter("examplecloud", GenericOptions(**options), FX)
    rows = adapter.parse(body, "https://gpu.example.com/p", FETCHED)
    return [(r.offer_id, r.gpu, str(r.price), r.unit) for r in rows]


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        (  # thead and tbody
            "<table><thead><tr><th>GPU</th><th>价格</th></tr></thead><tbody><tr><td>RTX 4090"
            "</td><td>1.89元/时</td></tr><tr><td>H100</td><td>9.9元/时</td></tr></tbody></table>",
            [("t1|RTX 4090|1|价格", "rtx4090-24g", "1.8900", "CNY/card-hour"),
             ("t1|H100|1|价格", "h100-80g", "9.9000", "CNY/card-hour")],
        ),
        (  # rows straight under <table>: the first is the header
            "<table><tr><th>GPU</th><th>Price</th></tr><tr><td>RTX 4090</td><td>$0.44/hr</td>"
            "</tr></table>",
            [("t1|RTX 4090|1|price", "rtx4090-24g", "0.4400", "USD/card-hour")],
        ),
        (  # header cells written as td
            "<table><thead><tr><td>GPU</td><td>价格</td></tr></thead><tbody><tr><td>A100 80GB"
            "</td><td>6.5元/时</td></tr></tbody></table>",
            [("t1|A100 80GB|1|价格", "a100-80g", "6.5000", "CNY/card-hour")],
        ),
        (  # a header row of th and td: the th cells are the header
            "<table><thead><tr><td></td><th>GPU</th><th>价格</th></tr></thead><tbody><tr><td>"
            "A100 80GB</td><td>6.5元/时</td></tr></tbody></table>",
            [("t1|A100 80GB|1|价格", "a100-80g", "6.5000", "CNY/card-hour")],
        ),
        (  # a tfoot of notes is not a listing
            "<table><thead><tr><th>GPU</th><th>价格</th></tr></thead><tbody><tr><td>L40S</td>"
            "<td>2.1元/时</td></tr></tbody><tfoot><tr><td colspan=2>价格不含税</td></tr></tfoot>"
            "</table>",
            [("t1|L40S|1|价格", "l40s-48g", "2.1000", "CNY/card-hour")],
        ),
        (  # two tbodies
            "<table><thead><tr><th>GPU</th><th>价格</th></tr></thead><tbody><tr><td>RTX 4090"
            "</td><td>1.89元/时</td></tr></tbody><tbody><tr><td>RTX 5090</td><td>2.79元/时</td>"
            "</tr></tbody></table>",
            [("t1|RTX 4090|1|价格", "rtx4090-24g", "1.8900", "CNY/card-hour"),
             ("t1|RTX 5090|1|价格", "rtx5090-32g", "2.7900", "CNY/card-hour")],
        ),
    ],
)  # fmt: skip
def test_table_shapes(table: str, expected: list[tuple[str, str, str, str]]) -> None:
    assert _rows(_html(table)) == expected


def test_a_table_nested_in_a_cell_is_part_of_that_cell() -> None:
    """Its rows and cells are not the outer table's (which would make the row too long)."""
    body = _html(
        "<table><thead><tr><th>GPU型号</th><th>配置</th><th>价格(元/时)</th></tr></thead><tbody>"
        "<tr><td>RTX 4090</td><td><table><tr><td>CPU</td><td>16核</td></tr></table></td>"
        "<td>1.89</td></tr></tbody></table>"
    )
    assert _rows(body) == [("t1|RTX 4090|1|价格", "rtx4090-24g", "1.8900", "CNY/card-hour")]


def test_a_page_without_rows_names_the_first_five_headers_seen() -> None:
    notices = _html("<table><tr><td>公告</td><td>九月</td></tr></table>" * 7)
    with pytest.raises(ParseError, match=r"\(headers seen: 公告 \| 九月(; 公告 \| 九月){4}\)$"):
        _rows(notices)
    header_only = _html("<table><thead><tr><th>GPU</th><th>价格</th></tr></thead></table>")
    with pytest.raises(ParseError, match=r"\(headers seen: GPU \| 价格\)$"):
        _rows(header_only)
    with pytest.raises(ParseError, match=r"\(headers seen: no tables\)$"):
        _rows(_html("<table><tr></tr></table>"))


def test_the_same_listing_twice_is_numbered() -> None:
    row = "<tr><td>RTX 4090</td><td>1.89元/时</td></tr>"
    table = (
        f"<table><thead><tr><th>GPU</th><th>价格</th></tr></thead><tbody>{row * 3}</tbody></table>"
    )
    assert [offer_id for offer_id, *_ in _rows(_html(table))] == [
        "t1|RTX 4090|1|价格", "t1|RTX 4090|1|价格#2", "t1|RTX 4090|1|价格#3",
    ]  # fmt: skip


# -- JSON-LD ---------------------------------------------------------------------------------


def _ld(*raw_blocks: str) -> bytes:
    scripts = "".join(f'<script type="application/ld+json">{raw}</script>' for raw in raw_blocks)
    return _html("", scripts)


def _blocks(*raw_blocks: str) -> list:
    return _jsonld.blocks(LexborHTMLParser(_ld(*raw_blocks)), "u")


@pytest.mark.parametrize(
    ("raw", "names"),
    [
        ('{"@type": "Product", "name": "a", "isRelatedTo": {"@type": "Product", "name": "b"}}',
         ["a", "b"]),
        ('{"@context": "https://schema.org", "mainEntity": {"@type": "Product", "name": "m"}}',
         ["m"]),
        ('{"@type": "Offer", "itemOffered": {"@type": "Product", "name": "c"}}', ["c"]),
        ('{"@graph": [{"@type": ["Thing", "Product"], "name": "l"}, {"@type": "Thing"}]}', ["l"]),
        ('{"@graph": [{"@type": "Pr\\u006fduct", "name": "e"}]}', ["e"]),  # escaped letters
        ('{"@t\\u0079pe": "Product", "name": "k"}', ["k"]),
        ('{"@graph": {"@type": "Product", "name": "d"}}', ["d"]),
        ('[[{"@type": "Product", "name": "x"}], {"@type": "Product", "name": "y"}]', ["x", "y"]),
        ('[{"@type": "https://schema.org/Product", "name": "u1"}, '
         '{"@type": "http:\\/\\/schema.org\\/Product", "name": "u2"}]', ["u1", "u2"]),
        ('{"@type": "Product", "name": "top", "@graph": [{"@type": "Product", "name": "inner"}]}',
         ["top", "inner"]),
        ('{"@graph": [{"@type": "Thing", "Product": 1, "name": "Product"}]}', []),
        ('"Product"', []),
    ],
)  # fmt: skip
def test_products_are_found_anywhere_depth_first(raw: str, names: list[str]) -> None:
    assert [p.get("name") for p in _jsonld.products(_blocks(raw))] == names


@pytest.mark.parametrize(
    ("raw", "offers"),
    [
        ('{"@type": "Offer", "price": 1, "itemOffered": {"@type": "Thing", "name": "x"}}',
         [("x", 1, None)]),
        ('{"@graph": [{"@type": "Offer", "price": 1}, {"@type": "Product", "name": "p", '
         '"offers": {"@type": "Offer", "price": 2}}, {"@type": "Offer", "price": 3}]}',
         [("p", 2, None), (None, 1, None), (None, 3, None)]),
        ('{"@type": "ItemList", "itemListElement": [{"@type": "ListItem", '
         '"item": {"@type": "Offer", "price": 1}}]}', [(None, 1, None)]),
        ('{"@type": "Product", "name": "p", "offers": {"@type": "Offer", "price": 1}, '
         '"isRelatedTo": {"@type": "Offer", "price": 2}}', [("p", 1, None), (None, 2, None)]),
        ('{"@graph": [{"@type": "Offer", "price": 1, "addOn": {"@type": "Offer", "price": 2}}]}',
         [(None, 1, None), (None, 2, None)]),
        ('{"@type": "Product", "name": "p", "offers": {"@type": "AggregateOffer", '
         '"lowPrice": 1, "priceCurrency": "USD"}}', [("p", 1, "USD")]),
        ('{"@graph": [{"@type": "Product", "name": "p", "offers": [{"@type": "AggregateOffer", '
         '"priceCurrency": "EUR", "offers": [{"@type": "Offer", "price": 1}, '
         '{"@type": "Offer", "price": 2, "priceCurrency": "USD"}]}]}]}',
         [("p", 1, "EUR"), ("p", 2, "USD")]),
        # An Offer's own offers, and an untyped offer's, belong to the Product's offer.
        ('{"@type": "Product", "name": "p", "offers": {"@type": "Offer", "price": 1, '
         '"offers": [{"@type": "Offer", "price": 2}, 3]}}', [("p", 1, None)]),
        ('{"@type": "Product", "name": "p", "offers": [{"price": 1, '
         '"offers": [{"@type": "Offer", "price": 2}]}, "x", null]}', [("p", 1, None)]),
        ('{"@type": "AggregateOffer", "offers": [{"@type": "Offer", "price": 1}]}',
         [(None, 1, None)]),
        # Equal JSON twice is two offers: the Product's and a free one.
        ('{"@graph": [{"@type": "Product", "name": "p", "offers": {"@type": "Offer", '
         '"price": 1}}, {"@type": "Offer", "price": 1}]}', [("p", 1, None), (None, 1, None)]),
        ('{"@graph": [{"@type": "Off\\u0065r", "price": 1}]}', [(None, 1, None)]),
        ('{"@type": ["Product", "Offer"], "name": "p", "price": 5, '
         '"offers": {"@type": "Offer", "price": 1}}', [("p", 1, None), (None, 5, None)]),
        ('{"@graph": [{"@type": "Offer", "itemOffered": {"@type": "Product", "name": "c", '
         '"offers": {"@type": "Offer", "price": 1}}}]}', [("c", 1, None), ("c", None, None)]),
        ('{"@type": "schema:Offer", "price": 1}', []),
        ('{"@type": "BreadcrumbList", "itemListElement": []}', []),
    ],
)  # fmt: skip
def test_all_offers_each_once(raw: str, offers: list[tuple]) -> None:
    found = _jsonld.all_offers(_blocks(raw))
    assert [
        ((ld.product or {}).get("name"), ld.offer.get("price"), ld.currency) for ld in found
    ] == offers


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ('{"a": ', "Expecting value"),
        ("{bad", "Expecting property name enclosed in double quotes"),
        ('{"a": 1} trailing', "Extra data"),
        ("[1, 2,]", "Expecting value"),
    ],
)
def test_a_json_ld_block_that_is_not_json_is_an_error(raw: str, message: str) -> None:
    ok = '{"@type": "Thing"}'
    with pytest.raises(ParseError) as raised:
        _blocks(ok, raw)
    assert str(raised.value) == f"u: JSON-LD block 2 is not valid JSON ({message})"


def test_a_number_json_will_not_convert_is_a_parse_error() -> None:
    # Valid JSON, but json refuses integers of over 4,300 digits: a parse error, not a crash.
    raw = '{"@type": "Product", "sku": ' + "7" * 5000 + "}"
    with pytest.raises(ParseError, match=r"^u: JSON-LD block 1 cannot be read \(Exceeds"):
        _blocks(raw)


def test_a_price_that_is_not_finite_is_an_error() -> None:
    offer = '{"@type": "Offer", "name": "x", "price": NaN, "priceCurrency": "CNY", '
    offer += '"itemOffered": {"name": "H100"}, "priceSpecification": {"unitCode": "HUR"}}'
    with pytest.raises(ParseError, match=r"JSON-LD offer 1 \(H100\): price: not a finite number"):
        _rows(_ld(offer), tables=False)
    big = offer.replace("NaN", "1e400")  # json reads it as inf
    with pytest.raises(ParseError, match="not a finite number"):
        _rows(_ld(big), tables=False)


def test_a_json_ld_type_is_compared_case_insensitively() -> None:
    offer = '{"@type": "Offer", "name": "按量", "price": "1.5", "priceCurrency": "CNY", '
    offer += '"itemOffered": {"name": "H100"}, "priceSpecification": {"unitCode": "HUR"}}'
    body = _html("", f'<script type="Application/LD+JSON">{offer}</script>')
    assert _rows(body, tables=False) == [("ld|H100|按量", "h100-80g", "1.5000", "CNY/card-hour")]


@pytest.mark.parametrize(
    ("meta", "simulated"),
    [
        ('<meta name="gpuprice-simulated" content="true">', True),
        ('<meta content=" TRUE " NAME="gpuprice-simulated">', True),
        ('<meta name="gpuprice-simulated">', False),
        ('<meta name="gpuprice-simulated" content="false"><meta name="gpuprice-simulated" '
         'content="true">', False),  # the first one decides
        ('<meta name="GPUPRICE-SIMULATED" content="true">', False),
        ('<meta name="other" content="true">', False),
    ],
)  # fmt: skip
def test_the_simulated_marker(meta: str, simulated: bool) -> None:
    table = (
        "<table><tr><th>GPU</th><th>价格</th></tr><tr><td>H100</td><td>9.9元/时</td></tr></table>"
    )
    rows = GenericAdapter("x", GenericOptions(), FX).parse(_html(table, meta), "https://x", FETCHED)
    assert [r.simulated for r in rows] == [simulated]
