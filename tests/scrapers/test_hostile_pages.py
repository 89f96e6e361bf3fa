"""Hostile and broken pages (issue 22): every parser refuses them with a ParseError, before it
walks them, and the pipeline records that as a parse error.

The classes: 200,000 nested <div>s (lexbor needs 90 s for them), 200,000-deep JSON (Python's
json raises RecursionError), numbers of 32 or 400 digits (decimal.InvalidOperation), prices that
round to zero and absurd counts (rows the load would reject), and pages over the size limit.
No timing here: bench/parse_hostile.py measures how fast the refusals are.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser
from typer.testing import CliRunner

from gpuprice.cli import app
from scrapers.collect import parse_page
from scrapers.http import FetchedPage, Request
from scrapers.limits import (
    MAX_HTML_DEPTH,
    MAX_JSON_DEPTH,
    MAX_PAGE_BYTES,
    MAX_TREE_WORK,
    html_depth,
    html_shape,
    json_depth,
)
from scrapers.parse import read_page
from scrapers.rows import (
    MAX_GPU_COUNT,
    InvalidRow,
    OfferRow,
    ParseError,
    SpotQuoteRow,
    row_problem,
)
from scrapers.sources import ADAPTER_NAMES, SourceAdapter, build_adapter
from scrapers.units import decimal_of

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PAGES = FIXTURES / "pages"
LIVE = FIXTURES / "live"
WHEN = datetime(2026, 9, 4, 2, 0)

DEEP = 200_000
DEEP_DIVS = ("<html><body>" + "<div>" * DEEP + "x" + "</div>" * DEEP + "</body></html>").encode()
DEEP_JSON = ("[" * DEEP + "]" * DEEP).encode()

CONTAINER_URL = "http://x/market/container"
HTML_SOURCES = {
    "jygpu": CONTAINER_URL,
    "smm": "http://x/compute/quotes",
    "runpod": "https://www.runpod.io/pricing",
    "lambda": "https://lambdalabs.com/service/gpu-cloud",
    "generic": "https://example.com/pricing",
}
JSON_SOURCES = ("vastai", "matpool", "autodl", "runpod", "lambda", "gpushare", "ppio", "compshare")


def adapter_for(source: str) -> SourceAdapter:
    if source == "generic":
        return build_adapter("examplecloud", "generic")
    return build_adapter(source)


def api_url(source: str) -> str:
    step = build_adapter(source).fetch_plan("https://example.com", None)[0]
    return step.url if isinstance(step, Request) else step


def replaced(path: Path, old: str, new: str) -> bytes:
    """A fixture with its first ``old`` replaced (which must be there)."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is not in {path.name}"
    return text.replace(old, new, 1).encode()


def refused(source: str, body: bytes, url: str) -> str:
    """Why the page is refused, or else why the listing that holds the hostile value is (the
    rest of the page kept): something must be."""
    try:
        page = read_page(adapter_for(source), body, url, WHEN)
    except ParseError as exc:
        return str(exc)
    assert page.rejected, "nothing was refused"
    return "; ".join(r.line() for r in page.rejected)


# -- nesting --------------------------------------------------------------------------------


@pytest.mark.parametrize("source", sorted(HTML_SOURCES))
def test_200000_nested_divs_are_refused_before_the_tree_is_built(source: str) -> None:
    message = refused(source, DEEP_DIVS, HTML_SOURCES[source])
    assert f"nested more than {MAX_HTML_DEPTH} levels deep" in message


@pytest.mark.parametrize("source", JSON_SOURCES)
def test_200000_deep_json_is_refused_before_json_reads_it(source: str) -> None:
    message = refused(source, DEEP_JSON, api_url(source))
    assert f"JSON nested {DEEP:,} levels deep, over the limit of {MAX_JSON_DEPTH}" in message


def test_deep_json_inside_a_page_is_refused_too() -> None:
    deep = "[" * DEEP + "]" * DEEP
    ld = f'<html><script type="application/ld+json">{deep}</script></html>'.encode()
    assert "JSON-LD block 1: JSON nested" in refused("generic", ld, HTML_SOURCES["generic"])
    assert "JSON-LD block 1: JSON nested" in refused("runpod", ld, HTML_SOURCES["runpod"])
    next_data = f'<html><script id="__NEXT_DATA__">{{"props": {deep}}}</script></html>'.encode()
    assert "__NEXT_DATA__: JSON nested" in refused("runpod", next_data, HTML_SOURCES["runpod"])


