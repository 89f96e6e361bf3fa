"""A generic extractor for a site with no adapter, configured in ``gpuprice.toml`` only.

```toml
[sources.examplecloud]
adapter = "generic"
live_url = "https://gpu.example.com"
[sources.examplecloud.extract]
paths = ["/pricing"]        # pages to fetch, relative to the URL (default: the URL itself)
currency = "CNY"            # for prices that name no currency (¥ / 元 / $ / USD do)
unit = "元/时"              # for prices whose cell, header and unit column name no period
price_per = "machine"       # a price without 卡 / 台 / GPU in its unit covers: machine | card
```

Two extractors run over each page (``jsonld`` / ``tables`` switch them off):

* schema.org JSON-LD: every ``Offer`` (under a ``Product``, an ``AggregateOffer``, or free
  with ``itemOffered``), the card from the Product's (or item's) name, ``price``,
  ``priceCurrency`` and the period from ``priceSpecification`` (``unitCode`` HUR / DAY /
  MON or ``unitText``);
* HTML tables whose header row names at least a GPU-model column and a price column, by
  Chinese and English synonyms (:data:`SYNONYMS`): GPU model, VRAM, GPU count, price, unit,
  region. A unit in parentheses in a header ("价格(元/时)", "Price ($/hr)") applies to the
  whole column. Several price columns (按量 / 包月) give one row each.

Nothing is guessed: a price whose currency or billing period is stated nowhere (cell,
header, unit column, configuration) is an error, and so is a row whose cells do not match
the header. Each row's ``offer_id`` is built from what identifies it on the page (table,
card, memory, count, region, price column), so it is stable from day to day.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.fx import FxRates
from scrapers.gpu_names import canonical_gpu
from scrapers.http import Request
from scrapers.rows import Billing, OfferRow, ParseError
from scrapers.sources import _jsonld
from scrapers.sources._json import number
from scrapers.sources._page import child_elements, is_simulated, load_html, naive_utc, text_of
from scrapers.units import (
    Per,
    currency_in,
    nfkc,
    parse_money,
    parse_period,
    per_card_hour,
    size_gb,
)

# Header synonyms, compared after NFKC, lower case, without spaces and without a unit in
# parentheses. Add a spelling here and every generic source understands it.
SYNONYMS: dict[str, frozenset[str]] = {
    "gpu": frozenset({
        "gpu", "gpu型号", "型号", "显卡", "显卡型号", "gpu类型", "卡型", "机型", "算力卡",
        "gpumodel", "model", "gputype", "card", "gpuname", "name", "产品", "产品名称",
    }),
    "vram": frozenset({
        "显存", "显存容量", "单卡显存", "gpu显存", "vram", "gpumemory", "memory", "gpuram",
    }),
    "count": frozenset({
        "gpu数量", "卡数", "显卡数量", "数量", "gpus", "gpucount", "#gpus", "count", "卡数量",
    }),
    "price": frozenset({
        "价格", "单价", "租金", "费用", "按量价格", "按小时价格", "小时价格", "包月价格",
        "月付价格", "包日价格", "按量计费", "price", "hourlyprice", "monthlyprice",
        "on-demandprice", "ondemandprice", "price/hr", "priceperhour", "cost", "rate",
        "on-demand", "ondemand",
    }),
    "unit": frozenset({"单位", "计费单位", "价格单位", "unit", "billingunit"}),
    "region": frozenset({"地域", "区域", "地区", "机房", "region", "location", "zone"}),
}  # fmt: skip
_HINT = re.compile(r"[(（\[](?P<hint>[^)）\]]*)[)）\]]")
_HEADER_NOISE = re.compile(r"[\s:：*]")
_COUNT = re.compile(r"(\d+)")
PRICE_QUANTUM = Decimal("0.0001")  # the warehouse keeps listed prices to 4 decimals


@dataclass(frozen=True, slots=True)
class GenericOptions:
    """The ``[sources.<name>.extract]`` table (validated in ``gpuprice.settings``)."""

    paths: tuple[str, ...] = ("",)
    jsonld: bool = True
    tables: bool = True
    table_selector: str = "table"
    currency: str | None = None
    unit: str | None = None
    price_per: Per = "machine"


def _key(header: str) -> tuple[str, str | None]:
    """A header's comparable name (NFKC, lower case, no spaces, no unit in parentheses) and
    the unit hint in its parentheses, if any: "价格(元/时)" → ("价格", "元/时")."""
    text = nfkc(header)
    hint = _HINT.search(text)
    name = _HINT.sub("", text) if hint else text
    return _HEADER_NOISE.sub("", name).lower(), (hint["hint"].strip() if hint else None)


def _role(name: str, hint: str | None) -> str | None:
    """The column role a header names (a key of :data:`SYNONYMS`), or ``None``."""
    for role, words in SYNONYMS.items():
        if name in words:
            return role
    if not name and hint and "/" in hint:
        return "price"  # a header that is only a unit, e.g. "(元/时)"
    return None


def _billing(hours: int, label: str) -> Billing:
    low = label.lower()
    if "spot" in low or "竞价" in low or "interruptible" in low:
        return "spot"
    if hours == 1:
        return "hourly"
    if hours == 720:
        return "bare_metal_monthly" if ("裸金属" in label or "bare" in low) else "monthly"
    raise ParseError(f"a per-day price ({label!r}) has no billing mode here; use hourly or monthly")


@dataclass(frozen=True, slots=True)
class _Page:
    url: str
    observed_at: datetime
    simulated: bool


@dataclass(frozen=True, slots=True)
class _Listing:
    """What a page says of one listing, whichever of its prices."""

    name: str
    vram: int | None
    count: int
    region: str | None


class GenericAdapter:
    kind: Literal["offers", "quotes", "offers+quotes"] = "offers"
    secret = None

    def __init__(
        self,
        name: str = "generic",
        options: GenericOptions | None = None,
        fx: FxRates | None = None,
    ) -> None:
        self.name = name
        self.options = options or GenericOptions()
        self.fx = fx or FxRates()
        self.currency = (self.options.currency or "CNY").upper()

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        base = base_url.rstrip("/")
        return [f"{base}{path}" if path else base for path in self.options.paths]

    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[OfferRow]:
        tree = load_html(body, url)
        page = _Page(url, naive_utc(fetched_at), is_simulated(tree))
        rows: list[OfferRow] = []
        if self.options.jsonld:
            rows += self._from_jsonld(tree, page)
        headers_seen: list[list[str]] = []
        if self.options.tables:
            rows += self._from_tables(tree, page, headers_seen)
        if not rows:
            seen = "; ".join(" | ".join(h) for h in headers_seen[:5]) or "no tables"
            raise ParseError(
                f"{url}: no schema.org Offer and no table with a GPU-model and a price column "
                f"(headers seen: {seen})"
            )
        return _numbered(rows)

    # -- JSON-LD -------------------------------------------------------------------------

    def _from_jsonld(self, tree: LexborHTMLParser, page: _Page) -> list[OfferRow]:
        rows = []
        for n, ld in enumerate(_jsonld.all_offers(_jsonld.blocks(tree, page.url)), 1):
            item = ld.product or {}
            name = str(item.get("name") or ld.offer.get("name") or "").strip()
            label = str(ld.offer.get("name") or "").strip()
            what = f"{page.url}: JSON-LD offer {n} ({name or 'unnamed'})"
            if not name:
                raise ParseError(f"{what}: names no product")
            if ld.offer.get("price") is None:
                raise ParseError(f"{what}: no price")
            price = number(ld.offer["price"], f"{what}: price")
            currency = (ld.currency or self.options.currency or "").upper()
            if not currency:
                raise ParseError(f"{what}: no priceCurrency and no [extract].currency")
            unit = _jsonld.unit_of(ld.offer) or self.options.unit
            if not unit:
                raise ParseError(f"{what}: no priceSpecification period and no [extract].unit")
            props = _jsonld.properties(item)
            listing = _Listing(
                name,
                vram=_vram(props.get("vram") or props.get("gpu memory") or ""),
                count=_count(props.get("gpus") or props.get("gpu count") or "") or 1,
                region=None,
            )
            offer_id = "|".join(p for p in ("ld", name, label) if p)
            try:
                rows.append(self._row(page, offer_id, listing, price, currency, unit, label))
            except ParseError as exc:
                raise ParseError(f"{what}: {exc}") from None
        return rows

    # -- tables --------------------------------------------------------------------------

    def _from_tables(
        self, tree: LexborHTMLParser, page: _Page, headers_seen: list[list[str]]
    ) -> list[OfferRow]:
        rows = []
        for t, table in enumerate(tree.css(self.options.table_selector), 1):
            header_cells, body_rows = _split(table)
            if not header_cells:
                continue
            headers = [text_of(cell) for cell in header_cells]
            headers_seen.append(headers)
            keys = [_key(h) for h in headers]
            roles = [_role(name, hint) for name, hint in keys]
            if "gpu" in roles and "price" in roles:
                rows += self._table_rows(page, t, headers, keys, roles, body_rows)
        return rows

    def _table_rows(
        self,
        page: _Page,
        t: int,
        headers: list[str],
        keys: list[tuple[str, str | None]],
        roles: list[str | None],
        body_rows: list[LexborNode],
    ) -> list[OfferRow]:
        """The rows of table ``t``, whose header names a GPU-model and a price column."""
        rows = []
        col = {role: roles.index(role) for role in roles if role and role != "price"}
        price_cols = [i for i, role in enumerate(roles) if role == "price"]
        several = len(price_cols) > 1
        for r, tr in enumerate(body_rows, 1):
            where = f"{page.url}: table {t} row {r}"
            cells = [text_of(cell) for cell in _cells(tr)]
            if not any(cells):
                continue
            if len(cells) != len(headers):
                raise ParseError(f"{where}: {len(cells)} cells for {len(headers)} columns")
            name = cells[col["gpu"]]
            if not name:
                raise ParseError(f"{where}: empty GPU model")
            count = _count(cells[col["count"]]) if "count" in col else 1
            if count is None:
                raise ParseError(f"{where}: unreadable GPU count {cells[col['count']]!r}")
            listing = _Listing(
                name,
                vram=_vram(cells[col["vram"]]) if "vram" in col else None,
                count=count,
                region=cells[col["region"]] or None if "region" in col else None,
            )
            unit_cell = cells[col["unit"]] if "unit" in col else ""
            # What identifies the listing on the page, so its offer_id is stable day to day.
            parts = (f"t{t}", name, listing.vram, count, listing.region)
            listing_id = "|".join(str(p) for p in parts if p)
            for c in price_cols:
                text = cells[c]
                if several and text in _NO_PRICE_CELL:
                    continue  # this listing has no price in this mode
                column, hint = keys[c]
                what = f"{where} ({headers[c]})"
                try:
                    price, currency, unit = parse_money(text)
                except ParseError as exc:
                    raise ParseError(f"{what}: {exc}") from None
                currency = currency or currency_in(hint) or currency_in(unit_cell)
                currency = (currency or self.options.currency or "").upper()
                if not currency:
                    raise ParseError(f"{what}: the price names no currency")
                unit = unit or unit_cell or _unit_hint(hint) or self.options.unit
                if not unit:
                    raise ParseError(f"{what}: no billing period in the cell, header, unit "
                                     "column or [extract].unit")  # fmt: skip
                offer_id = f"{listing_id}|{column}" if column else listing_id
                try:
                    rows.append(
                        self._row(page, offer_id, listing, price, currency, unit, headers[c])
                    )
                except ParseError as exc:
                    raise ParseError(f"{what}: {exc}") from None
        return rows

    def _row(
        self,
        page: _Page,
        offer_id: str,
        listing: _Listing,
        price: Decimal,
        currency: str,
        unit: str,
        label: str,
    ) -> OfferRow:
        """One row; its ``ParseError`` is the caller's to prefix with where it was."""
        hours, per = parse_period(unit)
        listed = price.quantize(PRICE_QUANTUM, ROUND_HALF_UP)
        # A unit that names a card or a machine (元/卡时, /server/hr) says whom the price
        # covers; otherwise the configuration does.
        norm_unit, native = per_card_hour(
            listed, currency, hours, listing.count, per or self.options.price_per
        )
        cny = self.fx.to_cny(native, currency, page.observed_at.date())
        return OfferRow(
            observed_at=page.observed_at,
            source=self.name,
            offer_id=offer_id,
            gpu=canonical_gpu(listing.name, listing.vram),
            gpu_name_raw=listing.name,
            gpu_count=listing.count,
            vram_gb=listing.vram,
            billing=_billing(hours, label),
            price=listed,
            currency=currency,
            unit=norm_unit,
            unit_raw=unit,
            cny_per_card_hour=cny,
            list_price=listed,
            region=listing.region,
            simulated=page.simulated,
        )


