"""Helpers shared by the HTML adapters: loading a page, the simulated marker, the stated
update time, table headers and the small quantities listings print ("15 核", "2×3.84TB").

Everything raises :class:`~scrapers.rows.ParseError` with a message naming what was wrong.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from datetime import UTC, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.rows import ParseError

BEIJING = ZoneInfo("Asia/Shanghai")

_UPDATE = re.compile(r"更新时间\s*:\s*(\d{4}-\d{2}-\d{2})\s+(\d{1,2}:\d{2})\s*\(\s*北京时间\s*\)")


def nfkc(text: str) -> str:
    """Fold full-width punctuation (:()) and collapse whitespace, for matching."""
    # str.split() splits on the same Unicode whitespace as re's \s, without the regex
    # machinery (this runs for every cell of every page: docs/PERFORMANCE.md).
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return " ".join(text.split())


_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE
)
# Chinese sites that declare gb2312 or gbk usually send GB18030 (their superset).
_CHARSET_ALIASES = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "gb_2312-80": "gb18030",
}


def _codec_name(declared: bytes) -> str | None:
    """A declared charset name as a Python codec name (``None`` for an unknown one)."""
    name = declared.decode("ascii", "replace").lower()
    name = _CHARSET_ALIASES.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


# The names nearly every page declares, and what the steps below make of them, worked out
# once here (a table, not a memo: the same for every page).
_USUAL_CHARSETS = {
    name: _codec_name(name)
    for name in (b"utf-8", b"UTF-8", b"utf8", b"UTF8", b"gbk", b"GBK", b"gb2312", b"GB2312")
}


def declared_charset(body: bytes) -> str | None:
    """The charset a page declares in a ``<meta>`` of its first 4 KB, as a Python codec name
    (``None`` when none is declared or the name is unknown)."""
    # endpos instead of body[:4096]: the same search (the pattern has no lookbehind or end
    # anchor), without copying the page's start.
    m = _META_CHARSET.search(body, 0, 4096)
    if m is None:
        return None
    known = _USUAL_CHARSETS.get(m[1])
    return known if known is not None else _codec_name(m[1])


_BOM = codecs.BOM_UTF8
_UTF8 = frozenset({"utf-8", "utf-8-sig"})  # what a page in UTF-8 declares, as codec names


def load_html(body: bytes, url: str) -> LexborHTMLParser:
    """Parse ``body`` as HTML in the charset its ``<meta>`` declares (UTF-8 when it declares
    none); an empty, undecodable or non-HTML body is an error."""
    # The checks below avoid copying the page (strip, lower) where a cheaper test decides the
    # same: on a mostly-CJK page those copies cost as much as a few table rows.
    if not body or body.isspace():
        raise ParseError(f"{url}: empty body")
    charset = declared_charset(body) or "utf-8"
    if charset in _UTF8:
        # The usual page, decided on its bytes (the str checks below, each implied here):
        # lexbor parses UTF-8 bytes, so the text is needed only to prove them UTF-8, which an
        # ASCII page is without decoding; and a "<html" within its first 2,000 bytes lies
        # within the text's first 2,000 characters (no character is shorter than its byte).
        # The utf-8 codec, not utf-8-sig: that one is Python code around it (a third of the
        # cost of decoding a small page), and only drops the BOM, as done here. Anything
        # else, errors included, takes the long way below, which words them.
        data = body[3:] if body[:3] == _BOM else body
        if data[:1] == b"<" and data.find(b"<html", 0, 2000) >= 0:
            if data.isascii():
                return LexborHTMLParser(data)
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                pass
            else:
                return LexborHTMLParser(data)
        charset = "utf-8-sig"  # a page saved from a browser may start with a BOM
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
        # lexbor parses UTF-8 bytes; a str is encoded back to exactly these bytes (the strict
        # decode above proved them valid), so skip that round trip.
        return LexborHTMLParser(body[3:] if body.startswith(_BOM) else body)
    return LexborHTMLParser(text)


# Why some lookups below walk the tree instead of asking a CSS selector: selectolax builds a
# CSS engine for each document on its first ``css()`` call, ~40 µs, a fifth of the whole
# parse of a small pricing page (docs/PERFORMANCE.md). ``tags()`` (getElementsByTagName) and a
# node's children need no engine. Adapters whose selectors are configured keep ``css()``.


def is_simulated(tree: LexborHTMLParser) -> bool:
    """Whether the page carries ``<meta name="gpuprice-simulated" content="true">`` (the first
    such meta decides, as ``css_first('meta[name="gpuprice-simulated"]')`` would)."""
    # attributes (a dict of all of them) rather than attrs.get: the latter raises and catches
    # a KeyError for a missing name, which costs more than reading the few a <meta> has.
    # Both give the value of the attribute of that qualified name (None for an empty one).
    for node in tree.tags("meta"):
        attributes = node.attributes
        if attributes.get("name") == "gpuprice-simulated":
            return (attributes.get("content") or "").strip().lower() == "true"
    return False


def child_elements(node: LexborNode, tags: tuple[str, ...]) -> list[LexborNode]:
    """The element children of ``node`` whose tag is one of ``tags``, in document order."""
    return [child for child in node.iter() if child.tag in tags]


# What "GB" in a size pattern matches when the pattern ignores case.
_GB_SPELLINGS = frozenset({"GB", "Gb", "gB", "gb"})


def before_gb(text: str) -> str | None:
    """``text`` without a trailing "GB" (any case) and the spaces before it: "141 GB" → "141",
    "80GB" → "80"; ``None`` when it does not end so. For the adapters' fast path for the usual
    sizes, ahead of their size regex."""
    return text[:-2].rstrip() if text[-2:] in _GB_SPELLINGS else None


def text_of(node: LexborNode) -> str:
    # nfkc() inlined: this runs for every cell and label of every page.
    text = node.text(deep=True, separator=" ", strip=True)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return " ".join(text.split())


def naive_utc(moment: datetime) -> datetime:
    """Naive UTC; a naive input is taken to be UTC already."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(UTC).replace(tzinfo=None)