def test_deep_gpuinfo_in_a_skypilot_catalog_is_refused() -> None:
    header = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,"
    header += "SpotPrice,Region\n"
    info = '"{""Gpus"": ' + "[" * 60_000 + "]" * 60_000 + '}"'
    body = f"{header}1x_H100,H100,1,16,100,{info},2.5,,us\n".encode()
    url = "https://example.com/catalogs/v8/runpod/vms.csv"
    assert "GpuInfo: JSON nested 60,001 levels deep" in refused("skypilot", body, url)


def test_nesting_at_the_limit_parses_and_one_more_level_is_refused() -> None:
    page = (PAGES / "jygpu_container_2026-09-04.html").read_text(encoding="utf-8")
    around = page.index('<div class="product-grid" id="container-list">')

    def nested(levels: int) -> bytes:
        # the grid's own ancestors (html, body, main ...) add to the levels wrapped round it
        return (page[:around] + "<div>" * levels + page[around:]).encode()

    base = html_depth(page)
    rows = adapter_for("jygpu").parse(nested(MAX_HTML_DEPTH - base), CONTAINER_URL, WHEN)
    assert rows and all(row_problem(row) is None for row in rows)
    with pytest.raises(ParseError, match="nested more than 512 levels"):
        build_adapter("jygpu").parse(nested(MAX_HTML_DEPTH - base + 1), CONTAINER_URL, WHEN)


