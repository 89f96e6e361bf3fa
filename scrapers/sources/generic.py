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
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from msgspec.structs import replace
from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.fx import FxRates
from scrapers.gpu_names import canonical_gpu
from scrapers.http import Request
from scrapers.rows import Billing, OfferRow, ParseError
from scrapers.sources import _jsonld
from scrapers.sources._json import number, positive_number
from scrapers.sources._page import before_gb, is_simulated, load_html, naive_utc, nfkc
from scrapers.units import parse_money, parse_period, per_card_hour

Per = Literal["card", "machine"]
# A page's row builder (GenericAdapter._row_maker).
_RowMaker = Callable[[str, str, str, int | None, int, str | None, Decimal, str, str, str], OfferRow]

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
_VRAM = re.compile(r"(\d+(?:\.\d+)?)\s*(?:GB|G|GIB)?\b", re.IGNORECASE)
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


def _roles_by_word(synonyms: dict[str, frozenset[str]]) -> dict[str, str]:
    """Each synonym's role; a word under two roles has the first, as a search in order finds."""
    found: dict[str, str] = {}
    for role, words in synonyms.items():
        for word in words:
            found.setdefault(word, role)
    return found


_ROLE_OF = _roles_by_word(SYNONYMS)  # one lookup per header instead of a search of them all


def _key(header: str) -> tuple[str, str | None]:
    """A header's comparable name and the unit hint in its parentheses, if any. ``header`` is
    a cell's text as :func:`_texts` gives it: already NFKC with single spaces (``nfkc`` would
    return it unchanged, so it is not called again)."""
    # Cheap tests first: most headers have no brackets, and most no _HEADER_NOISE but spaces
    # (none of its characters is alphanumeric).
    name, hint = header, None
    if "(" in header or "[" in header or "（" in header:
        if "[" in header or "（" in header or "]" in header or "）" in header:
            parts = _HINT.split(header)  # the text around each hint, and each hint
            name = "".join(parts[::2])
            hint = parts[1].strip() if len(parts) > 1 else None
        else:
            # Brackets of one kind, "(" and ")" ("价格(元/时)"): _HINT.split's parts from
            # str.partition, when there is one "(" (a second would start another hint).
            before, _, rest = header.partition("(")
            if "(" in rest:
                parts = _HINT.split(header)
                name = "".join(parts[::2])
                hint = parts[1].strip() if len(parts) > 1 else None
            else:
                inside, closed, after = rest.partition(")")
                if closed:  # a "(" with no ")" after it is no hint, and stays in the name
                    name, hint = before + after, inside.strip()
    if not name.isalnum():
        spaced = name.replace(" ", "")
        if spaced.isalnum():
            name = spaced
        elif (
            spaced.isprintable() and ":" not in spaced and "：" not in spaced and "*" not in spaced
        ):
            # No _HEADER_NOISE left: isprintable() is False for every whitespace character
            # but the space ("# GPUs").
            name = spaced
        else:
            name = _HEADER_NOISE.sub("", name)
    return name.lower(), hint


