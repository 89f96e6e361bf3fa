"""The tree walks that replaced CSS selectors (no CSS engine per page: scrapers/sources/_page.py
says why) find what the selectors found. Each ``_css_*`` below is the selector version they
replaced, kept as the specification, and both run on every HTML page the tests know: the
live sources' fixtures and their broken variants, the demo market's pages, and hand-built
tables for the shapes the fixtures lack (no thead, header cells as td, a tfoot, a nested
table)."""

from __future__ import annotations

from datetime import date, datetime

import pytest
from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.demo_market.server import render_page
from scrapers.rows import ParseError
from scrapers.sources import _jsonld
from scrapers.sources._page import is_simulated
from scrapers.sources.generic import GenericAdapter, _cells, _head
from scrapers.sources.runpod import _parts
from tests.scrapers.live_fixtures import LIVE_DIR

FETCHED = datetime(2026, 9, 10, 3, 0)
DAY = date(2026, 9, 10)

TABLE_SHAPES = {
    "thead and tbody": (
        "<table><thead><tr><th>GPU</th><th>价格</th></tr></thead>"
        "<tbody><tr><td>RTX 4090</td><td>1.89元/时</td></tr>"
        "<tr><td>H100</td><td>9.9元/时</td></tr></tbody></table>"
    ),
    "bare rows, header in the first": (
        "<table><tr><th>GPU</th><th>Price</th></tr><tr><td>RTX 4090</td><td>$0.44/hr</td></tr>"
        "</table>"
    ),
    "header cells as td": (
        "<table><thead><tr><td>GPU</td><td>价格</td></tr></thead>"
        "<tbody><tr><td>A100</td><td>6.5元/时</td></tr></tbody></table>"
    ),
    "header row of th and td": (
        "<table><thead><tr><td></td><th>GPU</th><th>价格</th></tr></thead>"
        "<tbody><tr><td>1</td><td>A100</td><td>6.5元/时</td></tr></tbody></table>"
    ),
    "a tfoot of notes": (
        "<table><thead><tr><th>GPU</th><th>价格</th></tr></thead>"
        "<tbody><tr><td>L40S</td><td>2.1元/时</td></tr></tbody>"
        "<tfoot><tr><td colspan=2>价格不含税</td></tr></tfoot></table>"
    ),
    "only a header": "<table><thead><tr><th>GPU</th><th>价格</th></tr></thead></table>",
    "empty": "<table></table>",
    "two tbodies": (
        "<table><thead><tr><th>GPU</th><th>价格</th></tr></thead>"
        "<tbody><tr><td>RTX 4090</td><td>1.89元/时</td></tr></tbody>"
        "<tbody><tr><td>RTX 5090</td><td>2.79元/时</td></tr></tbody></table>"
    ),
}


def _html(body: str) -> bytes:
    return f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>{body}</body></html>".encode()


def _pages() -> list[tuple[str, bytes]]:
    pages = [(p.name, p.read_bytes()) for p in sorted(LIVE_DIR.glob("*.html"))]
    for site, path in (
        ("jygpu", "/market/container"),
        ("jygpu", "/market/baremetal"),
        ("smm", "/compute/quotes"),
    ):
        pages.append((f"demo {site}{path}", render_page(site, path, DAY)))
    pages += [(f"table: {name}", _html(table)) for name, table in TABLE_SHAPES.items()]
    return pages


PAGES = _pages()
IDS = [name for name, _ in PAGES]


# -- the selector versions -------------------------------------------------------------------


def _css_is_simulated(tree: LexborHTMLParser) -> bool:
    node = tree.css_first('meta[name="gpuprice-simulated"]')
    return node is not None and (node.attributes.get("content") or "").strip().lower() == "true"


def _css_ld_scripts(tree: LexborHTMLParser) -> list[str]:
    return [s.text(deep=True, strip=True) for s in tree.css('script[type="application/ld+json"]')]


