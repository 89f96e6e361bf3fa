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
        rows: list[SpotQuoteRow] = []
        for n, tr in enumerate(trs, 1):
            cells = [text_of(td) for td in tr.css("td")]
            what = f"{url}: row {n}"
            if len(cells) != len(col):
                raise ParseError(f"{what}: {len(cells)} cells for {len(col)} columns")
            card, region, basis = cells[col["品名"]], cells[col["区域"]], cells[col["报价口径"]]
            what = f"{url}: {card} {region}"
            if not card or not region or not basis:
                raise ParseError(f"{what}: empty 品名, 区域 or 报价口径")
            try:
                price, unit_in_cell = parse_price(cells[col["均价"]])
                if unit_in_cell:
                    raise ParseError(
                        f"均价 {cells[col['均价']]!r} carries a unit; expected a number"
                    )
                unit_raw = cells[col["单位"]]
                # Quotes are per card (元/卡时): no machine size to divide by.
                _, per_card_hour = to_cny_per_card_hour(price, unit_raw, 1, per="card")
            except ParseError as exc:
                raise ParseError(f"{what}: {exc}") from None
            day_text = cells[col["日期"]]
            if not _DAY.match(day_text):
                raise ParseError(f"{what}: unreadable date {day_text!r}")
            try:
                day = date.fromisoformat(day_text)
            except ValueError:
                raise ParseError(f"{what}: invalid date {day_text!r}") from None
            rows.append(
                SpotQuoteRow(
                    observed_at=beijing_to_utc(datetime.combine(day, clock)),
                    source="smm",
                    gpu=canonical_gpu(card),
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
