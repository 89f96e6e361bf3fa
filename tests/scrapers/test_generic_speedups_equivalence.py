"""The generic extractor's fast paths (scrapers/sources/generic.py, and the parts of
scrapers/units.py and scrapers/gpu_names.py it leans on) give what the plain versions they
replaced give. Each ``_ref_*`` below (and ``ref_*`` of tests/scrapers/plain_versions.py,
shared with the other equivalence tests) is the earlier, straightforward implementation, kept
here as the specification; the fast one must agree with it on every input, errors included
(type and message). The whole extractor is compared too: ``_RefAdapter`` is the extractor as
it was, run beside today's on the fixture pages and on generated ones."""

from __future__ import annotations

import codecs
import json
import random
import re
from collections.abc import Callable
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers import gpu_names, units
from scrapers.fx import FxRate, FxRates
from scrapers.gpu_names import canonical_gpu
from scrapers.rows import OfferRow, ParseError
from scrapers.sources import _jsonld, _page, generic
from scrapers.sources._json import number
from scrapers.sources._page import (
    child_elements,
    is_simulated,
    load_html,
    naive_utc,
    nfkc,
    text_of,
)
from scrapers.sources.generic import SYNONYMS, GenericAdapter, GenericOptions
from tests.scrapers.fixture_pages import PAGES_DIR
from tests.scrapers.live_fixtures import LIVE_DIR
from tests.scrapers.plain_versions import (
    ref_canonical_gpu,
    ref_parse_money,
    ref_parse_period,
)

FETCHED = datetime(2026, 9, 10, 3, 0)
FX = FxRates((), (FxRate(date(2026, 9, 1), "USD", Decimal("7.10"), "configured default"),))
URL = "https://gpu.example.com/p"

# -- the plain versions ----------------------------------------------------------------------


def _ref_key(header: str) -> tuple[str, str | None]:
    text = nfkc(header)
    hint = generic._HINT.search(text)
    name = generic._HINT.sub("", text) if hint else text
    return generic._HEADER_NOISE.sub("", name).lower(), (hint["hint"].strip() if hint else None)


def _ref_role(name: str, hint: str | None) -> str | None:
    for role, words in SYNONYMS.items():
        if name in words:
            return role
    if not name and hint and "/" in hint:
        return "price"
    return None


def _ref_cells(tr: LexborNode) -> list[LexborNode]:
    return child_elements(tr, ("td", "th"))


def _ref_split(table: LexborNode) -> tuple[list[LexborNode], list[LexborNode]]:
    head: list[LexborNode] = []
    rows: list[LexborNode] = []
    for section in child_elements(table, ("thead", "tbody")):
        trs = child_elements(section, ("tr",))
        if section.tag == "thead":
            head += [cell for tr in trs for cell in _ref_cells(tr)]
        else:
            rows += trs
    if head:
        headers = [cell for cell in head if cell.tag == "th"]
        return headers or head, rows
    if not rows:
        return [], []
    return _ref_cells(rows[0]), rows[1:]


def _ref_vram(text: str) -> int | None:
    m = generic._VRAM.search(nfkc(text))
    if m is None:
        return None
    value = Decimal(m[1])
    return int(value) if value == value.to_integral_value() and value > 0 else None


def _ref_count(text: str) -> int | None:
    m = generic._COUNT.search(nfkc(text))
    if m is None:
        return None
    value = int(m[1])
    return value if value > 0 else None