def _role(name: str, hint: str | None) -> str | None:
    role = _ROLE_OF.get(name)
    if role is not None:
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
        observed = naive_utc(fetched_at)
        row = self._row_maker(observed, is_simulated(tree))
        # This page's card names by (name, memory): canonical_gpu is pure, and a page names
        # the same card in several rows or offers. A memo of this page only, dropped with it.
        gpus: dict[tuple[str, int | None], str] = {}
        rows: list[OfferRow] = []
        if self.options.jsonld:
            rows += self._from_jsonld(tree, url, row, gpus)
        headers_seen: list[_Seen] = []
        if self.options.tables:
            rows += self._from_tables(tree, url, row, gpus, headers_seen)
        if not rows:
            raise ParseError(
                f"{url}: no schema.org Offer and no table with a GPU-model and a price column "
                f"(headers seen: {_seen(headers_seen)})"
            )
        if len({row.offer_id for row in rows}) == len(rows):
            return rows  # the usual page: no listing twice, nothing to number
        # The same listing twice on one page keeps both, numbered.
        counts: dict[str, int] = {}
        unique = []
        for row in rows:
            n = counts[row.offer_id] = counts.get(row.offer_id, 0) + 1
            unique.append(row if n == 1 else _renamed(row, f"{row.offer_id}#{n}"))
        return unique

    # -- JSON-LD -------------------------------------------------------------------------

    def _from_jsonld(
        self,
        tree: LexborHTMLParser,
        url: str,
        row: _RowMaker,
        gpus: dict[tuple[str, int | None], str],
    ) -> list[OfferRow]:
        rows: list[OfferRow] = []
        items = _jsonld.blocks(tree, url)
        if not items:
            return rows  # most pages have no JSON-LD: nothing for all_offers to walk
        for n, ld in enumerate(_jsonld.all_offers(items), 1):
            item = ld.product or {}
            name = str(item.get("name") or ld.offer.get("name") or "").strip()
            label = str(ld.offer.get("name") or "").strip()
            if not name:
                raise ParseError(f"{url}: JSON-LD offer {n} (unnamed): names no product")
            # Messages are built only when raised: most offers raise none.
            raw_price = ld.offer.get("price")
            if raw_price is None:
                raise ParseError(f"{url}: JSON-LD offer {n} ({name}): no price")
            price = positive_number(raw_price)
            if price is None:  # not a positive number: number() raises with the reason
                price = number(raw_price, f"{url}: JSON-LD offer {n} ({name}): price")
            currency = (ld.currency or self.options.currency or "").upper()
            if not currency:
                raise ParseError(
                    f"{url}: JSON-LD offer {n} ({name}): no priceCurrency and no [extract].currency"
                )
            unit = _jsonld.unit_of(ld.offer) or self.options.unit
            if not unit:
                raise ParseError(
                    f"{url}: JSON-LD offer {n} ({name}): no priceSpecification period and no "
                    "[extract].unit"
                )
            # properties() reads additionalProperty alone: an item without one has none.
            props = _jsonld.properties(item) if "additionalProperty" in item else None
            if props:
                vram = _vram(props.get("vram") or props.get("gpu memory") or "")
                count = _count(props.get("gpus") or props.get("gpu count") or "") or 1
            else:  # what the lines above give with no properties (_vram("") and _count(""))
                vram, count = None, 1
            key = f"ld|{name}|{label}" if label else f"ld|{name}"  # name is never empty here
            try:
                gpu = gpus.get((name, vram))
                if gpu is None:
                    gpu = gpus[name, vram] = canonical_gpu(name, vram)
                rows.append(row(key, name, gpu, vram, count, None, price, currency, unit, label))
            except ParseError as exc:
                raise ParseError(f"{url}: JSON-LD offer {n} ({name}): {exc}") from None
        return rows

    # -- tables --------------------------------------------------------------------------

    def _from_tables(
        self,
        tree: LexborHTMLParser,
        url: str,
        row: _RowMaker,
        gpus: dict[tuple[str, int | None], str],
        headers_seen: list[_Seen],
    ) -> list[OfferRow]:
        rows: list[OfferRow] = []
        selector = self.options.table_selector
        # The default needs no CSS engine (_page.py says why); a configured selector does.
        tables = tree.tags("table") if selector == "table" else tree.css(selector)
        for t, table in enumerate(tables, 1):
            seen, headers, body_rows = _head(table)
            if seen is None:
                continue
            headers_seen.append(seen)
            if not body_rows:
                continue  # a header alone (or a one-row notice) gives no rows, whatever it says
            if headers is None:
                headers = _texts(seen if type(seen) is list else _cells(seen))
            keys = [_key(h) for h in headers]
            # _role's first step inlined (a role is never empty): most headers are a synonym.
            roles = [_ROLE_OF.get(name) or _role(name, hint) for name, hint in keys]
            if "gpu" not in roles or "price" not in roles:
                continue
            rows += self._table_rows(url, t, headers, keys, roles, body_rows, row, gpus)
        return rows

    def _table_rows(
        self,
        url: str,
        t: int,
        headers: list[str],
        keys: list[tuple[str, str | None]],
        roles: list[str | None],
        body_rows: list[LexborNode],
        row: _RowMaker,
        gpus: dict[tuple[str, int | None], str],
    ) -> list[OfferRow]:
        """The rows of table ``t``, whose header names a GPU-model and a price column."""
        rows: list[OfferRow] = []
        # Everything the header decides, once per table rather than once per row or price.
        col = {role: roles.index(role) for role in roles if role and role != "price"}
        gpu_col = col["gpu"]
        vram_col = col.get("vram")
        count_col = col.get("count")
        region_col = col.get("region")
        unit_col = col.get("unit")
        price_cols = [i for i, role in enumerate(roles) if role == "price"]
        several = len(price_cols) > 1
        # Per price column: index, header, its part of the offer id, the currency and the
        # unit its header's parentheses state.
        columns = [
            (c, headers[c], keys[c][0], _currency_in(keys[c][1]), _unit_hint(keys[c][1]))
            for c in price_cols
        ]
        default_unit = self.options.unit
        default_currency = self.options.currency
        width = len(headers)
        # Whether to try _compact_texts: until a row is not compact (a table written with
        # line breaks between its cells has none), when trying costs a serialisation for
        # nothing. Either way the texts are the same.
        compact = True
        for r, tr in enumerate(body_rows, 1):
            cells = _compact_texts(tr) if compact else None
            if cells is None:
                compact = False
                cells = _walked_texts(tr)
            if not any(cells):
                continue
            # Messages are built only when raised: most rows raise none.
            if len(cells) != width:
                raise ParseError(
                    f"{url}: table {t} row {r}: {len(cells)} cells for {len(headers)} columns"
                )
            name = cells[gpu_col]
            if not name:
                raise ParseError(f"{url}: table {t} row {r}: empty GPU model")
            # The usual cells ("24GB", "8") read here, without a call: what _vram and _count
            # give them (a whole number, None for 0); anything else is theirs to read.
            vram = None
            if vram_col is not None:
                text = cells[vram_col]
                digits = before_gb(text)
                vram = (
                    (int(digits) or None)
                    if digits and digits.isdecimal() and text.isascii()
                    else _vram(text)
                )
            count = 1
            if count_col is not None:
                text = cells[count_col]
                count = (int(text) or None) if text.isdecimal() and text.isascii() else _count(text)
            if count is None:
                raise ParseError(
                    f"{url}: table {t} row {r}: unreadable GPU count {cells[count_col]!r}"
                )
            region = None if region_col is None else cells[region_col] or None
            unit_cell = "" if unit_col is None else cells[unit_col]
            # The offer id's parts up to the price column's name, the same for each column
            # (those present: vram is None or positive, count positive, region None or text).
            listing = f"t{t}|{name}|{vram}|{count}" if vram else f"t{t}|{name}|{count}"
            if region:
                listing = f"{listing}|{region}"
            # One card, whichever price column; the same name and memory, the same card.
            gpu = gpus.get((name, vram))
            if gpu is None:
                gpu = gpus[name, vram] = canonical_gpu(name, vram)
            for c, header, suffix, hint_currency, hint_unit in columns:
                text = cells[c]
                if several and text in _NO_PRICE_CELL:
                    continue  # this listing has no price in this mode
                try:
                    price, currency, unit = parse_money(text)
                except ParseError as exc:
                    raise ParseError(f"{url}: table {t} row {r} ({header}): {exc}") from None
                # parse_money names USD or CNY or nothing; only then do the header, the unit
                # column and the configuration matter.
                if not currency:
                    # The header's currency is _currency_in's, upper case already.
                    currency = (
                        hint_currency or (_currency_in(unit_cell) or default_currency or "").upper()
                    )
                    if not currency:
                        raise ParseError(
                            f"{url}: table {t} row {r} ({header}): the price names no currency"
                        )
                unit = unit or unit_cell or hint_unit or default_unit
                if not unit:
                    raise ParseError(f"{url}: table {t} row {r} ({header}): no billing "
                                     "period in the cell, header, unit column or "
                                     "[extract].unit")  # fmt: skip
                try:
                    rows.append(
                        row(f"{listing}|{suffix}" if suffix else listing, name, gpu, vram,
                            count, region, price, currency, unit, header)
                    )  # fmt: skip
                except ParseError as exc:
                    raise ParseError(f"{url}: table {t} row {r} ({header}): {exc}") from None
        return rows

    def _row_maker(self, observed: datetime, simulated: bool) -> _RowMaker:
        """This page's ``row(offer_id, name, gpu, vram, count, region, price, currency, unit,
        label)``: one row; a ``ParseError`` from it is the caller's to prefix with where it
        was. A closure rather than a method: what is the same for every row of the page is
        bound once, not passed (or looked up on ``self``) for each."""
        source = self.name
        price_per = self.options.price_per
        to_cny = self.fx.converter(observed.date())  # this page's rates

        def row(
            offer_id: str,
            name: str,
            gpu: str,
            vram: int | None,
            count: int,
            region: str | None,
            price: Decimal,
            currency: str,
            unit: str,
            label: str,
        ) -> OfferRow:
            hours, per = parse_period(unit)
            listed = price.quantize(PRICE_QUANTUM, ROUND_HALF_UP)
            norm_unit, native = per_card_hour(listed, currency, hours, count, per or price_per)
            cny = to_cny(native, currency)
            # The required fields by position, the rest by name: a row per price, and
            # keywords cost a fifth of building one (the order is checked by the equivalence
            # tests). _billing after the conversion, as the errors' order was.
            billing = _billing(hours, label)
            return OfferRow(
                observed, source, offer_id, gpu, name, count, vram, billing, listed, currency,
                norm_unit, unit, cny, list_price=listed, region=region, simulated=simulated,
            )  # fmt: skip

        return row


