"""PPIO 派欧云 on its modelled products answer (tests/fixtures/live/ppio_products.json).

Field names follow SkyPilot's fetch_ppio.py and Novita's OpenAPI schema (docs/SOURCES.md);
the values are invented. The broken variants are exact text replacements of the base file.
"""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from scrapers.gpu_names import canonical_gpu
from scrapers.http import Request
from scrapers.rows import ParseError
from scrapers.sources.ppio import PpioAdapter

D = Decimal
FETCHED = datetime(2026, 9, 4, 3, 0)
URL = "https://api.ppinfra.com/gpu-instance/openapi/v1/products?available=true"
BASE = (Path(__file__).parent.parent / "fixtures" / "live" / "ppio_products.json").read_text(
    encoding="utf-8"
)


def _variant(old: str, new: str, count: int = 1) -> bytes:
    assert BASE.count(old) == count, f"{old!r} is not in the base fixture {count} times"
    return BASE.replace(old, new).encode()


def _parse(body: bytes) -> list:
    return PpioAdapter().parse(body, URL, FETCHED)


def test_fetch_plan_is_skypilot_s_get_with_a_bearer_key() -> None:
    adapter = PpioAdapter()
    assert (adapter.name, adapter.kind, adapter.currency) == ("ppio", "offers", "CNY")
    (request,) = adapter.fetch_plan("https://api.ppinfra.com/")
    assert isinstance(request, Request)
    assert (request.method, request.url, request.headers) == ("GET", URL, ())
    assert adapter.secret is not None and adapter.secret.env == "GPUPRICE_PPIO_API_KEY"
    assert adapter.secret.headers(" key ") == {"Authorization": "Bearer key"}


def test_one_row_per_product_region_and_billing_mode() -> None:
    rows = {r.offer_id: r for r in _parse(BASE.encode())}
    got = {
        k: (r.billing, r.price, r.per_card_hour, r.gpu, r.region, r.stock) for k, r in rows.items()
    }
    a6000 = canonical_gpu("RTX A6000 48GB")
    sh, gz = "华东-上海一区", "华南-广州二区"
    assert got == {
        f"2b7c1e0f-rtx4090/{sh}": ("hourly", D("1.89"), D("1.890000"), "rtx4090-24g", sh, None),
        f"2b7c1e0f-rtx4090/{sh}/spot": ("spot", D("0.95"), D("0.950000"), "rtx4090-24g", sh, None),
        f"2b7c1e0f-rtx4090/{gz}": ("hourly", D("1.89"), D("1.890000"), "rtx4090-24g", gz, None),
        f"2b7c1e0f-rtx4090/{gz}/spot": ("spot", D("0.95"), D("0.950000"), "rtx4090-24g", gz, None),
        f"9d41aa02-h100/{sh}": ("hourly", D("15.9"), D("15.900000"), "h100-80g", sh, 0),
        "5e0f7c33-a6000": ("hourly", D("0.99"), D("0.990000"), a6000, None, None),
    }  # fmt: skip  (the activityProduct is skipped, as SkyPilot skips it)
    r = rows[f"2b7c1e0f-rtx4090/{sh}"]
    assert (r.gpu_name_raw, r.gpu_count, r.currency, r.unit) == (
        "RTX 4090 24GB", 1, "CNY", "CNY/card-hour",
    )  # fmt: skip
    assert (r.cpu_cores, r.ram_gb, r.list_price) == (16, 62, D("1.89"))
    assert r.unit_raw == "元/卡时 (price ÷ 100000)"
    assert rows[f"2b7c1e0f-rtx4090/{sh}/spot"].unit_raw == "元/卡时 (spotPrice ÷ 100000)"
    assert all(r.observed_at == FETCHED and not r.simulated for r in rows.values())


def test_an_error_answer_carries_ppio_s_message() -> None:
    body = json.dumps(
        {"code": 401, "reason": "INVALID_API_KEY", "message": "invalid api key", "metadata": {}}
    ).encode()
    with pytest.raises(ParseError, match="code 401: 'invalid api key'"):
        _parse(body)


@pytest.mark.parametrize(
    ("old", "new", "count", "message"),
    [
        # one product of four broken: above the share a page may lose
        ('"price": 189000', '"salePrice": 189000', 1, r"product 1: price: Field required"),
        ('"spotPrice": "95000"', '"spot": "95000"', 1,
         r"product 1: billingMethods lists spot but spotPrice is missing or 0"),
        ('"cpuPerGpu": 20', '"vcpuPerGpu": 20', 1, r"product 2: cpuPerGpu: Field required"),
        # already in yuan: ÷ 100000 leaves less than the warehouse's 4 decimals
        ('"price": 189000', '"price": 1.89', 1, r"product 1: .*price 0.0000189 rounds to 0"),
        ('"data": [', '"items": [', 1, r"answer has no data list"),
    ],
    ids=["renamed price", "renamed spotPrice", "renamed cpuPerGpu", "price in yuan", "renamed data"],
)  # fmt: skip
def test_broken_answers_are_refused(old: str, new: str, count: int, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        _parse(_variant(old, new, count))


def test_a_price_in_another_scale_is_read_as_listed_for_the_load_to_judge() -> None:
    """A price in 1/1000 fen is what the answer states: the parser divides as documented, and
    the load's plausibility check (warehouse.ingest.drift) refuses the row per card."""
    rows = _parse(_variant('"price": 1590000', '"price": 159000000'))
    assert D("1590") in {r.per_card_hour for r in rows}


@pytest.mark.parametrize(
    ("body", "message"),
    [(b"  ", "empty body"), (b"<!DOCTYPE html><html>login</html>", "body is not JSON")],
)
def test_empty_and_non_json_bodies_are_refused(body: bytes, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        _parse(body)
