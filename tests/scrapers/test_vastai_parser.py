"""vast.ai bundles: on-demand offers at dph_total, interruptible floors (min_bid) as spot
quotes, prices kept in USD as listed (the warehouse converts them); tested on vast.ai's own saved answers
(tests/fixtures/real/vastai/) and on the modelled fixture (tests/fixtures/live/)."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from scrapers.collect import parse_page
from scrapers.http import FetchedPage, Request
from scrapers.rows import OfferRow, ParseError, SpotQuoteRow
from scrapers.sources.vastai import VastaiAdapter
from tests.support.live_fixtures import VASTAI, read

D = Decimal
URL = "https://console.vast.ai/api/v0/bundles/"
FETCHED = datetime(2026, 9, 4, 3, 0)
REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "vastai"
# `vast search offers --raw` as vast.ai's CLI repository saved it: the bare list of offers.
CLI_3090 = "vastcli_search_2024-11-01.json"
CLI_4090 = "vastcli_search_2025-01-17.json"
CLI_3090_LATER = "vastpython_search_2024-11-04.jdo"
CLI_3090_TIE = "vastcli_search_2024-11-18.json"
CLI_CAPTURES = (CLI_3090, CLI_3090_LATER, CLI_3090_TIE, CLI_4090)


def real(name: str) -> bytes:
    return (REAL / name).read_bytes()


def rows_of(body: bytes, fetched: datetime = FETCHED):
    rows = VastaiAdapter().parse(body, URL, fetched)
    offers = {r.offer_id: r for r in rows if isinstance(r, OfferRow)}
    quotes = {(r.gpu_name_raw, r.region): r for r in rows if isinstance(r, SpotQuoteRow)}
    return offers, quotes


def parse(fetched: datetime = FETCHED):
    return rows_of(read(VASTAI), fetched)


def variant(name: str, old: str, new: str, count: int = 1) -> bytes:
    """A real answer with one exact replacement, which must occur ``count`` times."""
    body = real(name).decode("utf-8")
    assert body.count(old) == count, f"{old!r} occurs {body.count(old)}× in {name}"
    return body.replace(old, new).encode("utf-8")


def refused(body: bytes) -> str:
    with pytest.raises(ParseError) as error:
        VastaiAdapter().parse(body, URL, FETCHED)
    return str(error.value)


# -- the request ---------------------------------------------------------------------------


def test_fetch_plan_posts_the_cli_query_to_bundles_without_a_key() -> None:
    (request,) = VastaiAdapter().fetch_plan("https://console.vast.ai/")
    assert isinstance(request, Request)
    assert (request.method, request.url) == ("POST", "https://console.vast.ai/api/v0/bundles/")
    assert request.headers == ()  # no API key: the offer search is public
    query = request.json_body
    assert query["type"] == "on-demand" and query["rentable"] == {"eq": True}
    assert query["verified"] == {"eq": True} and query["rented"] == {"eq": False}
    assert query["allocated_storage"] == 5.0  # the CLI's default: the storage dph_total prices
    assert query["order"] == [["dph_total", "asc"]] and query["limit"] == 1000
    assert "RTX 4090" in query["gpu_name"]["in"] and "H100 SXM" in query["gpu_name"]["in"]
    json.dumps(query)  # sent as JSON


# -- real answers --------------------------------------------------------------------------


def test_the_cli_bare_list_gives_offers_at_dph_total() -> None:
    offers, quotes = rows_of(real(CLI_3090))
    assert set(offers) == {"13444220", "13444221"} and len(quotes) == 1
    one = offers["13444220"]
    assert (one.gpu, one.gpu_name_raw, one.gpu_count, one.vram_gb) == (
        "rtx3090-24g", "RTX 3090", 1, 24,
    )  # fmt: skip
    assert (one.billing, one.currency, one.unit) == ("hourly", "USD", "USD/card-hour")
    # dph_total 2.6680555555555556 = dph_base 2.6666666666666665 + storage_total_cost 0.0013889
    assert one.price == one.list_price == D("2.6681") and one.unit_raw == "$/hr (dph_total)"
    assert one.per_card_hour == D("2.6681")  # USD, not converted
    assert one.region == "South Africa, ZA" and one.stock is None
    # cpu_ram 128785 MiB (half of a 256 GiB machine), disk_space 749.5 GB
    assert (one.cpu_cores, one.ram_gb, one.disk_gb) == (32, 126, 750)
    two = offers["13444221"]
    assert (two.gpu_count, two.unit, two.price) == (2, "USD/server-hour", D("5.3347"))
    assert two.per_card_hour == D("2.66735")  # 5.3347 / 2, in USD
    assert (two.cpu_cores, two.ram_gb, two.disk_gb) == (64, 252, 1499)


def test_the_api_envelope_and_the_bare_list_give_the_same_rows() -> None:
    for name in CLI_CAPTURES:
        listed = real(name)
        wrapped = json.dumps({"offers": json.loads(listed)}).encode()
        parsed = VastaiAdapter().parse
        assert parsed(wrapped, URL, FETCHED) == parsed(listed, URL, FETCHED), name


def test_every_saved_answer_prices_dph_total_which_is_base_plus_storage() -> None:
    # The evidence for dph_total in the saved answers themselves: it is the CLI's $/hr,
    # search.totalHour (SkyPilot's price) and discounted_dph_total, all the same number.
    for name in CLI_CAPTURES:
        raw = {str(o["id"]): o for o in json.loads(real(name))}
        offers, _ = rows_of(real(name))
        for offer_id, o in raw.items():
            assert o["dph_total"] == o["search"]["totalHour"] == o["discounted_dph_total"]
            assert o["dph_total"] == pytest.approx(o["dph_base"] + o["storage_total_cost"])
            assert o["storage_total_cost"] == pytest.approx(o["storage_cost"] * 5 / 720)
            assert offers[offer_id].price == D(str(o["dph_total"])).quantize(D("0.0001"))
            assert offers[offer_id].price != D(str(o["dph_base"])).quantize(D("0.0001"))


def test_a_known_card_and_slices_that_are_not_rentable() -> None:
    offers, quotes = rows_of(real(CLI_4090))
    assert {o.gpu for o in offers.values()} == {"rtx4090-24g"}  # gpu_ram 24564 MiB
    assert [(o.gpu_count, o.price, o.stock) for o in offers.values()] == [
        (1, D("0.4014"), None), (2, D("0.8014"), 0), (4, D("1.6014"), 0), (6, D("2.4014"), 0),
    ]  # fmt: skip
    (floor,) = quotes.values()
    assert (floor.gpu_name_raw, floor.region, floor.price) == (
        "RTX 4090 24GB", "Alberta, CA", D("0.4000"),
    )  # fmt: skip
    assert "offer 16014632" in floor.unit_raw  # the rentable one


def test_the_floor_is_the_lowest_min_bid_per_card_and_a_tie_goes_to_fewer_cards() -> None:
    _, quotes = rows_of(real(CLI_3090_LATER))
    floor = quotes[("RTX 3090 24GB", "South Africa, ZA")]
    # 0.3511111 for 2 cards (0.17555555 a card) ties 0.1755556 for 1 at six decimals, the
    # warehouse's scale: fewer cards first. Rounding the bid to 0.3511 before dividing made
    # 0.17555 a card, below 0.1756, and the two-card offer won.
    assert (floor.price, floor.unit_raw) == (
        D("0.1756"), "$/hr for 1 GPU(s) (min_bid of offer 13444222)",
    )  # fmt: skip
    assert floor.per_card_hour == D("0.175556")  # 0.1755556 / 1 at six decimals, in USD
    assert (floor.quote_kind, floor.currency, floor.gpu) == (
        "interruptible_floor",
        "USD",
        "rtx3090-24g",
    )
    _, quotes = rows_of(real(CLI_3090_TIE))
    floor = quotes[("RTX 3090 24GB", "South Africa, ZA")]
    assert floor.price == D("0.2000") and "offer 13670829" in floor.unit_raw  # 0.4 / 2 = 0.2 / 1


# -- broken real answers -------------------------------------------------------------------


def test_a_renamed_price_field_is_an_error() -> None:
    body = variant(CLI_3090, '"dph_total": ', '"dph_total_usd": ', 2)
    assert refused(body) == (
        f"{URL}: no row; 2 rejected: offer 1: dph_total: Field required; "
        "offer 2: dph_total: Field required"
    )
    body = variant(CLI_3090, '"dph_base": ', '"dph_base_usd": ', 2)
    assert refused(body).endswith("offer 2: dph_base: Field required")


def test_a_price_that_is_not_a_number_is_an_error() -> None:
    body = variant(CLI_3090, '"dph_total": 2.6680555555555556,', '"dph_total": "2.67/hr",')
    assert refused(body) == (
        f"{URL}: 1 of 2 listing(s) rejected (50%, above the 20% a page may lose: [parse].max_rejected_share): 1 rejected: "
        "offer 1: dph_total: Input should be a valid decimal (got '2.67/hr')"
    )
    body = variant(CLI_3090, '"dph_total": 2.6680555555555556,', '"dph_total": 0,')
    assert refused(body).endswith("offer 1: dph_total: Input should be greater than 0 (got 0)")


def test_a_total_below_the_base_price_is_an_error() -> None:
    body = variant(CLI_3090, '"dph_total": 2.6680555555555556,', '"dph_total": 0.26680555,')
    assert refused(body) == (
        f"{URL}: 1 of 2 listing(s) rejected (50%, above the 20% a page may lose: [parse].max_rejected_share): 1 rejected: "
        "offer 1: dph_total 0.26680555 is below dph_base 2.6666666666666665: "
        "the fields changed meaning"
    )


def test_an_offer_without_its_id_is_an_error() -> None:
    body = variant(CLI_3090, '"id": 13444220,', "")
    assert refused(body).endswith("1 rejected: offer 1: id: Field required")
    assert refused(real("ewyluda_vast.json")).startswith(
        f"{URL}: no row; 138 rejected: offer 1: id: Field required, and 1 more"
    )


def test_rentable_must_be_true_or_false() -> None:
    body = variant(CLI_3090, '"rentable": true,', '"rentable": "yes",', 2)
    assert "offer 1: rentable: Input should be a valid boolean (got 'yes')" in refused(body)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            {"success": False, "error": "invalid_args", "msg": "Invalid query."},
            "vast.ai answered without offers: Invalid query.",
        ),
        ({"success": False, "error": "auth_error"}, "vast.ai answered without offers: auth_error"),
        ({"success": False, "offers": []}, "vast.ai answered without offers: keys ['offers', "),
        ({"detail": "Not Found"}, "vast.ai answered without offers: keys ['detail']"),
        ({"offers": {"id": 1}}, "'offers' is not a list: dict"),
        ({"offers": None}, "'offers' is not a list: NoneType"),
        ("offers", "not a vast.ai answer (a JSON str)"),
        ([1], "offer 1: value: Input should be a valid dictionary"),
    ],
)
def test_error_answers_are_errors_carrying_vast_ais_message(answer: object, message: str) -> None:
    assert message in refused(json.dumps(answer).encode())


def test_an_offer_listed_twice_is_an_error() -> None:
    (offer, _) = json.loads(real(CLI_3090))
    assert refused(json.dumps([offer, offer]).encode()).endswith(
        "1 rejected: offer 2: listed twice: 13444220 is on the page as offer 1"
    )


@pytest.mark.parametrize("body", [b'{"offers": []}', b"[]", b'{"offers": [], "success": true}'])
def test_an_empty_well_formed_answer_is_zero_rows_which_the_collector_records_as_failed(
    body: bytes,
) -> None:
    adapter = VastaiAdapter()
    assert adapter.parse(body, URL, FETCHED) == []
    parsed = parse_page(adapter, FetchedPage(URL, 200, body, "application/json", FETCHED))
    assert (parsed.rows, parsed.error) == ([], "parse error: no row: no listing on the page")


# -- the modelled fixture (tests/fixtures/live/vastai_bundles.json) ------------------------


def test_modelled_on_demand_offer_is_dph_total_in_usd_converted_at_the_day_rate() -> None:
    offers, _ = parse()
    one = offers["21440112"]
    assert (one.gpu, one.gpu_name_raw, one.gpu_count, one.vram_gb) == (
        "rtx4090-24g", "RTX 4090", 1, 24,
    )  # fmt: skip
    assert one.billing == "hourly" and one.currency == "USD"
    assert one.price == D("0.3639")  # dph_total (= dph_base 0.35 + storage_total_cost 0.0139)
    assert one.unit == "USD/card-hour" and one.unit_raw == "$/hr (dph_total)"
    assert one.per_card_hour == D("0.3639")  # USD per card-hour as listed
    # cpu_ram 64300 MiB = 62.8 GiB
    assert (one.region, one.cpu_cores, one.ram_gb, one.disk_gb) == ("Texas, US", 16, 63, 480)
    # a whole 8-card machine: the price is the machine's, the CNY figure per card
    h100 = offers["22105561"]
    assert (h100.gpu, h100.gpu_count, h100.unit) == ("h100-80g", 8, "USD/server-hour")
    assert h100.price == D("17.6556")
    assert h100.per_card_hour == D("2.20695")  # 17.6556 / 8, in USD
    assert offers["19873004"].price == D("0.7000")  # no storage_total_cost: dph_total = base


def test_gpu_ram_in_mib_picks_the_size_and_unknown_cards_stay_unknown() -> None:
    offers, _ = parse()
    assert offers["20551230"].gpu == "a100-80g"  # A100 SXM4, 81920 MiB
    assert offers["20551777"].gpu == "a100-40g"  # A100 SXM4, 40960 MiB
    assert offers["23001458"].gpu == "rtx5090-32g"  # 32607 MiB
    assert offers["18770345"].gpu == "rtx3090-24g"  # RTX 3090, 24576 MiB
    assert offers["18770345"].region is None  # geolocation null


def test_modelled_interruptible_floor_per_card_size_and_location() -> None:
    _, quotes = parse()
    texas = quotes[("RTX 4090 24GB", "Texas, US")]
    assert texas.quote_kind == "interruptible_floor" and texas.currency == "USD"
    assert texas.price == D("0.1800")  # offer 21440987, the lower of 0.20 and 0.18
    assert texas.per_card_hour == D("0.18")
    quebec = quotes[("RTX 4090 24GB", "Quebec, CA")]
    assert quebec.price == D("0.3600") and quebec.per_card_hour == D("0.18")  # ÷ 2 GPUs
    assert quotes[("H100 SXM 80GB", "Oregon, US")].per_card_hour == D("1.5")
    assert ("A100 SXM4 40GB", "Sweden, SE") not in quotes  # min_bid null: no floor
    assert quotes[("RTX 3090 24GB", "unknown")].gpu == "rtx3090-24g"


def test_rows_carry_the_listed_figures_whatever_the_day() -> None:
    # No money is converted while parsing: the same answer on two days lists the same USD.
    on_4th, _ = parse(datetime(2026, 9, 4, 23, 0))
    in_2023, _ = parse(datetime(2023, 8, 1, 0, 0))
    for offers in (on_4th, in_2023):
        row = offers["21440112"]
        assert (row.price, row.currency, row.per_card_hour) == (D("0.3639"), "USD", D("0.3639"))
        assert not hasattr(row, "cny_per_card_hour")
    assert in_2023["21440112"].observed_at == datetime(2023, 8, 1, 0, 0)


def test_a_number_json_will_not_convert_is_a_parse_error() -> None:
    # Valid JSON, but json refuses integers of over 4,300 digits: a parse error, not a crash.
    body = ('{"offers": [{"id": ' + "7" * 5000 + "}]}").encode()
    with pytest.raises(ParseError, match=r"^u: body cannot be read as JSON \(Exceeds"):
        VastaiAdapter().parse(body, "u", FETCHED)
