"""极智算-style GPU marketplace (jygpu.com 算力市场): container instances and bare metal.

``/market/container``: product cards, each giving an ``hourly`` row (挂牌) and a ``monthly``
row (月付折后, per hour, with its 折 label). ``/market/baremetal``: a table of servers, each a
``bare_metal_monthly`` row for the whole machine. ``offer_id`` is the listing's ``data-sku``.
The format is modelled on the demo market (``tests/fixtures/pages/``); its selectors and
headers: docs/SOURCES.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.gpu_names import canonical_gpu
from scrapers.parse import Item, Page, excerpt_of
from scrapers.request import Request
from scrapers.rows import Billing, OfferRow, ParseError
from scrapers.sources._page import (
    header_index,
    is_simulated,
    load_html,
    naive_utc,
    parse_count,
    parse_stock,
    require,
    stated_update_time,
    text_of,
)
from scrapers.sources.base import Adapter
from scrapers.units import (
    CNY_PER_CARD_HOUR_QUANTUM,
    hours_for,
    parse_discount,
    parse_gb,
    parse_money,
    per_card_hour,
)

CONTAINER_PATH = "/market/container"
BAREMETAL_PATH = "/market/baremetal"

CONTAINER_SPECS = ("显存", "GPU数量", "CPU", "内存", "数据盘", "互联", "地域", "库存")
BAREMETAL_HEADERS = (
    "GPU型号", "GPU数量", "单卡显存", "CPU", "内存", "数据盘", "GPU互联", "地域", "库存", "月付价格",
)  # fmt: skip


class JygpuAdapter(Adapter):
    """The demo market's 极智算 pages, and in the ``live`` profile the same fetch plan against
    https://www.jygpu.com: the live pages are *modelled* on the format the demo market serves
    (docs/SOURCES.md); if the real site differs, the pages fail to parse, the source is marked
    broken and alerted, and ``gpuprice reparse --source jygpu`` repairs the archive once the
    parser is fixed."""

    name = "jygpu"

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        base = base_url.rstrip("/")
        query = f"?as_of={as_of.isoformat()}" if as_of is not None else ""
        return [f"{base}{CONTAINER_PATH}{query}", f"{base}{BAREMETAL_PATH}{query}"]

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        """The listings of one page: the product cards of /market/container, or the server
        rows of /market/baremetal. Which page it is comes from the URL path when it is a
        market URL; a page saved from a browser is recognised by its content."""
        tree = load_html(body, url)
        path = urlsplit(url).path.rstrip("/")
        if path.endswith(CONTAINER_PATH) or (
            not path.endswith(BAREMETAL_PATH) and tree.css_first("#container-list") is not None
        ):
            items, facts = _container_items(tree, url), None
        elif path.endswith(BAREMETAL_PATH) or tree.css_first("table#baremetal-list") is not None:
            items, facts = _bare_metal_items(tree, url)
        else:
            raise ParseError(
                f"{url}: not a jygpu market page (no {CONTAINER_PATH} URL, no #container-list "
                "grid, no #baremetal-list table)"
            )
        observed = stated_update_time(tree, url) or naive_utc(fetched_at)
        return Page(url, observed, items, is_simulated(tree), facts)

    def rows(self, item: Item, page: Page) -> list[OfferRow]:
        if page.facts is None:
            return _container_rows(item.data, page)
        return [_bare_metal_row(item.data, page.facts, page)]


def _container_items(tree: LexborHTMLParser, url: str) -> list[Item]:
    grid = require(tree.css_first("#container-list"), f"{url}: listing grid #container-list")
    cards = grid.css(".product-card")
    if not cards:
        raise ParseError(f"{url}: listing grid has no .product-card")
    return [Item(f"card {n}", card, excerpt_of(text_of(card))) for n, card in enumerate(cards, 1)]


def _bare_metal_items(tree: LexborHTMLParser, url: str) -> tuple[list[Item], dict[str, int]]:
    table = require(tree.css_first("table#baremetal-list"), f"{url}: table #baremetal-list")
    col = header_index(table, BAREMETAL_HEADERS, url)
    trs = table.css("tbody tr")
    if not trs:
        raise ParseError(f"{url}: server table has no rows")
    return [Item(f"row {n}", tr, excerpt_of(text_of(tr))) for n, tr in enumerate(trs, 1)], col


def _yuan_price(text: str) -> tuple[Decimal, str]:
    """Value and unit as shown of a price in yuan: "¥1.96/时" → (1.96, "元/时"), "¥7,920/月" →
    (7920, "元/月"), "1.26" → (1.26, "")."""
    value, currency, unit = parse_money(text)
    if currency not in (None, "CNY"):
        raise ParseError(f"not a price in yuan: {text!r}")
    unit = "".join(unit.split())  # "¥6.20 / 时" is shown as 元/时
    if unit.startswith("/"):
        return value, "元" + unit
    if unit:
        raise ParseError(f"unexpected text after the number in price {text!r}")
    return value, "元" if currency else ""


@dataclass(frozen=True, slots=True)
class _Price:
    """A listed price with its unit as shown and normalised."""

    value: Decimal
    unit_raw: str
    unit: str
    per_card_hour: Decimal


def _price(text: str, gpu_count: int, what: str) -> _Price:
    try:
        value, unit_raw = _yuan_price(text)
        # Prices here are for what is rented: the instance or the whole server.
        hours = hours_for(unit_raw, "machine")
        unit, per_card = per_card_hour(value, "CNY", hours, gpu_count, "machine")
    except ParseError as exc:
        raise type(exc)(f"{what}: {exc}") from None  # NoPrice stays NoPrice
    return _Price(
        value, unit_raw, unit, per_card.quantize(CNY_PER_CARD_HOUR_QUANTUM, ROUND_HALF_UP)
    )


def _offer(
    page: Page,
    *,
    sku: str,
    billing: Billing,
    gpu_name: str,
    vram_gb: int,
    gpu_count: int,
    price: _Price,
    list_price: Decimal,
    **extra: object,
) -> OfferRow:
    return OfferRow(
        observed_at=page.observed_at,
        source="jygpu",
        offer_id=sku,
        gpu=canonical_gpu(gpu_name, vram_gb),
        gpu_name_raw=gpu_name,
        gpu_count=gpu_count,
        vram_gb=vram_gb,
        billing=billing,
        price=price.value,
        currency="CNY",
        unit=price.unit,
        unit_raw=price.unit_raw,
        per_card_hour=price.per_card_hour,
        list_price=list_price,
        simulated=page.simulated,
        **extra,  # type: ignore[arg-type]
    )


def _sku(node: LexborNode, what: str) -> str:
    sku = (node.attributes.get("data-sku") or "").strip()
    if not sku:
        raise ParseError(f"{what}: no data-sku attribute")
    return sku


def _price_text(card: LexborNode, block: str, label_word: str, what: str) -> str:
    row = require(card.css_first(f".{block}"), f"{what}: price block .{block}")
    label = text_of(require(row.css_first(".price-label"), f"{what}: .{block} label"))
    if label_word not in label:
        raise ParseError(
            f"{what}: price block .{block} is labelled {label!r}, "
            f"expected one containing {label_word!r}"
        )
    return text_of(require(row.css_first(".price-value"), f"{what}: .{block} value"))


def _container_rows(card: LexborNode, page: Page) -> list[OfferRow]:
    """A product card's hourly row (挂牌) and monthly row (月付折后, per hour)."""
    sku = _sku(card, "card")
    what = f"card {sku}"
    gpu_name = text_of(require(card.css_first(".gpu-name"), f"{what}: .gpu-name"))
    specs: dict[str, str] = {}
    for item in card.css("li.spec-item"):
        label = text_of(require(item.css_first(".spec-label"), f"{what}: .spec-label"))
        specs[label] = text_of(require(item.css_first(".spec-value"), f"{what}: .spec-value"))
    missing = [s for s in CONTAINER_SPECS if s not in specs]
    if missing:
        raise ParseError(f"{what}: spec labels changed: missing {missing}, found {list(specs)}")

    gpu_count = parse_count(specs["GPU数量"], "卡", f"{what}: GPU数量")
    hourly = _price(_price_text(card, "price-hourly", "按小时", what), gpu_count, what)
    monthly = _price(_price_text(card, "price-monthly", "月付", what), gpu_count, what)
    # Both container prices are per hour (the monthly one is the prepaid plan's hourly
    # equivalent); a per-day or per-month figure here means the layout changed.
    for price in (hourly, monthly):
        if not price.unit.endswith("-hour"):
            raise ParseError(f"{what}: container price in {price.unit_raw!r}, expected 元/时")
    tag = card.css_first(".price-monthly .discount-tag")
    label = text_of(tag) if tag is not None else ""
    stated = parse_discount(label)
    common = dict(
        sku=sku,
        gpu_name=gpu_name,
        vram_gb=parse_gb(specs["显存"], f"{what}: 显存"),
        gpu_count=gpu_count,
        list_price=hourly.value,
        cpu_cores=parse_count(specs["CPU"], "核", f"{what}: CPU"),
        ram_gb=parse_gb(specs["内存"], f"{what}: 内存"),
        disk_gb=parse_gb(specs["数据盘"], f"{what}: 数据盘"),
        interconnect=specs["互联"],
        region=specs["地域"] or None,
        stock=parse_stock(specs["库存"], f"{what}: 库存"),
    )
    return [
        _offer(page, billing="hourly", price=hourly, **common),
        _offer(
            page,
            billing="monthly",
            price=monthly,
            stated_discount=stated,
            discount_label=label if stated is not None else None,
            **common,
        ),
    ]


