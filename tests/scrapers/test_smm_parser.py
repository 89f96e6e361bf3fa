"""smm adapter: exact quotes from the anchor-day fixture; every broken page raises ParseError."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal

import pytest

from scrapers.parse import read_page
from scrapers.rows import ParseError, SpotQuoteRow
from scrapers.sources import build_adapter
from scrapers.sources.smm import SmmAdapter
from tests.support.fixture_pages import QUOTES, read

D = Decimal
BASE = "http://127.0.0.1:8702"
URL = f"{BASE}/compute/quotes?as_of=2026-09-04"
FETCHED = datetime(2026, 9, 4, 3, 0)

adapter = SmmAdapter()


def quotes(name: str = QUOTES) -> list[SpotQuoteRow]:
    return adapter.parse(read(name), URL, FETCHED)


def test_registry_and_fetch_plan() -> None:
    assert build_adapter("smm").kind == "quotes"
    assert adapter.fetch_plan(BASE) == [f"{BASE}/compute/quotes"]
    assert adapter.fetch_plan(BASE + "/", date(2026, 9, 4)) == [URL]


def test_published_quotes_of_seed_003() -> None:
    rows = {(q.gpu, q.region): q for q in quotes()}
    q4090 = rows[("rtx4090-24g", "长三角")]
    assert (q4090.gpu_name_raw, q4090.basis) == ("4090-24G", "整机包月均价")
    assert (q4090.price, q4090.unit_raw, q4090.per_card_hour) == (
        D("1.26"),
        "元/卡时",
        D("1.260000"),
    )
    h20 = rows[("h20-96g", "京津冀")]
    assert (h20.gpu_name_raw, h20.price, h20.per_card_hour) == ("H20-96G", D("7.47"), D("7.47"))


def test_every_quote_row() -> None:
    rows = quotes()
    assert [(q.gpu_name_raw, q.region) for q in rows] == [
        ("4090-24G", "长三角"), ("4090-24G", "粤港澳"), ("4090-24G", "成渝"),
        ("5090-32G", "长三角"), ("H20-96G", "京津冀"), ("H20-96G", "长三角"),
        ("A100-80G", "京津冀"), ("H100-80G", "京津冀"), ("910B-64G", "京津冀"),
    ]  # fmt: skip
    assert [q.gpu for q in rows] == [
        "rtx4090-24g", "rtx4090-24g", "rtx4090-24g", "rtx5090-32g", "h20-96g", "h20-96g",
        "a100-80g", "h100-80g", "910b-64g",
    ]  # fmt: skip
    for q in rows:
        assert q.source == "smm"
        assert q.basis == "整机包月均价"
        assert q.observed_at == datetime(2026, 9, 4, 2, 0)  # quote date, 10:00 Beijing
        assert q.simulated is True
        assert q.per_card_hour == q.price.quantize(D("0.000001"))


def test_not_simulated_page() -> None:
    assert {q.simulated for q in quotes("smm_quotes_not_simulated.html")} == {False}


def test_unknown_gpu_is_kept() -> None:
    rows = quotes("smm_quotes_unknown_gpu.html")
    [unknown] = [q for q in rows if q.gpu == "unknown"]
    assert (unknown.gpu_name_raw, unknown.price) == ("MTT-S4000-48G", D("10.40"))
    assert len(rows) == 9


def test_quote_date_sets_observed_at() -> None:
    text = read(QUOTES).decode()
    stale = text.replace("<td>2026-09-04</td>", "<td>2026-09-03</td>", 1).encode()
    first = adapter.parse(stale, URL, FETCHED)[0]
    assert first.observed_at == datetime(2026, 9, 3, 2, 0)
    # No stated update time: the quote date at 00:00 Beijing.
    start = text.index('<span class="update-time">')
    no_time = (text[:start] + text[text.index("</span>", start) + 7 :]).encode()
    assert adapter.parse(no_time, URL, FETCHED)[0].observed_at == datetime(2026, 9, 3, 16, 0)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("smm_quotes_no_table.html", "quote table not found"),
        ("smm_quotes_renamed_header.html", r"missing \['均价'\]"),
        ("smm_quotes_price_on_request.html", "H20-96G 京津冀: no price given: '面议'"),
        ("smm_quotes_unknown_unit.html", "910B-64G 京津冀: unknown unit '元/季'"),
        ("empty_body.html", "empty body"),
        ("non_html_body.json", "not an HTML document"),
        ("jygpu_container_2026-09-04.html", "quote table not found"),
    ],
)
def test_broken_pages_are_refused(name: str, message: str) -> None:
    assert re.search(message, refusal(read(name)))


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("<td>2026-09-04</td>", "<td>09-04</td>", "unreadable date"),
        ("<td>2026-09-04</td>", "<td>2026-02-30</td>", "invalid date"),
        ('<td class="avg">1.26</td>', '<td class="avg">1.26 元</td>', "carries a unit"),
        ('<td class="avg">1.26</td>', '<td class="avg">—</td>', "no price"),
        ("<td>长三角</td>", "<td></td>", "empty"),
        ("<td>整机包月均价</td>", "", "7 cells for 8 columns"),
        ("更新时间:2026-09-04 10:00", "更新时间:刚刚", "unreadable update time"),
    ],
)
def test_other_layout_changes_are_refused(old: str, new: str, message: str) -> None:
    text = read(QUOTES).decode()
    assert old in text
    assert re.search(message, refusal(text.replace(old, new, 1).encode()))


def refusal(body: bytes) -> str:
    """Why the page is refused, or else why its broken quote is (the rest kept)."""
    try:
        page = read_page(adapter, body, URL, FETCHED)
    except ParseError as exc:
        return str(exc)
    assert page.rejected, "nothing was refused"
    return "; ".join(r.line() for r in page.rejected)


def test_a_bad_price_names_its_quote() -> None:
    body = read(QUOTES).decode().replace('<td class="avg">1.26</td>', '<td class="avg">0</td>', 1)
    assert "row 1: 4090-24G 长三角: price must be positive" in refusal(body.encode())


def test_each_quote_is_converted_in_its_own_unit() -> None:
    text = read(QUOTES).decode()
    changed = text.replace("<td>元/卡时</td>", "<td>元/卡/天</td>", 1).encode()
    first = adapter.parse(changed, URL, FETCHED)[0]
    assert (first.price, first.unit_raw, str(first.per_card_hour)) == (
        D("1.26"),
        "元/卡/天",
        "0.052500",
    )


@pytest.mark.parametrize(
    ("unit", "message"),
    [
        ("$/卡时", r"unknown unit '\$/卡时': expected a price in yuan"),
        ("/卡时", "unknown unit '/卡时': expected a price in yuan"),
        ("元/台/月", "unit '元/台/月' is per machine, but the price was said to be per card"),
    ],
)
def test_a_unit_not_in_yuan_per_card_is_refused(unit: str, message: str) -> None:
    body = read(QUOTES).decode().replace("<td>元/卡时</td>", f"<td>{unit}</td>", 1).encode()
    assert re.search(f"row 1: 4090-24G 长三角: {message}", refusal(body))


@pytest.mark.parametrize(
    "variant",
    [
        lambda b: codecs.BOM_UTF8 + b,  # saved from a browser
        lambda b: b"\n \t" + b,
        lambda b: b.replace(b"<html", b"<HTML", 1),
        lambda b: b.replace(b'charset="utf-8"', b'charset="gbk"').decode().encode("gb18030"),
    ],
)
def test_page_variants_parse_like_the_page(variant: Callable[[bytes], bytes]) -> None:
    body = read(QUOTES)
    assert adapter.parse(variant(body), URL, FETCHED) == adapter.parse(body, URL, FETCHED)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "empty body"),
        (b" \r\n\t\x0b\x0c", "empty body"),
        (b'{"html": "<html>"}', "not an HTML document"),
        (b"plain text, no markup", "not an HTML document"),
        (b"<html>\x00\x01\x02\x00</html>", "body is binary"),
        (b"\xff<html></html>", "body is not utf-8"),
        (codecs.BOM_UTF8 * 2 + b"<html></html>", "not an HTML document"),
        # a fragment is a page (a saved excerpt), but not the SMM quote board
        (b"<div>no quote table</div>", "quote"),
        ("<html><meta charset='gbk'>价".encode(), "body is not gb18030"),
    ],
)
def test_load_html_rejects(body: bytes, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        adapter.parse(body, URL, FETCHED)
