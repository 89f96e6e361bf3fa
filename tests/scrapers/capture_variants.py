"""Mutations of a real capture and what its adapter makes of them, for
``test_real_capture_variants.py``.

Each mutation is written once per format (a JSON answer, a CSV catalog, an HTML or Markdown
page), never per capture; a mutation yields candidate bodies, the first one that changes what
the adapter reads is the variant (a price field the adapter does not read is no variant).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any

from scrapers.parse import Item, Page, PageRead, read_page
from scrapers.rows import Row
from scrapers.sources import SourceAdapter, build_adapter

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
BROKEN = "n/a"  # a structured format's broken price
BROKEN_PRINTED = "?.??"  # a page's broken price
# A JSON key that names a price (vast.ai's dph_total, RunPod's securePrice, ...).
PRICE_KEY = re.compile(r"price|dph|cents|cost|bid", re.IGNORECASE)
# The CSV column that holds a catalog's price, by adapter.
CSV_PRICE = {"skypilot": "Price"}
# A price cell that states its period: "1.5元/时", "$4.29/hr", "<span>$</span> 4.29 /hr",
# "$2.0000/ 1 hour", "$1.29 / GPU / hr" ("keep": the cell without its period).
_TAGS = r"(?:\s|&nbsp;|<[^>]*>)*"
_USD = rf"\${_TAGS}(?P<price>\d+(?:\.\d+)?)(?:{_TAGS}/{_TAGS}GPU)?"
UNIT_CELLS = (
    re.compile(rf"(?P<keep>(?<![\d.])(?P<price>\d+(?:\.\d+)?){_TAGS}元){_TAGS}/{_TAGS}(?:时|小时)"),
    re.compile(rf"(?P<keep>{_USD}){_TAGS}/{_TAGS}(?:1\s*)?(?:hr|h|hour)(?![a-z])", re.IGNORECASE),
)


@dataclass(frozen=True)
class Capture:
    """A real capture and how its ``.expected.json`` says to read it."""

    name: str
    adapter_name: str
    body: bytes
    url: str
    fetched_at: datetime
    expected: list[dict[str, Any]]
    options: dict[str, Any] | None
    source: str

    @property
    def format(self) -> str:
        suffix = Path(self.name).suffix
        if suffix == ".csv":
            return "csv"
        return "json" if self.body.lstrip()[:1] in (b"[", b"{") else "page"

    def adapter(self) -> SourceAdapter:
        return build_adapter(self.source, self.adapter_name, self.options)


def capture(expected_file: Path) -> Capture:
    spec = json.loads(expected_file.read_text(encoding="utf-8"))
    path = expected_file.with_name(expected_file.name.removesuffix(".expected.json"))
    return Capture(
        name=str(path.relative_to(REAL)),
        adapter_name=spec["adapter"],
        body=path.read_bytes(),
        url=spec["url"],
        fetched_at=datetime.fromisoformat(spec["fetched_at"]),
        expected=spec["rows"],
        options=spec.get("options"),
        source=spec.get("source") or spec["adapter"],
    )


# -- what the adapter reads, listing by listing ---------------------------------------------


@dataclass
class _Traced:
    """The adapter, noting which listing (``Item.where``) each row came from."""

    adapter: SourceAdapter
    by_listing: dict[str, list[Row]] = field(default_factory=dict)
    origin: dict[int, str] = field(default_factory=dict)
    alive: list[Row] = field(default_factory=list)  # so that a row's id stays its own

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        return self.adapter.read(body, url, fetched_at)

    def rows(self, item: Item, page: Page) -> list[Row]:
        new = list(self.adapter.rows(item, page))
        self.by_listing[item.where] = new
        self.origin.update((id(row), item.where) for row in new)
        self.alive += new
        return new

    def finish(self, rows: list[Row], page: Page) -> list[Row]:
        out = self.adapter.finish(rows, page)
        self.alive += out
        if len(out) == len(rows):  # rows renumbered in place (the generic extractor's "#2")
            for before, after in zip(rows, out, strict=True):
                self.origin.setdefault(id(after), self.origin[id(before)])
        return out


@dataclass(frozen=True)
class Outcome:
    """A page read: the rows each listing gave (before the adapter combined them), the page's
    rows with the listing each came from, and what the shared path rejected."""

    read: PageRead
    by_listing: dict[str, list[Row]]
    origin_of_rows: list[str | None]

    @property
    def rejected_wheres(self) -> list[str]:
        return [r.where for r in self.read.rejected]


def outcome(case: Capture, body: bytes) -> Outcome:
    traced = _Traced(case.adapter())
    read = read_page(traced, body, case.url, case.fetched_at)
    origins = [traced.origin.get(id(row)) for row in read.rows]
    return Outcome(read, traced.by_listing, origins)


def same_reading(a: Outcome, b: Outcome) -> bool:
    return a.by_listing == b.by_listing and a.rejected_wheres == b.rejected_wheres


def without(row: Row, names: Iterable[str]) -> tuple[Any, ...]:
    """A row's fields but ``names``: what a removed column must leave as it was."""
    return tuple(getattr(row, f.name) for f in fields(row) if f.name not in set(names))