_NO_PRICE_CELL = frozenset({"", "-", "—", "--"})


def _unit_hint(hint: str | None) -> str | None:
    """A header hint that is a unit ("元/时" in "价格(元/时)"), else ``None``."""
    return hint if hint and "/" in hint else None


def _tag_ids() -> dict[str, int]:
    # lexbor's ids of the table tags, as this lexbor numbers them: comparing a node's
    # ``tag_id`` costs less than building its ``tag`` name, and a table walk compares many.
    tree = LexborHTMLParser("<table><thead><tr><th></th></tr></thead><tbody><tr><td>")
    return {tag: tree.tags(tag)[0].tag_id for tag in ("thead", "tbody", "tr", "th", "td")}


_TAG_IDS = _tag_ids()
_THEAD, _TBODY, _TR, _TH, _TD = (_TAG_IDS[t] for t in ("thead", "tbody", "tr", "th", "td"))
_CELL_IDS = frozenset((_TD, _TH))


def _cells(tr: LexborNode) -> list[LexborNode]:
    """A row's own cells (a table nested in a cell is part of that cell's text)."""
    return [cell for cell in tr.iter() if cell.tag_id in _CELL_IDS]


def _texts(nodes: list[LexborNode]) -> list[str]:
    """Each node's ``text_of`` (NFKC, whitespace collapsed), without a call per node."""
    return _normalised([node.text(True, " ") for node in nodes])  # deep, separator