class _RefAdapter(GenericAdapter):
    """The extractor as it was before its fast paths, on the plain helpers above."""

    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[OfferRow]:
        tree = load_html(body, url)
        observed = naive_utc(fetched_at)
        simulated = is_simulated(tree)
        rows: list[OfferRow] = []
        to_cny = self.fx.converter(observed.date())
        if self.options.jsonld:
            rows += self._ref_from_jsonld(tree, url, observed, simulated, to_cny)
        headers_seen: list[list[str]] = []
        if self.options.tables:
            rows += self._ref_from_tables(tree, url, observed, simulated, headers_seen, to_cny)
        if not rows:
            seen = "; ".join(" | ".join(h) for h in headers_seen[:5]) or "no tables"
            raise ParseError(
                f"{url}: no schema.org Offer and no table with a GPU-model and a price column "
                f"(headers seen: {seen})"
            )
        counts: dict[str, int] = {}
        unique = []
        for row in rows:
            n = counts[row.offer_id] = counts.get(row.offer_id, 0) + 1
            unique.append(row if n == 1 else generic._renamed(row, f"{row.offer_id}#{n}"))
        return unique

    def _ref_from_jsonld(
        self, tree: LexborHTMLParser, url: str, observed: datetime, simulated: bool, to_cny: Any
    ) -> list[OfferRow]:
        rows = []
        for n, ld in enumerate(_jsonld.all_offers(_jsonld.blocks(tree, url)), 1):
            item = ld.product or {}
            name = str(item.get("name") or ld.offer.get("name") or "").strip()
            label = str(ld.offer.get("name") or "").strip()
            what = f"{url}: JSON-LD offer {n} ({name or 'unnamed'})"
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
            vram = _ref_vram(props.get("vram") or props.get("gpu memory") or "")
            count = _ref_count(props.get("gpus") or props.get("gpu count") or "") or 1
            key = "|".join(p for p in ("ld", name, label) if p)
            try:
                row = self._ref_row(
                    observed, simulated, key, name, ref_canonical_gpu(name, vram), vram, count,
                    None, price, currency, unit, label, to_cny,
                )  # fmt: skip
            except ParseError as exc:
                raise ParseError(f"{what}: {exc}") from None
            rows.append(row)
        return rows

    def _ref_from_tables(
        self,
        tree: LexborHTMLParser,
        url: str,
        observed: datetime,
        simulated: bool,
        headers_seen: list[list[str]],
        to_cny: Any,
    ) -> list[OfferRow]:
        rows = []
        selector = self.options.table_selector
        tables = tree.tags("table") if selector == "table" else tree.css(selector)
        for t, table in enumerate(tables, 1):
            header_cells, body_rows = _ref_split(table)
            if not header_cells:
                continue
            headers = [text_of(c) for c in header_cells]
            headers_seen.append(headers)
            keys = [_ref_key(h) for h in headers]
            roles = [_ref_role(name, hint) for name, hint in keys]
            if "gpu" not in roles or "price" not in roles:
                continue
            col = {role: roles.index(role) for role in roles if role and role != "price"}
            price_cols = [i for i, role in enumerate(roles) if role == "price"]
            several = len(price_cols) > 1
            hint_currency = {c: generic._currency_in(keys[c][1]) for c in price_cols}
            for r, tr in enumerate(body_rows, 1):
                cells = [text_of(td) for td in _ref_cells(tr)]
                if not any(cells):
                    continue
                if len(cells) != len(headers):
                    raise ParseError(
                        f"{url}: table {t} row {r}: {len(cells)} cells for {len(headers)} columns"
                    )
                name = cells[col["gpu"]]
                if not name:
                    raise ParseError(f"{url}: table {t} row {r}: empty GPU model")
                vram = _ref_vram(cells[col["vram"]]) if "vram" in col else None
                count = _ref_count(cells[col["count"]]) if "count" in col else 1
                if count is None:
                    raise ParseError(
                        f"{url}: table {t} row {r}: unreadable GPU count {cells[col['count']]!r}"
                    )
                region = cells[col["region"]] or None if "region" in col else None
                unit_cell = cells[col["unit"]] if "unit" in col else ""
                listing = "|".join([str(p) for p in (f"t{t}", name, vram, count, region) if p])
                gpu = ref_canonical_gpu(name, vram)
                for c in price_cols:
                    text = cells[c]
                    if several and text in {"", "-", "—", "--"}:
                        continue
                    where = f"{url}: table {t} row {r} ({headers[c]})"
                    try:
                        price, currency, unit = ref_parse_money(text)
                    except ParseError as exc:
                        raise ParseError(f"{where}: {exc}") from None
                    hint = keys[c][1]
                    if not currency:
                        currency = hint_currency[c] or generic._currency_in(unit_cell)
                    currency = (currency or self.options.currency or "").upper()
                    if not currency:
                        raise ParseError(f"{where}: the price names no currency")
                    unit = unit or unit_cell or (hint if hint and "/" in hint else None)
                    unit = unit or self.options.unit
                    if not unit:
                        raise ParseError(f"{where}: no billing period in the cell, header, unit "
                                         "column or [extract].unit")  # fmt: skip
                    key = f"{listing}|{keys[c][0]}" if keys[c][0] else listing
                    try:
                        row = self._ref_row(
                            observed, simulated, key, name, gpu, vram, count, region, price,
                            currency, unit, headers[c], to_cny,
                        )  # fmt: skip
                    except ParseError as exc:
                        raise ParseError(f"{where}: {exc}") from None
                    rows.append(row)
        return rows

    def _ref_row(
        self,
        observed: datetime,
        simulated: bool,
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
        to_cny: Any,
    ) -> OfferRow:
        hours, per = ref_parse_period(unit)
        listed = price.quantize(generic.PRICE_QUANTUM, ROUND_HALF_UP)
        norm_unit, native = units.per_card_hour(
            listed, currency, hours, count, per or self.options.price_per
        )
        cny = to_cny(native, currency)
        billing = generic._billing(hours, label)
        return OfferRow(
            observed_at=observed,
            source=self.name,
            offer_id=offer_id,
            gpu=gpu,
            gpu_name_raw=name,
            gpu_count=count,
            vram_gb=vram,
            billing=billing,
            price=listed,
            currency=currency,
            unit=norm_unit,
            unit_raw=unit,
            cny_per_card_hour=cny,
            list_price=listed,
            region=region,
            simulated=simulated,
        )


def _outcome(fn: Callable[..., Any], *args: Any) -> tuple[str, str]:
    """What a call gives, by ``repr`` (a Decimal's exponent counts), or what it raises."""
    try:
        return "ok", repr(fn(*args))
    except Exception as exc:  # any exception: the same one
        return type(exc).__name__, str(exc)


# -- texts -----------------------------------------------------------------------------------

_SPACES = [chr(c) for c in range(0x110000) if chr(c).isspace()]
# Characters NFKC changes, composes or reorders: full-width forms, compatibility spaces,
# combining marks, Hangul jamo and an Oriya vowel pair (starters that compose), ligatures.
_TRICKY = [
    "\u0301", "\u0308", "\u0345", "\u00a8", "\u00b4", "\uff21", "\uff10", "\u2126", "\ufb01",
    "\u1100", "\u1161", "\u11a8", "\u0b47", "\u0b3e", "\u3000", "\u00a0", "\u2007", "e",
    "１", "，", "（", "）", "：", "＊", "元", "ℌ", "²", "①", "٢", "\u200b", "Ｇ", "ｂ",
]  # fmt: skip
_WORDS = [
    "RTX 4090", "24GB", "1.89", "$2.69/hr", "1,088", "华东-杭州", "per hour", "H100 80GB HBM3",
    "GPU型号", "价格(元/时)", "Price ($/hr)", "# GPUs", "显存:", "*单价*", "[USD]", "-", "—",
    "ＲＴＸ４０９０", "８", "x8", "0", "面议", "元/卡时", "NVIDIA GeForce RTX 4090", "80 GB",
]  # fmt: skip


def _fixture_texts() -> list[str]:
    texts: set[str] = set()
    for folder in (LIVE_DIR, PAGES_DIR):
        for path in sorted(folder.glob("*.htm*")):
            page = path.read_text("utf-8", "replace")
            texts.update(m[:60] for m in re.findall(r">([^<>]{1,80})<", page))
    return sorted(texts)


def _random_text(rnd: random.Random) -> str:
    parts = []
    for _ in range(rnd.randrange(1, 5)):
        pick = rnd.random()
        if pick < 0.3:
            parts.append(rnd.choice(_SPACES) * rnd.randrange(1, 3))
        elif pick < 0.6:
            parts.append(rnd.choice(_TRICKY))
        else:
            parts.append(rnd.choice(_WORDS))
    return "".join(parts)


def _texts_corpus() -> list[str]:
    rnd = random.Random(20261201)
    texts = set(_fixture_texts()) | set(_WORDS) | set(_TRICKY)
    texts |= {_random_text(rnd) for _ in range(3000)}
    return sorted(texts)


