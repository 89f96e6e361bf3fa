"""矩池云 (prices in millicents) and AutoDL (thousandths of a yuan, token-protected)."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal

import pytest

from scrapers.http import Request
from scrapers.rows import ParseError
from scrapers.sources.autodl import AutodlAdapter
from scrapers.sources.matpool import MatpoolAdapter
from tests.scrapers.live_fixtures import AUTODL, MATPOOL, read

D = Decimal
FETCHED = datetime(2026, 9, 4, 3, 0)


def test_matpool_prices_are_millicents_per_card_hour() -> None:
    adapter = MatpoolAdapter()
    (url,) = adapter.fetch_plan("https://matpool.com")
    assert url.startswith("https://matpool.com/api/machines?")
    rows = {r.offer_id: r for r in adapter.parse(read(MATPOOL), url, FETCHED)}
    r4090 = rows["119"]
    assert (r4090.gpu, r4090.price, r4090.cny_per_card_hour) == ("rtx4090-24g", D("2.2"), D("2.2"))
    assert "priceMillicent ÷ 100000" in r4090.unit_raw and r4090.unit == "CNY/card-hour"
    assert (r4090.region, r4090.stock, r4090.cpu_cores, r4090.ram_gb) == ("1区", 3, 16, 62)
    assert rows["207"].gpu == "a100-40g"  # NVIDIA A100-PCIE-40GB
    assert rows["311"].gpu == "h100-80g" and rows["311"].price == D("12.5")
    assert rows["405"].gpu == "910b-64g" and rows["405"].region == "国产卡"
    assert rows["131"].gpu == "unknown"  # RTX 3090
    assert all(r.observed_at == FETCHED and r.billing == "hourly" for r in rows.values())


def test_autodl_posts_with_a_token_and_prices_are_thousandths_of_a_yuan() -> None:
    adapter = AutodlAdapter()
    (request,) = adapter.fetch_plan("https://www.autodl.com/")
    assert isinstance(request, Request) and request.method == "POST"
    assert request.url == "https://www.autodl.com/api/v1/user/machine/list"
    assert request.json_body["charge_type"] == "payg"
    assert "Authorization" not in dict(request.headers)  # the token is added at fetch time
    assert adapter.secret is not None and adapter.secret.env == "GPUPRICE_AUTODL_TOKEN"
    assert adapter.secret.headers(" tok ") == {"Authorization": "tok"}
    rows = {r.offer_id: r for r in adapter.parse(read(AUTODL), request.url, FETCHED)}
    first = rows["2dd949a4cf"]
    assert (first.gpu, first.price, first.cny_per_card_hour) == (
        "rtx4090-24g", D("1.98"), D("1.980000"),
    )  # fmt: skip
    assert (first.region, first.stock, first.cpu_cores, first.ram_gb) == ("西北B区", 3, 16, 129)
    assert rows["c5a1e90b12"].gpu == "h20-96g" and rows["c5a1e90b12"].price == D("10.5")
    assert rows["77b0a2d4e1"].gpu == "unknown"  # Ascend 910B2: a variant, not guessed as 910B
    assert "f00d00aa01" not in rows  # payg false: no hourly price


def test_autodl_error_envelope_is_a_parse_error_with_the_message() -> None:
    body = json.dumps({"code": "AuthorizeFailed", "msg": "token expired", "data": None}).encode()
    with pytest.raises(ParseError, match="AuthorizeFailed.*token expired"):
        AutodlAdapter().parse(body, "https://www.autodl.com/x", FETCHED)
