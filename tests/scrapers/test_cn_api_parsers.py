"""矩池云 (public market pools, millicents per 份-hour) and AutoDL (market search, 厘 per card
and period, token-protected), on the modelled fixtures of tests/fixtures/live/."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from scrapers.gpu_names import canonical_gpu
from scrapers.http import Request
from scrapers.rows import ParseError
from scrapers.sources.autodl import AutodlAdapter
from scrapers.sources.matpool import MatpoolAdapter
from tests.support.listings import one_rejected
from tests.support.live_fixtures import AUTODL, MATPOOL, read

D = Decimal
FETCHED = datetime(2026, 9, 4, 3, 0)
MURL = "https://matgo.cn/api/machine_pools?machine_category=0&page=1&per_page=100"
AURL = "https://www.autodl.com/api/v1/machine/search"


def swap(name: str, old: str, new: str, count: int = 1) -> bytes:
    text = read(name).decode()
    assert text.count(old) == count, old
    return text.replace(old, new).encode()


# -- 矩池云 ------------------------------------------------------------------------------


def test_matpool_fetches_the_public_pool_market_without_a_token() -> None:
    adapter = MatpoolAdapter()
    assert adapter.fetch_plan("https://matgo.cn/") == [MURL]
    assert adapter.secret is None


def test_matpool_price_paid_beside_list_price_per_unit() -> None:
    rows = {r.offer_id: r for r in MatpoolAdapter().parse(read(MATPOOL), MURL, FETCHED)}
    assert list(rows) == ["pool-119", "pool-207", "pool-311", "pool-405", "pool-512"]
    r4090 = rows["pool-119"]  # no discountPriceMillicent: the list price is paid
    assert (r4090.gpu, r4090.vram_gb, r4090.gpu_count) == ("rtx4090-24g", 24, 1)
    assert (r4090.price, r4090.list_price, r4090.per_card_hour) == (
        D("2.2"),
        D("2.2"),
        D("2.2"),
    )
    assert r4090.unit == "CNY/card-hour" and "元/小时/份" in r4090.unit_raw
    assert (r4090.region, r4090.stock, r4090.cpu_cores, r4090.ram_gb, r4090.disk_gb) == (
        "domain 0", 3, 16, 62, 100,
    )  # fmt: skip
    a100 = rows["pool-207"]
    assert (a100.gpu, a100.price, a100.list_price) == ("a100-40g", D("5.2"), D("5.8"))
    h100 = rows["pool-311"]
    assert (h100.gpu, h100.price, h100.list_price, h100.region) == (
        "h100-80g", D("12.5"), D("13.5"), "domain 1",
    )  # fmt: skip
    # 8 cards in 4 units: one 份 is 2 cards; ¥14.00 per 份-hour is ¥7.00 per card-hour
    pair = rows["pool-405"]
    assert (pair.gpu, pair.gpu_count, pair.price, pair.list_price) == (
        "a100-80g",
        2,
        D("14"),
        D("15.6"),
    )
    assert pair.unit == "CNY/server-hour" and pair.per_card_hour == D("7")
    assert (pair.cpu_cores, pair.stock, pair.ram_gb) == (32, 2, 460)
    a2000 = rows["pool-512"]
    assert (
        a2000.gpu == canonical_gpu("NVIDIA RTX A2000", 12)
        and a2000.gpu_name_raw == "NVIDIA RTX A2000"
    )
    assert all(r.billing == "hourly" and r.observed_at == FETCHED for r in rows.values())


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"code": 176, "msg": "check jwt token failed"}', "code 176: 'check jwt token failed'"),
        (b'{"machines": [], "total": 0}', "no market pools"),
        (b"", "empty body"),
        (b"<html>502 Bad Gateway</html>", "not JSON"),
        # every pool renamed its price field: no row, each pool rejected with its reason
        (swap(MATPOOL, '"priceMillicent"', '"price"', 5),
         "no row; 5 rejected: pool 1: machine.hardware.priceMillicent: Field required"),
    ],
)  # fmt: skip
def test_matpool_refuses_a_page_it_does_not_recognise(body: bytes, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        MatpoolAdapter().parse(body, MURL, FETCHED)


@pytest.mark.parametrize(
    ("body", "where", "reason"),
    [
        (swap(MATPOOL, '"gpu_model": "NVIDIA RTX A2000"', '"gpuModel": "x"'), "pool 5",
         "gpu_model: Field required"),
        (swap(MATPOOL, '"discountPriceMillicent": 520000', '"discountPriceMillicent": 620000'),
         "pool 2", "above priceMillicent"),
        (swap(MATPOOL, '"priceMillicent": 220000', '"priceMillicent": 2.2'), "pool 1",
         "priceMillicent: Input should be a valid integer"),
        # a 份 of 8/3 cards: no per-card price can be stated
        (swap(MATPOOL, '"total": 4,\n          "max": 4\n        },\n        "domain": 1',
              '"total": 3,\n          "max": 4\n        },\n        "domain": 1'),
         "pool 4", "not a whole number"),
        (swap(MATPOOL, '"resource_pool_id": "pool-207"', '"resource_pool_id": "pool-119"'),
         "pool 2", "listed twice"),
    ],
)  # fmt: skip
def test_matpool_rejects_one_pool_it_does_not_recognise_and_keeps_the_others(
    body: bytes, where: str, reason: str
) -> None:
    whole = MatpoolAdapter().parse(read(MATPOOL), MURL, FETCHED)
    rejected, rows = one_rejected(MatpoolAdapter(), body, MURL, FETCHED, reason)
    assert rejected.where == where
    assert len(rows) == len(whole) - 1


def test_matpool_empty_market_is_no_rows() -> None:
    assert MatpoolAdapter().parse(read("matpool_empty.json"), MURL, FETCHED) == []


# -- AutoDL --------------------------------------------------------------------------------


def test_autodl_posts_the_market_search_with_the_bare_token() -> None:
    adapter = AutodlAdapter()
    (request,) = adapter.fetch_plan("https://www.autodl.com/")
    assert isinstance(request, Request) and request.method == "POST" and request.url == AURL
    body = request.json_body
    assert (body["charge_type"], body["page_index"], body["page_size"]) == ("payg", 1, 100)
    assert (body["gpu_idle_num"], body["default_order"], body["gpu_type_name"]) == (0, True, [])
    assert "Authorization" not in dict(request.headers)  # the token is added at fetch time
    assert adapter.secret is not None and adapter.secret.env == "GPUPRICE_AUTODL_TOKEN"
    assert adapter.secret.headers(" tok ") == {"Authorization": "tok"}  # no "Bearer"


def test_autodl_every_sku_type_with_its_list_price() -> None:
    rows = AutodlAdapter().parse(read(AUTODL), AURL, FETCHED)
    got = {(r.offer_id, r.billing): r for r in rows}
    assert len(rows) == 12
    payg = got[("2dd949a4cf", "hourly")]
    assert (payg.gpu, payg.vram_gb, payg.price, payg.list_price) == (
        "rtx4090-24g", 24, D("1.98"), D("1.98"),
    )  # fmt: skip
    assert payg.unit == "CNY/card-hour" and payg.per_card_hour == D("1.98")
    # mem_per_gpu is bytes of GiB: 128849018880 = 120 GiB
    assert (payg.region, payg.stock, payg.cpu_cores, payg.ram_gb) == ("西北B区", 3, 16, 120)
    day = got[("2dd949a4cf", "daily")]
    assert (day.price, day.list_price, day.unit, day.per_card_hour) == (
        D("45.6"), D("47.52"), "CNY/card-day", D("1.9"),
    )  # fmt: skip
    week = got[("2dd949a4cf", "weekly")]
    assert (week.price, week.list_price, week.unit) == (D("300"), D("332.64"), "CNY/card-week")
    month = got[("2dd949a4cf", "monthly")]
    assert (month.price, month.list_price, month.unit) == (D("1052"), D("1425.6"), "CNY/card-month")
    assert month.per_card_hour == (D("1052") / 720).quantize(D("0.000001"))
    d4090 = got[("463e49a218", "monthly")]
    assert d4090.gpu_name_raw == "RTX 4090D" and d4090.gpu == canonical_gpu("RTX 4090D", 24)
    assert (d4090.price, d4090.ram_gb, d4090.stock) == (D("946"), 90, 0)
    d5090 = got[("5f0e1d2c3b", "hourly")]
    assert (d5090.gpu_name_raw, d5090.price, d5090.list_price) == (
        "RTX 5090 D",
        D("2.88"),
        D("3.2"),
    )
    assert ("5f0e1d2c3b", "daily") not in got  # priced 0: not on offer
    assert got[("6a7b8c9d0e", "hourly")].gpu == canonical_gpu("vGPU-48GB", 48)
    year = got[("7c1d2e3f4a", "yearly")]
    assert (year.gpu_name_raw, year.price, year.unit) == ("A800-80GB", D("36000"), "CNY/card-year")
    h20 = got[("c5a1e90b12", "hourly")]
    assert (h20.gpu_name_raw, h20.gpu, h20.vram_gb, h20.price) == (
        "H20-NVLink", canonical_gpu("H20-NVLink", 96), 96, D("10.5"),
    )  # fmt: skip
    assert not any(r.offer_id == "f00d00aa01" for r in rows)  # no sku listed


def test_autodl_reads_the_older_list_answer_by_payg_price() -> None:
    body = (
        b'{"code": "Success", "msg": "", "data": {"list": [{"machine_id": "a1", '
        b'"gpu_name": "RTX 4090", "payg": true, "payg_price": 2720, "mem_per_gpu": 96636764160},'
        b' {"machine_id": "a2", "gpu_name": "RTX 4090", "payg": false}], "max_page": 1}}'
    )
    (row,) = AutodlAdapter().parse(body, AURL, FETCHED)
    assert (row.offer_id, row.billing, row.price, row.ram_gb) == ("a1", "hourly", D("2.72"), 90)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (read("autodl_auth_failed.json"), "'AuthorizeFailed': '认证失败; 登录超时'"),
        (b'{"code": "InternalError", "msg": "busy"}', "'InternalError': 'busy'"),
        (b'{"list": []}', "answered None"),
        (b"", "empty body"),
        (b"<html>login</html>", "not JSON"),
        (swap(AUTODL, '"current_price"', '"price"', 13),
         "no row; 6 rejected: machine 1: machine_sku_info.0.current_price: Field required"),
    ],
)  # fmt: skip
def test_autodl_refuses_a_page_it_does_not_recognise(body: bytes, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        AutodlAdapter().parse(body, AURL, FETCHED)


@pytest.mark.parametrize(
    ("body", "where", "reason", "lost"),
    [
        (swap(AUTODL, '"current_price": 1980', '"current_price": 1.98'), "machine 1",
         "current_price: Input should be a valid integer", 4),
        (swap(AUTODL, '"type": "yearly"', '"type": "quarterly"'), "machine 5", "unknown sku type", 2),
        (swap(AUTODL, '"origin_price": 3200', '"origin_price": 2000'), "machine 3",
         "below current_price", 1),
        (swap(AUTODL, '"machine_sku_info": []', '"machine_sku_info": {}'), "machine 7",
         "machine_sku_info: Input should be a valid list", 0),
        (swap(AUTODL, '"machine_id": "463e49a218"', '"machine_id": "2dd949a4cf"'), "machine 2",
         "listed twice", 2),
    ],
)  # fmt: skip
def test_autodl_rejects_one_machine_it_does_not_recognise_and_keeps_the_others(
    body: bytes, where: str, reason: str, lost: int
) -> None:
    whole = AutodlAdapter().parse(read(AUTODL), AURL, FETCHED)
    rejected, rows = one_rejected(AutodlAdapter(), body, AURL, FETCHED, reason)
    assert rejected.where == where and rejected.excerpt
    assert len(rows) == len(whole) - lost


def test_autodl_machines_that_list_no_price_are_no_rows() -> None:
    body = (b'{"code": "Success", "data": {"list": [{"machine_id": "x", "gpu_name": "RTX 4090",'
            b' "machine_sku_info": []}]}}')  # fmt: skip
    assert AutodlAdapter().parse(body, AURL, FETCHED) == []