TEXTS = _texts_corpus()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cell_html(rnd: random.Random) -> str:
    """A cell's content: text, or text in several pieces (elements, comments, a nested
    table), each piece possibly padded with any kind of whitespace."""
    pieces = [_escape(_random_text(rnd)) for _ in range(rnd.randrange(1, 4))]
    if len(pieces) == 1 and rnd.random() < 0.5:
        return pieces[0]
    wrap = rnd.choice(["<b>{}</b>", "<span> {} </span>", "<!-- x -->{}", "<br>{}", "{}\n",
                       "<table><tr><td>{}</td></tr></table>", "<i>{}</i><small>/hr</small>"])  # fmt: skip
    return "".join(wrap.format(piece) if rnd.random() < 0.6 else piece for piece in pieces)


# Elements HTML parsing leaves among a table's rows and cells that are neither.
_NOT_CELLS = [
    "<script>var cell = '<td>x</td>';</script>", "<template><td>t</td></template>",
    "<style>td {}</style>", "<form></form>", "<input type=hidden name=x>", "<!-- a note -->",
]  # fmt: skip


def _text_pages() -> list[bytes]:
    rnd = random.Random(20261202)
    pages = [
        _html(
            f"<table><thead>{extra}<tr>{extra}<th>GPU</th><td>价格</td></tr></thead>"
            f"<tbody>{extra}<tr><td>RTX 4090</td>{extra}<td>1.89元/时</td></tr></tbody>"
            f"{extra}<tr><th>H100</th><td>9.9元/时</td>{extra}</tr></table>"
        )
        for extra in _NOT_CELLS
    ]
    for _ in range(60):
        rows = "".join(
            "<tr>" + "".join(f"<td>{_cell_html(rnd)}</td>" for _ in range(4)) + "</tr>"
            for _ in range(5)
        )
        pages.append(_html(f"<table><thead><tr><th>{_cell_html(rnd)}</th></tr></thead>{rows}"))
    return pages


def _html(body: str, head: str = "") -> bytes:
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>{head}</head><body>{body}</body></html>"
    ).encode()


def _fixture_pages() -> list[tuple[str, bytes]]:
    found = []
    for folder in (LIVE_DIR, PAGES_DIR):
        found += [(path.name, path.read_bytes()) for path in sorted(folder.iterdir())]
    return [(name, body) for name, body in found if not name.endswith(".md")]


FIXTURES = _fixture_pages()


def _all_trees() -> list[LexborHTMLParser]:
    bodies = [body for _, body in FIXTURES] + _text_pages() + [p for p, _ in GENERATED]
    return [LexborHTMLParser(body) for body in bodies if body.lstrip()[:1] == b"<"]


def _row_texts(tr: LexborNode) -> list[str]:
    """A row's cell texts as _table_rows reads them: from the serialisation, else walked."""
    texts = generic._compact_texts(tr)
    return generic._walked_texts(tr) if texts is None else texts


def test_cell_texts_are_text_of_each_cell() -> None:
    rows = 0
    for tree in _all_trees():
        for tr in tree.tags("tr"):
            cells = _ref_cells(tr)
            assert _row_texts(tr) == [text_of(td) for td in cells]
            assert generic._texts(cells) == [text_of(td) for td in cells]
            rows += 1
    assert rows > 1000


def test_body_rows_and_cells_are_the_plain_walks() -> None:
    tables = 0
    for tree in _all_trees():
        for table in tree.tags("table"):
            _, _, body = generic._head(table)  # its header: test_head_is_split_read_lazily
            _, ref_body = _ref_split(table)
            assert [n.mem_id for n in body] == [n.mem_id for n in ref_body]
            for tr in body:
                assert [n.mem_id for n in generic._cells(tr)] == [n.mem_id for n in _ref_cells(tr)]
            tables += 1
    assert tables > 500


def test_header_keys_and_roles_match_the_plain_versions() -> None:
    synonyms = [word for words in SYNONYMS.values() for word in sorted(words)]
    variants = [f"{w}{h}" for w in synonyms for h in ("", "(元/时)", " （$/hr）", "[USD]")]
    odd = ["(元/月)", "（）", "[", "a(b)c(d)", "价格 : *", "(a]b)", "x (y) z", "# GPUs", " ", ""]
    # _key's str paths: one "(" with or without a ")" after it, two, other brackets beside it,
    # and names with and without what _HEADER_NOISE removes.
    odd += [
        "a(b",
        "a)b(c",
        "(x)(y)",
        "a(b)c)",
        "([x)",
        "（a)",
        "a(b]c)",
        "a(b）",
        "(",
        ")",
        "()",
        "( 元/时 )",
        "价格()",
        "a (b) c (d",
        "x(y)z[",
        "#(a)",
        "a b",
        "a*b",
        "a:b",
        "a：b",
        "a\u00a0b",
        "a\tb",
        "a\u3000b",
        "#  gpus",
        "a(b:c)",
        "a:(b)",
        "-",
        "a-b c",
        "₂ x",
    ]
    for raw in TEXTS + variants + odd:
        header = " ".join(nfkc(raw).split())  # as text_of gives a header cell's text
        assert nfkc(header) == header  # what lets _key skip nfkc
        assert generic._key(header) == _ref_key(header), raw
        name, hint = generic._key(header)
        assert generic._role(name, hint) == _ref_role(name, hint), raw
    for word in synonyms + ["", "x"]:
        for hint in (None, "", "元/时", "USD"):
            assert generic._role(word, hint) == _ref_role(word, hint)
    # A word under two roles (none is, today) would have the first, as the search gave it.
    both = {"gpu": frozenset({"型号", "x"}), "price": frozenset({"x", "价格"})}
    assert generic._roles_by_word(both) == {"型号": "gpu", "x": "gpu", "价格": "price"}


def _prev_key(header: str) -> tuple[str, str | None]:
    """_key before its str paths (the regex split and substitution it falls back on)."""
    name, hint = header, None
    if "(" in header or "[" in header or "（" in header:
        parts = generic._HINT.split(header)
        name = "".join(parts[::2])
        hint = parts[1].strip() if len(parts) > 1 else None
    if not name.isalnum():
        spaced = name.replace(" ", "")
        name = spaced if spaced.isalnum() else generic._HEADER_NOISE.sub("", name)
    return name.lower(), hint


