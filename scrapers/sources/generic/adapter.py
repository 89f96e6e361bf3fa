"""The generic extractor: rows from a site with no adapter, configured in ``gpuprice.toml``
only (``adapter = "generic"``, options in ``[sources.<name>.extract]``: :class:`GenericOptions`).

Two extractors run over each page: schema.org JSON-LD offers, and pricing tables (HTML, ARIA
or grids of divs, read by :mod:`._table`; which column is which by :mod:`._table_layout` and
:mod:`._table_columns`). Nothing is guessed: a price whose currency or period is stated
nowhere is an error. ``offer_id`` is built from what identifies a row on the page, so it is
stable from day to day. The options, the header synonyms and the real captures the tables
are verified on: docs/SOURCES.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal

from selectolax.lexbor import LexborHTMLParser

from scrapers.gpu_names import canonical_gpu
from scrapers.request import Request
from scrapers.rows import (
    HOURS_PER_MONTH,
    HOURS_PER_WEEK,
    HOURS_PER_YEAR,
    Billing,
    OfferRow,
    ParseError,
)
from scrapers.sources import _jsonld
from scrapers.sources._json import number
from scrapers.sources._limits import bounded
from scrapers.sources._page import is_simulated, load_html, naive_utc
from scrapers.sources.base import Kind
from scrapers.sources.generic._table import (
    Cell,
    Grid,
    ends_cut,
    html_tables,
    other_grids,
    repair_cut_start,
)
from scrapers.sources.generic._table_columns import (
    Column,
    count_label,
    is_gpu_name,
    is_spot,
    period_unit,
    price_text,
    starts_like_price,
    vram_gb,
)
from scrapers.sources.generic._table_layout import (
    Layout,
    Listing,
    is_section_row,
    layout_of,
    listing_of,
)
from scrapers.units import Per, currency_in, nfkc, parse_money, parse_period, per_card_hour

PRICE_QUANTUM = Decimal("0.0001")  # the warehouse keeps listed prices to 4 decimals
_NO_PRICE_CELL = frozenset({"", "-", "—", "--", "/"})
_BILLING_BY_HOURS: dict[int, Billing] = {
    1: "hourly", 24: "daily", HOURS_PER_WEEK: "weekly", HOURS_PER_MONTH: "monthly",
    HOURS_PER_YEAR: "yearly",
}  # fmt: skip
# "价格单位：元/小时", "单位: 元": the unit a Chinese page states for its tables.
_STATED_UNIT = re.compile(r"单位\s*[:：]\s*(?P<unit>[^\s,，;；。)）]+)")


@dataclass(frozen=True, slots=True)
class GenericOptions:
    """The ``[sources.<name>.extract]`` table (validated in ``configuration.settings``)."""

    paths: tuple[str, ...] = ("",)
    jsonld: bool = True
    tables: bool = True
    table_selector: str = "table"
    currency: str | None = None
    unit: str | None = None
    price_per: Per = "machine"
    # Rows that are not listings on a site, by regular expressions searched in the row's text
    # (its cells joined by " | "): for adapters built on this extractor (Lambda's "Reserved"
    # clusters).
    skip_rows: tuple[str, ...] = ()


def _billing(hours: int, label: str) -> Billing:
    if is_spot(label):
        return "spot"
    if hours == HOURS_PER_MONTH and ("裸金属" in label or "bare" in label.lower()):
        return "bare_metal_monthly"
    return _BILLING_BY_HOURS[hours]


@dataclass(frozen=True, slots=True)
class _Page:
    url: str
    observed_at: datetime
    simulated: bool
    currency: str | None  # what the page states for all its prices ("单位：元")
    unit: str | None


class GenericAdapter:
    kind: Kind = "offers"
    secret = None
    key_pair = None

    def __init__(
        self,
        name: str = "generic",
        options: GenericOptions | None = None,
    ) -> None:
        self.name = name
        self.options = options or GenericOptions()
        self.currency = (self.options.currency or "CNY").upper()

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        base = base_url.rstrip("/")
        return [f"{base}{path}" if path else base for path in self.options.paths]

    @bounded
    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[OfferRow]:
        tree = load_html(repair_cut_start(body), url)
        currency, unit = _stated_unit(tree)
        page = _Page(url, naive_utc(fetched_at), is_simulated(tree), currency, unit)
        rows: list[OfferRow] = []
        if self.options.jsonld:
            rows += self._from_jsonld(tree, page)
        headers_seen: list[list[str]] = []
        if self.options.tables:
            cut_end = ends_cut(body)
            tables = html_tables(tree, self.options.table_selector, cut_end)
            headers_seen += [t.header or _first_row(t) for t in tables if t.header or t.rows]
            for grid in [*tables, *other_grids(tree, cut_end)]:
                rows += self._grid_rows(page, grid)
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
            listing = Listing(
                name,
                vram=vram_gb(props.get("vram") or props.get("gpu memory") or ""),
                count=count_label(props.get("gpus") or props.get("gpu count") or "") or 1,
                region=None,
            )
            offer_id = "|".join(p for p in ("ld", name, label) if p)
            try:
                rows.append(self._row(page, offer_id, listing, price, currency, unit, label))
            except ParseError as exc:
                raise ParseError(f"{what}: {exc}") from None
        return rows

    # -- tables --------------------------------------------------------------------------

    def _grid_rows(self, page: _Page, grid: Grid) -> list[OfferRow]:
        """The rows of one table; none when it is not a table of GPU prices."""
        layout = layout_of(grid, page.url)
        if layout is None:
            return []
        rows = []
        for r, cells in enumerate(grid.rows, 1):
            where = f"{page.url}: table {grid.id} row {r}"
            if not any(cell.text for cell in cells):
                continue
            if len(cells) != layout.width:
                raise ParseError(f"{where}: {len(cells)} cells for {layout.width} columns")
            if self._skipped(cells) or is_section_row(layout, cells):
                continue
            listing = listing_of(layout, grid, cells, where)
            if listing is not None:
                rows += self._listing_rows(page, layout, grid, cells, listing, where)
        return rows

    def _skipped(self, cells: list[Cell]) -> bool:
        text = " | ".join(cell.text for cell in cells)
        return any(re.search(pattern, text) for pattern in self.options.skip_rows)

    def _listing_rows(
        self, page: _Page, layout: Layout, grid: Grid, cells: list[Cell], listing: Listing,
        where: str,
    ) -> list[OfferRow]:  # fmt: skip
        unit_cell = cells[layout.unit.index].text if layout.unit else ""
        # What identifies the listing on the page, so its offer_id is stable day to day.
        parts = (grid.id, listing.name, listing.vram, listing.count, listing.region)
        listing_id = "|".join(str(p) for p in parts if p)
        several = len(layout.prices) > 1
        rows = []
        for column in layout.prices:
            text = price_text(cells[column.index].price_text)
            if several and (text in _NO_PRICE_CELL or not starts_like_price(text)):
                continue  # no price in this mode: "-", "N/A", "Contact sales"
            offer_id = f"{listing_id}|{column.key}" if column.key else listing_id
            label = f"{column.title} {listing.label}".strip()
            try:
                price, currency, unit = self._price(page, column, text, unit_cell)
                per = _per(unit, listing.name) or column.per
                rows.append(self._row(page, offer_id, listing, price, currency, unit, label, per))
            except ParseError as exc:
                raise ParseError(f"{where} ({column.title}): {exc}") from None
        if not rows:
            raise ParseError(f"{where}: no price in any column")
        return rows

    def _price(
        self, page: _Page, column: Column, text: str, unit_cell: str
    ) -> tuple[Decimal, str, str]:
        """Value, currency and unit of one price cell, each from the first place that states
        it: the cell, its column's header, the unit column, the page, the configuration."""
        price, currency, unit = parse_money(text)
        currency = currency or column.currency or currency_in(unit_cell) or page.currency
        currency = (currency or self.options.currency or "").upper()
        if not currency:
            raise ParseError("the price names no currency")
        unit = unit or unit_cell or column.unit or page.unit or self.options.unit or ""
        if not unit:
            raise ParseError(
                "no billing period in the cell, header, unit column, page or [extract].unit"
            )
        return price, currency, unit

    def _row(
        self,
        page: _Page,
        offer_id: str,
        listing: Listing,
        price: Decimal,
        currency: str,
        unit: str,
        label: str,
        per: Per | None = None,
    ) -> OfferRow:
        """One row; its ``ParseError`` is the caller's to prefix with where it was. ``per``:
        whom the price covers where the unit does not say (the column's header)."""
        hours, stated = parse_period(unit)
        listed = price.quantize(PRICE_QUANTUM, ROUND_HALF_UP)
        # A unit that names a card or a machine (元/卡时, /GPU/hr) says whom the price covers;
        # else the column's header does ("PRICE/GPU/HR"); else the configuration.
        norm_unit, native = per_card_hour(
            listed, currency, hours, listing.count, stated or per or self.options.price_per
        )
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
            per_card_hour=native,
            list_price=listed,
            region=listing.region,
            simulated=page.simulated,
        )