# -- one listing broken ------------------------------------------------------------------------


def _lists_of_objects(doc: Any) -> Iterator[list[dict[str, Any]]]:
    if isinstance(doc, list):
        if doc and all(isinstance(x, dict) for x in doc):
            yield doc
        for x in doc:
            yield from _lists_of_objects(x)
    elif isinstance(doc, dict):
        for x in doc.values():
            yield from _lists_of_objects(x)


def largest_list(doc: Any) -> list[dict[str, Any]]:
    found = max(_lists_of_objects(doc), key=len, default=[])
    assert found, "no list of objects in the answer"
    return found


def middle_out(n: int) -> list[int]:
    """0 … n-1 from the middle outwards: the middle first, then its neighbours."""
    mid = n // 2
    order = sorted(range(n), key=lambda i: (abs(i - mid), i))
    return order


def dump_json(doc: Any) -> bytes:
    return json.dumps(doc, ensure_ascii=False, indent=1).encode()


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _price_fields(value: Any) -> Iterator[tuple[dict[str, Any], str]]:
    """The price fields under ``value``, depth first in document order: (object, key) of
    each number, or number written as text, whose key names a price."""
    if isinstance(value, dict):
        for key, item in value.items():
            numeric = isinstance(item, int | float) and not isinstance(item, bool)
            numeric = numeric or (isinstance(item, str) and _NUMBER.fullmatch(item) is not None)
            if numeric and PRICE_KEY.search(key):
                yield value, key
            yield from _price_fields(item)
    elif isinstance(value, list):
        for item in value:
            yield from _price_fields(item)


def broken_json_doc(doc: Any) -> Iterator[tuple[str, str]]:
    """The middle object of the document's largest list with its first price field (then
    the next ones, then the neighbours' objects) set to "n/a"."""
    listing = largest_list(doc)
    for i in middle_out(len(listing)):
        for obj, key in list(_price_fields(listing[i])):
            value = obj[key]
            obj[key] = BROKEN
            yield dump_json(doc).decode(), f"object {i + 1} of {len(listing)}: {key} {value} -> n/a"
            obj[key] = value


def broken_json(body: bytes) -> Iterator[tuple[bytes, str]]:
    for text, what in broken_json_doc(json.loads(body)):
        yield text.encode(), what


def _csv_lines(body: bytes) -> tuple[list[str], list[str]]:
    lines = body.decode("utf-8").splitlines(keepends=True)
    header = next(csv.reader([lines[0]]))
    return lines, [name.strip() for name in header]


def _csv_line(fields_: list[str], ending: str) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator=ending).writerow(fields_)
    return out.getvalue()


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def broken_csv(body: bytes, column: str) -> Iterator[tuple[bytes, str]]:
    """The middle data line (then its neighbours) with its ``column`` cell set to "n/a"."""
    lines, header = _csv_lines(body)
    index = header.index(column)
    data = [n for n in range(1, len(lines)) if lines[n].strip()]
    for i in middle_out(len(data)):
        n = data[i]
        cells = next(csv.reader([lines[n]]))
        if len(cells) != len(header) or not cells[index]:
            continue
        cells[index] = BROKEN
        mutated = [*lines[:n], _csv_line(cells, _ending(lines[n])), *lines[n + 1 :]]
        yield "".join(mutated).encode(), f"line {n + 1}: {column} -> n/a"