def test_header_key_is_its_previous_version_on_any_text() -> None:
    """Headers come collapsed (above); on any text, collapsed or not, _key still gives what
    it gave before its str paths (whitespace of every kind, brackets of every kind)."""
    rnd = random.Random(20261210)
    pieces = ["(", ")", "[", "]", "（", "）", "a", "价格", " ", "  ", "\t", "\u3000", "\u00a0",
              ":", "：", "*", "#", "元/时", "\x1c", "\n", "Ｇ"]  # fmt: skip
    made = {"".join(rnd.choice(pieces) for _ in range(rnd.randrange(1, 8))) for _ in range(4000)}
    for header in TEXTS + sorted(made):
        assert generic._key(header) == _prev_key(header), header


def test_vram_and_count_match_the_plain_versions() -> None:
    rnd = random.Random(20261206)
    alphabet = ["2", "4", "0", "8", "G", "B", "g", "b", "I", "i", " ", "\t", ".", "x", "٢", "２",
                "Ｇ", "²", "①", "፩", "卡", "-"]  # fmt: skip
    made = {"".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 7))) for _ in range(3000)}
    for text in TEXTS + sorted(made):
        assert _outcome(generic._vram, text) == _outcome(_ref_vram, text), text
        assert _outcome(generic._count, text) == _outcome(_ref_count, text), text


# -- units and names ---------------------------------------------------------------------------


def _numbers() -> list[str]:
    rnd = random.Random(20261203)
    digits = "0123456789²٣፩"
    texts = {"0", "0.0", ".5", "5.", "00.10", "1,088", "1,0888", "1234,567", "12,34", ",088",
             "1,088.", "1,088.5", "1,000,000", "１２", "٣.٥", "1.2.3", "-1", "+1", "1 000",
             "1,000,00", "1,00,000", "12,345,6789", ",", "1,", ",1", "1,,000", "1234,567,890",
             "٣,٥٥٥", "1,٣٣٣", "1,0a0", "a,000", "1,000.5.5", "0,000", "000,000,000.000"}  # fmt: skip
    for _ in range(3000):
        number = "".join(rnd.choice(digits + ",,.") for _ in range(rnd.randrange(0, 9)))
        mark = rnd.choice(["", "", "$", "¥", "￥", "US$", "USD ", "$ ", "RMB"])
        tail = rnd.choice(["", "", "/hr", " 元", "USD", " ", "元/月"])
        texts.add(mark + number + tail)
    return sorted(texts)


def test_parse_money_matches_the_plain_version() -> None:
    for text in TEXTS + _numbers():
        assert _outcome(units.parse_money, text) == _outcome(ref_parse_money, text), text


def test_plain_number_is_what_the_price_pattern_reads() -> None:
    for text in _numbers():
        m = units._MONEY.match(text)
        alone = m is not None and m["num"] == text  # no mark, unit or space around it
        expected = Decimal(m["num"].replace(",", "")) if alone else None
        assert repr(units._plain_number(text)) == repr(expected), text


def _units() -> list[str]:
    words = list(units._PERIOD_WORDS) + ["HR", "Hour", "季", "gpuhr", "卡时", "node", ""]
    found = set(TEXTS) | {"per  hour", "Per\thour", "PER HOUR", "per hour\x1c", "per ho ur",
                          "per\u3000hour", "per hour per gpu", "per/hour", "perhour", "per "}  # fmt: skip
    for word in words:
        for lead in (
            "/",
            "元/",
            "$/",
            "¥/",
            "￥/",
            "usd/",
            "RMB/",
            " /",
            "/ ",
            "per ",
            "元/卡/",
            "/GPU/",
            "¥",
            "",
        ):
            found |= {lead + word, lead + word + " ", lead + word.upper()}
    return sorted(found)


def test_parse_period_matches_the_plain_version() -> None:
    for text in _units():
        units.parse_period.cache_clear()
        assert _outcome(units.parse_period, text) == _outcome(ref_parse_period, text), text


def test_the_bare_period_words_are_the_ones_the_long_way_keeps() -> None:
    for word, hours in units._PERIOD_WORDS.items():
        bare = word in units._BARE_PERIODS
        for unit in ("/" + word, "元/" + word):
            assert (ref_parse_period(unit) == (hours, None)) or not bare, unit
    assert {"hr", "小时", "时", "month", "月"} <= set(units._BARE_PERIODS)


def _names() -> list[str]:
    rnd = random.Random(20261204)
    alphabet = ["G", "B", "GB", " ", "\t", "4090", "80", "1", "24", ".", "-", "A100", "H20",
                "٢", "Ｇ", "x", "NVL", "D", "SXM4", "1234"]  # fmt: skip
    names = {"".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 8))) for _ in range(4000)}
    return sorted(names | set(TEXTS))


@pytest.mark.parametrize("vram", [None, 24, 40, 80, 141])
def test_canonical_gpu_matches_the_plain_version(vram: int | None) -> None:
    for name in _names():
        assert canonical_gpu(name, vram) == ref_canonical_gpu(name, vram), name


def test_size_possible_is_false_only_where_the_size_pattern_cannot_match() -> None:
    skipped = 0
    for name in _names():
        text = gpu_names._normalise(name)
        if not gpu_names._size_possible(text):
            assert gpu_names._VRAM.search(text) is None, text
            skipped += "G" in text
    assert skipped > 100  # names with a G and no size: the regex was skipped for them


# -- the whole extractor ---------------------------------------------------------------------

