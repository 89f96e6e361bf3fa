"""SMM (上海有色网) 算力专区-style quote board: market averages in 元/卡时 by card and region.

Page format (as the demo market serves it; see ``tests/fixtures/pages/``):
``table#compute-quotes`` with headers 品名, 区域, 报价口径, 价格区间, 均价, 涨跌, 单位, 日期
(品名, 区域, 报价口径, 均价, 单位, 日期 are required; others ignored), one ``tbody tr`` per
quote, e.g. ``4090-24G | 长三角 | 整机包月均价 | 1.16-1.36 | 1.26 | 0.00 | 元/卡时 | 2026-09-04``,
and ``.update-time`` "更新时间:2026-09-04 10:00(北京时间)".

A quote's ``observed_at`` is its 日期 at the page's stated update clock time (Beijing),
as naive UTC; with no stated update time, 00:00 Beijing of that date.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time
from decimal import Decimal
from functools import lru_cache
from typing import Literal

from scrapers.gpu_names import canonical_gpu
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
from scrapers.sources.base import SecretSpec
from scrapers.units import parse_price, to_cny_per_card_hour

QUOTES_PATH = "/compute/quotes"
REQUIRED_HEADERS = ("品名", "区域", "报价口径", "均价", "单位", "日期")

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")

# The board names the same few cards every day, so the name lookup (regexes over every known
# model) is remembered per raw name; the result depends on nothing else.
_canonical_gpu = lru_cache(maxsize=1024)(canonical_gpu)


@lru_cache(maxsize=4096)
def _card_hour_price(avg: str, unit_raw: str) -> tuple[Decimal, Decimal]:
    """Listed 均价 and its CNY per card-hour. Prices repeat across regions and days and the
    parse (NFKC, regexes, Decimal division) is a large share of a row's cost, hence the cache;
    an error is raised, never cached."""
    price, unit_in_cell = parse_price(avg)
    if unit_in_cell:
        raise ParseError(f"均价 {avg!r} carries a unit; expected a number")
    # Quotes are per card (元/卡时): no machine size to divide by.
    _, per_card_hour = to_cny_per_card_hour(price, unit_raw, 1, per="card")
    return price, per_card_hour


def _is_login_page(tree) -> bool:
    """SMM answers a request without a valid session with its login form (modelled)."""
    if tree.css_first('input[type="password"]') is not None:
        return True
    title = tree.css_first("title")
    return title is not None and "登录" in text_of(title)


class SmmAdapter:
    """SMM 算力专区 quotes. The live site needs a logged-in session: its cookie comes from
    ``GPUPRICE_SMM_COOKIE`` (or the secrets file) and is sent as the ``Cookie`` header; a
    login page where the quotes should be is a parse error that says so."""

    name = "smm"
    kind: Literal["offers", "quotes", "offers+quotes"] = "quotes"
    currency = "CNY"
    secret = SecretSpec(env="GPUPRICE_SMM_COOKIE", header="Cookie", what="login cookie")

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str]:
        query = f"?as_of={as_of.isoformat()}" if as_of is not None else ""
        return [f"{base_url.rstrip('/')}{QUOTES_PATH}{query}"]

    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[SpotQuoteRow]:
        """Every quote on the board, or ``ParseError``. ``fetched_at`` is not needed: each
        quote carries its own date."""
        tree = load_html(body, url)
        simulated = is_simulated(tree)
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
        n_cols = len(col)
        i_card, i_region, i_basis = col["品名"], col["区域"], col["报价口径"]
        i_avg, i_unit, i_day = col["均价"], col["单位"], col["日期"]
        observed: dict[str, datetime] = {}  # by 日期 text: one date for the whole board, as a rule
        rows: list[SpotQuoteRow] = []
        for n, tr in enumerate(trs, 1):
            tds = tr.css("td")
            if len(tds) != n_cols:
                raise ParseError(f"{url}: row {n}: {len(tds)} cells for {n_cols} columns")
            # Only the columns read below: 价格区间 and 涨跌 are never looked at.
            card, region, basis = (
                text_of(tds[i_card]),
                text_of(tds[i_region]),
                text_of(tds[i_basis]),
            )
            what = f"{url}: {card} {region}"
            if not card or not region or not basis:
                raise ParseError(f"{what}: empty 品名, 区域 or 报价口径")
            unit_raw = text_of(tds[i_unit])
            try:
                price, per_card_hour = _card_hour_price(text_of(tds[i_avg]), unit_raw)
            except ParseError as exc:
                raise ParseError(f"{what}: {exc}") from None
            day_text = text_of(tds[i_day])
            observed_at = observed.get(day_text)
            if observed_at is None:
                if not _DAY.match(day_text):
                    raise ParseError(f"{what}: unreadable date {day_text!r}")
                try:
                    day = date.fromisoformat(day_text)
                except ValueError:
                    raise ParseError(f"{what}: invalid date {day_text!r}") from None
                observed_at = observed[day_text] = beijing_to_utc(datetime.combine(day, clock))
            rows.append(
                SpotQuoteRow(
                    observed_at=observed_at,
                    source="smm",
                    gpu=_canonical_gpu(card),
                    gpu_name_raw=card,
                    region=region,
                    basis=basis,
                    price=price,
                    unit_raw=unit_raw,
                    cny_per_card_hour=per_card_hour,
                    simulated=simulated,
                )
            )
        return rows
