"""The tables of a pricing page, whatever their markup, as rows of cell texts.

Three kinds of table are read:

* HTML tables (``<table>``; the generic extractor's ``table_selector`` picks them), the
  header from the ``thead`` or else from a first row that is not a listing;
* ARIA tables (``role="table"`` or ``"grid"``, rows ``role="row"``, cells ``role="cell"``,
  ``"columnheader"`` ...), as design-system tables are written;
* grids of divs: a run of sibling elements of one class, each holding the same number of
  cells (site builders' pricing grids), the header from a row of labels just before them.

A saved excerpt may start or end inside a table (price trackers keep only the pricing section
of a page). Rows written before the excerpt's first ``<table>`` would lose their structure
when parsed, so :func:`repair_cut_start` opens a table where the excerpt starts inside one;
a last row the excerpt's end cuts short is left out.

Which column holds what is decided elsewhere (``_table_columns``): this module only reads.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers.sources._page import child_elements
from scrapers.sources.generic._table_columns import count_label, is_label_row
from scrapers.units import currency_in, nfkc

# Elements whose text is never a cell's text.
_NO_TEXT = frozenset({"script", "style", "svg", "noscript", "template", "img", "iframe"})
# Badges a cell shows beside a card's name: an element holding only one of these is left out.
_BADGES = frozenset({
    "new", "new!", "hot", "popular", "sale", "beta", "preview", "limited", "featured",
    "新", "新品", "热门", "推荐", "爆款", "限时", "特惠",
})  # fmt: skip
_DIGIT = re.compile(r"\d")
# A price struck out beside the one that stands ("<s>¥2.00</s> ¥1.60"): the superseded list
# price, not part of the price cell's own text.
_STRUCK = ("s", "del", "strike")
# Tags a grid of divs is made of (not table parts, lists of links or inline text).
_GRID_TAGS = frozenset({"div", "li", "section", "article"})
_ARIA_CELLS = '[role="cell"], [role="gridcell"], [role="columnheader"], [role="rowheader"]'
# A table part written before any <table>: the excerpt starts inside a table.
_TABLE_PART = re.compile(rb"<(tr|td|th|thead|tbody)[\s/>]", re.IGNORECASE)
_TABLE_OPEN = re.compile(rb"<table[\s/>]", re.IGNORECASE)
_BODY = re.compile(rb"<body[\s>]", re.IGNORECASE)
_DOCUMENT_END = re.compile(rb"</(?:html|body)>\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell: its text (NFKC, whitespace collapsed; badges and icons left out), the text to
    read a price from (the same without links and buttons that hold no digit and no currency,
    such as "Reserve now", and without a struck-out price), the column name a responsive table
    writes on each cell (``data-label``), and a price struck out in it (the list price a
    promotion replaced)."""

    text: str
    price_text: str
    label: str | None = None
    struck: str | None = None


@dataclass(frozen=True, slots=True)
class Grid:
    """One table: ``id`` says which ("t2": the page's second ``<table>``; "a1": its first ARIA
    table; "d1": its first grid of divs), ``header`` its column titles (``None`` when it shows
    none or the excerpt cut it off), ``rows`` its body rows, ``count`` the GPU count the tab it
    sits in names ("8x"), for rows that name none."""

    id: str
    header: list[str] | None
    rows: list[list[Cell]]
    count: int | None = None


# -- cut excerpts ----------------------------------------------------------------------------


def repair_cut_start(body: bytes) -> bytes:
    """``body`` with a ``<table>`` opened where it starts inside one: a row or cell tag before
    any ``<table>`` (rows outside a table lose their cells when HTML is parsed). A row cut in
    the middle before that point stays outside and is not read."""
    part = _TABLE_PART.search(body)
    if part is None or _BODY.search(body):
        return body  # a whole document: its tables are whole
    opened = _TABLE_OPEN.search(body)
    if opened is not None and opened.start() < part.start():
        return body
    cell = part[1].lower() in (b"td", b"th")
    opening = b"<table><tr>" if cell else b"<table>"
    return body[: part.start()] + opening + body[part.start() :]


def _ends_document(node: LexborNode) -> bool:
    """Whether nothing but whitespace follows ``node`` in the document: an excerpt that ends
    inside it cut it short."""
    current: LexborNode | None = node
    while current is not None and current.tag not in ("body", "html", "-document"):
        sibling = current.next
        while sibling is not None:
            if sibling.is_element_node:
                return False
            if sibling.is_text_node and (sibling.text_content or "").strip():
                return False
            sibling = sibling.next
        current = current.parent
    return True


# -- cells -----------------------------------------------------------------------------------