def _once(text: str, pattern: re.Pattern[str]) -> re.Match[str] | None:
    found = list(pattern.finditer(text))
    return found[0] if len(found) == 1 else None


_SCRIPT = re.compile(r"(<script\b[^>]*>)(.*?)(</script>)", re.IGNORECASE | re.DOTALL)


def _json_scripts(text: str) -> Iterator[tuple[re.Match[str], Any]]:
    """The page's scripts that hold JSON with a list of objects (JSON-LD, page data)."""
    for script in _SCRIPT.finditer(text):
        try:
            doc = json.loads(script[2])
        except ValueError:
            continue
        if any(True for _ in _lists_of_objects(doc)):
            yield script, doc


def scripts_rewritten(body: bytes) -> Iterator[bytes]:
    """The page with one JSON script loaded and dumped again, unchanged (for each)."""
    text = body.decode("utf-8")
    for script, doc in _json_scripts(text):
        inner = dump_json(doc).decode()
        yield (text[: script.start(2)] + inner + text[script.end(2) :]).encode()


def broken_page(body: bytes, expected: list[dict[str, Any]]) -> Iterator[tuple[bytes, str]]:
    """One expected row's printed price (the middle row's first, then its neighbours'), where
    it occurs once in the page and not in a script, replaced by "?.??"; then, for a page
    whose listings are JSON in a script (JSON-LD, a framework's page data), that JSON broken
    as a JSON answer is (a "?.??" inside it would break the whole document, not a listing)."""
    text = body.decode("utf-8")
    scripts = list(_SCRIPT.finditer(text))
    for i in middle_out(len(expected)):
        printed = str(expected[i]["price"])
        match = _once(text, re.compile(rf"(?<![\d.,]){re.escape(printed)}(?!\d|\.\d)"))
        if match is not None and not any(s.start(2) <= match.start() < s.end(2) for s in scripts):
            mutated = text[: match.start()] + BROKEN_PRINTED + text[match.end() :]
            yield mutated.encode(), f"row {i + 1}'s price {printed} -> {BROKEN_PRINTED}"
    for script, doc in _json_scripts(text):
        for inner, what in broken_json_doc(doc):
            mutated = text[: script.start(2)] + inner + text[script.end(2) :]
            yield mutated.encode(), f"script {script[1]!r}: {what}"


# -- an optional column removed -------------------------------------------------------------


def csv_without(body: bytes, column: str) -> bytes:
    lines, header = _csv_lines(body)
    index = header.index(column)
    out = []
    for line in lines:
        if not line.strip():
            out.append(line)
            continue
        cells = next(csv.reader([line]))
        out.append(_csv_line(cells[:index] + cells[index + 1 :], _ending(line)))
    return "".join(out).encode()


def json_without(body: bytes, key: str) -> bytes:
    """The answer without ``key`` in any object of its largest list."""
    doc = json.loads(body)
    for obj in largest_list(doc):
        obj.pop(key, None)
    return dump_json(doc)


def csv_header(body: bytes) -> list[str]:
    return _csv_lines(body)[1]


# -- one cell's unit dropped ------------------------------------------------------------------


def unit_dropped(body: bytes, expected: list[dict[str, Any]]) -> Iterator[tuple[bytes, str]]:
    """A price cell that states its period ("1.5元/时", "$4.29/hr"), whose price is an
    expected row's and whose text occurs once, without its period ("1.5元", "$4.29"): the
    middle such cell first, then its neighbours."""
    text = body.decode("utf-8")
    printed = {str(row["price"]) for row in expected}
    cells = [m for p in UNIT_CELLS for m in p.finditer(text) if m["price"] in printed]
    cells = [m for m in cells if text.count(m[0]) == 1]
    cells.sort(key=lambda m: m.start())
    for i in middle_out(len(cells)):
        m = cells[i]
        mutated = text[: m.start()] + m["keep"] + text[m.end() :]
        yield mutated.encode(), f"{m[0]!r} -> {m['keep']!r}"
