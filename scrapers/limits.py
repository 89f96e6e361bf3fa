"""The limits every parser works within, so that a hostile or broken page is refused with a
:class:`~scrapers.rows.ParseError` in time linear in its size, before any parser walks it.

* **Size**: a body over :data:`MAX_PAGE_BYTES` is refused unread.
* **Nesting**: lexbor builds its tree in time that grows with the square of the depth
  (200,000 nested ``<div>`` took 90 s), and Python's ``json`` raises ``RecursionError`` near
  1,000 levels. Depth is measured first, by a linear scan of the text
  (:func:`check_html_depth`, :func:`check_json_depth`), which also adds up every element's
  depth: the parse budget (:data:`MAX_TREE_WORK`) of walks that read each element's text.
* **Digits**: a run of more than :data:`MAX_DIGIT_RUN` digits is refused (:func:`check_digits`):
  ``int()`` of such text can raise a plain ``ValueError`` (past 4,300 digits) wherever an
  adapter reads a count. Single numbers are held to a tighter limit where they are read
  (:func:`scrapers.units.decimal_of`); rows to plausible values when they are built
  (:class:`scrapers.rows.InvalidRow`).

The shared parse path (:func:`scrapers.parse.read_page`) checks the size of every page before
its adapter reads it, so every caller (the pipeline, ``gpuprice parse``, ``reparse``, the
history imports) gets the same refusals.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import accumulate

from scrapers.rows import ParseError

# Twice the fetch limit's default ([http].max_page_bytes, 8 MB), so that no page the default
# fetch accepts is refused here, and six times the largest real page we know (SkyPilot's AWS
# vms.csv, 2.47 MB). Parsing stays linear in size below the depth limits (bench/parse_hostile.py).
MAX_PAGE_BYTES = 16_000_000

# Blink and WebKit cap the tree their HTML parser builds at 512 levels (deeper elements become
# siblings), so no page a browser shows is deeper. The HTML captures here count at most 12.
MAX_HTML_DEPTH = 512

# The parse budget of a page: every element's depth, added up. The tree walks that read an
# element's whole text cost that much (the generic extractor: ~0.25 s per million), while real
# pages cost little: 8.5 MB of syntax-highlighted HTML (rustdoc, 300,000 elements) adds up to
# about 1 million, the real captures here to at most 700. Ten million is ~2.5 s of the generic
# extractor, and refuses 16 MB of 512-deep blocks (80 s there) or 1 MB of them.
MAX_TREE_WORK = 10_000_000

# The JSON captures here nest at most 8 levels (an API answer, __NEXT_DATA__, JSON-LD); 128 is
# sixteen times that, and far inside the ~1,000 levels where Python's json raises
# RecursionError (the adapters' own walks of a document are loops, not recursion).
MAX_JSON_DEPTH = 128

# Far longer than any real figure, far below the 4,300 digits where int() gives up.
MAX_DIGIT_RUN = 100


def check_size(body: bytes, url: str) -> None:
    if len(body) > MAX_PAGE_BYTES:
        raise ParseError(
            f"{url}: page of {len(body):,} bytes is over the parse limit of {MAX_PAGE_BYTES:,} "
            "bytes (scrapers/limits.py); refused unread"
        )


_LONG_DIGITS = re.compile(rf"(?<!\d)\d{{{MAX_DIGIT_RUN + 1}}}")  # tried once per run: linear


def check_digits(text: str, url: str) -> None:
    """Refuse a text holding a run of more than :data:`MAX_DIGIT_RUN` digits (any script's
    digits: ``int()`` reads full-width ones too)."""
    m = _LONG_DIGITS.search(text)
    if m is not None:
        raise ParseError(
            f"{url}: a number of more than {MAX_DIGIT_RUN} digits at character {m.start():,}: "
            "not a page of prices"
        )


# -- JSON ----------------------------------------------------------------------------------

# A string, or an unterminated one up to the end: each is consumed by one match, so the scan
# stays linear even on a hostile text (possessive, no backtracking).
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.?)*+(?:"|\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets in strings do not
    count). Linear in the text; exact for valid JSON, an estimate for broken JSON."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    return max(accumulate((_STEP[c] for c in brackets), initial=0))


def check_json_depth(text: str, what: str) -> None:
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return  # too few brackets to nest too deep
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise ParseError(
            f"{what}: JSON nested {depth:,} levels deep, over the limit of {MAX_JSON_DEPTH}: "
            "not an answer of prices"
        )


# -- HTML ----------------------------------------------------------------------------------

# Where the scan must not be fooled into counting less than lexbor builds, it counts more: a
# tag that looks like one in an attribute or in a <title> counts; only these are skipped.
_COMMENT = re.compile(r"<!--(?:-?>|.*?(?:--!?>|\Z))", re.DOTALL)  # as HTML ends comments
# Raw text (script, style) outside SVG / MathML, or an SVG / MathML block, whichever comes first.
_RAW_OR_FOREIGN = re.compile(
    r"<(script|style)\b[^<>]*>.*?(?:</\1[\s/>]|\Z)|(?P<foreign><(svg|math)\b.*?(?:</\3\s*>|\Z))",
    re.IGNORECASE | re.DOTALL,
)
# In SVG and MathML "<x/>" closes itself (in HTML, "<div/>" opens a div like "<div>"). A block
# is foreign only up to its first tag that is not an SVG / MathML element: an HTML tag there
# (<div>, </p>, <title>'s content ...) puts the parser back into HTML.
_FOREIGN_NAMES = (
    "svg|g|path|circle|rect|line|polyline|polygon|ellipse|defs|use|symbol|lineargradient|"
    "radialgradient|stop|clippath|mask|pattern|image|text|tspan|textpath|filter|fe[a-z]+|"
    "marker|animate|animatetransform|animatemotion|set|mpath|view|switch|metadata|a|"
    "math|mrow|msup|msub|msubsup|mfrac|msqrt|mroot|mstyle|mspace|mtable|mtr|mtd|semantics|"
    "annotation|menclose|mover|munder|munderover|mpadded|mphantom|mmultiscripts|mprescripts|none"
)
_LEAVES_FOREIGN = re.compile(rf"</?(?!(?:{_FOREIGN_NAMES})[\s/>])[a-zA-Z]", re.IGNORECASE)
_SELF_CLOSING = re.compile(r"<[a-zA-Z][^<>]*/>")
_TAG_NAME = re.compile(r"<(/?[a-z][a-z0-9-]*)")  # of the lower-cased text; never misses a tag
# Elements that never hold others, and elements whose end tag is implied by the next sibling
# (an unclosed <li> or <td> is closed by the next one, not nested in it): neither adds depth.
_VOID = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta",
    "param", "source", "track", "wbr",
}  # fmt: skip
_IMPLIED_END = {
    "p", "li", "dt", "dd", "tr", "td", "th", "thead", "tbody", "tfoot", "option", "optgroup",
    "rb", "rt", "rp", "rtc", "colgroup", "caption", "html", "head", "body",
}  # fmt: skip
_FLAT = frozenset(_VOID | _IMPLIED_END)


def _skipped(m: re.Match[str]) -> str:
    """Raw text goes; a foreign block keeps its tags, less those that close themselves."""
    block = m["foreign"]
    if block is None:
        return ""
    cut = _LEAVES_FOREIGN.search(block, 1)
    end = len(block) if cut is None else cut.start()
    return _SELF_CLOSING.sub("", block[:end]) + block[end:]


def _tag_names(text: str) -> list[str]:
    """The tags of an HTML text in order, lower case, "/div" for an end tag."""
    markup = _RAW_OR_FOREIGN.sub(_skipped, _COMMENT.sub("", text))
    return _TAG_NAME.findall(markup.lower())


def html_shape(text: str, stop_above: int = MAX_HTML_DEPTH) -> tuple[int, int]:
    """How deep the elements of an HTML text nest, about as the HTML parser builds them (an
    end tag closes up to its open element, a stray one is ignored; the elements of
    :data:`_FLAT` are not counted), counted up to ``stop_above + 1``; and the sum of every
    element's depth, what a walk that reads each element's whole text costs. Linear."""
    stack: list[str] = []
    open_tags: Counter[str] = Counter()
    deepest = work = 0
    for name in _tag_names(text):
        if name[0] == "/":
            name = name[1:]
            if open_tags[name]:
                while True:
                    top = stack.pop()
                    open_tags[top] -= 1
                    if top == name:
                        break
        elif name not in _FLAT:
            stack.append(name)
            open_tags[name] += 1
            work += len(stack)
            if len(stack) > deepest:
                deepest = len(stack)
                if deepest > stop_above:
                    break
    return deepest, work


def html_depth(text: str, stop_above: int = MAX_HTML_DEPTH) -> int:
    return html_shape(text, stop_above)[0]


def check_html_depth(text: str, url: str) -> None:
    """Refuse a page nested over :data:`MAX_HTML_DEPTH`, or whose elements' depths add up to
    over :data:`MAX_TREE_WORK`, before lexbor builds its tree."""
    if text.count("<") <= MAX_HTML_DEPTH:
        return  # too few tags to nest too deep
    depth, work = html_shape(text)
    if depth > MAX_HTML_DEPTH:
        raise ParseError(
            f"{url}: elements nested more than {MAX_HTML_DEPTH} levels deep: not a page of prices"
        )
    if work > MAX_TREE_WORK:
        raise ParseError(
            f"{url}: {work:,} element-levels (every element's depth, added up) is over the "
            f"parse budget of {MAX_TREE_WORK:,}: a page this deep and this large is refused"
        )
