"""The demo market's SIMULATED platforms (one port, ``/<source>`` each): every adapter reads its
platform over real HTTP; as_of, stock-outs, step changes and layout-change days; bad requests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import httpx
import pytest

from configuration.settings import DEMO_MARKET
from demo.market import PLATFORM_SOURCES, DemoMarket
from demo.market.platforms import layout_change_days
from demo.market.platforms.model import _ratio_walk
from demo.market.prices import ANCHOR_DAY, DEFAULT_SEED
from scrapers.dated_market import DatedMarketAdapter, with_as_of
from scrapers.fx import FxRate, FxRates
from scrapers.http import Request
from scrapers.rows import OfferRow, ParseError, Row
from scrapers.sources import build_adapter
from warehouse.ingest.drift import implausible
from warehouse.ingest.money import convert_rows
from warehouse.ingest.quarantine import impossible_unit

FX = FxRates(defaults=(FxRate(date(2020, 1, 1), "USD", Decimal("7.10"), "test default"),))
GENERIC = {"paths": ["/pricing"], "currency": "CNY", "price_per": "machine", "jsonld": False}
# A fixed "now" well after every day asked for.
CLOCK = datetime(2030, 1, 1, 4, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def market() -> Iterator[DemoMarket]:
    with DemoMarket(platforms_port=0, clock=lambda: CLOCK) as running:
        yield running


def adapter(source: str, day: date | None) -> DatedMarketAdapter:
    if source == "cloudgrid":
        return DatedMarketAdapter(build_adapter(source, "generic", GENERIC), DEMO_MARKET, day)
    return DatedMarketAdapter(build_adapter(source), DEMO_MARKET, day)


def fetch(market: DemoMarket, source: str, day: date | None) -> list[Row]:
    """Every page of the source's plan for ``day``, parsed (ParseError as the adapter raises)
    and priced in CNY as the load prices them, at the test's default rate."""
    reader = adapter(source, day)
    rows: list[Row] = []
    for step in reader.fetch_plan(market.source_url(source), day):
        request = step if isinstance(step, Request) else Request(step)
        answer = httpx.request(
            request.method, request.url, json=request.json_body, headers=dict(request.headers)
        )
        assert answer.status_code == 200, (request.url, answer.text[:200])
        rows += reader.parse(answer.content, str(answer.url), datetime(2030, 1, 1))
    return list(convert_rows(rows, FX))


def url(market: DemoMarket, path: str) -> str:
    return f"{market.platforms_url}{path}"


# -- every platform in its adapter's format ---------------------------------------------------

EXPECTED_CARDS = {
    "autodl": {"rtx4090-24g", "rtx4090d-24g", "rtx5090-32g", "h20-96g", "a800-80g"},
    "matpool": {"rtx4090-24g", "rtx5090-32g", "a100-40g", "h100-80g"},
    "gpushare": {"rtx4090-24g", "rtx5090-32g", "a100-80g", "h20-96g"},
    "ppio": {"rtx4090-24g", "rtx5090-32g", "h100-80g", "h20-96g", "rtxa6000-48g"},
    "compshare": {"rtx4090-24g", "rtx3090-24g", "rtx3080ti-12g", "rtx5090-32g"},
    "vastai": {"rtx4090-24g", "rtx5090-32g", "h100-80g", "a100-80g", "h200-141g", "l40s-48g"},
    "runpod": {"rtx4090-24g", "rtx5090-32g", "h100-80g", "a100-80g", "h200-141g", "l40s-48g",
               "rtx3090-24g"},
    "lambda": {"b200-180g", "h100-80g", "a100-80g", "a100-40g", "v100-16g", "a10-24g"},
    "skypilot": {"l40s-48g", "h100-80g", "a100-40g", "a100-80g", "h200-141g"},
    "cloudgrid": {"rtx4090-24g", "rtx5090-32g", "h20-96g", "910b-64g", "a100-80g"},
}  # fmt: skip