def test_a_page_within_the_depth_limit_but_over_the_parse_budget_is_refused() -> None:
    block = "<div>" * 256 + "x" + "</div>" * 256  # 256 deep: 32,896 element-levels
    body = ("<html><body>" + block * (MAX_TREE_WORK // 32_896 + 1) + "</body></html>").encode()
    assert html_shape(body.decode()) == (256, 32_896 * (MAX_TREE_WORK // 32_896 + 1))
    for source in ("jygpu", "generic"):
        assert "over the parse budget of 10,000,000" in refused(source, body, HTML_SOURCES[source])


# -- numbers --------------------------------------------------------------------------------

DIGITS_32 = "9" * 32


def test_a_32_digit_price_is_refused_in_html_pages() -> None:
    body = replaced(PAGES / "jygpu_container_2026-09-04.html", "¥1.96<", f"¥{DIGITS_32}<")
    assert "more digits than any real figure" in refused("jygpu", body, CONTAINER_URL)
    body = replaced(
        PAGES / "smm_quotes_2026-09-04.html", '<td class="avg">1.26</td>', f"<td>{DIGITS_32}</td>"
    )
    assert "more digits than any real figure" in refused("smm", body, HTML_SOURCES["smm"])
    body = replaced(LIVE / "generic_table_zh.html", "<td>1.89</td>", f"<td>{DIGITS_32}</td>")
    assert "more digits than any real figure" in refused("generic", body, HTML_SOURCES["generic"])


def _json_with(name: str, old: str, new: str) -> bytes:
    return replaced(LIVE / name, old, new)


@pytest.mark.parametrize("huge", ["1" + "0" * 400, "1e400", "1E+30"])
def test_a_huge_json_price_is_refused(huge: str) -> None:
    matpool = _json_with(
        "matpool_machines.json", '"priceMillicent": 220000', f'"priceMillicent": {huge}'
    )
    refused("matpool", matpool, api_url("matpool"))
    autodl = _json_with("autodl_machines.json", '"current_price": 1980', f'"current_price": {huge}')
    refused("autodl", autodl, api_url("autodl"))
    vast = _json_with("vastai_bundles.json", '"dph_total": 0.3639', f'"dph_total": {huge}')
    message = refused("vastai", vast, api_url("vastai"))
    assert "dph_total" in message or "more than 100 digits" in message


def test_a_json_count_of_400_digits_is_refused() -> None:
    url = api_url("autodl")
    stock = '"gpu_idle_num": 3'
    body = _json_with("autodl_machines.json", stock, '"gpu_idle_num": 1' + "0" * 400)
    assert "more than 100 digits" in refused("autodl", body, url)
    body = _json_with("autodl_machines.json", stock, '"gpu_idle_num": 1' + "0" * 30)
    assert "gpu_idle_num: Input should be less than 100000000000000000000" in refused(
        "autodl", body, url
    )
    body = _json_with("autodl_machines.json", stock, '"gpu_idle_num": 1' + "0" * 12)
    assert "stock 1000000000000 is outside the plausible 0..10,000,000" in refused(
        "autodl", body, url
    )


def test_a_run_of_digits_longer_than_any_number_is_refused() -> None:
    page = PAGES / "jygpu_container_2026-09-04.html"
    body = replaced(page, "剩余", "剩余" + "7" * 5000)
    assert "more than 100 digits" in refused("jygpu", body, CONTAINER_URL)
    full_width = replaced(page, "剩余", "剩余" + "７" * 5000)  # int() reads these too
    assert "more than 100 digits" in refused("jygpu", full_width, CONTAINER_URL)


# -- implausible rows -----------------------------------------------------------------------


def test_a_price_that_rounds_to_zero_is_refused() -> None:
    body = replaced(PAGES / "jygpu_container_2026-09-04.html", "¥1.96<", "¥0.0000001<")
    assert "price 1E-7 rounds to 0 at 0.0001" in refused("jygpu", body, CONTAINER_URL)
    vast = _json_with("vastai_bundles.json", '"dph_total": 0.3639', '"dph_total": 1e-400')
    # json reads 0.0
    assert "dph_total: Input should be greater than 0" in refused("vastai", vast, api_url("vastai"))


def test_an_absurd_card_count_is_refused() -> None:
    bare = (PAGES / "jygpu_baremetal_2026-09-04.html").read_text(encoding="utf-8")
    count = re.search(r"<td>(\d+) 卡</td>", bare) or re.search(r"<td>(\d+)</td>", bare)
    assert count is not None
    body = bare.replace(count[0], count[0].replace(count[1], "5000"), 1).encode()
    message = refused("jygpu", body, "http://x/market/baremetal")
    assert f"gpu_count 5000 is outside the plausible 1..{MAX_GPU_COUNT:,}" in message


OFFER = OfferRow(
    observed_at=WHEN, source="s", offer_id="o", gpu="h100-80g", gpu_name_raw="H100",
    gpu_count=8, vram_gb=80, billing="hourly", price=Decimal("2.5"), currency="USD",
    unit="USD/card-hour", unit_raw="/hr", per_card_hour=Decimal("2.5"),
)  # fmt: skip
QUOTE = SpotQuoteRow(
    observed_at=WHEN, source="s", gpu="h100-80g", gpu_name_raw="H100", region="r",
    basis="b", price=Decimal("1.2"), unit_raw="元/卡时", per_card_hour=Decimal("1.2"),
)  # fmt: skip


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"price": Decimal("0.00004")}, "price 0.00004 rounds to 0 at 0.0001"),
        ({"price": Decimal("1E-400")}, "rounds to 0"),
        ({"price": Decimal(0)}, "price 0 is not a positive number"),
        ({"price": Decimal(-1)}, "is not a positive number"),
        ({"price": Decimal("NaN")}, "price NaN is not a positive number"),
        ({"price": Decimal("Infinity")}, "is not a positive number"),
        ({"price": Decimal("1E+400")}, "is above the plausible 10,000,000"),
        ({"price": 2.5}, "price 2.5 is not a number"),
        ({"per_card_hour": Decimal("0.0000004")}, "rounds to 0 at 0.000001"),
        ({"list_price": Decimal("1E+30")}, "list_price"),
        ({"stated_discount": Decimal("1.5")}, "not a ratio in (0, 1]"),
        ({"gpu_count": 10**400}, "gpu_count"),
        ({"gpu_count": 0}, "gpu_count 0 is outside"),
        ({"gpu_count": True}, "not a whole number"),
        ({"stock": 10**12}, "stock"),
        ({"disk_gb": -1}, "disk_gb -1 is outside"),
        ({"billing": "hourlyish"}, "billing 'hourlyish' is unknown"),
    ],
)
def test_an_implausible_row_is_never_built(change: dict[str, object], problem: str) -> None:
    import dataclasses

    with pytest.raises(InvalidRow) as refused:
        dataclasses.replace(OFFER, **change)  # type: ignore[arg-type]
    assert problem in str(refused.value)


