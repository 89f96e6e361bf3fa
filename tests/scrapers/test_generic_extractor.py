"""The generic extractor: price tables by header synonyms (Chinese and English) and
schema.org Offer JSON-LD, configured only by options; nothing guessed."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest
from selectolax.lexbor import LexborHTMLParser

from scrapers.parse import read_page
from scrapers.rows import ParseError
from scrapers.sources import _jsonld, build_adapter
from scrapers.sources.generic.adapter import GenericAdapter, GenericOptions
from tests.support.live_fixtures import GENERIC_EN, GENERIC_LD, GENERIC_ZH, read

D = Decimal
FETCHED = datetime(2026, 9, 4, 3, 0)


def parse(name: str, **options) -> dict:
    adapter = build_adapter("examplecloud", "generic", options)
    return {r.offer_id: r for r in adapter.parse(read(name), "https://gpu.example.com/p", FETCHED)}


def test_chinese_headers_with_units_in_parentheses() -> None:
    rows = parse(GENERIC_ZH)
    hourly = rows["t2|NVIDIA GeForce RTX 4090|24|1|华东-杭州|按量价格"]
    assert (hourly.source, hourly.gpu, hourly.billing, hourly.price) == (
        "examplecloud", "rtx4090-24g", "hourly", D("1.89"),
    )  # fmt: skip
    assert (hourly.unit_raw, hourly.unit, hourly.per_card_hour) == (
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
    assert (eight.gpu_count, eight.unit, eight.per_card_hour) == (
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
    assert h100.per_card_hour == D("2.24")  # 17.92 / 8, in USD
    l40s = rows["t1|L40S|48|1|us-east|price"]
    assert l40s.unit == "USD/card-hour" and l40s.per_card_hour == D("0.99")


def test_schema_org_offers() -> None:
    rows = parse(GENERIC_LD, tables=False)
    assert rows["ld|RTX 5090 32GB 云主机|按量"].gpu == "rtx5090-32g"
    h20 = rows["ld|H20 96GB|包月"]
    assert (h20.gpu, h20.billing, h20.price, h20.unit) == (
        "h20-96g", "monthly", D("4150"), "CNY/card-month",
    )  # fmt: skip
    assert rows["ld|H20 96GB|按量"].per_card_hour == D("7.200000")


def test_a_configured_unit_and_currency_fill_what_the_page_leaves_out() -> None:
    page = read(GENERIC_EN).replace(b"$", b"")
    page = page.replace(b"<th>Unit</th>", b"<th>Note</th>")
    bare = GenericAdapter("x", GenericOptions())
    with pytest.raises(ParseError, match="names no currency"):
        bare.parse(page, "https://x", FETCHED)
    configured = GenericAdapter("x", GenericOptions(currency="USD", unit="/hr"))
    rows = configured.parse(page.replace(b"per GPU per hour", b"per hour"), "https://x", FETCHED)
    assert {r.currency for r in rows} == {"USD"} and {r.unit_raw for r in rows} == {"/hr"}


def test_a_page_with_no_price_table_names_the_headers_it_saw() -> None:
    page = read(GENERIC_ZH).replace(
        "<th>按量价格(元/时)</th><th>包月价格(元/月)</th>".encode(),
        "<th>备注</th><th>说明</th>".encode(),
    )
    with pytest.raises(
        ParseError, match=r"headers seen: 公告 \| 九月活动进行中; GPU型号 .*\| 备注 \| 说明\)$"
    ):
        GenericAdapter("x", GenericOptions()).parse(page, "https://x", FETCHED)


def test_columns_that_name_only_the_period_are_price_columns() -> None:
    """ "按量(元/时)" and "包月(元/月)" name the billing mode and the unit: prices, not notes."""
    page = read(GENERIC_ZH).replace(
        "<th>按量价格(元/时)</th><th>包月价格(元/月)</th>".encode(),
        "<th>按量(元/时)</th><th>包月(元/月)</th>".encode(),
    )
    adapter = GenericAdapter("x", GenericOptions())
    rows = {r.offer_id: r for r in adapter.parse(page, "https://x", FETCHED)}
    assert rows["t2|RTX 4090|24|8|华东-杭州|按量"].price == D("14.80")
    monthly = rows["t2|NVIDIA GeForce RTX 4090|24|1|华东-杭州|包月"]
    assert (monthly.billing, monthly.price, monthly.unit) == (
        "monthly",
        D("1088"),
        "CNY/card-month",
    )
    assert len(rows) == 8
    # Notes in the same places are not prices, whatever unit their header shows.
    notes = page.replace("<th>按量(元/时)</th><th>包月(元/月)</th>".encode(),
                         "<th>备注(元/时)</th><th>说明(元/月)</th>".encode())  # fmt: skip
    with pytest.raises(ParseError, match=r"headers seen: .*备注\(元/时\) \| 说明\(元/月\)\)$"):
        adapter.parse(notes, "https://x", FETCHED)


# -- table shapes ----------------------------------------------------------------------------


def _html(body: str, head: str = "") -> bytes:
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>{head}</head><body>{body}</body></html>"
    ).encode()


def _rows(body: bytes, **options) -> list[tuple[str, str, str, str]]:
    adapter = GenericAdapter("examplecloud", GenericOptions(**options))
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
    with pytest.raises(ParseError, match=r"JSON-LD offer 1: price: not a finite number"):
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
    rows = GenericAdapter("x", GenericOptions()).parse(_html(table, meta), "https://x", FETCHED)
    assert [r.simulated for r in rows] == [simulated]


# -- real pricing tables ----------------------------------------------------------------------


def _offers(body: bytes, **options) -> list[tuple]:
    """(card, gpu, count, billing, price, unit) of every row, in page order."""
    adapter = GenericAdapter("examplecloud", GenericOptions(**options))
    rows = adapter.parse(body, "https://gpu.example.com/p", FETCHED)
    return [(r.gpu_name_raw, r.gpu, r.gpu_count, r.billing, str(r.price), r.unit) for r in rows]


def _table(header: str, *rows: str) -> bytes:
    head = "".join(f"<th>{h}</th>" for h in header.split("|")) if header else ""
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r.split("|")) + "</tr>" for r in rows)
    return _html(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


def test_the_model_column_is_found_by_its_cards_and_the_count_in_its_cells() -> None:
    """Lambda's 2023 table: "GPUs" heads the model cell, which holds the count; a badge is
    not part of the card's name; the price is per instance."""
    page = _table(
        "GPUs|VRAM per GPU|vCPUs|Price",
        '1x NVIDIA H100 PCIe <span class="tag">New</span>|80 GB|26|$1.99 / hr',
        "8x NVIDIA A100|80 GB|240|$12.00 / hr",
    )
    assert _offers(page) == [
        ("NVIDIA H100 PCIe", "h100-80g", 1, "hourly", "1.9900", "USD/card-hour"),
        ("NVIDIA A100", "a100-80g", 8, "hourly", "12.0000", "USD/server-hour"),
    ]