def _compact_texts(tr: LexborNode) -> list[str] | None:
    """``_texts(_cells(tr))`` for a row written compactly, read from its serialisation:
    ``<td>A</td><td>B</td>`` (or ``th`` throughout), nothing between the cells and nothing in
    them but text. ``None`` for any other row.

    One serialisation of the row costs a third of asking lexbor for each cell's text (a
    call, and a node object, per cell). The serialisation holds each text node's data as it
    is but for ``&``, U+00A0, ``<`` and ``>``, which it writes as entities: with no ``&`` in
    it, the texts are those data. Every ``<`` in it then starts a tag or a comment, so with
    two per cell (``<td>`` and ``</td>``) there is nothing else: each cell holds one text
    node or none, and the row holds those cells alone (a node or text between them would be
    serialised too). ``<td>`` is how the serialiser writes a td element (lower case, no
    attributes); lexbor numbers tags by name, so a ``td`` of SVG is one for ``_cells`` too."""
    html = tr.inner_html
    tag = html[:4]
    if (tag == "<td>" or tag == "<th>") and "&" not in html:
        close = "</td>" if tag == "<td>" else "</th>"
        if html.endswith(close):
            texts = html[4:-5].split(close + tag)
            if html.count("<") == 2 * len(texts):
                if not _tidy(html):
                    return _normalised(texts)
                if html.isascii():
                    return texts  # ASCII is its own NFKC, and tidy: nothing to change
                return [text if text.isascii() else nfkc(text) for text in texts]
    return None


def _tidy(html: str) -> bool:
    """Whether each text of a compact row's serialisation is already whitespace-collapsed
    (``" ".join(text.split()) == text``): no whitespace but single spaces inside a text.
    isprintable() is False for every whitespace character but the space; a text begins
    after a ``>`` and ends before a ``<``, and the tags hold no space."""
    return html.isprintable() and "  " not in html and "> " not in html and " <" not in html


def _walked_texts(tr: LexborNode) -> list[str]:
    """``_texts(_cells(tr))`` in one pass: one comprehension, as in _normalised (which says
    why it gives text_of's texts), with no list of raw texts between."""
    return [
        " ".join(text.split()) if text.isascii() else nfkc(text)
        for cell in tr.iter()
        if cell.tag_id in _CELL_IDS
        for text in (cell.text(True, " "),)  # deep, separator; bound once per cell
    ]