def test_plausible_rows_pass() -> None:
    import dataclasses

    assert row_problem(OFFER) is None and row_problem(QUOTE) is None
    smallest = dataclasses.replace(OFFER, price=Decimal("0.00005"), gpu_count=MAX_GPU_COUNT)
    assert row_problem(smallest) is None  # 0.00005 rounds half up to 0.0001
    with pytest.raises(InvalidRow, match="quote_kind 'rumour' is unknown"):
        dataclasses.replace(QUOTE, quote_kind="rumour")


# -- size -----------------------------------------------------------------------------------


@pytest.mark.parametrize("source", [*sorted(ADAPTER_NAMES), "generic"])
def test_a_page_over_the_size_limit_is_refused_unread(source: str) -> None:
    body = b" " * (MAX_PAGE_BYTES + 1)  # all blanks: any parser that read it would say "empty"
    url = HTML_SOURCES.get(source) or api_url(source)
    assert "over the parse limit of 16,000,000 bytes" in refused(source, body, url)


# -- the scans themselves -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "depth"),
    [
        ("<div><span>a</span><span>b</span></div>", 2),
        ("<div>" * 5 + "</div>" * 5 + "<div></div>", 5),
        ("<div><div></x></y><div>", 3),  # stray end tags close nothing
        ("<div><span><b></div><div>", 3),  # </div> closes the span and the b inside it
        ("<ul>" + "<li>item" * 1000 + "</ul>", 1),  # an unclosed <li> is closed by the next
        ("<svg>" + "<path d='M0 0'/>" * 1000 + "</svg>", 1),  # in SVG "<x/>" closes itself
        ("<!--" + "<div>" * 1000 + "-->", 0),
        ("<script>var s = '" + "<div>" * 1000 + "';</script>", 0),
        ("<DIV><Div><div>", 3),
        ("<br><img src=x><input><hr>", 0),
    ],
)
def test_html_depth(html: str, depth: int) -> None:
    assert html_depth(html, stop_above=10**6) == depth


def lexbor_depth(html: str) -> int:
    """How deep the tree lexbor builds is, counted on the tree (slow: small pages only)."""
    deepest = 0
    for node in LexborHTMLParser(html).root.traverse():
        depth, up = 0, node.parent
        while up is not None:
            depth, up = depth + 1, up.parent
        deepest = max(deepest, depth)
    return deepest


N = 600
# Each builds a tree N deep; the scan must see it, however the nesting is disguised.
DISGUISED = {
    "div": "<div>" * N,
    "self-closing-div": "<div/>" * N,  # HTML ignores the slash
    "unknown-self-closing": "<path/>" * N,  # outside SVG too
    "lt-in-attribute": '<div title="<">' * N,
    "svg-then-html": "<svg><div>" + "<div/>" * N,  # <div> leaves SVG: "<div/>" opens again
    "svg-title": "<svg><title>" + "<div>" * N,  # SVG's <title> holds HTML
    "title-then-svg": "<title><svg></title>" + "<path/>" * N,
    "svg-script": "<svg><script>" + "<div>" * N,  # an SVG script is not raw text
    "abrupt-comment": "<!-->" + "<div>" * N,  # "<!-->" is a whole (empty) comment
    "bang-comment": "<!-- --!>" + "<div>" * N,
    "script-end-with-attribute": "<script></script x>" + "<div>" * N,
    "mathml-text": "<math><mi>" + "<div/>" * N,
    "formatting": "<b>" * N,
    "tables": "<table><tr><td>" * N,  # lexbor: 4 levels for each one counted
    "lists": "<ul><li>" * N,
}


@pytest.mark.parametrize("html", DISGUISED.values(), ids=DISGUISED.keys())
def test_the_scan_sees_every_disguised_nesting(html: str) -> None:
    built = lexbor_depth(html)
    assert built >= N
    assert html_depth(html, stop_above=10**6) >= N  # html, head, body are not counted


def test_html_depth_stops_counting_past_the_limit() -> None:
    assert html_depth("<div>" * DEEP) == MAX_HTML_DEPTH + 1


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ('{"a": [1, {"b": []}]}', 4),
        ('{"a": "[[[[[[[[", "b": "\\"[[[["}', 1),  # brackets in strings, escaped quotes
        ('"unterminated [[[[', 0),
        ("[" * 1000, 1000),
        ("3", 0),
    ],
)
def test_json_depth(text: str, depth: int) -> None:
    assert json_depth(text) == depth