# Cell texts by column role: those a page may well show, then those that make it an error
# (or may: a price without a currency or period is one only if nothing else states it).
_CELLS: dict[str, tuple[list[str], list[str]]] = {
    "gpu": (
        ["RTX 4090", "NVIDIA GeForce RTX 4090", "A100-SXM4-80GB", "A100", "H100 NVL", "昇腾910B",
         "MTT S4000", "RTX 5090 32GB 云主机", "H20 96GB", "ＲＴＸ４０９０", "<b>H200</b> SXM",
         "L40S&nbsp;48GB", "4090 24GB/48GB"],
        [""],
    ),
    "vram": (["24GB", "80 GB", "48", "", "1.5GB", "0GB", "24.0GB", "２４ＧＢ", "n/a"], []),
    "count": (["1", "8", "x8", "8 卡", "８"], ["0", "", "two"]),
    "price": (
        ["$17.92", "¥7,920/月", "7.75 元/卡时", "2.69 USD/hr", "US$ 0.44 per hour", "1.96元/时",
         "¥1.96/时", "$0.99/GPU/hr", "1.89", "1,088", "4150"],
        ["-", "—", "", "面议", "Contact us", "0", "0.00001", "$2 CNY", "12,34", "3 元/天", "9" * 30],
    ),
    "unit": (
        ["per hour", "per GPU per hour", "/hr", "元/月", "hourly", "元/台/月"],
        ["元/天", "/季", ""],
    ),
    "region": (["华东-杭州", "us-east", "", "eu-west"], []),
    "": (["x", "", "备注"], []),
}  # fmt: skip
_HINTS = ["(元/时)", "（元/月）", "($/hr)", "[USD]", "(按量)", "(元/卡时)", "(元/天)", "", ""]
_LABELS = ["", "", " 竞价", "裸金属", "spot", "bare metal"]


def _header(role: str | None, rnd: random.Random) -> str:
    if role is None:
        return rnd.choice(["备注", "Note", "", "操作", "(元/时)"])
    word = rnd.choice(sorted(SYNONYMS[role]))
    word = rnd.choice([word, word.upper(), word.title(), f" {word}: ", f"*{word}"])
    if role == "price":
        word = rnd.choice(["", "", "", *_LABELS]) + word
        return word + rnd.choice(_HINTS)
    return word


def _cell(role: str | None, rnd: random.Random, bad: float) -> str:
    good, wrong = _CELLS[role or ""]
    text = rnd.choice(wrong if wrong and rnd.random() < bad else good)
    return rnd.choice([text, text, f" {text} ", f"<span>{text}</span>", f"{text}<br>"])