def _parts(node: LexborNode, price: bool) -> list[str]:
    """The texts under ``node`` in order, without scripts, icons and badges (and, for a
    price, without links and buttons that hold no digit and no currency)."""
    parts: list[str] = []
    child = node.child
    while child is not None:
        if child.is_text_node:
            parts.append(child.text_content or "")
        elif child.is_element_node and child.tag not in _NO_TEXT:
            text = nfkc(child.text(deep=True, separator=" "))
            badge = text.lower() in _BADGES
            # "Reserve now" is no part of a price; "$?.??/hour" in a link is a garbled one
            link = price and child.tag in ("a", "button") and not _DIGIT.search(text)
            link = link and currency_in(text) is None
            struck = price and child.tag in _STRUCK
            if not (badge or link or struck):
                parts += _parts(child, price)
        child = child.next
    return parts


def cell_of(node: LexborNode) -> Cell:
    """A cell's texts and the column name it carries."""
    label = node.attributes.get("data-label")
    struck = " ".join(n.text(deep=True, separator=" ") for n in node.css(", ".join(_STRUCK)))
    return Cell(
        nfkc(" ".join(_parts(node, price=False))),
        nfkc(" ".join(_parts(node, price=True))),
        nfkc(label) if label else None,
        nfkc(struck) or None,
    )


def _text_of_cells(cells: list[Cell]) -> list[str]:
    return [cell.text for cell in cells]


# -- HTML tables -----------------------------------------------------------------------------


def _row_cells(tr: LexborNode) -> list[LexborNode]:
    """A row's own cells (a table nested in a cell is part of that cell's text)."""
    return child_elements(tr, ("td", "th"))


def _html_table(table: LexborNode, grid_id: str, cut_end: bool) -> Grid:
    """A table's header and body rows: the ``thead``'s ``th`` cells (else its ``td``) and the
    ``tbody`` rows; without a thead, the first row when it is not a listing (a row of ``th``
    cells, or one that names no card and no price).

    Walked from the table's own children, so that the rows of a table nested in a cell are
    not taken for this table's rows. HTML parsing puts rows written straight under <table>
    into a tbody, so every row is in a thead, tbody or tfoot; a tfoot (notes, totals) is not
    a listing."""
    head: list[LexborNode] = []
    trs: list[LexborNode] = []
    for section in child_elements(table, ("thead", "tbody")):
        rows = child_elements(section, ("tr",))
        if section.tag == "thead":
            head += [cell for tr in rows for cell in _row_cells(tr)]
        else:
            trs += rows
    header: list[str] | None = None
    if head:
        header = [cell_of(c).text for c in ([c for c in head if c.tag == "th"] or head)]
    elif trs:
        first = _row_cells(trs[0])
        texts = [cell_of(c) for c in first]
        if first and (all(c.tag == "th" for c in first) or is_label_row(texts)):
            header = _text_of_cells(texts)
            trs = trs[1:]
    rows = [[cell_of(c) for c in _row_cells(tr)] for tr in trs]
    return Grid(grid_id, header, _drop_cut_last(rows, trs, cut_end), _tab_count(table))


def _drop_cut_last(
    rows: list[list[Cell]], nodes: list[LexborNode], cut_end: bool
) -> list[list[Cell]]:
    """The rows without a last one that has fewer cells than the one before it and that the
    excerpt's end cut short (``cut_end``: the body ends without closing its document)."""
    short = len(rows) >= 2 and len(rows[-1]) < len(rows[-2])
    if cut_end and short and _ends_document(nodes[-1]):
        return rows[:-1]
    return rows


# -- ARIA tables -----------------------------------------------------------------------------


def _aria_table(table: LexborNode, grid_id: str, cut_end: bool) -> Grid:
    trs = table.css('[role="row"]')
    cells = [row.css(_ARIA_CELLS) for row in trs]
    header: list[str] | None = None
    if cells and cells[0]:
        texts = [cell_of(c) for c in cells[0]]
        columnheaders = all(c.attributes.get("role") == "columnheader" for c in cells[0])
        if columnheaders or is_label_row(texts):
            header = _text_of_cells(texts)
            cells, trs = cells[1:], trs[1:]
    rows = [[cell_of(c) for c in row] for row in cells]
    return Grid(grid_id, header, _drop_cut_last(rows, trs, cut_end), _tab_count(table))


# -- grids of divs ---------------------------------------------------------------------------


def _grid_cells(row: LexborNode) -> list[LexborNode]:
    """A grid row's cells: its element children, through wrappers (an element whose only
    element child holds the cells)."""
    node = row
    for _ in range(4):
        children = [c for c in node.iter() if c.is_element_node and c.tag not in _NO_TEXT]
        if len(children) != 1:
            return children
        node = children[0]
    return []


def _signature(node: LexborNode) -> tuple[str, str] | None:
    """What the rows of one grid share: tag and first class (or role)."""
    if node.tag not in _GRID_TAGS:
        return None
    classes = (node.attributes.get("class") or "").split()
    mark = classes[0] if classes else node.attributes.get("role")
    return (node.tag, mark) if mark else None