def _per(unit: str, card: str) -> Per | None:
    """A price per card the unit states by naming the card: "$1.89/H100/hour"."""
    segments = [s.strip() for s in nfkc(unit).split("/")[1:-1]]
    named = [s for s in segments if s and is_gpu_name(s) and s.upper() in card.upper()]
    return "card" if named else None


def _stated_unit(tree: LexborHTMLParser) -> tuple[str | None, str | None]:
    """The currency and unit a page states for its prices ("价格单位：元/小时"); ``None`` where
    it states none, or states two that disagree."""
    body = tree.body
    text = nfkc(body.text(separator=" ")) if body is not None else ""
    stated = {m["unit"] for m in _STATED_UNIT.finditer(text)}
    currencies = {currency_in(u) for u in stated} - {None}
    periods = {period_unit(u) for u in stated} - {None}
    currency = currencies.pop() if len(currencies) == 1 else None
    unit = periods.pop() if len(periods) == 1 else None
    return currency, unit


def _first_row(grid: Grid) -> list[str]:
    return [cell.text for cell in grid.rows[0]] if grid.rows else []


def _numbered(rows: list[OfferRow]) -> list[OfferRow]:
    """The rows, the same listing listed twice on one page numbered: "id", "id#2", ..."""
    counts: dict[str, int] = {}
    unique = []
    for row in rows:
        n = counts[row.offer_id] = counts.get(row.offer_id, 0) + 1
        unique.append(row if n == 1 else replace(row, offer_id=f"{row.offer_id}#{n}"))
    return unique
