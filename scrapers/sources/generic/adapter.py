"""The generic extractor: rows from a site with no adapter, configured in ``gpuprice.toml``
only (``adapter = "generic"``, options in ``[sources.<name>.extract]``: :class:`GenericOptions`).

Two extractors run over each page: schema.org JSON-LD offers, and pricing tables (HTML, ARIA,
grids of divs, or a Markdown page's pipe tables, read by :mod:`._table`; which column is which
by :mod:`._table_layout` and :mod:`._table_columns`). A listing is one JSON-LD offer or one table
row. Nothing is guessed: a price whose currency or period is stated nowhere is an error of its
listing (a cell without a period takes the one its column's other cells state, and its
``unit_raw`` says so). A row's price columns are read by tier: a promotion's price (现价,
活动价) stands with the list price beside it (原价, 日常单价, or a struck-out price in the cell),
a member's price (会员价, VIP, 白银会员) is a row of its own tier. ``offer_id`` is built from what
identifies a row on the page, so it is stable from day to day. The options, the header
synonyms and the real captures the tables are verified on: docs/SOURCES.md.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal

from selectolax.lexbor import LexborHTMLParser

from scrapers.gpu_names import canonical_gpu
from scrapers.parse import Item, Page, excerpt_of
from scrapers.request import Request
from scrapers.rows import (
    HOURS_PER_MONTH,
    HOURS_PER_WEEK,
    HOURS_PER_YEAR,
    Billing,
    NoPrice,
    OfferRow,
    ParseError,
    Row,
)
from scrapers.sources import _jsonld
from scrapers.sources._json import number
from scrapers.sources._page import is_simulated, load_html, naive_utc
from scrapers.sources.base import Adapter
from scrapers.sources.generic import _markdown
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
from scrapers.sources.generic._tiers import Priced, TieredPrice, promotion_dates, tiered
from scrapers.units import (
    Per,
    currency_in,
    is_placeholder,
    nfkc,
    parse_money,
    parse_period,
    per_card_hour,
)

PRICE_QUANTUM = Decimal("0.0001")  # the warehouse keeps listed prices to 4 decimals
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
class _Facts:
    """What the page states for all its prices ("单位：元/时"; "活动时间：…")."""

    currency: str | None
    unit: str | None
    promotion: tuple[date | None, date | None] | None


@dataclass(frozen=True, slots=True)
class TableRow:
    """One body row of a pricing table, with the table's layout and the period each price
    column's cells state (for a cell that states none)."""

    grid: Grid
    layout: Layout
    cells: list[Cell]
    periods: dict[int, str]


@dataclass(frozen=True, slots=True)
class RefusedTable:
    """A table whose columns cannot be told apart: one rejected listing, not a refused page."""

    reason: str