@pytest.mark.parametrize(
    ("cell", "name", "count"),
    [
        ("8x NVIDIA H100 SXM", "NVIDIA H100 SXM", 8),
        ("8 × H200 SXM", "H200 SXM", 8),
        ("8卡 RTX 4090", "RTX 4090", 8),
        ("On-demand 4x NVIDIA H100 SXM", "NVIDIA H100 SXM", 4),
        ("NVIDIA H100x8", "NVIDIA H100", 8),
        ("RTX 4090 (8卡)", "RTX 4090", 8),
        ("RTX 4090 * 2", "RTX 4090", 2),
        ("RTX 4090", "RTX 4090", 1),
    ],
)
def test_a_count_in_the_model_cell(cell: str, name: str, count: int) -> None:
    [(card, _, found, *_)] = _offers(_table("GPU|价格", f"{cell}|9.9元/时"))
    assert (card, found) == (name, count)


@pytest.mark.parametrize(
    ("header", "cell", "unit"),
    [
        ("Price", "$2.99 / GPU / hr", "USD/card-hour"),
        ("PRICE/GPU/HR*", "$2.99", "USD/card-hour"),
        ("Price per GPU per hour", "$2.99", "USD/card-hour"),
        ("价格(元/卡时)", "2.99", "CNY/card-hour"),
        ("单卡价格(元/时)", "2.99", "CNY/card-hour"),
        ("Price", "$2.99 / hr", "USD/server-hour"),  # nothing says per GPU: price_per
        ("Price (per instance)", "$2.99/hr", "USD/server-hour"),
    ],
)
def test_per_gpu_or_per_instance_from_the_header_or_the_cell(
    header: str, cell: str, unit: str
) -> None:
    [(*_, found)] = _offers(_table(f"GPU|{header}", f"8x H100|{cell}"), unit="/hr")
    assert found == unit


