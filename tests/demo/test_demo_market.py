"""The demo market: the price model (anchors, determinism, movement) and the real HTTP sites."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import httpx
import pytest

from demo.market import PLATFORM_SOURCES, DemoMarket, prices, render_page
from demo.market.prices import (
    ANCHOR_DAY,
    DEFAULT_SEED,
    FIRST_DAY,
    LAST_DAY,
    PriceModel,
    price_model,
)
from scrapers.rows import OfferRow
from scrapers.sources import build_adapter
from tests.support.fixture_pages import PAGES_DIR, expected_pages

D = Decimal
BANNER = "模拟数据 SIMULATED — gpuprice 演示市场, 价格为模拟值"
# 12:34:56 Beijing time on the anchor day.
NOW = datetime(2026, 9, 4, 4, 34, 56, tzinfo=UTC)

# -- price model --------------------------------------------------------------------------


def test_anchor_day_has_the_published_prices() -> None:
    day = price_model().day(ANCHOR_DAY)
    containers = {
        c.spec.gpu_name: (c.list_price, c.monthly_price, c.discount_label) for c in day.containers
    }
    assert containers == {
        "RTX 4090": (D("1.96"), D("1.57"), "95折"),
        "昇腾 910B": (D("4.47"), D("3.58"), "93折"),
        "NVIDIA H20": (D("7.75"), D("6.20"), "8折"),
    }
    configs = {(c.spec.cpu_cores, c.spec.ram_gb, c.spec.disk_gb) for c in day.containers}
    assert configs == {(15, 60, 100), (23, 250, 500), (24, 128, 50)}
    assert {b.spec.gpu_name: b.monthly_price for b in day.bare_metal} == {
        "RTX 4090 24G": D("7920"),
        "RTX 5090 32G": D("13990"),
        "H100 SXM5 80G": D("84480"),
        "昇腾 910B 64G": D("15600"),
    }
    quotes = {(q.spec.card, q.spec.region): q.avg for q in day.quotes if q.spec.published}
    assert quotes == {("4090-24G", "长三角"): D("1.26"), ("H20-96G", "京津冀"): D("7.47")}


def test_anchor_prices_do_not_depend_on_the_seed() -> None:
    a, b = PriceModel(1).day(ANCHOR_DAY), PriceModel(2).day(ANCHOR_DAY)
    assert [c.list_price for c in a.containers] == [c.list_price for c in b.containers]
    assert [q.avg for q in a.quotes] == [q.avg for q in b.quotes]


def test_deterministic_per_seed_and_different_across_seeds() -> None:
    day = date(2026, 6, 1)
    assert PriceModel(7).day(day) == PriceModel(7).day(day)
    assert PriceModel(7).day(day) != PriceModel(8).day(day)


@pytest.mark.parametrize("day", [FIRST_DAY, date(2025, 12, 31), date(2029, 2, 28), LAST_DAY])
def test_any_day_in_range_is_plausible(day: date) -> None:
    snap = price_model().day(day)
    for c in snap.containers:
        assert c.list_price.as_tuple().exponent == -2
        assert c.monthly_price < c.list_price
        assert c.spec.list_price / 3 < c.list_price < c.spec.list_price * 3
        assert c.discount_label.endswith("折")
    for b in snap.bare_metal:
        assert b.monthly_price % 10 == 0
        assert b.spec.monthly_price / 3 < b.monthly_price < b.spec.monthly_price * 3
    for q in snap.quotes:
        assert q.low <= q.avg <= q.high


@pytest.mark.parametrize("day", [FIRST_DAY - timedelta(days=1), LAST_DAY + timedelta(days=1)])
def test_outside_range_raises(day: date) -> None:
    with pytest.raises(ValueError, match="outside the simulated range"):
        price_model().day(day)


def _changes(values: list) -> int:
    return sum(1 for a, b in zip(values, values[1:], strict=False) if a != b)


STEP = D("0.045")  # a 5 % step after rounding to the cent or ten yuan


def _steps(values: list[Decimal]) -> int:
    return sum(1 for a, b in zip(values, values[1:], strict=False) if abs(b - a) / a >= STEP)


WINDOWS = [ANCHOR_DAY - timedelta(days=89), ANCHOR_DAY - timedelta(days=45), date(2028, 3, 1)]


@pytest.mark.parametrize("start", WINDOWS)
def test_ninety_days_show_steps_discount_changes_and_breakeven_shifts(start: date) -> None:
    model = price_model()
    end = start + timedelta(days=89)
    snaps = model.series(start, end, lambda s: s)
    for i, spec in enumerate(snaps[0].containers):
        lists = [s.containers[i].list_price for s in snaps]
        labels = [s.containers[i].discount_label for s in snaps]
        ratios = [s.containers[i].monthly_price / s.containers[i].list_price for s in snaps]
        assert _steps(lists) >= 3, spec.spec.sku
        assert _changes(labels) >= 1, spec.spec.sku
        assert max(ratios) - min(ratios) > D("0.02"), spec.spec.sku
    for i, spec in enumerate(snaps[0].bare_metal):
        assert _steps([s.bare_metal[i].monthly_price for s in snaps]) >= 3, spec.spec.sku
    for i, spec in enumerate(snaps[0].quotes):
        avgs = [s.quotes[i].avg for s in snaps]
        assert _steps(avgs) >= 3, spec.spec.card
        assert _changes(avgs) >= 30, spec.spec.card  # market averages also drift daily
    # 4090 breakeven (seed 003 §六): bare-metal per-card month / hourly list price, in hours.
    breakeven = [s.bare_metal[0].monthly_price / 8 / s.containers[0].list_price for s in snaps]
    assert _changes(breakeven) >= 4
    assert max(breakeven) / min(breakeven) > D("1.1")


def test_one_day_is_cheap_once_built(monkeypatch: pytest.MonkeyPatch) -> None:
    # Cheap means: the model is built once per seed, and a day after that only reads the
    # walks built then (no walk is computed again, whatever the machine's load).
    model = price_model()
    assert price_model() is model

    def walk_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("a day recomputed a price walk")

    monkeypatch.setattr(prices, "_walk", walk_again)
    monkeypatch.setattr(prices, "_tier_walk", walk_again)
    days = [model.day(ANCHOR_DAY + timedelta(days=k % 400)) for k in range(500)]
    assert {d.day for d in days} == {ANCHOR_DAY + timedelta(days=k) for k in range(400)}


# -- rendering and fixtures ---------------------------------------------------------------


def test_fixture_pages_are_what_the_demo_market_serves() -> None:
    for name, body in expected_pages().items():
        path = PAGES_DIR / name
        assert path.exists(), f"missing fixture {name}"
        assert path.read_bytes() == body, (
            f"{name} is stale: regenerate with `.venv/bin/python tests/support/fixture_pages.py`"
        )


def test_render_is_byte_identical_within_the_hour() -> None:
    a = render_page("jygpu", "/market/container", now=NOW)
    b = render_page("jygpu", "/market/container", now=NOW + timedelta(minutes=20))
    c = render_page("jygpu", "/market/container", now=NOW + timedelta(minutes=30))
    assert a == b
    assert a != c  # 13:04 Beijing: the next hour's stamp
    assert "数据更新时间:2026-09-04 12:00(北京时间)" in a.decode()


# -- the HTTP sites -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def market() -> Iterator[DemoMarket]:
    with DemoMarket(clock=lambda: NOW) as running:
        yield running


def get(url: str) -> httpx.Response:
    return httpx.get(url, timeout=5)


def test_urls_and_pages(market: DemoMarket) -> None:
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", market.jygpu_url)
    assert market.jygpu_url != market.smm_url
    for url in (
        f"{market.jygpu_url}/",
        f"{market.jygpu_url}/market/container",
        f"{market.jygpu_url}/market/baremetal",
        f"{market.smm_url}/",
        f"{market.smm_url}/compute/quotes",
    ):
        response = get(url)
        assert response.status_code == 200, url
        assert response.headers["content-type"] == "text/html; charset=utf-8"
        assert BANNER in response.text
        assert '<meta name="gpuprice-simulated" content="true">' in response.text
    index = get(f"{market.jygpu_url}/").text
    assert 'href="/market/container"' in index and 'href="/market/baremetal"' in index


def test_robots_txt(market: DemoMarket) -> None:
    for base in (market.jygpu_url, market.smm_url):
        response = get(f"{base}/robots.txt")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/plain")
        assert "User-agent: *" in response.text and "Allow: /" in response.text


def test_unknown_path_is_404(market: DemoMarket) -> None:
    assert get(f"{market.jygpu_url}/compute/quotes").status_code == 404
    assert get(f"{market.smm_url}/market/container").status_code == 404


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("as_of=2026-09-04", 200),
        ("as_of=2025-01-01", 200),
        ("as_of=2026-9-4", 400),
        ("as_of=2026-02-30", 400),
        ("as_of=yesterday", 400),
        ("as_of=", 400),
        ("as_of=2026-09-03&as_of=2026-09-02", 400),
        ("as_of=2026-09-05", 404),  # tomorrow, by the market's clock
        ("as_of=2031-01-01", 404),
        ("as_of=2024-12-31", 404),  # before the simulated history
    ],
)
def test_as_of_handling(market: DemoMarket, query: str, status: int) -> None:
    assert get(f"{market.smm_url}/compute/quotes?{query}").status_code == status
    assert get(f"{market.jygpu_url}/market/container?{query}").status_code == status


def test_same_hour_fetches_are_byte_identical_and_match_render(market: DemoMarket) -> None:
    url = f"{market.jygpu_url}/market/baremetal"
    first, second = get(url).content, get(url).content
    assert first == second == render_page("jygpu", "/market/baremetal", now=NOW)
    dated = get(f"{market.smm_url}/compute/quotes?as_of=2026-09-04").content
    assert dated == (PAGES_DIR / "smm_quotes_2026-09-04.html").read_bytes()


def test_head_request(market: DemoMarket) -> None:
    response = httpx.head(f"{market.jygpu_url}/market/container", timeout=5)
    assert response.status_code == 200
    assert int(response.headers["content-length"]) > 1000
    assert response.content == b""


def test_anchor_day_end_to_end_over_http(market: DemoMarket) -> None:
    jygpu, smm = build_adapter("jygpu"), build_adapter("smm")
    fetched = datetime(2026, 9, 4, 2, 30)
    offers: list[OfferRow] = []
    for url in jygpu.fetch_plan(market.jygpu_url, ANCHOR_DAY):
        response = get(url)
        assert response.status_code == 200
        offers += jygpu.parse(response.content, url, fetched)
    got = {(r.gpu, r.billing): r for r in offers}
    assert got[("rtx4090-24g", "hourly")].price == D("1.96")
    monthly = got[("rtx4090-24g", "monthly")]
    assert (monthly.price, monthly.list_price, monthly.stated_discount) == (
        D("1.57"),
        D("1.96"),
        D("0.95"),
    )
    assert (got[("910b-64g", "hourly")].price, got[("910b-64g", "monthly")].price) == (
        D("4.47"),
        D("3.58"),
    )
    assert got[("h20-96g", "monthly")].stated_discount == D("0.80")
    bare = got[("rtx4090-24g", "bare_metal_monthly")]
    assert (bare.price, bare.per_card_hour) == (D("7920"), D("1.375000"))
    assert got[("h100-80g", "bare_metal_monthly")].price == D("84480")
    assert got[("rtx5090-32g", "bare_metal_monthly")].price == D("13990")
    assert got[("910b-64g", "bare_metal_monthly")].price == D("15600")
    assert {r.observed_at for r in offers} == {datetime(2026, 9, 4, 2, 0)}
    assert all(r.simulated for r in offers)

    [url] = smm.fetch_plan(market.smm_url, ANCHOR_DAY)
    quotes = smm.parse(get(url).content, url, fetched)
    by = {(q.gpu, q.region): q.per_card_hour for q in quotes}
    assert by[("rtx4090-24g", "长三角")] == D("1.26")
    assert by[("h20-96g", "京津冀")] == D("7.47")
    assert all(q.simulated for q in quotes)


def test_other_days_parse_and_differ(market: DemoMarket) -> None:
    jygpu = build_adapter("jygpu")
    url = jygpu.fetch_plan(market.jygpu_url, date(2026, 6, 1))[0]
    rows = jygpu.parse(get(url).content, url, datetime(2026, 6, 1))
    assert len(rows) == 6
    assert {r.observed_at for r in rows} == {datetime(2026, 6, 1, 2, 0)}
    anchor = jygpu.parse(
        get(jygpu.fetch_plan(market.jygpu_url, ANCHOR_DAY)[0]).content, url, datetime(2026, 9, 4)
    )
    assert [r.price for r in rows] != [r.price for r in anchor]


def test_different_seeds_serve_different_pages() -> None:
    path = "/market/container?as_of=2026-06-01"
    with DemoMarket(seed=DEFAULT_SEED) as a, DemoMarket(seed=DEFAULT_SEED + 1) as b:
        assert get(a.jygpu_url + path).content != get(b.jygpu_url + path).content
        assert get(a.jygpu_url + path).content == get(a.jygpu_url + path).content


def _refused(url: str, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            get(url)
        except httpx.ConnectError:
            return True
        except httpx.TransportError:
            pass  # connection dropped while the site was going down
        time.sleep(0.02)
    return False


def test_stop_site_stops_only_that_site() -> None:
    with DemoMarket(clock=lambda: NOW) as m:
        m.stop_site("jygpu")
        assert not m.running("jygpu") and m.running("smm")
        with pytest.raises(httpx.ConnectError):
            get(f"{m.jygpu_url}/market/container")
        assert get(f"{m.smm_url}/compute/quotes").status_code == 200
        m.stop_site("jygpu")  # idempotent
        with pytest.raises(KeyError, match="jygpu, smm"):
            m.stop_site("autodl")
    with pytest.raises(httpx.ConnectError):
        get(f"{m.smm_url}/compute/quotes")


def test_fail_after_kills_the_site_after_n_pages() -> None:
    with DemoMarket(clock=lambda: NOW) as m:
        m.fail_after("jygpu", 2)
        assert get(f"{m.jygpu_url}/robots.txt").status_code == 200  # not counted
        assert get(f"{m.jygpu_url}/market/container").status_code == 200
        assert get(f"{m.jygpu_url}/market/baremetal").status_code == 200
        with pytest.raises(httpx.TransportError):
            get(f"{m.jygpu_url}/market/container")
        assert _refused(f"{m.jygpu_url}/market/container")
        assert not m.running("jygpu")
        assert get(f"{m.smm_url}/compute/quotes").status_code == 200


def test_fail_after_zero_kills_now() -> None:
    with DemoMarket(clock=lambda: NOW) as m:
        m.fail_after("smm", 0)
        assert _refused(f"{m.smm_url}/compute/quotes")
        assert get(f"{m.jygpu_url}/market/container").status_code == 200


def test_start_is_idempotent_and_url_needs_start() -> None:
    m = DemoMarket()
    with pytest.raises(RuntimeError, match="not started"):
        _ = m.jygpu_url
    with m.start() as same:
        url = same.jygpu_url
        assert m.start() is m and m.jygpu_url == url
        assert get(f"{url}/market/container?as_of=2026-09-04").status_code == 200


def test_serve_forever_prints_urls_and_stops_on_ctrl_c() -> None:
    code = (
        "from demo.market import serve_forever; serve_forever('127.0.0.1', 0, 0, platforms_port=0)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # As a shell starts a background job (`&`, nohup): SIGINT ignored, and inherited.
        # Ctrl-C must still stop the market (once it did not, under `make test &`).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        lines = [proc.stdout.readline() for _ in range(15)]  # type: ignore[union-attr]
        text = "".join(lines)
        assert "SIMULATED" in text and lines[-1] == "Ctrl-C to stop.\n", text
        jygpu = re.search(r"jygpu: +(http://127\.0\.0\.1:\d+)/market/container", text)
        smm = re.search(r"smm: +(http://127\.0\.0\.1:\d+)/compute/quotes", text)
        assert jygpu and smm, text
        assert get(f"{smm[1]}/compute/quotes?as_of=2026-09-04").status_code == 200
        # every platform's URL, all on one port
        platforms = dict(re.findall(r"^  (\w+): +(http://127\.0\.0\.1:\d+/\w+)", text, re.M))
        assert set(platforms) == {"jygpu", "smm", *PLATFORM_SOURCES}
        assert len({platforms[name].rsplit("/", 1)[0] for name in PLATFORM_SOURCES}) == 1
        lambda_types = get(f"{platforms['lambda']}/api/v1/instance-types?as_of=2026-09-04")
        assert lambda_types.status_code == 200 and lambda_types.json()["data"]
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(f"still running 10 s after Ctrl-C; stderr: {proc.stderr.read()}")
        assert code == 0
        assert proc.stderr.read() == ""  # type: ignore[union-attr]  # quiet: no request log
    finally:
        if proc.poll() is None:
            proc.kill()
