"""Which price of a table row the public pays, and which are tiers beside it.

A pricing table may show several prices of one listing for one period: the list price (原价,
日常单价, or a price struck out in the cell), the price a promotion or a cut made current (现价,
活动价), and members' prices (白银会员, VIP). Each listing gets one public row per period and
kind of rent: the promotional price with the list price it replaced beside it
(``list_price``), or else the list price; every member column is a row of tier ``member``
named by its header. A page's stated promotion period ("活动时间：2025年10月1日00:00-
2025年10月8日24:00") dates the rows that are not list prices.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from scrapers.rows import ParseError, Tier
from scrapers.sources.generic._table import Cell
from scrapers.sources.generic._table_columns import Column, is_spot
from scrapers.units import Per, parse_money, parse_period


@dataclass(frozen=True, slots=True)
class Priced:
    """A price as a cell states it: value, currency, unit, and the unit as shown."""

    value: Decimal
    currency: str
    unit: str
    unit_raw: str


@dataclass(frozen=True, slots=True)
class TieredPrice:
    """One row's price of a table row, its tier, and the column(s) it came from."""

    key: str  # the column's key in the offer id ("" for a column without a header)
    label: str  # the header(s), for the billing words they hold ("Spot", "裸金属")
    price: Priced
    per: Per | None
    tier: Tier = "list"
    tier_name: str | None = None
    list_price: Decimal | None = None  # the list price beside a promotional one

    def columns(
        self, listed: Decimal, promotion: tuple[date | None, date | None] | None
    ) -> dict[str, Any]:
        """The row's list price and tier fields."""
        dated = self.tier != "list" and promotion is not None
        return {
            "list_price": listed if self.tier == "list" else self.list_price,
            "tier": self.tier,
            "tier_name": self.tier_name,
            "tier_from": promotion[0] if dated else None,
            "tier_to": promotion[1] if dated else None,
        }


def _kind(column: Column, price: Priced) -> tuple[int, bool]:
    """What a price is for: the hours of its period and whether it is a spot price."""
    return parse_period(price.unit)[0], is_spot(column.title)


def _struck(cell: Cell) -> Decimal | None:
    """The price struck out in a cell, when there is one that reads as a price."""
    if not cell.struck:
        return None
    try:
        return parse_money(cell.struck)[0]
    except ParseError:
        return None


def tiered(
    columns: list[Column], prices: dict[int, Priced], cells: list[Cell]
) -> list[TieredPrice]:
    """The rows of one table row's ``prices`` (by column index), by tier."""
    present = [c for c in columns if c.index in prices]
    tier_of = {c.index: (c.tier or "list") for c in present}
    lists = [c for c in present if tier_of[c.index] == "list"]
    paired: set[int] = set()
    rows: list[TieredPrice] = []
    for column in present:
        tier = tier_of[column.index]
        price = prices[column.index]
        key = column.key
        if tier == "promo":
            partner = next(
                (c for c in lists if c.index not in paired
                 and _kind(c, prices[c.index]) == _kind(column, price)),
                None,
            )  # fmt: skip
            if partner is not None:
                paired.add(partner.index)
                rows.append(_pair(column, partner, prices))
                continue
        struck = _struck(cells[column.index])
        if tier == "list" and struck is not None and struck > price.value:
            rows.append(TieredPrice(key, column.title, price, column.per, "promo",
                                    column.title or "price beside a struck-out one", struck))  # fmt: skip
        elif tier != "list":
            rows.append(TieredPrice(key, column.title, price, column.per, tier, column.title))
        else:
            rows.append(TieredPrice(key, column.title, price, column.per))
    taken = {c.key for c in present if c.index in paired}
    rows = [r for r in rows if not (r.tier == "list" and r.key in taken)]
    return [_with_public_list(r, rows) for r in rows]


def _pair(promo: Column, listed: Column, prices: dict[int, Priced]) -> TieredPrice:
    """The public row of a promotional price and the list price it replaced."""
    return TieredPrice(
        key=listed.key,
        label=f"{listed.title} {promo.title}".strip(),
        price=prices[promo.index],
        per=promo.per or listed.per,
        tier="promo",
        tier_name=promo.title,
        list_price=prices[listed.index].value,
    )


def _with_public_list(row: TieredPrice, rows: list[TieredPrice]) -> TieredPrice:
    """A member row with the public row's list price beside it, when the row has one public
    price of the same period."""
    if row.tier != "member":
        return row
    hours = parse_period(row.price.unit)[0]
    public = [r for r in rows if r.tier != "member" and parse_period(r.price.unit)[0] == hours]
    if len(public) != 1:
        return row
    base = public[0].list_price or public[0].price.value
    return TieredPrice(row.key, row.label, row.price, row.per, row.tier, row.tier_name, base)


# -- the page's stated promotion period ------------------------------------------------------

_DATE = r"(\d{4})\s*[年/.-]\s*(\d{1,2})\s*[月/.-]\s*(\d{1,2})\s*日?"
_PERIOD = re.compile(
    r"(?:活动时间|活动期间|活动日期|优惠时间|优惠期间|促销时间|有效期)\s*[:：]?\s*"
    rf"{_DATE}(?:\s*\d{{1,2}}:\d{{2}})?"
    rf"(?:\s*(?:-|–|—|~|～|至|到)\s*{_DATE})?"
)


def promotion_dates(text: str) -> tuple[date | None, date | None] | None:
    """The promotion period a page states ("活动时间：2025年10月1日00:00-2025年10月8日24:00"
    → (2025-10-01, 2025-10-08); "2025年11月11日开始" → (2025-11-11, None)), or ``None`` when it
    states none or two different ones."""
    found = set()
    for m in _PERIOD.finditer(text):
        try:
            start = date(int(m[1]), int(m[2]), int(m[3]))
            end = date(int(m[4]), int(m[5]), int(m[6])) if m[4] else None
        except ValueError:
            continue
        found.add((start, end))
    return found.pop() if len(found) == 1 else None