def test_configured_price_per_card() -> None:
    [(*_, unit)] = _offers(_table("GPU|Price", "8x H100|$2.99/hr"), price_per="card")
    assert unit == "USD/card-hour"


def test_an_excerpt_that_starts_inside_a_table() -> None:
    """Lambda's 2024 capture: the end of the header row, then rows with no <table> before
    them; the memory column is known by its sizes fitting the cards."""
    body = (
        b"<!-- excerpt --><span>PRICE/GPU/HR*</span></td></tr>"
        b"<tr><td><strong>On-demand 8x NVIDIA A100 SXM</strong></td><td>80 GB</td><td>240</td>"
        b"<td>1800 GiB</td><td>$1.79 / GPU / hr</td></tr>"
        b"<tr><td><strong>On-demand 8x NVIDIA A100 SXM</strong></td><td>40 GB</td><td>124</td>"
        b"<td>1800 GiB</td><td>$1.29 / GPU / hr</td></tr></tbody></table><h5>*tax</h5>"
    )
    adapter = GenericAdapter("x", GenericOptions())
    rows = adapter.parse(body, "https://x", FETCHED)
    assert [(r.offer_id, r.gpu, r.vram_gb, r.price, r.unit) for r in rows] == [
        ("t1|NVIDIA A100 SXM|80|8", "a100-80g", 80, D("1.7900"), "USD/card-hour"),
        ("t1|NVIDIA A100 SXM|40|8", "a100-40g", 40, D("1.2900"), "USD/card-hour"),
    ]


def test_an_excerpt_that_starts_at_a_header_cell() -> None:
    """DataCrunch's capture starts at a <th>: the header row is read, "GPU" is the count."""
    body = (
        b"<th>Instance name</th><th>GPU model</th><th>GPU</th><th>VRAM</th><th>On demand price</th>"
        b"</tr></thead><tbody><tr><td>8B200.240V</td><td> B200 SXM6 180GB </td><td>8</td>"
        b"<td>1440</td><td>$29.10/h</td></tr></tbody></table>"
    )
    assert _offers(body) == [
        ("B200 SXM6 180GB", "b200-180g", 8, "hourly", "29.1000", "USD/server-hour")
    ]


def test_a_row_cut_by_the_end_of_an_excerpt_is_left_out() -> None:
    rows = "<tr><td>NVIDIA H100</td><td>$3.90/hr</td></tr><tr><td>NVIDIA A40"
    cut = f"<table><thead><tr><th>GPU</th><th>Price</th></tr></thead><tbody>{rows}".encode()
    assert _offers(cut) == [("NVIDIA H100", "h100-80g", 1, "hourly", "3.9000", "USD/card-hour")]
    # In a whole document the same short row is an error, not a cut.
    with pytest.raises(ParseError, match=r"table t1 row 2: 1 cells for 2 columns"):
        _offers(_html(cut.decode() + "</td></tr></tbody></table>"))