class GenericAdapter(Adapter):
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

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        if _markdown.is_markdown(body):
            body = _markdown.as_html(body, url)
        tree = load_html(repair_cut_start(body), url)
        page_text = _page_text(tree)
        currency, unit = _stated_unit(page_text)
        facts = _Facts(currency, unit, promotion_dates(page_text))
        items: list[Item] = []
        if self.options.jsonld:
            offers = _jsonld.all_offers(_jsonld.blocks(tree, url))
            items += [Item(f"JSON-LD offer {n}", ld, excerpt_of(ld.offer)) for n, ld in
                      enumerate(offers, 1)]  # fmt: skip
        headers_seen: list[list[str]] = []
        if self.options.tables:
            cut_end = ends_cut(body)
            tables = html_tables(tree, self.options.table_selector, cut_end)
            headers_seen += [t.header or _first_row(t) for t in tables if t.header or t.rows]
            for grid in [*tables, *other_grids(tree, cut_end)]:
                items += self._table_items(grid, url)
        if not items:
            seen = "; ".join(" | ".join(h) for h in headers_seen[:5]) or "no tables"
            raise ParseError(
                f"{url}: no schema.org Offer and no table with a GPU-model and a price column "
                f"(headers seen: {seen})"
            )
        return Page(url, naive_utc(fetched_at), items, is_simulated(tree), facts)

    def rows(self, item: Item, page: Page) -> list[OfferRow]:
        data = item.data
        if isinstance(data, RefusedTable):
            raise ParseError(data.reason)
        if isinstance(data, TableRow):
            return self._table_rows(data, page)
        return [self._ld_row(data, page)]

    def finish(self, rows: list[Row], page: Page) -> list[Row]:
        return _numbered(rows)

    # -- JSON-LD -------------------------------------------------------------------------

    def _ld_row(self, ld: _jsonld.LdOffer, page: Page) -> OfferRow:
        item = ld.product or {}
        name = str(item.get("name") or ld.offer.get("name") or "").strip()
        label = str(ld.offer.get("name") or "").strip()
        if not name:
            raise ParseError("names no product")
        if ld.offer.get("price") is None:
            raise ParseError("no price")
        price = number(ld.offer["price"], "price")
        currency = (ld.currency or self.options.currency or "").upper()
        if not currency:
            raise ParseError(f"{name}: no priceCurrency and no [extract].currency")
        unit = _jsonld.unit_of(ld.offer) or self.options.unit
        if not unit:
            raise ParseError(f"{name}: no priceSpecification period and no [extract].unit")
        props = _jsonld.properties(item)
        listing = Listing(
            name,
            vram=vram_gb(props.get("vram") or props.get("gpu memory") or ""),
            count=count_label(props.get("gpus") or props.get("gpu count") or "") or 1,
            region=None,
        )
        offer_id = "|".join(p for p in ("ld", name, label) if p)
        return self._row(page, offer_id, listing, Priced(price, currency, unit, unit), label)

    # -- tables --------------------------------------------------------------------------

    def _table_items(self, grid: Grid, url: str) -> list[Item]:
        """The listings of one table: its body rows (not headings, not skipped rows); none when
        it is not a table of GPU prices."""
        try:
            layout = layout_of(grid, url)
        except ParseError as exc:
            header = " | ".join(grid.header or _first_row(grid))
            return [Item(f"table {grid.id}", RefusedTable(str(exc)), excerpt_of(header))]
        if layout is None:
            return []
        periods = _column_periods(layout, grid)
        items = []
        for r, cells in enumerate(grid.rows, 1):
            if not any(cell.text for cell in cells) or self._skipped(cells):
                continue
            if len(cells) == layout.width:
                if is_section_row(layout, cells):
                    continue
            elif not any(starts_like_price(c.price_text) or is_gpu_name(c.text) for c in cells):
                continue  # a heading that spans the table ("Storage"): no listing
            text = " | ".join(cell.text for cell in cells)
            data = TableRow(grid, layout, cells, periods)
            items.append(Item(f"table {grid.id} row {r}", data, excerpt_of(text)))
        return items

    def _skipped(self, cells: list[Cell]) -> bool:
        text = " | ".join(cell.text for cell in cells)
        return any(re.search(pattern, text) for pattern in self.options.skip_rows)

    def _table_rows(self, row: TableRow, page: Page) -> list[OfferRow]:
        layout, cells = row.layout, row.cells
        if len(cells) != layout.width:
            raise ParseError(f"{len(cells)} cells for {layout.width} columns")
        listing = listing_of(layout, row.grid, cells, f"table {row.grid.id}")
        if listing is None:
            return []
        unit_cell = cells[layout.unit.index].text if layout.unit else ""
        # What identifies the listing on the page, so its offer_id is stable day to day.
        parts = (row.grid.id, listing.name, listing.vram, listing.count, listing.region)
        listing_id = "|".join(str(p) for p in parts if p)
        several = len(layout.prices) > 1
        prices: dict[int, Priced] = {}
        texts = [price_text(cells[column.index].price_text) for column in layout.prices]
        for column, text in zip(layout.prices, texts, strict=True):
            if several and not starts_like_price(text) and not _names_money(text):
                continue  # no price in this mode: "-", "N/A", "Contact sales"
            try:
                prices[column.index] = self._price(page, column, row, text, unit_cell)
            except ParseError as exc:  # NoPrice stays NoPrice: the page is not judged by it
                raise type(exc)(f"{column.title}: {exc}") from None
        if not prices:
            if all(is_placeholder(text) for text in texts):
                shown = " | ".join(cells[column.index].text for column in layout.prices)
                raise NoPrice(f"no price given in any column: {shown!r}")
            raise ParseError("no price in any column")
        rows = []
        for offer in tiered(layout.prices, prices, cells):
            offer_id = f"{listing_id}|{offer.key}" if offer.key else listing_id
            label = f"{offer.label} {listing.label}".strip()
            per = _per(offer.price.unit, listing.name) or offer.per
            try:
                rows.append(self._row(page, offer_id, listing, offer.price, label, per, offer))
            except ParseError as exc:
                raise ParseError(f"{offer.label}: {exc}") from None
        return rows

    def _price(
        self, page: Page, column: Column, row: TableRow, text: str, unit_cell: str
    ) -> Priced:
        """Value, currency and unit of one price cell, each from the first place that states
        it: the cell, the unit column, the column's header, the column's other cells, the
        page, the configuration."""
        facts: _Facts = page.facts
        price, currency, unit = parse_money(text)
        currency = currency or column.currency or currency_in(unit_cell) or facts.currency
        currency = (currency or self.options.currency or "").upper()
        if not currency:
            raise ParseError("the price names no currency")
        stated = unit or unit_cell or column.unit
        from_column = row.periods.get(column.index)
        if stated and from_column and period_unit(stated) is None:
            stated = None  # "$2.49 / GPU" among "$X / GPU / hr": whom, but no period
        unit = stated or from_column or facts.unit or self.options.unit or ""
        if not unit:
            raise ParseError(
                "no billing period in the cell, header, unit column, page or [extract].unit"
            )
        unit_raw = unit
        if not stated and unit == from_column:
            unit_raw = f"{text} (period {unit} as the column's other cells state it)"
        return Priced(price, currency, unit, unit_raw)

    def _row(
        self,
        page: Page,
        offer_id: str,
        listing: Listing,
        priced: Priced,
        label: str,
        per: Per | None = None,
        tier: TieredPrice | None = None,
    ) -> OfferRow:
        """One row. ``per``: whom the price covers where the unit does not say (the column's
        header); ``tier``: the row's price tier, the list price when none."""
        hours, stated = parse_period(priced.unit)
        listed = priced.value.quantize(PRICE_QUANTUM, ROUND_HALF_UP)
        # A unit that names a card or a machine (元/卡时, /GPU/hr) says whom the price covers;
        # else the column's header does ("PRICE/GPU/HR"); else the configuration.
        norm_unit, native = per_card_hour(
            listed, priced.currency, hours, listing.count, stated or per or self.options.price_per
        )
        facts: _Facts = page.facts
        extra = {} if tier is None else tier.columns(listed, facts.promotion)
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
            currency=priced.currency,
            unit=norm_unit,
            unit_raw=priced.unit_raw,
            per_card_hour=native,
            list_price=extra.pop("list_price", listed),
            region=listing.region,
            simulated=page.simulated,
            **extra,
        )