_NO_PRICE_CELL = frozenset({"", "-", "—", "--"})


def _unit_hint(hint: str | None) -> str | None:
    """A header hint that is a unit ("元/时" in "价格(元/时)"), else ``None``."""
    return hint if hint and "/" in hint else None


def _cells(tr: LexborNode) -> list[LexborNode]:
    """A row's own cells (a table nested in a cell is part of that cell's text)."""
    return child_elements(tr, ("td", "th"))


def _split(table: LexborNode) -> tuple[list[LexborNode], list[LexborNode]]:
    """A table's header cells and body rows: the ``thead``'s ``th`` cells (else its ``td``)
    and the ``tbody`` rows, or else the first row's cells and the other rows.

    Walked from the table's own children, so that the rows of a table nested in a cell are
    not taken for this table's rows. HTML parsing puts rows written straight under <table>
    into a tbody, so every row is in a thead, tbody or tfoot; a tfoot (notes, totals) is not
    a listing."""
    head: list[LexborNode] = []
    rows: list[LexborNode] = []
    for section in child_elements(table, ("thead", "tbody")):
        trs = child_elements(section, ("tr",))
        if section.tag == "thead":
            head += [cell for tr in trs for cell in _cells(tr)]
        else:
            rows += trs
    if head:
        return [cell for cell in head if cell.tag == "th"] or head, rows
    if not rows:
        return [], []
    return _cells(rows[0]), rows[1:]


def _vram(text: str) -> int | None:
    """A card's memory in whole GB: "24GB", "80 GB", else the first number ("48": a memory
    column or property is in GB); ``None`` when unreadable, fractional or zero."""
    size = size_gb(text)
    if size is None:
        number = _NUMBER.search(nfkc(text))
        size = None if number is None else Decimal(number[0])
    if size is None or size != size.to_integral_value() or size <= 0:
        return None
    return int(size)


_NUMBER = re.compile(r"\d+(?:\.\d+)?\b")


def _count(text: str) -> int | None:
    m = _COUNT.search(nfkc(text))
    if m is None:
        return None
    value = int(m[1])
    return value if value > 0 else None


def _numbered(rows: list[OfferRow]) -> list[OfferRow]:
    """The rows, the same listing listed twice on one page numbered: "id", "id#2", ..."""
    counts: dict[str, int] = {}
    unique = []
    for row in rows:
        n = counts[row.offer_id] = counts.get(row.offer_id, 0) + 1
        unique.append(row if n == 1 else replace(row, offer_id=f"{row.offer_id}#{n}"))
    return unique