def test_cells_that_carry_their_column_name() -> None:
    """Lambda's 2026 React table: the model in a <th data-label="Plan">, an empty header over
    it, the period and "per GPU" in the header only, the count in the tab the table is in."""
    body = _html(
        '<button role="tab" id="tab-0" aria-controls="p0">8x</button>'
        '<div role="tabpanel" id="p0" aria-labelledby="tab-0"><table><thead><tr><th></th>'
        "<th>VRAM/GPU</th><th>PRICE/GPU/HR*</th></tr></thead><tbody><tr>"
        '<th data-label="Plan">NVIDIA H100 SXM</th><td data-label="VRAM/GPU">80 GB</td>'
        '<td data-label="PRICE/GPU/HR*">$2.99</td></tr></tbody></table></div>'
    )
    adapter = GenericAdapter("x", GenericOptions())
    [row] = adapter.parse(body, "https://x", FETCHED)
    assert (row.offer_id, row.gpu, row.gpu_count, row.price, row.unit, row.unit_raw) == (
        "t1|NVIDIA H100 SXM|80|8|price/gpu/hr", "h100-80g", 8, D("2.9900"), "USD/card-hour",
        "/GPU/HR",
    )  # fmt: skip


def test_data_labels_name_the_columns_of_a_table_without_a_header() -> None:
    body = _html(
        '<table><tr><td data-label="GPU">RTX 4090</td><td data-label="按量">1.89元</td>'
        '<td data-label="包月">¥1,088</td></tr></table>'
    )
    assert _offers(body) == [
        ("RTX 4090", "rtx4090-24g", 1, "hourly", "1.8900", "CNY/card-hour"),
        ("RTX 4090", "rtx4090-24g", 1, "monthly", "1088.0000", "CNY/card-month"),
    ]


@pytest.mark.parametrize(
    ("column", "billing", "unit"),
    [
        ("按量", "hourly", "CNY/card-hour"),
        ("按时", "hourly", "CNY/card-hour"),
        ("包日", "daily", "CNY/card-day"),
        ("包周", "weekly", "CNY/card-week"),
        ("包月", "monthly", "CNY/card-month"),
        ("包年", "yearly", "CNY/card-year"),
    ],
)
def test_chinese_columns_that_name_only_the_period(column: str, billing: str, unit: str) -> None:
    page = _html(
        f"<p>价格单位：元</p><table><tr><th>显卡</th><th>{column}</th></tr>"
        "<tr><td>RTX 4090</td><td>100</td></tr></table>"
    )
    assert _offers(page) == [("RTX 4090", "rtx4090-24g", 1, billing, "100.0000", unit)]


def test_a_period_column_takes_its_currency_from_the_page_or_the_configuration() -> None:
    page = _table("显卡|按量|包月", "RTX 4090|1.89|1088")
    with pytest.raises(ParseError, match=r"table t1 row 1: 按量: the price names no currency"):
        _offers(page)
    assert [o[3:] for o in _offers(page, currency="CNY")] == [
        ("hourly", "1.8900", "CNY/card-hour"), ("monthly", "1088.0000", "CNY/card-month"),
    ]  # fmt: skip
    # A page that states two currencies states none.
    both = page.replace(b"<table>", "<p>单位：元</p><p>单位：USD</p><table>".encode())
    with pytest.raises(ParseError, match="names no currency"):
        _offers(both)


def test_rows_that_are_not_gpu_listings_are_skipped() -> None:
    page = _table(
        "GPU型号|GPU数量|价格(元/时)",
        "RTX 4090|1|1.89",
        "CPU 计算型 (无GPU)|0|0.30",
        "高性能云存储 1TB|1|0.05",
        "昆仑芯 R200|1|2.50",  # an unusual accelerator under the header's GPU column
    )
    assert [o[:3] for o in _offers(page)] == [
        ("RTX 4090", "rtx4090-24g", 1), ("昆仑芯 R200", "unknown", 1),
    ]  # fmt: skip


def test_a_price_that_cannot_be_read_in_a_gpu_row_is_an_error() -> None:
    with pytest.raises(
        ParseError, match=r"table t1 row 1: Price: not a price: 'about two dollars'"
    ):
        _offers(_table("GPU|Price", "H100|about two dollars"))
    with pytest.raises(ParseError, match=r"table t1 row 1: Price: unknown unit '/fortnight'"):
        _offers(_table("GPU|Price", "H100|$2.99/fortnight"))
    with pytest.raises(ParseError, match=r"table t1 row 1: Price: no price given: 'Contact sales'"):
        _offers(_table("GPU|Price", "H100|Contact sales"))  # the only price column


