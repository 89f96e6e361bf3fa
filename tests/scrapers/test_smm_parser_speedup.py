"""smm parser fast paths (remembered prices and card names, load_html's cheap checks) give
exactly what the plain path gives, and never remember an error."""

from __future__ import annotations

import codecs
from collections.abc import Callable
from datetime import datetime

import pytest

from scrapers.rows import ParseError
from scrapers.sources import smm
from scrapers.sources._page import load_html
from scrapers.sources.smm import SmmAdapter
from tests.scrapers.fixture_pages import QUOTES, read

URL = "http://127.0.0.1:8702/compute/quotes?as_of=2026-09-04"
FETCHED = datetime(2026, 9, 4, 3, 0)

adapter = SmmAdapter()


def test_cold_and_warm_caches_give_the_same_rows() -> None:
    smm._card_hour_price.cache_clear()
    smm._canonical_gpu.cache_clear()
    cold = adapter.parse(read(QUOTES), URL, FETCHED)
    warm = adapter.parse(read(QUOTES), URL, FETCHED)
    assert cold == warm
    assert smm._card_hour_price.cache_info().hits >= len(cold)


def test_a_bad_price_raises_every_time() -> None:
    body = read(QUOTES).decode().replace('<td class="avg">1.26</td>', '<td class="avg">0</td>', 1)
    for _ in range(2):
        with pytest.raises(ParseError, match="4090-24G 长三角: price must be positive"):
            adapter.parse(body.encode(), URL, FETCHED)


def test_same_price_different_unit_is_not_mixed_up() -> None:
    text = read(QUOTES).decode()
    assert adapter.parse(text.encode(), URL, FETCHED)  # remembers ("1.26", "元/卡时")
    changed = text.replace("<td>元/卡时</td>", "<td>元/卡/天</td>", 1).encode()
    first = adapter.parse(changed, URL, FETCHED)[0]
    assert (first.unit_raw, str(first.cny_per_card_hour)) == ("元/卡/天", "0.052500")


@pytest.mark.parametrize(
    "variant",
    [
        lambda b: codecs.BOM_UTF8 + b,
        lambda b: b"\n \t" + b,
        lambda b: b.replace(b"<html", b"<HTML", 1),
        lambda b: b.replace(b'charset="utf-8"', b'charset="gbk"').decode().encode("gb18030"),
    ],
)
def test_page_variants_parse_like_the_plain_page(variant: Callable[[bytes], bytes]) -> None:
    body = read(QUOTES)
    assert adapter.parse(variant(body), URL, FETCHED) == adapter.parse(body, URL, FETCHED)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "empty body"),
        (b" \r\n\t\x0b\x0c", "empty body"),
        (b'{"html": "<html>"}', "not an HTML document"),
        (b"<div>no document</div>", "not an HTML document"),
        (b"\xff<html></html>", "body is not utf-8"),
    ],
)
def test_load_html_rejects(body: bytes, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        load_html(body, URL)