# Not a source's page: the ECB's rate history is read by `gpuprice fx import`, whose own bound
# is 64 MB (scrapers/ecb.py); the whole real file is about 2 MB.
NOT_PAGES = {FIXTURES / "real" / "ecb" / "eurofxref-hist.csv"}


def test_every_real_and_modelled_capture_is_well_inside_the_limits() -> None:
    html = json_files = 0
    for path in sorted(FIXTURES.rglob("*")):
        if not path.is_file() or path.name.endswith((".expected.json", ".md")):
            continue
        if path in NOT_PAGES:
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        if path.suffix == ".html":
            html += 1
            depth, work = html_shape(text)
            assert depth <= MAX_HTML_DEPTH // 8 and work <= MAX_TREE_WORK // 1000, path
        elif path.suffix in (".json", ".jdo"):
            json_files += 1
            assert json_depth(text) <= MAX_JSON_DEPTH // 8, path
        assert len(path.read_bytes()) < MAX_PAGE_BYTES // 100, path
    assert html >= 40 and json_files >= 30


@pytest.mark.parametrize(
    ("text", "value"),
    [("1.96", Decimal("1.96")), ("-3", Decimal(-3)), ("2.5e-05", Decimal("2.5e-05")),
     ("0.000000000000000000001", Decimal("1e-21")), ("9" * 20, Decimal("9" * 20)),
     ("abc", None), ("", None)],
)  # fmt: skip
def test_decimal_of(text: str, value: Decimal | None) -> None:
    assert decimal_of(text, "x") == value


@pytest.mark.parametrize("text", ["9" * 21, "1e20", "1E+400", "1" * 41, "1." + "1" * 20])
def test_decimal_of_refuses_figures_no_page_has(text: str) -> None:
    with pytest.raises(ParseError, match=r"^x: "):
        decimal_of(text, "x")


# -- how the refusals reach the pipeline and the CLI ---------------------------------------


@pytest.mark.parametrize(
    ("source", "body", "url"),
    [
        ("jygpu", DEEP_DIVS, CONTAINER_URL),
        ("vastai", DEEP_JSON, "https://example.com/api/v0/bundles/"),
        ("matpool", _json_with("matpool_machines.json", '"priceMillicent": 220000',
                               '"priceMillicent": 1' + "0" * 400), "https://example.com/api"),
    ],
    ids=["deep-divs", "deep-json", "400-digit-price"],
)  # fmt: skip
def test_the_pipeline_records_a_parse_error_not_a_crash(source: str, body: bytes, url: str) -> None:
    page = FetchedPage(url=url, status=200, body=body, content_type="text/html", fetched_at=WHEN)
    parsed = parse_page(adapter_for(source), page)
    assert parsed.rows == []
    assert parsed.error is not None and parsed.error.startswith("parse error: "), parsed.error


def test_gpuprice_parse_says_parse_error_in_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.html"
    deep.write_bytes(DEEP_DIVS)
    tiny = tmp_path / "tiny.json"
    tiny.write_bytes(_json_with("vastai_bundles.json", '"dph_total": 0.3639', '"dph_total": 1e400'))
    runner = CliRunner()
    result = runner.invoke(app, ["parse", "jygpu", str(deep)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "parse error:" in result.output and "Traceback" not in result.output
    assert not [line for line in result.stdout.splitlines() if line.startswith("{")]
    # one offer of eight with an absurd price: that offer is refused alone, in one line
    result = runner.invoke(app, ["parse", "vastai", str(tiny)])
    assert result.exit_code == 0, result.output
    assert len([line for line in result.stdout.splitlines() if line.startswith("{")]) > 1
    (line,) = [line for line in result.stderr.splitlines() if "rejected" in line]
    assert "offer 1: dph_total: Input should be a finite number" in line


def test_the_json_answers_still_parse() -> None:
    # the limits are checked on every answer: the base fixtures still give their rows
    for name, source in (("vastai_bundles.json", "vastai"), ("matpool_machines.json", "matpool"),
                         ("autodl_machines.json", "autodl")):  # fmt: skip
        rows = adapter_for(source).parse((LIVE / name).read_bytes(), api_url(source), WHEN)
        assert rows and all(row_problem(row) is None for row in rows)
        assert json.loads((LIVE / name).read_text(encoding="utf-8"))
