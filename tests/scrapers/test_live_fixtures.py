"""Every live source's fixtures: the base pages parse, every broken variant is an error
(a parse error, or a page the load rejects as implausible), never rows."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest

from scrapers.collect import parse_page
from scrapers.fx import FxRate, FxRates
from scrapers.http import FetchedPage
from scrapers.sources import build_adapter
from tests.support.live_fixtures import (
    AUTODL,
    BASES,
    BROKEN_BY_DRIFT,
    GENERIC_EN,
    GENERIC_LD,
    GENERIC_ZH,
    LIVE_DIR,
    MATPOOL,
    RAW,
    RUNPOD,
    RUNPOD_SAVED,
    SMM_LOGIN,
    VARIANTS,
    VASTAI,
    expected_variants,
    read,
)
from warehouse.ingest.load import validate_page

FETCHED = datetime(2026, 9, 4, 3, 0)
# What the load prices USD rows with when no rate is stored (warehouse.ingest.money).
FX = FxRates((), (FxRate(date(2026, 9, 1), "USD", Decimal("7.10"), "configured default"),))


def adapter_for(name: str):
    source = name.split("_")[0]
    if source == "generic":
        return build_adapter("examplecloud", "generic", {})
    return build_adapter(source)


def load_outcome(name: str):
    page = FetchedPage("https://example.invalid/pricing", 200, read(name), "", FETCHED)
    return validate_page(parse_page(adapter_for(name), page), FX)


def test_variant_files_are_up_to_date() -> None:
    for name, body in expected_variants().items():
        path = LIVE_DIR / name
        assert path.exists(), f"{name} missing: run .venv/bin/python tests/support/live_fixtures.py"
        assert path.read_bytes() == body, f"{name} is stale: regenerate it"


EXPECTED_ROWS = {
    VASTAI: 14,  # 8 hourly offers + 6 interruptible floors (card, size, location)
    RUNPOD: 16,
    RUNPOD_SAVED: 16,
    MATPOOL: 5,
    AUTODL: 12,  # every sku of 6 machines; the 3090 lists none, the 5090 D daily is 0
    GENERIC_ZH: 8,
    GENERIC_EN: 3,
    GENERIC_LD: 3,
}


@pytest.mark.parametrize("name", [b for b in BASES if b != SMM_LOGIN])
def test_every_base_fixture_parses(name: str) -> None:
    outcome = load_outcome(name)
    assert outcome.error is None, outcome.error
    assert len(outcome.rows) == EXPECTED_ROWS[name]


@pytest.mark.parametrize("name", sorted([*VARIANTS, *RAW]))
def test_every_broken_variant_is_refused_where_it_is_broken(name: str) -> None:
    """A variant that breaks the page (an error answer, a renamed field in every listing)
    fails whole with no row; one that breaks a single listing loses that listing alone,
    rejected with its reason, and the rest of the page loads."""
    outcome = load_outcome(name)
    whole = EXPECTED_ROWS.get(VARIANTS[name][0]) if name in VARIANTS else None
    if outcome.error is not None:
        assert outcome.rows == []
        assert outcome.error.startswith(("parse error", "page rejected"))
        return
    assert whole is not None and 0 < len(outcome.rows) < whole, (len(outcome.rows), whole)
    assert outcome.rejected and all(r.reason and r.where for r in outcome.rejected)
    if name in BROKEN_BY_DRIFT:
        assert [r.stage for r in outcome.rejected] == ["load"]
        assert outcome.rejected[0].reason.startswith("implausible price")
    else:
        assert {r.stage for r in outcome.rejected} == {"parse"}
