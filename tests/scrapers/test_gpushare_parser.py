"""恒源云 gpushare on its modelled machine list (tests/fixtures/live/gpushare_machines.json).

Field names follow the public monitor scripts (docs/SOURCES.md); the prepaid sku names, the
price reading (yuan per card for the sku's period) and the error envelope are modelled. The
broken variants are exact text replacements of the base file.
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
from scrapers.sources.gpushare import GpushareAdapter

D = Decimal
FETCHED = datetime(2026, 9, 4, 3, 0)
URL = "https://api.gpushare.com/app/api/market/machine/list?models=-1&gpuName=&priceOrder=asc&pn=1&ps=50"
BASE = (Path(__file__).parent.parent / "fixtures" / "live" / "gpushare_machines.json").read_text(
    encoding="utf-8"
)


def _variant(old: str, new: str, count: int = 1) -> bytes:
    assert BASE.count(old) == count, f"{old!r} is not in the base fixture {count} times"
    return BASE.replace(old, new).encode()


def _parse(body: bytes) -> list:
    return GpushareAdapter().parse(body, URL, FETCHED)


def test_fetch_plan_is_one_get_with_the_store_origin_and_a_bearer_token() -> None:
    adapter = GpushareAdapter()
    assert (adapter.name, adapter.kind, adapter.currency) == ("gpushare", "offers", "CNY")
    (request,) = adapter.fetch_plan("https://api.gpushare.com/")
    assert isinstance(request, Request) and request.method == "GET"
    assert request.url == URL
    headers = dict(request.headers)
    assert headers == {
        "Origin": "https://www.gpushare.com",
        "Referer": "https://www.gpushare.com/store",
    }  # the token is added at fetch time, never put in the plan
    assert adapter.secret is not None and adapter.secret.env == "GPUPRICE_GPUSHARE_TOKEN"
    assert adapter.secret.headers(" tok ") == {"Authorization": "Bearer tok"}


def test_every_sku_is_its_own_row_in_its_billing_mode() -> None:
    rows = {r.offer_id: r for r in _parse(BASE.encode())}
    got = {
        k: (r.billing, r.price, r.per_card_hour, r.unit, r.gpu, r.stock) for k, r in rows.items()
    }
    r3090 = canonical_gpu("NVIDIA GeForce RTX 3090")
    assert got == {
        "10231/payg": ("hourly", D("1.98"), D("1.980000"), "CNY/card-hour", "rtx4090-24g", 3),
        "10231/day": ("daily", D("42.00"), D("1.750000"), "CNY/card-day", "rtx4090-24g", 3),
        "10231/week": ("weekly", D("266.00"), D("1.583333"), "CNY/card-week", "rtx4090-24g", 3),
        "10231/month": ("monthly", D("1000.00"), D("1.388889"), "CNY/card-month",
                        "rtx4090-24g", 3),
        "10877/payg": ("hourly", D("7.5"), D("7.500000"), "CNY/card-hour", "a100-80g", 0),
        "10877/month": ("monthly", D("3888"), D("5.400000"), "CNY/card-month", "a100-80g", 0),
        "10877/year": ("yearly", D("42000"), D("4.794521"), "CNY/card-year", "a100-80g", 0),
        "9012/payg": ("hourly", D("1.32"), D("1.320000"), "CNY/card-hour", r3090, 0),  # offline
    }  # fmt: skip
    first = rows["10231/payg"]
    assert (first.gpu_name_raw, first.gpu_count, first.currency) == (
        "NVIDIA GeForce RTX 4090", 1, "CNY",
    )  # fmt: skip
    assert first.unit_raw == "元/卡时 (skuName payg)" and first.list_price == D("1.98")
    assert all(r.observed_at == FETCHED and not r.simulated for r in rows.values())


def test_an_error_answer_carries_gpushare_s_message() -> None:
    body = json.dumps({"code": 401, "msg": "登录已过期，请重新登录", "data": None}).encode()
    with pytest.raises(ParseError, match="code 401: '登录已过期，请重新登录'"):
        _parse(body)


@pytest.mark.parametrize(
    ("old", "new", "count", "message"),
    [
        # one machine of three broken: above the share a page may lose, so the page fails,
        # naming the machine and why
        ('"price": "1.98"', '"salePrice": "1.98"', 1,
         r"1 of 3 listing\(s\) rejected.*machine 1: skuList.0.price: Field required"),
        ('"skuName": "week"', '"skuName": "quarter"', 1, r"machine 1: unknown skuName 'quarter'"),
        ('"gpuName": "A100-SXM4-80GB"', '"gpu": "A100-SXM4-80GB"', 1,
         r"machine 2: baseInfo.gpuName: Field required"),
        ('"list": [', '"rows": [', 1, r"data.list: Field required"),
        ('"price": 7.5', '"price": "面议"', 1,
         r"machine 2: skuList.0.price: Input should be a valid decimal"),
    ],
    ids=["renamed price", "unknown sku", "renamed gpuName", "renamed list", "price text"],
)  # fmt: skip
def test_broken_answers_are_refused(old: str, new: str, count: int, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        _parse(_variant(old, new, count))


def test_a_price_in_another_scale_is_read_as_listed_for_the_load_to_judge() -> None:
    """¥198 per card-hour (fen read as yuan) is a price the page states: the parser keeps it,
    the load's plausibility check (warehouse.ingest.drift) refuses it per card."""
    rows = {r.offer_id: r for r in _parse(_variant('"price": "1.98"', '"price": "198"'))}
    assert rows["10231/payg"].per_card_hour == D("198")


@pytest.mark.parametrize(
    ("body", "message"),
    [(b"", "empty body"), (b"<html><title>502</title></html>", "body is not JSON")],
)
def test_empty_and_non_json_bodies_are_refused(body: bytes, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        _parse(body)