def _table(rnd: random.Random, bad: float) -> str:
    roles: list[str | None] = ["gpu", "price"]
    roles += rnd.sample(["vram", "count", "unit", "region", "price", None], rnd.randrange(0, 5))
    rnd.shuffle(roles)
    if rnd.random() < bad:
        roles.remove("gpu")
    head_tag = rnd.choice(["th", "th", "td"])
    head = "".join(f"<{head_tag}>{_header(role, rnd)}</{head_tag}>" for role in roles)
    rows = []
    for _ in range(rnd.randrange(0, 6)):
        cells = [_cell(role, rnd, bad) for role in roles]
        if rnd.random() < bad / 2:
            cells = cells[:-1] if rnd.random() < 0.5 else [*cells, "x"]
        if rnd.random() < 0.05:
            cells = [""] * len(cells)
        extra = rnd.choice(_NOT_CELLS) if rnd.random() < 0.1 else ""
        rows.append(f"<tr>{extra}" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        if rnd.random() < 0.15:
            rows.append(rows[-1])  # the same listing twice
    body = "".join(rows)
    shape = rnd.random()
    if shape < 0.5:
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if shape < 0.8:
        return f"<table><tr>{head}</tr>{body}</table>"
    return f"<table><thead><tr>{head}</tr></thead>{body}<tfoot><tr><td>注</td></tr></tfoot></table>"


def _offer(rnd: random.Random, bad: float) -> dict[str, Any]:
    def pick(good: list[Any], wrong: list[Any]) -> Any:
        return rnd.choice(wrong if rnd.random() < bad else good)

    offer: dict[str, Any] = {"@type": "Offer"}
    if rnd.random() < 1 - bad:
        offer["price"] = pick(["2.59", 7.2, 4150, "1e3", " 3 "], ["abc", "-1", "0", True])
    if rnd.random() < 0.6:
        offer["name"] = rnd.choice(["按量", "包月", "竞价", "", " spot "])
    if rnd.random() < 1 - bad:
        offer["priceCurrency"] = pick(["CNY", "usd"], ["", "EUR"])
    spec = pick(
        [
            {"unitCode": "HUR"},
            {"unitCode": "MON"},
            {"unitText": "小时"},
            {"unitText": "per GPU per hour"},
        ],
        [{"unitCode": "DAY"}, {}, None],
    )
    if spec is not None:
        offer["priceSpecification"] = spec
    return offer


def _jsonld_block(rnd: random.Random, bad: float) -> str:
    products = []
    for _ in range(rnd.randrange(1, 4)):
        product: dict[str, Any] = {"@type": "Product", "name": rnd.choice(_CELLS["gpu"][0])}
        offers = [_offer(rnd, bad) for _ in range(rnd.randrange(1, 3))]
        product["offers"] = offers if len(offers) > 1 else offers[0]
        if rnd.random() < 0.4:
            product["additionalProperty"] = [
                {"@type": "PropertyValue", "name": "VRAM", "value": rnd.choice(["80 GB", "24"])},
                {"@type": "PropertyValue", "name": "GPUs", "value": rnd.choice(["8", "x2", ""])},
            ]
        products.append(product)
    if rnd.random() < 0.2:
        products.append({"@type": "Offer", "price": "1.5", "priceCurrency": "CNY",
                         "itemOffered": {"name": "H100"}, "priceSpecification":
                         {"unitCode": "HUR"}})  # fmt: skip
    doc = {"@context": "https://schema.org", "@graph": products}
    return f'<script type="application/ld+json">{json.dumps(doc, ensure_ascii=False)}</script>'


def _options(rnd: random.Random) -> GenericOptions:
    return GenericOptions(
        currency=rnd.choice([None, None, "USD", "cny"]),
        unit=rnd.choice([None, None, "/hr", "元/月", "/day"]),
        price_per=rnd.choice(["machine", "card"]),
        jsonld=rnd.random() < 0.9,
        tables=rnd.random() < 0.9,
    )


def _generated() -> list[tuple[bytes, GenericOptions]]:
    rnd = random.Random(20261205)
    pages = []
    for _ in range(1200):
        bad = rnd.choice([0.0, 0.0, 0.0, 0.05, 0.2])
        body = "".join(_table(rnd, bad) for _ in range(rnd.choice([0, 1, 1, 1, 2, 2])))
        if rnd.random() < 0.1:
            body = "<table><tr><td>公告</td><td>九月活动</td></tr></table>" + body
        head = _jsonld_block(rnd, bad) if rnd.random() < 0.3 else ""
        if rnd.random() < 0.1:
            head += '<meta name="gpuprice-simulated" content="true">'
        pages.append((_html(body, head), _options(rnd)))
    return pages


GENERATED = _generated()


def _rows_outcome(adapter: GenericAdapter, body: bytes) -> tuple[str, Any]:
    try:
        return "ok", [repr(row) for row in adapter.parse(body, URL, FETCHED)]
    except Exception as exc:  # any exception: the same one
        return type(exc).__name__, str(exc)


def _both(options: GenericOptions) -> tuple[GenericAdapter, GenericAdapter]:
    return GenericAdapter("examplecloud", options, FX), _RefAdapter("examplecloud", options, FX)


@pytest.mark.parametrize(("name", "body"), FIXTURES, ids=[name for name, _ in FIXTURES])
def test_fixture_pages_give_the_rows_and_errors_the_plain_extractor_gives(
    name: str, body: bytes
) -> None:
    for options in (GenericOptions(), GenericOptions(currency="USD", unit="/hr")):
        fast, plain = _both(options)
        assert _rows_outcome(fast, body) == _rows_outcome(plain, body), name


def test_generated_pages_give_the_rows_and_errors_the_plain_extractor_gives() -> None:
    outcomes: dict[str, int] = {}
    numbered = 0
    for body, options in GENERATED:
        fast, plain = _both(options)
        got = _rows_outcome(fast, body)
        assert got == _rows_outcome(plain, body), body.decode()
        outcomes[got[0]] = outcomes.get(got[0], 0) + 1
        numbered += got[0] == "ok" and any("#2'" in row for row in got[1])
    # Rows and errors were compared, many of each, and the same listing twice on a page.
    assert outcomes.get("ok", 0) > 200 and outcomes.get("ParseError", 0) > 200, outcomes
    assert numbered > 20


def test_offer_row_takes_the_fields_row_passes_by_position() -> None:
    # GenericAdapter._row_maker's row and RunpodAdapter._row pass the 13 fields without a default
    # by position.
    assert list(OfferRow.__struct_fields__[:13]) == [
        "observed_at", "source", "offer_id", "gpu", "gpu_name_raw", "gpu_count", "vram_gb",
        "billing", "price", "currency", "unit", "unit_raw", "cny_per_card_hour",
    ]  # fmt: skip


def test_a_page_without_json_ld_has_no_offers() -> None:
    """The extractor skips all_offers when blocks finds nothing: it would find nothing."""
    empty = 0
    for tree in _all_trees():
        try:
            items = _jsonld.blocks(tree, URL)
        except ParseError:  # a broken block
            continue
        if not items:
            assert _jsonld.all_offers(items) == []
            empty += 1
    assert empty > 100


# -- compact rows, headers, rows and prices (the fast paths of this pass) ---------------------

# Rows whose serialisation is almost, or just, what _compact_texts reads: entities, U+00A0,
# attributes, whitespace or comments between cells, markup in a cell, th and td mixed, a
# table of SVG or MathML, script and template among the cells, CR and NUL from references.
_ROWS = [
    "<td>a</td><td>b</td>", "<th>a</th><th>b</th>", "<td>a&amp;b</td><td>c</td>",
    "<td>x&nbsp;y</td>", "<td>a&lt;b&gt;</td>", "<td class=p>1.89</td><td>2</td>",
    "<td>1</td><td class=p>2</td>", "<td>x</td>\n<td>y</td>", "\n<td>x</td><td>y</td>\n",
    "<td>x</td><!-- c --><td>y</td>", "<td><b>RTX</b>4090</td><td>1</td>", "<th>h</th><td>d</td>",
    "<td>d</td><th>h</th>", "<td></td><td> </td><td></td>", "<td>\u00a0</td>",
    "<td>a\tb\u000cc</td>", "<td>a</td>x<td>b</td>", "<td>&#13;a&#13;</td>", "<td>&#0;</td>",
    "<td>\"q\" 'a' =</td>", "<td><svg><tr><td>in</td><th>h</th></tr></svg></td>",
    "<td><math><tr><td>m</td></tr></math></td>", "<td>a</td><script>1<2</script><td>b</td>",
    "<td>a</td><template><td>t</td></template>", "<td>a</td><td>b", "<TD>U</TD><td\n>v</td>",
    "<td>RTX 4090</td><td>24GB</td><td>8</td><td>华东-杭州</td><td>14.80</td><td>8,300</td>",
    "<td> 华东  杭州 </td><td>Ｒ  Ｔ</td>", "<td>¨x</td><td>a¨</td>", "<td>\u0338</td><td>>\u0338</td>",
    "<td>  a</td>", "<td>a  b</td>", "<td>a </td>", "<td>a\u3000b</td>", "<td>\u1100\u1161</td>",
    "<td>x</td><td><![CDATA[y]]></td>", "<td>&#x1F;a</td>", "<td>a\u2028b</td>", "<td>ﬁ</td>",
]  # fmt: skip


def _compact_rows() -> list[LexborNode]:
    """Rows of the crafted cells above, and random rows of text alone (compact when no text
    needs an entity), of any text the texts corpus holds."""
    rnd = random.Random(20261207)
    bodies = [f"<table><tr>{row}</tr></table>" for row in _ROWS]
    for _ in range(400):
        tag = rnd.choice(["td", "td", "th"])
        texts = [rnd.choice(TEXTS) for _ in range(rnd.randrange(1, 7))]
        cells = "".join(f"<{tag}>{_escape(text)}</{tag}>" for text in texts)
        bodies.append(f"<table><thead><tr>{cells}</tr></thead><tr>{cells}</tr></table>")
    trees = [LexborHTMLParser(_html(body)) for body in bodies]
    return [tr for tree in trees for tr in tree.tags("tr")]


def test_compact_row_texts_are_the_cells_texts() -> None:
    compact = 0
    for tr in _compact_rows() + [tr for tree in _all_trees() for tr in tree.tags("tr")]:
        expected = [text_of(td) for td in _ref_cells(tr)]
        assert generic._walked_texts(tr) == expected
        texts = generic._compact_texts(tr)
        assert texts is None or texts == expected, tr.html
        assert _row_texts(tr) == expected
        compact += texts is not None
    assert compact > 500  # the fast path is taken, on many kinds of text


def test_tidy_is_what_it_says() -> None:
    """_tidy(html) holds only where each text is already collapsed; checked on the texts
    of the compact rows, between > and <."""
    for tr in _compact_rows():
        html = tr.inner_html
        if generic._tidy(html):
            for text in re.findall(r">([^<]*)<", html):
                assert " ".join(text.split()) == text, html


def test_head_is_split_read_lazily() -> None:
    """_head chooses _split's header and rows; its texts are the header cells' texts."""
    tables = 0
    for tree in _all_trees() + [tr.parent.parent for tr in _compact_rows()]:
        for table in tree.tags("table") if isinstance(tree, LexborHTMLParser) else [tree]:
            head, body = _ref_split(table)
            seen, headers, rows = generic._head(table)
            assert [n.mem_id for n in rows] == [n.mem_id for n in body]
            if seen is None:
                assert head == []
                continue
            cells = seen if type(seen) is list else generic._cells(seen)
            if rows:  # a header read to give rows: the same cells
                assert [n.mem_id for n in cells] == [n.mem_id for n in head]
            else:  # noted for the message alone: the same cells when there are any
                assert [n.mem_id for n in cells] == [n.mem_id for n in head] or not head
            if headers is not None:
                assert headers == [text_of(c) for c in head]
            tables += 1
    assert tables > 800


def _compact_pages() -> list[tuple[bytes, GenericOptions]]:
    """Tables written compactly (text alone in the cells, none between them), which the
    extractor reads from each row's serialisation: rows and errors as _generated()'s."""
    rnd = random.Random(20261208)
    pages = []
    for _ in range(500):
        bad = rnd.choice([0.0, 0.0, 0.0, 0.05, 0.2])
        tables = []
        for _ in range(rnd.choice([1, 1, 2])):
            roles: list[str | None] = ["gpu", "price"]
            roles += rnd.sample(
                ["vram", "count", "unit", "region", "price", None], rnd.randrange(4)
            )
            rnd.shuffle(roles)
            tag = rnd.choice(["th", "td"])
            head = "".join(
                f"<{tag}>{_escape(_header(role, rnd).strip())}</{tag}>" for role in roles
            )
            rows = []
            for _ in range(rnd.randrange(0, 6)):
                texts = []
                for role in roles:
                    good, wrong = _CELLS[role or ""]
                    text = rnd.choice(wrong if wrong and rnd.random() < bad else good)
                    texts.append(re.sub(r"<[^>]*>|&nbsp;", "", text))
                if rnd.random() < bad:
                    texts = texts[:-1]
                rows.append("<tr>" + "".join(f"<td>{_escape(t)}</td>" for t in texts) + "</tr>")
            body = "".join(rows)
            if rnd.random() < 0.5:
                tables.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
            else:
                tables.append(f"<table><tr>{head}</tr>{body}</table>")
        pages.append((_html("".join(tables)), _options(rnd)))
    return pages


def test_compact_pages_give_the_rows_and_errors_the_plain_extractor_gives() -> None:
    outcomes: dict[str, int] = {}
    compact = 0
    for body, options in _compact_pages():
        fast, plain = _both(options)
        got = _rows_outcome(fast, body)
        assert got == _rows_outcome(plain, body), body.decode()
        outcomes[got[0]] = outcomes.get(got[0], 0) + 1
        trs = LexborHTMLParser(body).tags("tr")
        compact += sum(generic._compact_texts(tr) is not None for tr in trs)
    assert outcomes.get("ok", 0) > 100 and outcomes.get("ParseError", 0) > 50, outcomes
    assert compact > 1000


def test_pages_without_rows_name_the_headers_seen() -> None:
    """The message of a page with no rows names the headers seen, read only then (_seen)."""
    named = 0
    for body, options in GENERATED:
        fast, plain = _both(options)
        got = _rows_outcome(fast, body)
        if got[0] == "ParseError" and "headers seen" in got[1]:
            assert got == _rows_outcome(plain, body)
            named += "headers seen: no tables" not in got[1]
    notice = _html("<table><tr><td>公告</td><td>九月</td></tr></table>" * 7)
    for body in (notice, _html("<table><tr></tr></table><table><tr><td>x</td></tr></table>")):
        assert _rows_outcome(GenericAdapter(), body) == _rows_outcome(_RefAdapter(), body)
    assert named > 20


def test_row_maker_is_the_plain_row() -> None:
    """The page's row builder (per_card_hour and the converter inlined, divisions by one
    skipped) gives _ref_row's rows and errors, in their order."""
    prices = ["1.89", "0.00001", "0.00005", "7920", "3.3333333", "9" * 24, "9" * 26, "1E+2", "0"]
    labels = ["按量", "包月", "竞价", "裸金属包月", "Bare metal", "spot", ""]
    cases = 0
    for per in ("machine", "card"):
        options = GenericOptions(price_per=per)
        fast, plain = _both(options)
        row = fast._row_maker(FETCHED, True)
        to_cny = FX.converter(FETCHED.date())
        for price in prices:
            for currency in ("CNY", "USD", "EUR", "usd"):
                for unit in ("/hr", "元/月", "/day", "/卡/月", "/台/时", "/季", "per GPU per hour"):
                    for count in (1, 2, 8, 0):
                        for label in labels:
                            args = ("id", "n", "RTX 4090", 24, count, "r", Decimal(price),
                                    currency, unit, label)  # fmt: skip
                            assert _outcome(row, *args) == _outcome(
                                plain._ref_row, FETCHED, True, *args[:-1], label, to_cny
                            ), args
                            cases += 1
    assert cases > 5000


# -- load_html and is_simulated, as they were (shared by every HTML adapter) -----------------


def _ref_declared_charset(body: bytes) -> str | None:
    m = _page._META_CHARSET.search(body[:4096])
    if m is None:
        return None
    name = m[1].decode("ascii", "replace").lower()
    name = _page._CHARSET_ALIASES.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _ref_load_html(body: bytes, url: str) -> LexborHTMLParser:
    if not body or body.isspace():
        raise ParseError(f"{url}: empty body")
    charset = _ref_declared_charset(body) or "utf-8"
    if charset == "utf-8":
        charset = "utf-8-sig"
    try:
        text = body.decode(charset)
    except UnicodeDecodeError as exc:
        raise ParseError(f"{url}: body is not {charset.removesuffix('-sig')} ({exc})") from None
    head = text[:2000]
    if not (text[:1] == "<" or text.lstrip().startswith("<")) or (
        "<html" not in head and "<html" not in head.lower()
    ):
        raise ParseError(f"{url}: body is not an HTML document (starts {text[:40]!r})")
    if charset == "utf-8-sig":
        return LexborHTMLParser(body[3:] if body.startswith(codecs.BOM_UTF8) else body)
    return LexborHTMLParser(text)


def _ref_is_simulated(tree: LexborHTMLParser) -> bool:
    for node in tree.tags("meta"):
        if node.attrs.get("name") == "gpuprice-simulated":
            return (node.attrs.get("content") or "").strip().lower() == "true"
    return False


def _bodies() -> list[bytes]:
    """Pages and non-pages: every fixture and generated page, with a BOM (one or two),
    leading whitespace, in GB18030 (declared gbk or not), broken in UTF-8 at random places,
    and empty, blank, non-HTML or oddly declared bodies."""
    bom = codecs.BOM_UTF8
    zh = "<html><head><meta charset='{}'></head><body><p>价格 ¥1.89/时</p></body></html>"
    far = "<!-- " + "价" * 700 + " --><html><body>x</body></html>"  # "<html" past 2,000 bytes
    bodies = [
        b"", b" ", b"\n\t \r\x0b\x0c", bom, bom + b" ", b"{}", b'{"a": 1}', b"hello", b"<xml/>",
        b"<!DOCTYPE html><p>no html tag</p>", b"<HTML><BODY>x</BODY></HTML>", b"  <html>x",
        "\u3000<html>x".encode(), "\u00a0<html>x".encode(), b"\x00<html>", b"<html" + b"\xff",
        b"<html>\xed\xa0\x80</html>", b"<html>\xc0\xaf</html>", b"<html>\xe4\xbb</html>",
        b"<html>\xe4\xbb", b"\xff\xfe<\x00h\x00", zh.format("gbk").encode("gb18030"),
        zh.format("gb2312").encode("gb18030"), zh.format("GBK").encode(),
        zh.format("utf-8").encode("gb18030"), zh.format("utf8").encode(),
        zh.format("UTF-8").encode(), zh.format("utf-8-sig").encode(), zh.format("latin-1").encode(),
        zh.format("utf-16").encode(), zh.format("nonsense").encode(), zh.format("").encode(),
        far.encode(), far.encode("gb18030"), bom + far.encode(), (" " * 1996 + "<html>").encode(),
        ("x" * 1995 + "<html>").encode(), ("<" + "x" * 1994 + "<html>").encode(),
        ("<" + "x" * 1995 + "<html>").encode(), ("<" + "é" * 998 + "<html>").encode(),
        ("<" + "é" * 1000 + "<html>").encode(), ("<" + "x" * 1994 + "<HTML>").encode(),
    ]  # fmt: skip
    pages = [body for _, body in FIXTURES] + [body for body, _ in GENERATED[:300]]
    rnd = random.Random(20261209)
    for page in pages:
        bodies += [page, bom + page, bom + bom + page, b"\n " + page, bom + b"\n" + page]
        if rnd.random() < 0.3:
            text = page.decode("utf-8", "replace").replace("charset='utf-8'", "charset='gbk'")
            bodies.append(text.encode("gb18030", "replace"))
        broken = bytearray(page)
        for _ in range(rnd.randrange(1, 3) if page else 0):
            broken[rnd.randrange(len(broken))] = rnd.choice([0x80, 0xFF, 0xC3, 0xE4, 0xED, 0x3C])
        bodies.append(bytes(broken))
    return bodies


def _load_outcome(load: Callable[[bytes, str], LexborHTMLParser], body: bytes) -> tuple[str, Any]:
    try:
        tree = load(body, URL)
    except Exception as exc:  # any exception: the same one
        return type(exc).__name__, str(exc)
    return "ok", tree.html


def test_load_html_is_the_previous_version() -> None:
    outcomes: dict[str, int] = {}
    bodies = _bodies()
    for body in bodies:
        got = _load_outcome(load_html, body)
        assert got == _load_outcome(_ref_load_html, body), body[:80]
        outcomes[got[0]] = outcomes.get(got[0], 0) + 1
        assert _page.declared_charset(body) == _ref_declared_charset(body)
    # Pages taken, and bodies refused for each reason.
    assert outcomes["ok"] > 1000 and outcomes["ParseError"] > 300, outcomes
    messages = {_load_outcome(load_html, body)[1].split(": ", 1)[-1][:12] for body in bodies}
    assert {"empty body", "body is not "} <= messages


def test_is_simulated_is_the_previous_version() -> None:
    metas = [
        '<meta name="gpuprice-simulated" content="true">', '<meta name="gpuprice-simulated">',
        '<meta content=" TRUE " name="gpuprice-simulated">', '<meta NAME="gpuprice-simulated" '
        'CONTENT="True">', '<meta name="gpuprice-simulated" content="">', '<meta name>',
        '<meta name="gpuprice-simulated" content="false"><meta name="gpuprice-simulated" '
        'content="true">', '<meta name="other" content="true">', '<meta charset="utf-8">',
        '<meta name="gpuprice-simulated" name="x" content="true">', '<meta name="GPUPRICE-'
        'SIMULATED" content="true">', '<meta xlink:name="gpuprice-simulated" content="true">',
        '<meta name="gpuprice-simulated" content="true" content="false">', "",
    ]  # fmt: skip
    trees = [
        LexborHTMLParser(_html(f"<svg>{b}</svg><p>{c}</p>", a))
        for a in metas
        for b in metas[:4]
        for c in metas[:3]
    ]
    simulated = 0
    for tree in trees + _all_trees():
        assert _page.is_simulated(tree) == _ref_is_simulated(tree)
        simulated += _page.is_simulated(tree)
    assert simulated > 50