def _runs(parent: LexborNode) -> list[list[LexborNode]]:
    """Runs of two or more consecutive element children with one signature."""
    runs: list[list[LexborNode]] = []
    current: list[LexborNode] = []
    last: tuple[str, str] | None = None
    for child in parent.iter():
        if not child.is_element_node:
            continue
        sig = _signature(child)
        if sig is not None and sig == last:
            current.append(child)
        else:
            if len(current) >= 2:
                runs.append(current)
            current = [child] if sig is not None else []
        last = sig
    if len(current) >= 2:
        runs.append(current)
    return runs


def _div_header(first: LexborNode, width: int) -> list[str] | None:
    """The labels before a grid's first row: a sibling row of ``width`` labels just before it
    (or before one of its containers), else ``width`` single labels just before it (a header
    row whose start the excerpt cut off)."""
    node: LexborNode | None = first
    for _ in range(4):
        if node is None:
            break
        before = node.prev
        while before is not None and not before.is_element_node:
            before = before.prev
        if before is not None:
            cells = [cell_of(c) for c in _grid_cells(before)]
            if len(cells) == width and is_label_row(cells):
                return _text_of_cells(cells)
        node = node.parent
    loose: list[Cell] = []
    before = first.prev
    while before is not None and len(loose) < width:
        if before.is_element_node:
            if len(_grid_cells(before)) > 1:
                break  # a row, not a label
            loose.insert(0, cell_of(before))
        before = before.prev
    if len(loose) == width and is_label_row(loose):
        return _text_of_cells(loose)
    return None


def _div_grid(run: list[LexborNode], grid_id: str, cut_end: bool) -> Grid | None:
    """A run of rows as a table: all of one width (a last row the excerpt cut short aside),
    else not one table."""
    cells = [_grid_cells(row) for row in run]
    widths = Counter(len(c) for c in cells)
    width, times = widths.most_common(1)[0]
    if width < 2 or times < 2:
        return None
    rows = _drop_cut_last([[cell_of(c) for c in row] for row in cells], run, cut_end)
    if any(len(row) != width for row in rows):
        return None  # not one grid: rows of different shapes
    if is_label_row(rows[0]):  # the header row is one of the run
        return Grid(grid_id, _text_of_cells(rows[0]), rows[1:], _tab_count(run[0]))
    return Grid(grid_id, _div_header(run[0], width), rows, _tab_count(run[0]))


def _inside(node: LexborNode, tags: tuple[str, ...], roles: tuple[str, ...]) -> bool:
    parent = node.parent
    while parent is not None and parent.is_element_node:
        if parent.tag in tags or parent.attributes.get("role") in roles:
            return True
        parent = parent.parent
    return False


# -- tabs ------------------------------------------------------------------------------------


def _tab_count(node: LexborNode) -> int | None:
    """The GPU count the tab of the tab panel ``node`` sits in names ("8x", "8 GPUs")."""
    panel = node.parent
    while panel is not None and panel.is_element_node:
        if panel.attributes.get("role") == "tabpanel":
            tab_id = panel.attributes.get("aria-labelledby")
            tab = _document(panel).css_first(f'[id="{tab_id}"]') if tab_id else None
            return None if tab is None else count_label(cell_of(tab).text)
        panel = panel.parent
    return None


def _document(node: LexborNode) -> LexborNode:
    while node.parent is not None:
        node = node.parent
    return node


# -- all of them -----------------------------------------------------------------------------


def ends_cut(body: bytes) -> bool:
    """Whether a body ends without closing its document (an excerpt cut at a text marker)."""
    return _DOCUMENT_END.search(body[-400:]) is None


def html_tables(tree: LexborHTMLParser, selector: str, cut_end: bool) -> list[Grid]:
    """The page's HTML tables; ``cut_end``: the body was cut off (:func:`ends_cut`)."""
    tables = enumerate(tree.css(selector), 1)
    return [_html_table(table, f"t{n}", cut_end) for n, table in tables]


def other_grids(tree: LexborHTMLParser, cut_end: bool) -> list[Grid]:
    """The ARIA tables and grids of divs of a page (neither inside an HTML table)."""
    grids: list[Grid] = []
    aria = [
        node
        for node in tree.css('[role="table"], [role="grid"]')
        if node.tag != "table" and not _inside(node, ("table",), ())
    ]
    grids += [_aria_table(node, f"a{n}", cut_end) for n, node in enumerate(aria, 1)]
    n = 0
    # The body itself too: an excerpt cut out of a page (a tracker's saved pricing section)
    # often leaves the grid's rows straight under <body>.
    body = tree.body
    for parent in [*([body] if body is not None else []), *tree.css("body *")]:
        if parent.tag == "table" or _inside(parent, ("table",), ("table", "grid")):
            continue
        if parent.attributes.get("role") in ("table", "grid"):
            continue
        for run in _runs(parent):
            grid = _div_grid(run, f"d{n + 1}", cut_end)
            if grid is not None:
                n += 1
                grids.append(grid)
    return grids