@pytest.mark.parametrize("source", PLATFORM_SOURCES)
def test_each_adapter_reads_its_platform_on_the_anchor_day(market: DemoMarket, source: str) -> None:
    rows = fetch(market, source, ANCHOR_DAY)
    assert {r.gpu for r in rows} == EXPECTED_CARDS[source]
    assert all(r.simulated for r in rows)
    assert [implausible(r) for r in rows if implausible(r)] == []
    # the answer is of the day asked for: 10:00 Beijing = 02:00 UTC
    assert {r.observed_at for r in rows} == {datetime(2026, 9, 4, 2, 0)}


def test_units_are_the_formats_own(market: DemoMarket) -> None:
    """AutoDL in 厘, 矩池云 in millicents per 份, PPIO in 1/100000 yuan, Lambda in cents."""
    autodl = httpx.post(url(market, "/autodl/api/v1/machine/search?as_of=2026-09-04"), json={})
    payg = autodl.json()["data"]["list"][0]["machine_sku_info"][0]
    assert payg == {"type": "payg", "origin_price": 0, "current_price": 1980,
                    "level_config": [{"discounted_price": 1980}]}  # fmt: skip
    pools = httpx.get(url(market, "/matpool/api/machine_pools?as_of=2026-09-04")).json()
    assert pools["pools"][0]["machine"]["hardware"]["priceMillicent"] == 220000
    ppio = httpx.get(url(market, "/ppio/gpu-instance/openapi/v1/products?as_of=2026-09-04"))
    assert ppio.json()["data"][0]["price"] == 189000
    lam = httpx.get(url(market, "/lambda/api/v1/instance-types?as_of=2026-09-04")).json()
    assert lam["data"]["gpu_8x_h100_sxm5"]["instance_type"]["price_cents_per_hour"] == 2392


@pytest.mark.parametrize(
    ("source", "plans"),
    [("autodl", {"weekly": "CNY/card-week"}),  # AutoDL's demo sells no 包年
     ("gpushare", {"weekly": "CNY/card-week", "yearly": "CNY/card-year"})],
)  # fmt: skip
def test_the_weekly_and_yearly_plans_are_loadable(
    market: DemoMarket, source: str, plans: dict[str, str]
) -> None:
    """AutoDL's and 恒源云's 包周 / 包年 rows (CNY/card-week, CNY/card-year) are units the load
    takes, not impossible ones held in quarantine (900 rows of a first start were, issue 36)."""
    rows = fetch(market, source, ANCHOR_DAY)
    terms = {r.billing: r.unit for r in rows if isinstance(r, OfferRow)}
    assert {billing: terms.get(billing) for billing in plans} == plans
    assert [impossible_unit(r) for r in rows if impossible_unit(r)] == []


def test_runpod_answers_only_the_fields_the_query_asks_for(market: DemoMarket) -> None:
    query = {"query": "query { gpuTypes { id securePrice } }"}
    answer = httpx.post(url(market, "/runpod/graphql?as_of=2026-09-04"), json=query).json()
    first = answer["data"]["gpuTypes"][0]
    assert first == {"id": "NVIDIA GeForce RTX 4090", "securePrice": 0.74}
    unknown = httpx.post(url(market, "/runpod/graphql"), json={"query": "{ gpuTypes { x } }"})
    assert unknown.json()["errors"][0]["message"] == 'Cannot query field "x" on type "GpuType".'


def test_compshare_prices_the_machine_it_is_asked_for(market: DemoMarket) -> None:
    base = url(market, "/compshare/?Action=GetCompShareInstancePrice&as_of=2026-09-04")
    small = {"Action": "GetCompShareInstancePrice", "GpuType": "4090", "Gpu": "1", "Cpu": "16",
             "Memory": "65536"}  # fmt: skip
    one = httpx.post(base, json=small).json()
    two = httpx.post(base, json=small | {"Gpu": "2"}).json()
    postpay = [d["Instance"] for d in one["ListPriceDetails"] if d["ChargeType"] == "Postpay"]
    assert postpay == [1.66]  # the real 4090 answer's list price (tests/fixtures/real/compshare)
    assert two["ListPriceDetails"][0]["Instance"] == pytest.approx(1.66 + 1.40)
    wrong = httpx.post(base, json=small | {"GpuType": "RTX9999"}).json()
    assert wrong["RetCode"] != 0 and "RTX9999" in wrong["Message"]
    assert httpx.post(base, content=b"not json").json()["RetCode"] != 0


# -- as_of, movement, stock-outs, layout changes ---------------------------------------------