def _css_split(table: LexborNode) -> tuple[list[LexborNode], list[LexborNode]]:
    head = table.css("thead th") or table.css("thead td")
    trs = table.css("tbody tr")
    if not trs and table.css_first("tbody") is None:
        trs = table.css("tr")
    if head:
        return head, [tr for tr in trs if tr.parent is None or tr.parent.tag != "thead"]
    if not trs:
        return [], []
    return trs[0].css("th, td"), trs[1:]


def _ids(nodes: list[LexborNode]) -> list[int]:
    return [n.mem_id for n in nodes]


# -- agreement ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "body"), PAGES, ids=IDS)
def test_simulated_marker_and_json_ld_scripts_are_found_as_the_selectors_found_them(
    name: str, body: bytes
) -> None:
    tree = LexborHTMLParser(body)
    assert is_simulated(tree) == _css_is_simulated(tree)
    scripts = [raw for raw in _css_ld_scripts(tree) if raw]
    try:
        found = _jsonld.blocks(tree, name)
    except ParseError:  # a broken block: the selector found it too
        assert scripts
        return
    assert len(found) == len(scripts)


def test_the_pages_cover_both_answers() -> None:
    """The comparison above means something only if some pages are simulated and some carry
    JSON-LD, and some do neither."""
    trees = [LexborHTMLParser(body) for _, body in PAGES]
    assert {_css_is_simulated(t) for t in trees} == {True, False}
    assert {bool(_css_ld_scripts(t)) for t in trees} == {True, False}


def _split(table: LexborNode) -> tuple[list[LexborNode], list[LexborNode]]:
    """The header cells and body rows the extractor takes (``_head``, which leaves a header
    row's cells to be found when it reads them)."""
    seen, _, rows = _head(table)
    return [] if seen is None else seen if type(seen) is list else _cells(seen), rows


@pytest.mark.parametrize(("name", "body"), PAGES, ids=IDS)
def test_table_header_and_rows_are_the_selectors_ones(name: str, body: bytes) -> None:
    tables = LexborHTMLParser(body).css("table")
    for table in tables:
        head, rows = _split(table)
        ref_head, ref_rows = _css_split(table)
        assert _ids(head) == _ids(ref_head), name
        assert _ids(rows) == _ids(ref_rows), name
        for tr in rows:
            assert _ids(_cells(tr)) == _ids(tr.css("td, th")), name


def test_tables_were_compared() -> None:
    with_tables = [n for n, body in PAGES if LexborHTMLParser(body).css("table")]
    assert len(with_tables) >= len(TABLE_SHAPES) + 5


@pytest.mark.parametrize("name", sorted(p.name for p in LIVE_DIR.glob("runpod*.html")))
def test_runpod_row_parts_are_the_selectors_ones(name: str) -> None:
    tree = LexborHTMLParser((LIVE_DIR / name).read_bytes())
    for block in tree.css(".gpu-pricing-row"):
        parts, prices = _parts(block)
        assert _ids(prices) == _ids(block.css(".gpu-price"))
        for part in ("gpu-name", "gpu-vram", "gpu-ram", "gpu-vcpu"):
            expected = block.css_first(f".{part}")
            got = parts.get(part)
            assert (got and got.mem_id) == (expected and expected.mem_id), (name, part)


def test_a_table_nested_in_a_cell_is_part_of_that_cell() -> None:
    """Where the walk differs on purpose: the selectors took a nested table's cells and rows
    for the outer table's, so the row had too many cells and the page was refused."""
    body = _html(
        "<table><thead><tr><th>GPU型号</th><th>配置</th><th>价格(元/时)</th></tr></thead><tbody>"
        "<tr><td>RTX 4090</td><td><table><tr><td>CPU</td><td>16核</td></tr></table></td>"
        "<td>1.89</td></tr></tbody></table>"
    )
    rows = GenericAdapter("examplecloud").parse(body, "https://gpu.example.com/p", FETCHED)
    assert [(r.gpu, str(r.price), r.unit) for r in rows] == [
        ("rtx4090-24g", "1.8900", "CNY/card-hour")
    ]
    outer = LexborHTMLParser(body).css_first("table")
    assert len(_css_split(outer)[1][0].css("td, th")) == 5  # what the selector saw: 5 cells