def test_placeholders_in_one_of_several_price_columns() -> None:
    """A listing whose every price cell is a placeholder publishes no price: it is rejected
    and named, but, being no sign of a changed layout, fails no page (Crusoe's 2025-12 page
    lists two of its four cards as "Contact sales" in both columns); cells that are neither a
    price nor a placeholder still count against the page."""
    page = _table("GPU|On-Demand|Current Spot", "H100|$3.90 /hr|Contact Sales", "A100|N/A|-")
    read = read_page(GenericAdapter("x", GenericOptions()), page, "https://x", FETCHED)
    assert [(r.where, r.reason, r.unpriced) for r in read.rejected] == [
        ("table t1 row 2", "no price given in any column: 'N/A | -'", True)
    ]
    assert read.failure() is None and _offers(page) == [
        ("H100", "h100-80g", 1, "hourly", "3.9000", "USD/card-hour")
    ]
    garbled = page.replace(b"N/A", b"ask").replace(b"<td>-</td>", b"<td>us</td>")
    with pytest.raises(ParseError, match=r"table t1 row 2: no price in any column"):
        _offers(garbled)
    assert _offers(page.replace(b"N/A", b"$1.95 /hr")) == [
        ("H100", "h100-80g", 1, "hourly", "3.9000", "USD/card-hour"),
        ("A100", "unknown", 1, "hourly", "1.9500", "USD/card-hour"),
    ]


def test_a_garbled_price_among_several_columns_rejects_its_listing() -> None:
    """A cell that names a currency or a period but no number it can read is a price gone
    wrong, not a mode the listing lacks: its listing is rejected and named, never dropped
    silently (issue 36: a real page's variants)."""
    rows = [f"{card}|{a}元/时|{b}元/时" for card, a, b in
            [("4090", "2.08", "1.87"), ("3090", "1.5", "1.35"), ("A800", "8.11", "7.3"),
             ("H20", "7.5", "6.75"), ("5090", "3.16", "2.84")]]  # fmt: skip
    page = _table("GPU型号|日常单价|白银会员", *rows).replace(b"1.5\xe5", b"?.??\xe5")
    read = read_page(GenericAdapter("x", GenericOptions()), page, "https://x", FETCHED)
    assert [(r.where, r.reason) for r in read.rejected] == [
        ("table t1 row 2", "日常单价: not a price: '?.??元/时'")
    ]
    assert len(read.rows) == 8 and read.failure() is None
    # a placeholder still means "no price in this mode"
    assert len(_offers(page.replace("?.??元/时".encode(), b"-"))) == 9


def test_a_garbled_price_in_a_link_is_not_a_link_to_leave_out() -> None:
    """Hyperstack's "Starts from <a>$1.32/hour</a>": a link without a digit ("Reserve now")
    is no part of a price, but one that names a currency is the price, garbled or not."""
    cell = "Starts from <a href='/r'>{}</a>"
    rows = [f"{card}|${a}/hour|" + cell.format(f"${b}/hour") for card, a, b in
            [("H100", "1.90", "1.33"), ("A100", "1.35", "1.32"), ("L40", "1.00", "0.80"),
             ("A40", "0.50", "0.35"), ("A6000", "0.50", "0.35")]]  # fmt: skip
    page = _table("GPU Model|Pricing Per Hour|Reservation Pricing", *rows)
    read = read_page(GenericAdapter("x", GenericOptions()), page.replace(b"$1.32", b"$?.??"),
                     "https://x", FETCHED)  # fmt: skip
    assert [r.where for r in read.rejected] == ["table t1 row 2"]
    assert "?.??" in read.rejected[0].reason and len(read.rows) == 8
    reserve = page.replace(b"$1.32/hour", b"Reserve now")
    assert [o[4] for o in _offers(reserve)][2:4] == ["1.3500", "1.0000"]  # A100: on demand