def test_as_of_serves_that_day_and_the_same_day_is_byte_identical(market: DemoMarket) -> None:
    def body(day: str) -> bytes:
        return httpx.get(url(market, f"/gpushare/app/api/market/machine/list?as_of={day}")).content

    assert body("2026-09-04") == body("2026-09-04")
    assert body("2026-09-04") != body("2026-12-04")


def test_prices_step_on_each_platforms_own_days_and_differ_across_platforms() -> None:
    from demo.market.platforms.model import ratio

    days = [ANCHOR_DAY + timedelta(days=k) for k in range(90)]
    changes = {}
    for source, gaps in (("vastai", (3, 9)), ("autodl", (10, 30)), ("lambda", (40, 120))):
        path = [ratio(DEFAULT_SEED, source, "RTX 4090", d, gaps) for d in days]
        changes[source] = {d for d, a, b in zip(days[1:], path, path[1:], strict=False) if a != b}
    assert len(changes["vastai"]) > len(changes["autodl"]) >= 2
    assert 0 <= len(changes["lambda"]) <= 3
    assert changes["vastai"] != changes["autodl"]


def test_the_4090_differs_across_platforms(market: DemoMarket) -> None:
    hourly = {
        source: min(r.cny_per_card_hour for r in fetch(market, source, ANCHOR_DAY)
                    if isinstance(r, OfferRow) and r.gpu == "rtx4090-24g" and r.billing == "hourly")
        for source in ("autodl", "matpool", "gpushare", "ppio", "compshare", "vastai", "runpod")
    }  # fmt: skip
    assert len(set(hourly.values())) == len(hourly), hourly
    assert Decimal("1") < hourly["autodl"] < Decimal("3")


def test_stock_outs_happen_now_and_then(market: DemoMarket) -> None:
    days = [ANCHOR_DAY - timedelta(days=k) for k in range(40)]
    stocks = [r.stock for d in days for r in fetch(market, "autodl", d) if r.billing == "hourly"]
    sold_out = stocks.count(0)
    assert 0 < sold_out < len(stocks) / 4


@pytest.mark.parametrize("source", PLATFORM_SOURCES)
def test_a_layout_change_day_is_refused_or_rejected_as_drift(
    market: DemoMarket, source: str
) -> None:
    days = layout_change_days(DEFAULT_SEED, source)
    after = min(d for d in days if d > ANCHOR_DAY)
    assert after - ANCHOR_DAY >= timedelta(days=20)  # none near the anchor day
    assert sum(ANCHOR_DAY - timedelta(days=180) <= d <= ANCHOR_DAY for d in days) >= 1
    try:
        rows = fetch(market, source, after)
    except ParseError:
        pass  # the adapter stops on it
    else:
        assert rows and all(implausible(r) for r in rows), source  # the drift detector does
    assert fetch(market, source, after + timedelta(days=1))  # rolled back the next day


@pytest.mark.parametrize("source", ["matpool", "compshare"])
def test_today_never_serves_a_layout_change(source: str) -> None:
    # On its layout-change day, "now" (no as_of: an hourly run, a new user's first run) still
    # gets the platform's usual answer; only a backfill asking for that day sees the change.
    day = min(d for d in layout_change_days(DEFAULT_SEED, source) if d > ANCHOR_DAY)
    that_morning = datetime(day.year, day.month, day.day, 3, 0, tzinfo=UTC)  # 11:00 Beijing
    with DemoMarket(platforms_port=0, clock=lambda: that_morning) as today:
        rows = fetch(today, source, None)
        assert rows and not any(implausible(r) for r in rows), source
        with pytest.raises(ParseError) if source == "compshare" else contextlib.nullcontext():
            asked = fetch(today, source, day)
            assert all(implausible(r) for r in asked)