def _per(unit: str, card: str) -> Per | None:
    """A price per card the unit states by naming the card: "$1.89/H100/hour"."""
    segments = [s.strip() for s in nfkc(unit).split("/")[1:-1]]
    named = [s for s in segments if s and is_gpu_name(s) and s.upper() in card.upper()]
    return "card" if named else None


def _names_money(text: str) -> bool:
    """Whether a cell that does not start as a price still names a currency or a period
    ("?.??元/时", "$--"): a price cell whose number is garbled, an error of its listing, not a
    mode the listing lacks ("-", "N/A", "Contact sales")."""
    return currency_in(text) is not None or period_unit(text) is not None


def _column_periods(layout: Layout, grid: Grid) -> dict[int, str]:
    """For each price column, the period its cells state when they all state the same one
    (a cell that states none then takes it): "1.28元" under cells of "…元/时"."""
    periods = {}
    for column in layout.prices:
        stated: Counter[int] = Counter()
        units: dict[int, str] = {}
        for cells in grid.rows:
            if len(cells) != layout.width:
                continue
            try:
                _, _, unit = parse_money(price_text(cells[column.index].price_text))
                hours, _ = parse_period(unit)
            except ParseError:
                continue
            stated[hours] += 1
            units.setdefault(hours, unit)
        if len(stated) == 1:
            periods[column.index] = units[next(iter(stated))]
    return periods


def _page_text(tree: LexborHTMLParser) -> str:
    body = tree.body
    return nfkc(body.text(separator=" ")) if body is not None else ""


def _stated_unit(text: str) -> tuple[str | None, str | None]:
    """The currency and unit a page states for its prices ("价格单位：元/小时"); ``None`` where
    it states none, or states two that disagree."""
    stated = {m["unit"] for m in _STATED_UNIT.finditer(text)}
    currencies = {currency_in(u) for u in stated} - {None}
    periods = {period_unit(u) for u in stated} - {None}
    currency = currencies.pop() if len(currencies) == 1 else None
    unit = periods.pop() if len(periods) == 1 else None
    return currency, unit


def _first_row(grid: Grid) -> list[str]:
    return [cell.text for cell in grid.rows[0]] if grid.rows else []


def _numbered(rows: list[Row]) -> list[Row]:
    """The rows, the same listing listed twice on one page numbered: "id", "id#2", ..."""
    counts: dict[str, int] = {}
    unique: list[Row] = []
    for row in rows:
        assert isinstance(row, OfferRow)
        n = counts[row.offer_id] = counts.get(row.offer_id, 0) + 1
        unique.append(row if n == 1 else replace(row, offer_id=f"{row.offer_id}#{n}"))
    return unique