def test_a_cell_that_names_whom_but_not_the_period_takes_its_columns() -> None:
    """Lambda's 2024 cells read "$1.29 / GPU / hr": one "$2.49 / GPU" among them is per GPU,
    by the hour, as its column's other cells state."""
    rows = [
        "8x A100 SXM 40GB|$1.29 / GPU / hr",
        "8x H100 PCIe|$2.49 / GPU",
        "8x A6000|$0.80 / GPU / hr",
    ]
    adapter = GenericAdapter("x", GenericOptions())
    parsed = adapter.parse(_table("Instance|Price", *rows), "https://x", FETCHED)
    assert [(r.price, r.unit) for r in parsed] == [
        (D("1.2900"), "USD/card-hour"), (D("2.4900"), "USD/card-hour"),
        (D("0.8000"), "USD/card-hour"),
    ]  # fmt: skip
    assert (
        parsed[1].unit_raw == "$2.49 / GPU (period / GPU / hr as the column's other cells state it)"
    )


def test_a_spot_column_a_prices_from_qualifier_and_a_split_number() -> None:
    page = _table(
        "GPU|Pricing Per Hour|Reservation Pricing|Current Spot pricing (USD)",
        "NVIDIA L40S 48GB|$ 1.00 per Hour|Starts from <a href='/r'>$0.69/hour</a>|$2 .0000/ 1 hour",
    )
    assert [o[3:5] for o in _offers(page)] == [
        ("hourly", "1.0000"), ("hourly", "0.6900"), ("spot", "2.0000"),
    ]  # fmt: skip


def test_several_unnamed_price_columns_are_an_error() -> None:
    page = _html(
        "<table><tr><td>NVIDIA H100</td><td>$4.76/hr</td><td>$2.89/hr</td></tr>"
        "<tr><td>NVIDIA A100</td><td>$2.21/hr</td><td>$1.48/hr</td></tr></table>"
    )
    with pytest.raises(ParseError, match=r"table t1 has 2 price columns and no header"):
        _offers(page)


def test_a_count_among_the_parts_section_rows_and_shares_of_a_card() -> None:
    """GCP: "GPUs: 8 vCPUs: 224 ..." in a Components column, section rows with a name and no
    price, a machine with 1/8 of a card (no row: a per-card price cannot be had)."""
    page = _table(
        "Machine type|GPU|Components|Price (USD)",
        "A3 High|||",
        "a3-highgpu-8g|Nvidia H100|GPUs: 8 vCPUs: 208 Memory: 1,871GB|$88.49 / 1 hour",
        "g4-standard-6|NVIDIA RTX PRO 6000|GPUs: 1/8 vCPUs: 6|$0.64688 / 1 hour",
    )
    assert _offers(page) == [
        ("Nvidia H100", "h100-80g", 8, "hourly", "88.4900", "USD/server-hour"),
    ]


def test_a_card_named_only_in_a_header() -> None:
    """Tencent Cloud's docs: "GPU(Tesla M40)" heads the count column; "型号" is the type."""
    page = _table(
        "型号|GPU(Tesla M40)|包年包月|按量计费",
        "GN2.large|1 颗|<b>4288 元/月</b>|<b>13.86 元/小时</b>起",
        "GN2.2xlarge|2 颗|8576 元/月|27.72 元/小时起",
        "GA2.large|1/4 颗|1000 元/月|2 元/小时",
    )
    assert _offers(page) == [
        ("Tesla M40", "unknown", 1, "monthly", "4288.0000", "CNY/card-month"),
        ("Tesla M40", "unknown", 1, "hourly", "13.8600", "CNY/card-hour"),
        ("Tesla M40", "unknown", 2, "monthly", "8576.0000", "CNY/server-month"),
        ("Tesla M40", "unknown", 2, "hourly", "27.7200", "CNY/server-hour"),
    ]


def test_a_memory_column_that_gives_the_whole_machine() -> None:
    page = _table("GPU|vRAM, GB|On demand", "1 × H200 SXM|141|$3.50", "8 × H200 SXM|1128|$28.00")
    adapter = GenericAdapter("x", GenericOptions(unit="/hr"))
    rows = adapter.parse(page, "https://x", FETCHED)
    assert [(r.gpu, r.gpu_count, r.vram_gb, r.unit) for r in rows] == [
        ("h200-141g", 1, 141, "USD/card-hour"), ("h200-141g", 8, 141, "USD/server-hour"),
    ]  # fmt: skip


