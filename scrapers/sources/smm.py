"""SMM (上海有色网) 算力专区-style quote board: market averages in 元/卡时 by card and region.

``table#compute-quotes``, one row per quote (品名, 区域, 报价口径, 均价, 单位, 日期 required);
a quote's ``observed_at`` is its 日期 at the page's stated update time (Beijing). The format is
modelled on the demo market (``tests/fixtures/pages/``); a login page where the board should
be is a parse error. Headers and evidence: docs/SOURCES.md.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time
from decimal import ROUND_HALF_UP, Decimal

from selectolax.lexbor import LexborHTMLParser

from scrapers.gpu_names import canonical_gpu
from scrapers.parse import Item, Page, excerpt_of
from scrapers.request import Request
from scrapers.rows import ParseError, SpotQuoteRow
from scrapers.sources._page import (
    beijing_to_utc,
    header_index,
    is_simulated,
    load_html,
    require,
    stated_update_local,
    text_of,
)
from scrapers.sources.base import Adapter, SecretSpec
from scrapers.units import CNY_PER_CARD_HOUR_QUANTUM, hours_for, nfkc, parse_money, per_card_hour

QUOTES_PATH = "/compute/quotes"
REQUIRED_HEADERS = ("品名", "区域", "报价口径", "均价", "单位", "日期")

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _card_hour_price(avg: str, unit_raw: str) -> tuple[Decimal, Decimal]:
    """Listed 均价 (a number alone, its unit in the 单位 column) and its CNY per card-hour."""
    price, currency, unit_in_cell = parse_money(avg)
    if currency or unit_in_cell:
        raise ParseError(f"均价 {avg!r} carries a unit; expected a number")
    if not nfkc(unit_raw).startswith("元"):
        raise ParseError(f"unknown unit {unit_raw!r}: expected a price in yuan (元/卡时)")
    # Quotes are per card (元/卡时): no machine size to divide by.
    hours = hours_for(unit_raw, "card")
    _, per_card = per_card_hour(price, "CNY", hours, 1, "card")
    return price, per_card.quantize(CNY_PER_CARD_HOUR_QUANTUM, ROUND_HALF_UP)


def _observed_at(day_text: str, clock: time, what: str) -> datetime:
    """A quote's 日期 at the board's stated clock time (Beijing), as naive UTC."""
    if not _DAY.match(day_text):
        raise ParseError(f"{what}: unreadable date {day_text!r}")
    try:
        day = date.fromisoformat(day_text)
    except ValueError:
        raise ParseError(f"{what}: invalid date {day_text!r}") from None
    return beijing_to_utc(datetime.combine(day, clock))


def _is_login_page(tree: LexborHTMLParser) -> bool:
    """SMM answers a request without a valid session with its login form (modelled)."""
    if tree.css_first('input[type="password"]') is not None:
        return True
    title = tree.css_first("title")
    return title is not None and "登录" in text_of(title)


class SmmAdapter(Adapter):
    """SMM 算力专区 quotes. The live site needs a logged-in session: its cookie comes from
    ``GPUPRICE_SMM_COOKIE`` (or the secrets file) and is sent as the ``Cookie`` header; a
    login page where the quotes should be is a parse error that says so."""

    name = "smm"
    kind = "quotes"
    secret = SecretSpec(env="GPUPRICE_SMM_COOKIE", header="Cookie", what="login cookie")

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        query = f"?as_of={as_of.isoformat()}" if as_of is not None else ""
        return [f"{base_url.rstrip('/')}{QUOTES_PATH}{query}"]

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        """The quote board's rows. ``fetched_at`` is not needed: each quote carries its own
        date (at the board's stated clock time)."""
        tree = load_html(body, url)
        updated = stated_update_local(tree, url)
        clock = updated.time() if updated is not None else time(0, 0)
        table = tree.css_first("table#compute-quotes")
        if table is None and _is_login_page(tree):
            raise ParseError(
                f"{url}: a login page instead of the quotes: the SMM cookie "
                "(GPUPRICE_SMM_COOKIE) is missing, wrong or expired"
            )
        table = require(table, f"{url}: quote table")
        col = header_index(table, REQUIRED_HEADERS, url)
        trs = table.css("tbody tr")
        if not trs:
            raise ParseError(f"{url}: quote table has no rows")
        items = [Item(f"row {n}", tr, excerpt_of(text_of(tr))) for n, tr in enumerate(trs, 1)]
        observed = beijing_to_utc(datetime.combine(fetched_at.date(), clock))
        return Page(url, observed, items, is_simulated(tree), facts=(col, clock))

    def rows(self, item: Item, page: Page) -> list[SpotQuoteRow]:
        col, clock = page.facts
        cells = [text_of(td) for td in item.data.css("td")]
        if len(cells) != len(col):
            raise ParseError(f"{len(cells)} cells for {len(col)} columns")

        def cell(header: str) -> str:
            return cells[col[header]]

        card, region, basis = cell("品名"), cell("区域"), cell("报价口径")
        if not card or not region or not basis:
            # a quote is a region's average on a basis: without them it is no quote
            raise ParseError(f"{card or '?'} {region or '?'}: empty 品名, 区域 or 报价口径")
        try:
            price, per_card = _card_hour_price(cell("均价"), cell("单位"))
        except ParseError as exc:
            raise type(exc)(f"{card} {region}: {exc}") from None  # NoPrice stays NoPrice
        return [
            SpotQuoteRow(
                observed_at=_observed_at(cell("日期"), clock, f"{card} {region}"),
                source="smm",
                gpu=canonical_gpu(card),
                gpu_name_raw=card,
                region=region,
                basis=basis,
                price=price,
                unit_raw=cell("单位"),
                per_card_hour=per_card,
                simulated=page.simulated,
            )
        ]