# -- bad requests -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/nosuch/api", 404),
        ("GET", "/autodl/api/v1/no/such/path", 404),
        ("GET", "/skypilot/catalogs/v8/nosuchcloud/vms.csv", 404),
        ("GET", "/skypilot/catalogs/v1/aws/vms.csv", 404),
        ("GET", "/autodl/api/v1/machine/search", 405),
        ("POST", "/matpool/api/machine_pools", 405),
        ("DELETE", "/runpod/graphql", 405),
        ("POST", "/", 405),
        ("GET", "/lambda/api/v1/instance-types?as_of=2026-9-4", 400),
        ("GET", "/lambda/api/v1/instance-types?as_of=2026-02-30", 400),
        ("GET", "/lambda/api/v1/instance-types?as_of=2026-09-04&as_of=2026-09-05", 400),
        ("GET", "/lambda/api/v1/instance-types?as_of=2031-01-01", 404),
        ("GET", "/lambda/api/v1/instance-types?as_of=2024-12-31", 404),
        ("POST", "/autodl/api/v1/machine/search", 400),  # no JSON body
        ("POST", "/runpod/graphql", 400),
        ("POST", "/vastai/api/v0/bundles/", 400),
    ],
)
def test_bad_requests_get_a_clear_status(
    market: DemoMarket, method: str, path: str, status: int
) -> None:
    answer = httpx.request(method, url(market, path), content=b"")
    assert answer.status_code == status, answer.text[:200]
    if status == 405:
        assert answer.headers["Allow"]


def test_head_of_a_get_route_and_the_index(market: DemoMarket) -> None:
    head = httpx.head(url(market, "/lambda/api/v1/instance-types?as_of=2026-09-04"))
    assert head.status_code == 200 and head.content == b""
    index = httpx.get(url(market, "/"))
    assert 'content="true"' in index.text and all(f"/{s}" in index.text for s in PLATFORM_SOURCES)


def test_a_platform_url_for_every_source_and_only_those(market: DemoMarket) -> None:
    assert market.source_url("jygpu") == market.jygpu_url
    assert market.source_url("runpod") == f"{market.platforms_url}/runpod"
    with pytest.raises(KeyError, match="no demo platform for source 'nosuch'"):
        market.source_url("nosuch")


def test_start_builds_no_platform_walk() -> None:
    _ratio_walk.cache_clear()
    with DemoMarket(platforms_port=0):
        assert _ratio_walk.cache_info().currsize == 0  # built on a platform's first request


# -- how the pipeline reads the demo market ----------------------------------------------------


def test_with_as_of_adds_or_replaces_the_day_and_keeps_the_fragment() -> None:
    day = date(2026, 9, 1)
    assert with_as_of("http://h/a?x=1&as_of=2020-01-01#F=1", day) == (
        "http://h/a?x=1&as_of=2026-09-01#F=1"
    )
    assert with_as_of("http://h/skypilot/catalogs/v8/aws/vms.csv", day).endswith(
        "vms.csv?as_of=2026-09-01"
    )


def test_demo_adapter_plan_and_stamp() -> None:
    plain = build_adapter("autodl")
    reader = DatedMarketAdapter(plain, DEMO_MARKET, date(2026, 9, 1))
    (step,) = reader.fetch_plan("http://h/autodl", date(2026, 9, 1))
    assert isinstance(step, Request) and step.method == "POST"
    assert step.url == "http://h/autodl/api/v1/machine/search?as_of=2026-09-01"
    assert DatedMarketAdapter(plain, DEMO_MARKET).fetch_plan("http://h/autodl") == plain.fetch_plan(
        "http://h/autodl"
    )
    # without as_of: the current hour (Beijing), as naive UTC
    assert DatedMarketAdapter(plain, DEMO_MARKET).answer_time(
        datetime(2026, 9, 4, 4, 34, 56)
    ) == datetime(2026, 9, 4, 4, 0)
    assert reader.answer_time(datetime(2026, 12, 1)) == datetime(2026, 9, 1, 2, 0)


def test_todays_answer_asked_before_its_publication_clock_is_of_now() -> None:
    """10:00 Beijing is 02:00 UTC: a backfill ending today, at 00:40 UTC, gets today's page
    stamped with the current hour, never an hour the load would refuse as future."""
    today = DatedMarketAdapter(build_adapter("autodl"), DEMO_MARKET, date(2026, 9, 4))
    assert today.answer_time(datetime(2026, 9, 4, 0, 40)) == datetime(2026, 9, 4, 0, 0)
    assert today.answer_time(datetime(2026, 9, 4, 5, 40)) == datetime(2026, 9, 4, 2, 0)