def _bare_metal_row(tr: LexborNode, col: dict[str, int], page: Page) -> OfferRow:
    """A server row: the whole machine's monthly price."""
    sku = _sku(tr, "row")
    what = f"server {sku}"
    cells = [text_of(td) for td in tr.css("td")]
    if len(cells) != len(col):
        raise ParseError(f"{what}: {len(cells)} cells for {len(col)} columns")

    def cell(header: str) -> str:
        return cells[col[header]]

    gpu_count = parse_count(cell("GPU数量"), "卡", f"{what}: GPU数量")
    price = _price(cell("月付价格"), gpu_count, what)
    if not price.unit.endswith("-month"):
        raise ParseError(f"{what}: bare metal priced {price.unit_raw!r}, expected 元/月")
    return _offer(
        page,
        sku=sku,
        billing="bare_metal_monthly",
        gpu_name=cell("GPU型号"),
        vram_gb=parse_gb(cell("单卡显存"), f"{what}: 单卡显存"),
        gpu_count=gpu_count,
        price=price,
        list_price=price.value,
        cpu_cores=parse_count(cell("CPU"), "核", f"{what}: CPU"),
        ram_gb=parse_gb(cell("内存"), f"{what}: 内存"),
        disk_gb=parse_gb(cell("数据盘"), f"{what}: 数据盘"),
        interconnect=cell("GPU互联"),
        region=cell("地域") or None,
        stock=parse_stock(cell("库存"), f"{what}: 库存"),
    )
