"""jygpu adapter: exact rows from the anchor-day fixtures; every broken page raises ParseError, and
a price on request (面议) rejects its listing alone."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from scrapers.parse import read_page
from scrapers.rows import OfferRow, ParseError
from scrapers.sources import ADAPTER_NAMES, build_adapter
from scrapers.sources.jygpu import JygpuAdapter, _yuan_price
from tests.support.fixture_pages import BAREMETAL, CONTAINER, QUOTES, read

D = Decimal
BASE = "http://127.0.0.1:8701"
CONTAINER_URL = f"{BASE}/market/container?as_of=2026-09-04"
BAREMETAL_URL = f"{BASE}/market/baremetal?as_of=2026-09-04"
FETCHED = datetime(2026, 9, 4, 2, 17, 5)  # naive UTC
STATED = datetime(2026, 9, 4, 2, 0)  # 10:00 Beijing

adapter = JygpuAdapter()


def containers(name: str = CONTAINER) -> list[OfferRow]:
    return adapter.parse(read(name), CONTAINER_URL, FETCHED)


def bare_metal(name: str = BAREMETAL) -> list[OfferRow]:
    return adapter.parse(read(name), BAREMETAL_URL, FETCHED)


def by_key(rows: list[OfferRow]) -> dict[tuple[str, str], OfferRow]:
    result = {(r.offer_id, r.billing): r for r in rows}
    assert len(result) == len(rows), "(offer_id, billing) must be unique within a page"
    return result


def test_registry_and_fetch_plan() -> None:
    assert set(ADAPTER_NAMES) == {
        "jygpu", "smm", "vastai", "runpod", "matpool", "autodl", "skypilot", "lambda",
        "gpushare", "ppio", "compshare",
    }  # fmt: skip
    assert build_adapter("jygpu").name == "jygpu"
    assert build_adapter("jygpu").kind == "offers"
    with pytest.raises(
        KeyError,
        match="autodl, compshare, gpushare, jygpu, lambda, matpool, ppio, runpod, skypilot, smm, vastai",
    ):
        build_adapter("lambdalabs")
    assert adapter.fetch_plan(BASE) == [f"{BASE}/market/container", f"{BASE}/market/baremetal"]
    assert adapter.fetch_plan(BASE + "/", date(2026, 9, 4)) == [CONTAINER_URL, BAREMETAL_URL]


# Seed 003 table: 挂牌 / 月付折后 per hour, stated labels, CPU / RAM / disk.
SEED_CONTAINERS = [
    ("rtx4090-24g", "RTX 4090", 24, "1.96", "1.57", "0.95", "95折", 15, 60, 100),
    ("910b-64g", "昇腾 910B", 64, "4.47", "3.58", "0.93", "93折", 23, 250, 500),
    ("h20-96g", "NVIDIA H20", 96, "7.75", "6.20", "0.80", "8折", 24, 128, 50),
]


@pytest.mark.parametrize(
    ("gpu", "raw", "vram", "hourly", "monthly", "stated", "label", "cpu", "ram", "disk"),
    SEED_CONTAINERS,
)
def test_container_rows_match_seed(
    gpu: str,
    raw: str,
    vram: int,
    hourly: str,
    monthly: str,
    stated: str,
    label: str,
    cpu: int,
    ram: int,
    disk: int,
) -> None:
    rows = [r for r in containers() if r.gpu == gpu]
    assert [r.billing for r in rows] == ["hourly", "monthly"]
    h, m = rows
    for r in rows:
        assert r.source == "jygpu"
        assert r.gpu_name_raw == raw
        assert (r.gpu_count, r.vram_gb) == (1, vram)
        assert (r.cpu_cores, r.ram_gb, r.disk_gb) == (cpu, ram, disk)
        assert r.currency == "CNY"
        assert (r.unit, r.unit_raw) == ("CNY/card-hour", "元/时")
        assert r.list_price == D(hourly)
        assert r.observed_at == STATED
        assert r.simulated is True
        assert r.region and r.interconnect
        assert isinstance(r.stock, int) and r.stock >= 0
    assert h.price == D(hourly) and h.per_card_hour == D(hourly).quantize(D("0.000001"))
    assert (h.stated_discount, h.discount_label) == (None, None)
    assert m.price == D(monthly) and m.per_card_hour == D(monthly)
    assert (m.stated_discount, m.discount_label) == (D(stated), label)
    # The seed's labels say 95/93折 but every monthly price is 0.80 of list: kept as published.
    assert (m.price / h.price).quantize(D("0.01")) == D("0.80")


def test_container_offer_ids_are_stable_skus() -> None:
    keys = by_key(containers())
    assert set(keys) == {
        ("ctr-rtx4090-24g-hz1", "hourly"), ("ctr-rtx4090-24g-hz1", "monthly"),
        ("ctr-910b-64g-bj2", "hourly"), ("ctr-910b-64g-bj2", "monthly"),
        ("ctr-h20-96g-wlcb1", "hourly"), ("ctr-h20-96g-wlcb1", "monthly"),
    }  # fmt: skip


# Seed 000: 8-card bare metal per month; per card-hour = price / 8 / 720.
@pytest.mark.parametrize(
    ("gpu", "price", "per_card_hour", "interconnect"),
    [
        ("rtx4090-24g", "7920", "1.375000", "PCIe 4.0"),
        ("rtx5090-32g", "13990", "2.428819", "PCIe 5.0"),
        ("h100-80g", "84480", "14.666667", "NVLink 4.0 + NVSwitch"),
        ("910b-64g", "15600", "2.708333", "HCCS"),
    ],
)
def test_bare_metal_rows_match_seed(
    gpu: str, price: str, per_card_hour: str, interconnect: str
) -> None:
    [row] = [r for r in bare_metal() if r.gpu == gpu]
    assert row.billing == "bare_metal_monthly"
    assert row.gpu_count == 8
    assert row.price == D(price) and row.list_price == D(price)
    assert (row.unit, row.unit_raw) == ("CNY/server-month", "元/月")
    assert row.per_card_hour == D(per_card_hour)
    assert row.interconnect == interconnect
    assert row.observed_at == STATED
    assert row.simulated is True


def test_bare_metal_4090_server_details() -> None:
    row = by_key(bare_metal())[("bm-rtx4090-24g-x8-hz1", "bare_metal_monthly")]
    assert (row.gpu_name_raw, row.vram_gb) == ("RTX 4090 24G", 24)
    assert (row.cpu_cores, row.ram_gb, row.disk_gb) == (64, 512, 7680)  # 2×3.84TB
    assert row.region == "华东-杭州"
    h100 = next(r for r in bare_metal() if r.gpu == "h100-80g")
    assert h100.disk_gb == 15360  # 4×3.84TB


def test_not_simulated_page() -> None:
    rows = containers("jygpu_container_not_simulated.html")
    assert len(rows) == 6
    assert all(r.simulated is False for r in rows)


def test_observed_at_falls_back_to_fetched_at_only_without_stated_time() -> None:
    rows = containers("jygpu_container_no_update_time.html")
    assert {r.observed_at for r in rows} == {FETCHED}
    aware = datetime(2026, 9, 4, 10, 17, 5, tzinfo=timezone(timedelta(hours=8)))
    rows = adapter.parse(read("jygpu_container_no_update_time.html"), CONTAINER_URL, aware)
    assert {r.observed_at for r in rows} == {FETCHED}  # converted to naive UTC
    # With a stated time, fetched_at does not matter.
    later = datetime(2026, 9, 5, 0, 0, tzinfo=UTC)
    assert {r.observed_at for r in adapter.parse(read(CONTAINER), CONTAINER_URL, later)} == {STATED}


def test_unknown_gpu_is_kept_not_an_error() -> None:
    rows = containers("jygpu_container_unknown_gpu.html")
    unknown = [r for r in rows if r.gpu == "unknown"]
    assert [r.billing for r in unknown] == ["hourly", "monthly"]
    assert {r.gpu_name_raw for r in unknown} == {"摩尔线程 MTT S4000"}
    assert unknown[0].price == D("7.75") and unknown[0].vram_gb == 48
    assert {r.gpu for r in rows} == {"rtx4090-24g", "910b-64g", "unknown"}


@pytest.mark.parametrize(
    ("name", "url", "message"),
    [
        ("jygpu_container_no_grid.html", CONTAINER_URL, "#container-list not found"),
        ("jygpu_container_renamed_label.html", CONTAINER_URL, r"missing \['内存'\]"),
        ("jygpu_container_unknown_unit.html", CONTAINER_URL, "unknown unit '元/季'"),
        ("jygpu_container_non_numeric.html", CONTAINER_URL, "CPU: expected '<n> 核'"),
        ("jygpu_baremetal_no_table.html", BAREMETAL_URL, "#baremetal-list not found"),
        ("jygpu_baremetal_renamed_header.html", BAREMETAL_URL, r"missing \['月付价格'\]"),
        ("jygpu_baremetal_unknown_unit.html", BAREMETAL_URL, "unknown unit '元/季'"),
        ("empty_body.html", CONTAINER_URL, "empty body"),
        ("empty_body.html", BAREMETAL_URL, "empty body"),
        ("non_html_body.json", CONTAINER_URL, "not an HTML document"),
        ("non_html_body.json", BAREMETAL_URL, "not an HTML document"),
        # The right page at the wrong URL: the layout does not match what the URL promises.
        (BAREMETAL, CONTAINER_URL, "#container-list not found"),
        (CONTAINER, BAREMETAL_URL, "#baremetal-list not found"),
    ],
)
def test_broken_pages_raise(name: str, url: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        adapter.parse(read(name), url, FETCHED)


@pytest.mark.parametrize(
    ("name", "url", "sku", "kept"),
    [
        ("jygpu_container_price_on_request.html", CONTAINER_URL, "ctr-h20-96g-wlcb1", 2),
        ("jygpu_baremetal_price_on_request.html", BAREMETAL_URL, "bm-h100-80g-x8-bj2", 3),
    ],
)
def test_a_price_on_request_rejects_its_listing_and_the_page_keeps_the_rest(
    name: str, url: str, sku: str, kept: int
) -> None:
    """面议 is the site's answer, not a layout gone wrong: the listing is rejected, named with
    its reason, and counts on neither side of the share that fails a page."""
    page = read_page(adapter, read(name), url, FETCHED)
    (gone,) = page.rejected
    assert gone.unpriced and sku in gone.where + gone.reason
    assert "no price given: '面议'" in gone.reason
    assert page.failure() is None and len({r.offer_id for r in page.rows}) == kept
    assert all(sku not in r.offer_id for r in page.rows)


def _mutated(old: str, new: str, base: str = CONTAINER) -> bytes:
    text = read(base).decode()
    assert old in text
    return text.replace(old, new, 1).encode()


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("数据更新时间:2026-09-04 10:00", "数据更新时间:2026年9月4日", "unreadable update time"),
        ("2026-09-04 10:00", "2026-09-31 10:00", "invalid update time"),
        (' data-sku="ctr-910b-64g-bj2"', "", "no data-sku"),
        ("<span class=\"discount-tag\">95折</span>", "<span class=\"discount-tag\">限时特惠</span>",
         "not a discount label"),
        ("按小时(挂牌)", "按天(挂牌)", "labelled"),
        ("¥1.57<small>/时</small>", "¥1,130<small>/月</small>", "expected 元/时"),
        ("剩余", "大约", "unreadable stock"),
        ('<h3 class="gpu-name">RTX 4090</h3>', "", ".gpu-name not found"),
    ],
)  # fmt: skip
def test_other_layout_changes_raise(old: str, new: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        adapter.parse(_mutated(old, new), CONTAINER_URL, FETCHED)


def test_empty_grid_and_table_raise() -> None:
    html = read(CONTAINER).decode()
    start = html.index('<div class="product-card"')
    end = html.index('<p class="price-note">')
    empty = (html[:start] + "</div>\n" + html[end:]).encode()
    with pytest.raises(ParseError, match="no .product-card"):
        adapter.parse(empty, CONTAINER_URL, FETCHED)
    bm = read(BAREMETAL).decode()
    no_rows = (bm[: bm.index("<tbody>") + 7] + bm[bm.index("</tbody>") :]).encode()
    with pytest.raises(ParseError, match="no rows"):
        adapter.parse(no_rows, BAREMETAL_URL, FETCHED)


def test_bare_metal_row_with_missing_cell_raises() -> None:
    body = _mutated("<td>2×25G 以太网</td>", "", BAREMETAL)
    with pytest.raises(ParseError, match="11 cells for 12 columns"):
        adapter.parse(body, BAREMETAL_URL, FETCHED)


def test_unknown_page_without_listing_raises() -> None:
    smm_page = read(QUOTES)
    with pytest.raises(ParseError, match="not a jygpu market page"):
        adapter.parse(smm_page, f"{BASE}/market/gpu", FETCHED)


def test_saved_page_is_recognised_by_its_content() -> None:
    saved = "file:///home/user/Downloads/算力市场.html"
    from_file = adapter.parse(read(CONTAINER), saved, FETCHED)
    assert from_file == adapter.parse(read(CONTAINER), CONTAINER_URL, FETCHED)
    bare = adapter.parse(read(BAREMETAL), saved, FETCHED)
    assert {row.billing for row in bare} == {"bare_metal_monthly"}


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
def test_yuan_price(text: str, value: Decimal, unit: str) -> None:
    parsed_value, parsed_unit = _yuan_price(text)
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
def test_yuan_price_rejects(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        _yuan_price(text)
