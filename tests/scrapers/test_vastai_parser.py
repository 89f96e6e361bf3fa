"""vast.ai bundles: on-demand offers at dph_base (+ storage), interruptible floors as spot
quotes, USD converted at the rate of the day."""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal
from urllib.parse import parse_qs, urlsplit

import pytest

from scrapers.fx import FxRate, FxRates
from scrapers.rows import OfferRow, ParseError, SpotQuoteRow
from scrapers.sources.vastai import VastaiAdapter
from tests.scrapers.live_fixtures import VASTAI, read

D = Decimal
URL = "https://console.vast.ai/api/v0/bundles/?q=..."
FETCHED = datetime(2026, 9, 4, 3, 0)
DEFAULT = FxRate(date(2026, 9, 1), "USD", D("7.10"), "configured default")


def parse(fx: FxRates | None = None, fetched: datetime = FETCHED):
    rows = VastaiAdapter(fx or FxRates((), (DEFAULT,))).parse(read(VASTAI), URL, fetched)
    offers = {r.offer_id: r for r in rows if isinstance(r, OfferRow)}
    quotes = {(r.gpu_name_raw, r.region): r for r in rows if isinstance(r, SpotQuoteRow)}
    return offers, quotes


def test_fetch_plan_is_the_public_search_with_a_json_query() -> None:
    (url,) = VastaiAdapter().fetch_plan("https://console.vast.ai/")
    parts = urlsplit(url)
    assert parts.path == "/api/v0/bundles/"
    query = json.loads(parse_qs(parts.query)["q"][0])
    assert query["type"] == "on-demand" and query["rentable"] == {"eq": True}
    assert "RTX 4090" in query["gpu_name"]["in"] and "H100 SXM" in query["gpu_name"]["in"]


def test_on_demand_offer_is_dph_base_plus_storage_in_usd_converted_at_the_day_rate() -> None:
    offers, _ = parse()
    one = offers["21440112"]
    assert (one.gpu, one.gpu_name_raw, one.gpu_count, one.vram_gb) == (
        "rtx4090-24g", "RTX 4090", 1, 24,
    )  # fmt: skip
    assert one.billing == "hourly" and one.currency == "USD"
    assert one.price == D("0.3639")  # dph_base 0.35 + storage_total_cost 0.0139
    assert one.unit == "USD/card-hour" and "storage_total_cost" in one.unit_raw
    assert one.cny_per_card_hour == D("2.583690")  # 0.3639 × 7.10
    assert (one.region, one.cpu_cores, one.ram_gb, one.disk_gb) == ("Texas, US", 16, 64, 480)
    # a whole 8-card machine: the price is the machine's, the CNY figure per card
    h100 = offers["22105561"]
    assert (h100.gpu, h100.gpu_count, h100.unit) == ("h100-80g", 8, "USD/server-hour")
    assert h100.price == D("17.6556")
    assert h100.cny_per_card_hour == D("15.669345")  # 17.6556 / 8 × 7.10
    # no storage_total_cost given: dph_base alone
    assert offers["19873004"].price == D("0.7000") and "storage" not in offers["19873004"].unit_raw


def test_gpu_ram_in_mb_picks_the_size_and_unknown_cards_stay_unknown() -> None:
    offers, _ = parse()
    assert offers["20551230"].gpu == "a100-80g"  # A100 SXM4, 81920 MB
    assert offers["20551777"].gpu == "a100-40g"  # A100 SXM4, 40960 MB
    assert offers["23001458"].gpu == "rtx5090-32g"  # 32607 MB
    assert offers["18770345"].gpu == "unknown"  # RTX 3090: not a card the warehouse tracks
    assert offers["18770345"].region is None  # geolocation null


def test_interruptible_floor_is_the_lowest_min_bid_per_card_size_and_location() -> None:
    _, quotes = parse()
    texas = quotes[("RTX 4090 24GB", "Texas, US")]
    assert texas.quote_kind == "interruptible_floor" and texas.currency == "USD"
    assert texas.price == D("0.1800")  # offer 21440987, the lower of 0.20 and 0.18
    assert texas.cny_per_card_hour == D("1.278000")
    quebec = quotes[("RTX 4090 24GB", "Quebec, CA")]
    assert quebec.price == D("0.3600") and quebec.cny_per_card_hour == D("1.278000")  # ÷ 2 GPUs
    assert quotes[("H100 SXM 80GB", "Oregon, US")].cny_per_card_hour == D("10.650000")
    assert ("A100 SXM4 40GB", "Sweden, SE") not in quotes  # min_bid null: no floor
    assert quotes[("RTX 3090 24GB", "unknown")].gpu == "unknown"


def test_each_figure_uses_the_latest_rate_on_or_before_its_day() -> None:
    rates = FxRates(
        (FxRate(date(2026, 9, 3), "USD", D("7.20"), "https://fx.example"),
         FxRate(date(2026, 9, 5), "USD", D("7.30"), "https://fx.example")),
        (DEFAULT,),
    )  # fmt: skip
    on_4th, _ = parse(rates, datetime(2026, 9, 4, 23, 0))
    on_5th, _ = parse(rates, datetime(2026, 9, 5, 0, 30))
    before, _ = parse(rates, datetime(2026, 8, 1, 0, 0))
    assert on_4th["21440112"].cny_per_card_hour == D("2.620080")  # × 7.20
    assert on_5th["21440112"].cny_per_card_hour == D("2.656470")  # × 7.30
    assert before["21440112"].cny_per_card_hour == D("2.583690")  # the configured default
    assert on_4th["21440112"].price == on_5th["21440112"].price == D("0.3639")  # as listed


def test_without_any_usd_rate_nothing_is_guessed() -> None:
    with pytest.raises(ParseError, match="no USD→CNY rate"):
        VastaiAdapter(FxRates()).parse(read(VASTAI), URL, FETCHED)


def test_a_number_json_will_not_convert_is_a_parse_error() -> None:
    # Valid JSON, but json refuses integers of over 4,300 digits: a parse error, not a crash.
    body = ('{"offers": [{"id": ' + "7" * 5000 + "}]}").encode()
    with pytest.raises(ParseError, match=r"^u: body cannot be read as JSON \(Exceeds"):
        VastaiAdapter().parse(body, "u", FETCHED)
