"""Every real capture in mutated variants (issue 36, item 8): one listing broken, an optional
column removed, one cell's unit dropped. Each keeps its other valid rows and names the broken
listing.

The mutations are written once per format (``capture_variants.py``), not per capture. Every
page is read through the shared path (``scrapers.parse.read_page``) with the adapter wrapped so
that each row is known by the listing (``Item.where``) it came from; a listing's rows are
compared before the adapter combines the page's rows (``finish``: vast.ai keeps one floor
quote per card and place, the generic extractor numbers a listing listed twice), so that
"kept" means: the listing gave the same rows.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import pytest

from scrapers.parse import DEFAULT_MAX_REJECTED_SHARE, Rejected
from scrapers.rows import OfferRow, ParseError
from tests.scrapers.capture_variants import (
    BROKEN,
    BROKEN_PRINTED,
    CSV_PRICE,
    REAL,
    Capture,
    Outcome,
    broken_csv,
    broken_json,
    broken_page,
    capture,
    csv_header,
    csv_without,
    dump_json,
    json_without,
    outcome,
    same_reading,
    scripts_rewritten,
    unit_dropped,
    without,
)

CASES = sorted(
    p
    for p in REAL.rglob("*.expected.json")
    if not json.loads(p.read_text(encoding="utf-8")).get("expect_error")
)
MIN_KEPT = 0.95
# A JSON field each adapter reads as optional, and the row fields it gives.
OPTIONAL_JSON = {
    "vastai": ("geolocation", {"region"}),
    "runpod": ("memoryInGb", {"vram_gb", "gpu"}),
}
_ORIGINAL: dict[str, Outcome] = {}


def _case_id(path: Path) -> str:
    return str(path.relative_to(REAL)).removesuffix(".expected.json")


def _original(case: Capture) -> Outcome:
    if case.name not in _ORIGINAL:
        _ORIGINAL[case.name] = outcome(case, case.body)
    return _ORIGINAL[case.name]


def _first_variant(
    case: Capture, original: Outcome, bodies: Iterable[tuple[bytes, str]]
) -> tuple[str, Outcome] | None:
    """The first candidate body the adapter reads differently from the capture (a field it
    does not read gives no variant); ``None`` when none does."""
    for body, what in bodies:
        try:
            mutated = outcome(case, body)
        except ParseError as exc:  # the whole page refused: never for one broken listing
            pytest.fail(f"{what}: the page is refused: {exc}")
        if not same_reading(mutated, original):
            return what, mutated
    return None


def _kept(original: Outcome, mutated: Outcome, lost: set[str]) -> float:
    """The share of the rows of the listings not in ``lost`` that the variant still gives."""
    valid = {w: rows for w, rows in original.by_listing.items() if w not in lost}
    total = sum(len(rows) for rows in valid.values())
    same = sum(len(rows) for w, rows in valid.items() if mutated.by_listing.get(w) == rows)
    return same / total if total else 1.0


def _broken_bodies(case: Capture) -> Iterable[tuple[bytes, str]]:
    if case.format == "json":
        return broken_json(case.body)
    if case.format == "csv":
        return broken_csv(case.body, CSV_PRICE[case.adapter_name])
    return broken_page(case.body, case.expected)


def test_json_written_again_reads_the_same() -> None:
    """The JSON variants are the answer (or a page's script) loaded and dumped again: that
    alone changes nothing."""
    checked = 0
    for path in CASES:
        case = capture(path)
        if case.format == "json":
            bodies = [dump_json(json.loads(case.body))]
        else:
            bodies = list(scripts_rewritten(case.body)) if case.format == "page" else []
        for body in bodies:
            assert same_reading(outcome(case, body), _original(case)), case.name
            checked += 1
    assert checked >= 8  # six JSON answers, RunPod's 2023 and 2026 pages


@pytest.mark.parametrize("expected_file", CASES, ids=_case_id)
def test_one_broken_listing_is_rejected_alone(expected_file: Path) -> None:
    case = capture(expected_file)
    original = _original(case)
    variant = _first_variant(case, original, _broken_bodies(case))
    assert variant is not None, f"no broken price changed what {case.name} gives"
    what, mutated = variant
    new = Counter(mutated.read.rejected) - Counter(original.read.rejected)
    assert sum(new.values()) == 1, f"{what}: rejected {list(new)} (one listing expected)"
    assert not Counter(original.read.rejected) - Counter(mutated.read.rejected)
    broken: Rejected = next(iter(new))
    # It names the listing, which gave rows before, and shows the broken value.
    assert original.by_listing.get(broken.where), f"{what}: {broken} was no listing with rows"
    assert broken.reason and broken.stage == "parse"
    shown = broken.excerpt + broken.reason
    assert BROKEN in shown or BROKEN_PRINTED in shown, f"{what}: {broken} does not show it"
    # The rows are the capture's less the broken listing's: no other row changed or new,
    # at least 95 % of the others kept; the page's rows all come from those listings.
    assert set(mutated.by_listing) <= set(original.by_listing) - {broken.where}
    for where, rows in mutated.by_listing.items():
        assert not Counter(rows) - Counter(original.by_listing[where]), f"{what}: {where}"
    assert _kept(original, mutated, {broken.where}) >= MIN_KEPT, what
    assert broken.where not in mutated.origin_of_rows and None not in mutated.origin_of_rows
    assert mutated.read.listings == original.read.listings
    # The page fails only where one listing is more than the share a page may lose, of the
    # listings that state a price ("Contact us" rows are rejected, but no sign of a break).
    failure = mutated.read.failure()
    unpriced = sum(r.unpriced for r in mutated.read.rejected)
    failed = len(mutated.read.rejected) - unpriced
    if failed / (mutated.read.listings - unpriced) > DEFAULT_MAX_REJECTED_SHARE:
        assert failure is not None and broken.where in failure, failure
    else:
        assert failure is None, f"{what}: {failure}"


def _optional_column(case: Capture) -> tuple[bytes, set[str], bool]:
    """The capture without an optional column: (body, the row fields it gives, whether it
    alone gives rows of their own: a spot price)."""
    if case.format == "csv":
        if "SpotPrice" not in csv_header(case.body):
            pytest.skip("a catalog without a SpotPrice column: no optional column left")
        return csv_without(case.body, "SpotPrice"), set(), True
    if case.format == "json":
        key, gives = OPTIONAL_JSON[case.adapter_name]
        return json_without(case.body, key), gives, False
    # A page's columns are the page's layout: removing one (a VRAM or a price column) is
    # another table, not an optional value left out. The extractor's reading of tables with
    # and without such columns is tested on modelled tables (test_generic_extractor.py).
    pytest.skip("an HTML or Markdown table: no optional column to remove")


def _spot(row: object) -> bool:
    return isinstance(row, OfferRow) and row.billing == "spot"


@pytest.mark.parametrize("expected_file", CASES, ids=_case_id)
def test_an_optional_column_removed(expected_file: Path) -> None:
    """SkyPilot's SpotPrice (Region is left in: without it the lines of all regions of an
    instance type are one listing, a merge rather than a value left out), vast.ai's
    geolocation, RunPod's memoryInGb: every listing still gives its rows, less the spot rows
    where SpotPrice went, the same but for the fields the column gave."""
    case = capture(expected_file)
    original = _original(case)
    body, gives, spot_rows = _optional_column(case)
    mutated = outcome(case, body)
    lost = set()
    for where, rows in original.by_listing.items():
        kept = [without(r, gives) for r in rows if not (spot_rows and _spot(r))]
        if rows and not kept:
            lost.add(where)  # a spot-only listing states no price without its SpotPrice
            continue
        assert [without(r, gives) for r in mutated.by_listing.get(where, [])] == kept, where
    rejected = Counter(mutated.read.rejected) - Counter(original.read.rejected)
    assert {r.where for r in rejected} == lost, list(rejected)
    assert all("neither a Price nor a SpotPrice" in r.reason for r in rejected)
    # The page fails only where more listings than the share a page may lose are rejected
    # (Verda's v8 catalog: 5 of its 22 GPU listings are spot-only).
    share = len(mutated.read.rejected) / mutated.read.listings
    assert (mutated.read.failure() is None) == (share <= DEFAULT_MAX_REJECTED_SHARE)
    if gives:  # the column's fields changed on some row: it was read
        assert any(
            without(a, ()) != without(b, ())
            for w in original.by_listing
            for a, b in zip(original.by_listing[w], mutated.by_listing.get(w, []), strict=False)
        )
    elif spot_rows and not any(_spot(r) for rows in original.by_listing.values() for r in rows):
        assert mutated.by_listing == original.by_listing  # the column held no spot price


@pytest.mark.parametrize("expected_file", CASES, ids=_case_id)
def test_a_cell_without_its_unit_takes_its_columns_period(expected_file: Path) -> None:
    case = capture(expected_file)
    if case.format != "page":
        pytest.skip("cells of a JSON answer or a CSV catalog state no unit")
    original = _original(case)
    candidates = list(unit_dropped(case.body, case.expected))
    if not candidates:
        pytest.skip("no price cell states its period in the cell ('X元/时', '$X/hr')")
    variant = _first_variant(case, original, candidates)
    if variant is None:  # e.g. "$1.19/hr" in a product's description, not in a price cell
        pytest.skip("no price cell the adapter reads states its period in the cell")
    what, mutated = variant
    assert mutated.read.rejected == original.read.rejected, what
    assert set(mutated.by_listing) == set(original.by_listing)
    changed = [
        (before, after)
        for where, rows in original.by_listing.items()
        for before, after in zip(rows, mutated.by_listing[where], strict=True)
        if before != after
    ]
    assert len(changed) == 1, f"{what}: {len(changed)} rows changed"
    before, after = changed[0]
    # The same row, price and period, its unit_raw saying where the period came from.
    assert replace(after, unit_raw=before.unit_raw) == before, what
    assert "the column's other cells" in after.unit_raw, after.unit_raw
    assert mutated.read.failure() is None
