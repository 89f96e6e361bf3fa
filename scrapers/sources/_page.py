"""Helpers shared by the HTML adapters: loading a page, the simulated marker, the stated
update time, table headers and the small counts listings print ("15 核", "剩余 37 台").
Prices, units, sizes and text normalisation are in :mod:`scrapers.units`.

Everything raises :class:`~scrapers.rows.ParseError` with a message naming what was wrong.
"""

from __future__ import annotations

import codecs
import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.limits import check_digits, check_html_depth
from scrapers.rows import ParseError
from scrapers.units import nfkc

BEIJING = ZoneInfo("Asia/Shanghai")

_UPDATE = re.compile(r"更新时间\s*:\s*(\d{4}-\d{2}-\d{2})\s+(\d{1,2}:\d{2})\s*\(\s*北京时间\s*\)")

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


def declared_charset(body: bytes) -> str | None:
    """The charset a page declares in a ``<meta>`` of its first 4 KB, as a Python codec name
    (``None`` when none is declared or the name is unknown)."""
    m = _META_CHARSET.search(body[:4096])
    return None if m is None else _codec_name(m[1])


_MARKUP_START = re.compile(r"\s*<(?:!--|!doctype|\?xml|[a-z][a-z0-9-]*[\s/>])", re.IGNORECASE)


def load_html(body: bytes, url: str) -> LexborHTMLParser:
    """Parse ``body`` as HTML in the charset its ``<meta>`` declares (UTF-8 when it declares
    none): a whole document or a fragment of one. An empty, undecodable, binary or non-HTML
    body is an error, and so is one over the limits of :mod:`scrapers.limits`
    (nesting, digit runs), checked before lexbor builds the tree."""
    if not body or body.isspace():
        raise ParseError(f"{url}: empty body")
    charset = declared_charset(body) or "utf-8"
    if charset == "utf-8":
        charset = "utf-8-sig"  # a page saved from a browser may start with a BOM
    try:
        text = body.decode(charset)
    except UnicodeDecodeError as exc:
        raise ParseError(f"{url}: body is not {charset.removesuffix('-sig')} ({exc})") from None
    if "\x00" in text:
        raise ParseError(f"{url}: body is binary, not an HTML page (it holds NUL bytes)")
    # A saved excerpt (a fragment with no <html>, as price trackers keep) is a page too; what
    # is refused is a body that does not start with markup (JSON, plain text, an error line).
    if not _MARKUP_START.match(text):
        raise ParseError(f"{url}: body is not an HTML document (starts {text[:40]!r})")
    check_digits(text, url)
    check_html_depth(text, url)
    return LexborHTMLParser(text)


def is_simulated(tree: LexborHTMLParser) -> bool:
    """Whether the page carries ``<meta name="gpuprice-simulated" content="true">`` (the first
    such meta decides)."""
    for meta in tree.tags("meta"):
        if meta.attributes.get("name") == "gpuprice-simulated":
            return (meta.attributes.get("content") or "").strip().lower() == "true"
    return False


def child_elements(node: LexborNode, tags: tuple[str, ...]) -> list[LexborNode]:
    """The element children of ``node`` whose tag is one of ``tags``, in document order."""
    return [child for child in node.iter() if child.tag in tags]


def text_of(node: LexborNode) -> str:
    """A node's text as adapters compare it: NFKC, whitespace collapsed (:func:`nfkc`)."""
    return nfkc(node.text(deep=True, separator=" ", strip=True))


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
    m = re.match(rf"^(\d{{1,9}})\s*{re.escape(suffix)}", nfkc(text))
    if m is None:
        raise ParseError(f"{what}: expected '<n> {suffix}', got {text!r}")
    return int(m[1])


_STOCK = re.compile(r"^(?:剩余|可租|库存)\s*(\d{1,9})\s*(?:台|个|张|卡)?$")
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