def beijing_to_utc(local: datetime) -> datetime:
    """A naive Beijing wall-clock time as naive UTC (China has no DST, but zoneinfo knows)."""
    return naive_utc(local.replace(tzinfo=BEIJING))


def stated_update_local(tree: LexborHTMLParser, url: str) -> datetime | None:
    """The page's "(数据)更新时间:YYYY-MM-DD HH:MM(北京时间)", naive Beijing time.

    ``None`` when the page has no ``.update-time`` element; an element that is there but
    unreadable is an error (a changed format must not silently become "fetched now").
    """
    node = tree.css_first(".update-time")
    if node is None:
        return None
    text = text_of(node)
    m = _UPDATE.search(text)
    if m is None:
        raise ParseError(f"{url}: unreadable update time {text!r}")
    try:
        return datetime.fromisoformat(f"{m[1]} {m[2]:0>5}")
    except ValueError:
        raise ParseError(f"{url}: invalid update time {text!r}") from None


def stated_update_time(tree: LexborHTMLParser, url: str) -> datetime | None:
    """The page's stated update time as naive UTC, or ``None`` if it states none."""
    local = stated_update_local(tree, url)
    return None if local is None else beijing_to_utc(local)


def header_index(table: LexborNode, required: tuple[str, ...], url: str) -> dict[str, int]:
    """Column index of every required header; a missing (e.g. renamed) header is an error."""
    headers = [text_of(th) for th in table.css("thead th")]
    if not headers:
        raise ParseError(f"{url}: table has no header row")
    missing = [h for h in required if h not in headers]
    if missing:
        raise ParseError(f"{url}: table header changed: missing {missing}, found {headers}")
    return {h: headers.index(h) for h in headers}


def parse_count(text: str, suffix: str, what: str) -> int:
    """``"15 核"`` → 15 with ``suffix="核"``; text after the suffix (a CPU model) is ignored."""
    m = re.match(rf"^(\d+)\s*{re.escape(suffix)}", nfkc(text))
    if m is None:
        raise ParseError(f"{what}: expected '<n> {suffix}', got {text!r}")
    return int(m[1])


_SIZE = re.compile(r"^(?:(\d+)\s*[×xX*]\s*)?(\d+(?:\.\d+)?)\s*(TB|GB|T|G)(?![A-Za-z])")


def parse_gb(text: str, what: str) -> int:
    """Size in GB (10^9 bytes): "60GB" → 60, "24GB GDDR6X" → 24, "2×3.84TB NVMe" → 7680."""
    m = _SIZE.match(nfkc(text))
    if m is None:
        raise ParseError(f"{what}: expected a size like '60GB' or '2×3.84TB', got {text!r}")
    count = int(m[1]) if m[1] else 1
    size = Decimal(m[2]) * (1000 if m[3].startswith("T") else 1) * count
    if size != size.to_integral_value() or size <= 0:
        raise ParseError(f"{what}: size {text!r} is not a whole number of GB")
    return int(size)


_STOCK = re.compile(r"^(?:剩余|可租|库存)\s*(\d+)\s*(?:台|个|张|卡)?$")
_SOLD_OUT = {"售罄", "已售罄", "无货", "缺货"}


def parse_stock(text: str, what: str) -> int:
    """ "剩余 37 台" → 37; "售罄" → 0."""
    raw = nfkc(text)
    if raw in _SOLD_OUT:
        return 0
    m = _STOCK.match(raw)
    if m is None:
        raise ParseError(f"{what}: unreadable stock {text!r}")
    return int(m[1])


def require(node: LexborNode | None, what: str) -> LexborNode:
    if node is None:
        raise ParseError(f"{what} not found")
    return node