def _normalised(texts: list[str]) -> list[str]:
    # The texts come unstripped (text_of strips each piece): nfkc's split drops the same
    # whitespace, and NFKC joins nothing across whitespace, so the result is text_of's. An
    # ASCII cell (most of them) is nfkc'd here, without a call per cell.
    return [" ".join(t.split()) if t.isascii() else nfkc(t) for t in texts]


def _sections(table: LexborNode) -> tuple[list[LexborNode], list[LexborNode]]:
    """The ``thead`` rows and the ``tbody`` rows of a table, walked from the table's own
    children rather than with ``css("thead tr")`` and ``css("tbody tr")``: no CSS engine to
    build (``_page.py`` says why), and the rows of a table nested in a cell are not taken for
    this table's rows. A ``tfoot`` (notes, totals) is not a listing."""
    head: list[LexborNode] = []
    rows: list[LexborNode] = []
    # HTML parsing puts rows written straight under <table> into a tbody (the HTML standard's
    # "in table" insertion mode), so every row is in a thead, tbody or tfoot.
    for section in table.iter():
        kind = section.tag_id
        if kind == _TBODY:
            rows += [tr for tr in section.iter() if tr.tag_id == _TR]
        elif kind == _THEAD:
            head += [tr for tr in section.iter() if tr.tag_id == _TR]
    return head, rows


def _head(table: LexborNode) -> tuple[_Seen | None, list[str] | None, list[LexborNode]]:
    """A table's header and body rows: the ``thead``'s ``th`` cells (else its ``td``) and the
    ``tbody`` rows, or else the first row's cells and the other rows (:func:`_sections`); as
    ``(seen, headers, body rows)``: what ``headers_seen``
    keeps of the header (its cells, or the row whose cells they all are; ``None`` when there
    are none), and their texts where they were read on the way (a compact row), else
    ``None``. A one-row table's header is left unread: with no body rows it matters only
    to the message of a page with no rows at all (:func:`_seen`)."""
    head_rows, rows = _sections(table)
    if len(head_rows) == 1:
        # A compact row's cells are all th or all td: the header is all of them either way.
        headers = _compact_texts(head_rows[0])
        if headers is not None:
            return head_rows[0], headers, rows
    head = [cell for tr in head_rows for cell in _cells(tr)]
    if head:
        return [cell for cell in head if cell.tag_id == _TH] or head, None, rows
    if len(rows) > 1:
        headers = _compact_texts(rows[0])
        if headers is not None:
            return rows[0], headers, rows[1:]
        return _cells(rows[0]) or None, None, rows[1:]
    return (rows[0] if rows else None), None, []


# What _from_tables notes of a table with a header (_head): its header cells, or the row
# whose cells are all of them (looked for only if the message needs them).
_Seen = list[LexborNode] | LexborNode


def _seen(headers_seen: list[_Seen]) -> str:
    """The first five headers seen, for the message of a page with no rows."""
    texts = []
    for seen in headers_seen:
        cells = seen if type(seen) is list else _cells(seen)
        if cells:
            texts.append(" | ".join(_texts(cells)))
            if len(texts) == 5:
                break
    return "; ".join(texts) or "no tables"


def _vram(text: str) -> int | None:
    if not text:
        return None  # what the steps below give "" (no property, no cell), without them
    # NFKC only: collapsing whitespace, as nfkc() also does, changes no match of _VRAM.
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    # "24GB", "80 GB", "24": the number is all _VRAM would take, found without it.
    digits = before_gb(text)
    if digits is None:
        digits = text
    if not digits.isdecimal():
        m = _VRAM.search(text)
        if m is None:
            return None
        digits = m[1]
        if "." in digits:
            value = Decimal(digits)
            return int(value) if value == value.to_integral_value() and value > 0 else None
    whole = int(digits)  # whole digits: int() is the Decimal's value, far cheaper
    return whole if whole > 0 else None


def _count(text: str) -> int | None:
    if not text:
        return None  # as in _vram
    # NFKC only, as in _vram: whitespace changes no match of _COUNT.
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    if text.isdecimal():  # a count alone ("8"): what _COUNT would match, found without it
        value = int(text)
    else:
        m = _COUNT.search(text)
        if m is None:
            return None
        value = int(m[1])
    return value if value > 0 else None


def _currency_in(text: str | None) -> str | None:
    if not text:
        return None
    low = nfkc(text).lower()
    if "$" in low or "usd" in low:
        return "USD"
    if "¥" in low or "元" in low or "cny" in low or "rmb" in low:
        return "CNY"
    return None


def _renamed(row: OfferRow, offer_id: str) -> OfferRow:
    return replace(row, offer_id=offer_id)
