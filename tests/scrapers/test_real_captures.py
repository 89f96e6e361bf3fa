"""Every real capture in ``tests/fixtures/real/`` through its adapter.

The expected rows were written by reading each capture (see the folder's README); this test
asserts that the adapter finds at least 95 % of them and nothing else.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest

from scrapers.rows import OfferRow, ParseError, Row
from scrapers.sources import build_adapter
from scrapers.units import nfkc

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
CASES = sorted(REAL.rglob("*.expected.json"))
MIN_RECALL = 0.95
PRICE_SCALE = Decimal("0.0001")

_KEYS = ("kind", "gpu_name_raw", "gpu", "gpu_count", "billing", "price", "currency", "per")
# Compared only where an expected row gives them.
_OPTIONAL_KEYS = ("region", "tier", "tier_name", "list_price")


def _facts(row: Row) -> dict[str, Any]:
    """What an expected row may say of a parsed row, in the expected file's terms."""
    if isinstance(row, OfferRow):
        return {
            "kind": "offer",
            "gpu_name_raw": nfkc(row.gpu_name_raw).casefold(),
            "gpu": row.gpu,
            "gpu_count": row.gpu_count,
            "billing": row.billing,
            "price": row.price.normalize(),
            "currency": row.currency,
            "per": "card" if "/card-" in row.unit else "machine",
            "region": row.region,
            "tier": row.tier,
            "tier_name": row.tier_name,
            "list_price": None if row.list_price is None else row.list_price.normalize(),
        }
    return {
        "kind": "quote",
        "gpu_name_raw": nfkc(row.gpu_name_raw).casefold(),
        "gpu": row.gpu,
        "price": row.price.normalize(),
        "currency": row.currency,
        "region": row.region,
    }


def _key(facts: dict[str, Any], keys: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(facts.get(k) for k in keys)


def _expected_key(row: dict[str, Any]) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    keys = tuple(k for k in (*_KEYS, *_OPTIONAL_KEYS) if k in row)
    facts = dict(row)
    facts["gpu_name_raw"] = nfkc(str(row["gpu_name_raw"])).casefold()
    # as printed; adapters store prices at the warehouse's scale (4 decimals, half up)
    for price in ("price", "list_price"):
        if row.get(price) is not None:
            facts[price] = _scaled(row[price])
    return keys, _key(facts, keys)


def _scaled(printed: object) -> Decimal:
    return Decimal(str(printed)).quantize(PRICE_SCALE, ROUND_HALF_UP).normalize()


def _case_id(path: Path) -> str:
    return str(path.relative_to(REAL)).removesuffix(".expected.json")


def test_the_corpus_is_there() -> None:
    assert len(CASES) >= 10, "tests/fixtures/real/ lost its captures"
    for path in CASES:
        capture = path.with_name(path.name.removesuffix(".expected.json"))
        assert capture.is_file(), f"{path.name} has no capture beside it"
        readme = path.parent / "README.md"
        assert readme.is_file() and capture.name in readme.read_text(encoding="utf-8"), (
            f"{capture.name} is not cited in {readme}"
        )


@pytest.mark.parametrize("expected_file", CASES, ids=_case_id)
def test_real_capture(expected_file: Path) -> None:
    spec = json.loads(expected_file.read_text(encoding="utf-8"))
    capture = expected_file.with_name(expected_file.name.removesuffix(".expected.json"))
    adapter = build_adapter(
        spec.get("source") or spec["adapter"], spec["adapter"], spec.get("options")
    )
    body = capture.read_bytes()
    fetched_at = datetime.fromisoformat(spec["fetched_at"])
    if spec.get("expect_error"):
        with pytest.raises(ParseError) as refused:
            adapter.parse(body, spec["url"], fetched_at)
        assert spec["expect_error"] in str(refused.value)
        return

    rows = adapter.parse(body, spec["url"], fetched_at)
    expected_rows = spec["rows"]
    assert expected_rows, f"{expected_file.name} expects no rows and no error"

    # Expected rows may give different sets of keys; compare each on the keys it gives.
    wanted: Counter[tuple[tuple[str, ...], tuple[Any, ...]]] = Counter(
        _expected_key(row) for row in expected_rows
    )
    found = 0
    junk = []
    for row in rows:
        facts = _facts(row)
        for keys, values in wanted:
            if wanted[(keys, values)] > 0 and _key(facts, keys) == values:
                wanted[(keys, values)] -= 1
                found += 1
                break
        else:
            junk.append(facts)
        assert row.per_card_hour > 0
    missing = [dict(zip(keys, values, strict=True)) for (keys, values), n in wanted.items()
               for _ in range(n)]  # fmt: skip
    assert not junk, f"rows that are not in the capture: {junk[:5]}"
    recall = found / len(expected_rows)
    assert recall >= MIN_RECALL, (
        f"found {found} of {len(expected_rows)} expected rows ({recall:.0%}); missing: {missing[:5]}"
    )