def test_an_aria_table() -> None:
    """Nebius: div role="table" / "row" / "cell", the count before the card."""
    cells = ("GPU", "vRAM, GB", "On demand"), ("1 × H100 SXM", "80", "$2.95"), ("8 × H100 SXM", "640", "$23.60")  # fmt: skip
    rows = "".join(
        '<div role="row">'
        + "".join(f'<div role="cell"><span>{c}</span></div>' for c in r)
        + "</div>"
        for r in cells
    )
    page = _html(f'<div role="table"><div role="rowgroup">{rows}</div></div>')
    assert _offers(page, unit="/hr") == [
        ("H100 SXM", "h100-80g", 1, "hourly", "2.9500", "USD/card-hour"),
        ("H100 SXM", "h100-80g", 8, "hourly", "23.6000", "USD/server-hour"),
    ]


def test_a_grid_of_divs_with_its_header_row_before_it() -> None:
    """Crusoe's Webflow list: a heading row, then list items wrapping their cells."""
    item = (
        '<div role="listitem" class="prixing-item"><div class="pricing_gpu-item"><a class="head">'
        '<h4>{0}</h4><div class="pricing-tag">80GB</div></a><div class="pricing-rich"><p>{1}</p>'
        '</div><div class="pricing-rich"><p>{2}</p></div></div></div>'
    )
    page = _html(
        '<div class="pricing-table-heading"><div class="h">GPU model</div><div class="h">On-demand'
        '</div><div class="h">Current spot</div></div><div class="pricing-cms"><div role="list">'
        + item.format("NVIDIA H100", "$3.90/GPU-hr", "$1.60/GPU-hr")
        + item.format("NVIDIA A100", "$1.95/GPU-hr", "<a href='/c'>Contact sales</a>")
        + "</div></div>"
    )
    assert _offers(page) == [
        ("NVIDIA H100 80GB", "h100-80g", 1, "hourly", "3.9000", "USD/card-hour"),
        ("NVIDIA H100 80GB", "h100-80g", 1, "spot", "1.6000", "USD/card-hour"),
        ("NVIDIA A100 80GB", "a100-80g", 1, "hourly", "1.9500", "USD/card-hour"),
    ]


def test_a_grid_of_divs_straight_under_the_body_of_an_excerpt() -> None:
    """FluidStack's 2023 capture starts inside the grid's header row: parsed, its header
    cells and rows are children of <body> itself, and are a grid all the same."""
    cell = '<div class="pricing__col"><div class="text">{}</div></div>'
    row = '<div class="pricing-row">' + cell * 3 + "</div>"
    body = (
        '<div class="pricing__top-headline">GPU Model</div></div>'
        + cell.format("VRAM (GB)") + cell.format("On-Demand Cost (/hr)") + "</div>"
        + row.format("NVIDIA H100 PCIe", "80", "$4.25") + row.format("A100 40GB PCIe", "40", "$1.40")
    ).encode()  # fmt: skip
    assert _offers(body) == [
        ("NVIDIA H100 PCIe", "h100-80g", 1, "hourly", "4.2500", "USD/card-hour"),
        ("A100 40GB PCIe", "a100-40g", 1, "hourly", "1.4000", "USD/card-hour"),
    ]


def test_rows_a_source_says_are_not_listings() -> None:
    page = _table("GPU|Price", "Reserved 8x NVIDIA H100 SXM|Contact sales", "8x H100|$2.99/GPU/hr")
    adapter = GenericAdapter("x", GenericOptions())
    # unskipped, the row is a listing without a price: rejected, named, and the page loads
    read = read_page(adapter, page, "https://x", FETCHED)
    assert [(r.reason, r.unpriced) for r in read.rejected] == [
        ("Price: no price given: 'Contact sales' (placeholder instead of a number)", True)
    ]
    assert [o[:3] for o in _offers(page)] == [("H100", "h100-80g", 8)]
    skipping = GenericAdapter("x", GenericOptions(skip_rows=(r"^Reserved\b",)))
    assert read_page(skipping, page, "https://x", FETCHED).rejected == []
    assert [o[:3] for o in _offers(page, skip_rows=(r"^Reserved\b",))] == [("H100", "h100-80g", 8)]
