"""RunPod: the live GraphQL request, and every format RunPod has published prices in, on the
real captures of ``tests/fixtures/real/runpod/`` (README there: where each comes from) and on
the project's modelled JSON-LD pages (``tests/fixtures/live/``)."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from configuration.schema import DEFAULT_SOURCES
from gpuprice.cli import app
from scrapers.http import Request
from scrapers.rows import BILLING_MODES, ParseError
from scrapers.sources.runpod.adapter import GPU_TYPES_QUERY, RunpodAdapter
from tests.support.listings import one_rejected
from tests.support.live_fixtures import LIVE_DIR, RUNPOD, RUNPOD_SAVED, read

D = Decimal
FETCHED = datetime(2026, 9, 4, 3, 0)
adapter = RunpodAdapter()
REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "runpod"
NEXT_2023 = "runpod_20230929070808.html"
WEBFLOW_2025 = "runpod_20250909131230.html"
JSONLD_2026 = "runpod_20260810082317.html"
GPU_TYPES_2025 = "runpod_graphql_gputypes_20250621.json"  # data.gpuTypes, with the flags
ANSWER_2026 = "runpod_graphql_20260928.json"  # a whole answer, no flags
API = "https://api.runpod.io/graphql"
PAGE = "https://www.runpod.io/pricing"


def real(name: str) -> bytes:
    return (REAL / name).read_bytes()


def parse(body: bytes, url: str = PAGE) -> dict:
    return {r.offer_id: r for r in adapter.parse(body, url, FETCHED)}


def answer(*gpu_types: dict) -> bytes:
    return json.dumps({"data": {"gpuTypes": list(gpu_types)}}).encode()


# -- the live request ------------------------------------------------------------------------


def test_the_fetch_plan_is_one_graphql_post_to_runpods_api_without_a_key() -> None:
    for site in ("https://api.runpod.io", "https://api.runpod.io/"):
        (request,) = adapter.fetch_plan(site)
        assert request == Request(
            "https://api.runpod.io/graphql", method="POST", json_body={"query": GPU_TYPES_QUERY}
        )
    assert DEFAULT_SOURCES["runpod"]["live_url"] == "https://api.runpod.io"
    assert adapter.secret is None  # the gpuTypes query is public
    (mirror,) = adapter.fetch_plan("http://127.0.0.1:8703/")
    assert isinstance(mirror, Request) and mirror.url == "http://127.0.0.1:8703/graphql"


def test_the_query_asks_for_every_price_the_parser_reads_and_the_cloud_flags() -> None:
    fields = set(GPU_TYPES_QUERY.replace("{", " ").replace("}", " ").split())
    assert {
        "gpuTypes", "id", "displayName", "memoryInGb", "secureCloud", "communityCloud",
        "securePrice", "communityPrice", "secureSpotPrice", "communitySpotPrice",
        "oneWeekPrice", "oneMonthPrice", "threeMonthPrice", "sixMonthPrice",
    } <= fields  # fmt: skip


# -- the GraphQL answer ----------------------------------------------------------------------


def test_gpu_types_give_on_demand_spot_and_commitment_rows_per_cloud() -> None:
    rows = parse(real(GPU_TYPES_2025), API)
    h100 = rows["H100 SXM/Secure Cloud"]
    assert (h100.gpu, h100.gpu_name_raw, h100.vram_gb, h100.gpu_count) == (
        "h100-80g", "H100 SXM", 80, 1,
    )  # fmt: skip
    assert (h100.billing, h100.price, h100.currency, h100.unit) == (
        "hourly", D("2.9900"), "USD", "USD/card-hour",
    )  # fmt: skip
    assert h100.per_card_hour == D("2.99")  # USD as listed: the warehouse converts
    assert h100.unit_raw == "$/hr per GPU (securePrice)"
    assert rows["H100 SXM/Community Cloud"].price == D("2.6900")
    spot = rows["H100 SXM/Community Cloud spot"]
    assert (spot.billing, spot.price, spot.unit_raw) == (
        "spot", D("1.5000"), "$/hr per GPU (communitySpotPrice)",
    )  # fmt: skip
    assert rows["H100 SXM/Secure Cloud spot"].price == D("1.7500")
    plan = rows["H100 SXM/Secure Cloud 3-month commitment"]
    assert (plan.billing, plan.price, plan.list_price, plan.discount_label) == (
        "monthly", D("2.8110"), D("2.9900"), "3-month commitment",
    )  # fmt: skip
    assert plan.unit == "USD/card-hour" and plan.per_card_hour == D("2.811")
    assert rows["H100 SXM/Secure Cloud 6-month commitment"].price == D("2.6010")
    assert {r.billing for r in rows.values()} <= set(BILLING_MODES)


def test_a_cloud_whose_flag_is_false_gives_no_row_whatever_its_price_says() -> None:
    rows = parse(real(GPU_TYPES_2025), API)
    # B200: communityCloud false, communityPrice 0.5 (RunPod's placeholder)
    assert "B200/Secure Cloud" in rows and "B200/Community Cloud" not in rows
    # RTX 5080: secureCloud false; its securePrice 0.59 and secureSpotPrice 0.3 are not offered
    assert {k for k in rows if k.startswith("RTX 5080/")} == {
        "RTX 5080/Community Cloud", "RTX 5080/Community Cloud spot",
    }  # fmt: skip
    # RTX 5000 Ada: a threeMonthPrice, but not on Secure Cloud (commitments are Secure Cloud's)
    assert not [k for k in rows if k.startswith("RTX 5000 Ada/Secure")]
    assert not [k for k in rows if k.startswith("unknown/")]  # every price 0
    assert len(rows) == 149


def test_a_whole_answer_without_flags_keeps_every_positive_price() -> None:
    rows = parse(real(ANSWER_2026), API)
    assert len(rows) == 88
    assert rows["B300/Community Cloud"].price == D("6.9400")
    assert "A100 SXM 40GB/Secure Cloud" not in rows  # securePrice 0
    assert rows["A100 SXM 40GB/Community Cloud"].gpu == "a100-40g"
    assert rows["H200 NVL/Secure Cloud"].gpu == "h200nvl-141g"  # 143 GB: not the H200 SXM
    assert rows["RTX PRO 4500 SE/Secure Cloud"].gpu == "unknown"  # the 165 W Server Edition
    assert not [k for k in rows if k.startswith("unknown/")]


def test_graphql_errors_are_a_parse_error_carrying_runpods_message() -> None:
    # Modelled on the GraphQL error shape RunPod's SDK reads (errors[0].message); the message
    # is one RunPod returned (runpod/runpod-python issue 239).
    message = "Something went wrong. Please try again later or contact support."
    for body in (
        {"errors": [{"message": message, "path": ["gpuTypes"]}], "data": None},
        {"errors": [{"message": message}], "data": {"gpuTypes": []}},
    ):
        with pytest.raises(ParseError, match="RunPod's API answered with errors: Something went"):
            adapter.parse(json.dumps(body).encode(), API, FETCHED)


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b'{"data": {"gpuTypes": {"id": "x"}}}', "data.gpuTypes is not a list"),
        (b'{"data": {"myself": null}}', "no data.gpuTypes"),
        (b'{"offers": []}', "no data.gpuTypes"),
        (b'[{"name": "x"}]', "not of RunPod GPU types"),
        (answer({"id": "NVIDIA A40", "securePrice": "cheap"}), "securePrice: not a number"),
        (answer({"id": "NVIDIA A40", "securePrice": -1}), "must not be negative"),
        (answer({"securePrice": 0.4}), "neither displayName nor id"),
        (b'{"data": ', "not JSON"),
    ],
)
def test_answers_that_are_not_price_lists_are_errors(body: bytes, error: str) -> None:
    with pytest.raises(ParseError, match=error):
        adapter.parse(body, API, FETCHED)


@pytest.mark.parametrize(
    "body",
    [b'{"data": {"gpuTypes": []}}',
     answer({"id": "NVIDIA A40", "displayName": "A40", "securePrice": 0})],
)  # fmt: skip
def test_an_answer_offering_nothing_is_no_rows(body: bytes) -> None:
    """No listing, or none with a price: no rows (the collector records the page as failed)."""
    assert adapter.parse(body, API, FETCHED) == []


def test_two_types_with_one_display_name_are_told_apart_by_id() -> None:
    rows = parse(
        answer(
            {"id": "NVIDIA RTX PRO 6000 Blackwell Server Edition", "displayName": "RTX PRO 6000",
             "memoryInGb": 96, "securePrice": 1.89},
            {"id": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
             "displayName": "RTX PRO 6000", "memoryInGb": 96, "securePrice": 1.79},
        ),
        API,
    )  # fmt: skip
    assert set(rows) == {
        "RTX PRO 6000 (NVIDIA RTX PRO 6000 Blackwell Server Edition)/Secure Cloud",
        "RTX PRO 6000 (NVIDIA RTX PRO 6000 Blackwell Workstation Edition)/Secure Cloud",
    }


def test_a_one_week_commitment_is_a_weekly_row_priced_per_hour() -> None:
    rows = parse(
        answer({"id": "NVIDIA L40S", "displayName": "L40S", "memoryInGb": 48, "secureCloud": True,
                "securePrice": 0.86, "oneWeekPrice": 0.82, "lowestPrice": {"minimumBidPrice": 0.4,
                "uninterruptablePrice": 0.79}, "clusterPrice": 1.032}),
        API,
    )  # fmt: skip
    assert set(rows) == {"L40S/Secure Cloud", "L40S/Secure Cloud 1-week commitment"}
    week = rows["L40S/Secure Cloud 1-week commitment"]
    assert (week.billing, week.price, week.list_price, week.unit) == (
        "weekly", D("0.8200"), D("0.8600"), "USD/card-hour",
    )  # fmt: skip


# -- the 2023 Next.js page ---------------------------------------------------------------------


def test_the_2023_page_reads_the_gpu_types_in_its_next_data() -> None:
    rows = parse(real(NEXT_2023), "https://www.runpod.io/gpu-instance/pricing")
    assert len(rows) == 77
    assert rows["H100 80GB SXM5/Secure Cloud"].gpu == "h100-80g"
    assert rows["A100 80GB/Community Cloud spot"].price == D("0.8900")
    # A100 SXM 80GB: communityCloud false beside a communityPrice of 1.69
    assert {k for k in rows if k.startswith("A100 SXM 80GB/")} == {"A100 SXM 80GB/Secure Cloud"}
    assert rows["A100 40GB/Community Cloud"].gpu == "a100-40g"
    l40 = {
        k.split("/", 1)[1]: (r.billing, r.price) for k, r in rows.items() if k.startswith("L40/")
    }
    assert l40 == {
        "Secure Cloud": ("hourly", D("1.1400")),
        "Secure Cloud spot": ("spot", D("0.6900")),
        "Secure Cloud 1-month commitment": ("monthly", D("1.0800")),
        "Secure Cloud 3-month commitment": ("monthly", D("1.0200")),
        "Secure Cloud 6-month commitment": ("monthly", D("0.9700")),
    }  # communityCloud false: its communityPrice 0.5 and lowestPrice 0.5 give nothing


# -- the 2025 Webflow page -----------------------------------------------------------------------


def test_the_2025_page_reads_the_price_attributes_of_its_rows() -> None:
    rows = parse(real(WEBFLOW_2025))
    assert list(rows) == [
        f"{card}/{cloud}"
        for card in ("H200", "B200", "H100 NVL", "H100 PCIe", "H100 SXM")
        for cloud in ("Secure Cloud", "Community Cloud")
    ]  # the cut A100 PCIe row at the end has no name and no price: no row
    h200 = rows["H200/Secure Cloud"]  # the excerpt starts inside this row
    assert (h200.gpu, h200.vram_gb, h200.ram_gb, h200.cpu_cores) == ("h200-141g", 141, 276, 24)
    assert (h200.billing, h200.price, h200.unit_raw) == (
        "hourly", D("3.7900"), "$/hr per GPU (data-secure-cloud-price)",
    )  # fmt: skip
    assert rows["H200/Community Cloud"].price == D("3.5900")
    h100 = rows["H100 SXM/Community Cloud"]
    assert (h100.gpu, h100.vram_gb, h100.ram_gb, h100.cpu_cores) == ("h100-80g", 80, 125, 20)
    assert rows["H100 NVL/Secure Cloud"].gpu == "h100nvl-94g"  # its own card, not h100-80g


def _webflow(old: str, new: str, count: int = 1) -> bytes:
    text = real(WEBFLOW_2025).decode()
    assert text.count(old) == count, old
    return text.replace(old, new).encode()


def test_a_webflow_price_of_zero_or_empty_is_not_offered() -> None:
    rows = parse(_webflow('data-community-cloud-price="5.98"', 'data-community-cloud-price="0"'))
    assert "B200/Secure Cloud" in rows and "B200/Community Cloud" not in rows
    rows = parse(_webflow('data-secure-cloud-price="2.79"', 'data-secure-cloud-price=""'))
    assert "H100 NVL/Community Cloud" in rows and "H100 NVL/Secure Cloud" not in rows


@pytest.mark.parametrize(
    ("old", "new", "count", "error"),
    [
        ('class="gpu-pricing-row__price-wrapper"><div data-gradient="" data-line-clamp="">$</div>'
         '<div data-secure-cloud-price="5.99"',
         'class="gpu-pricing-row__price-wrapper"></div><div data-secure-cloud-price="5.99"', 1,
         "outside .gpu-pricing-row__price-wrapper"),
    ],
)  # fmt: skip
def test_webflow_pages_that_cannot_be_read_are_errors(
    old: str, new: str, count: int, error: str
) -> None:
    with pytest.raises(ParseError, match=error):
        adapter.parse(_webflow(old, new, count), PAGE, FETCHED)


def test_a_webflow_page_with_every_price_zero_is_no_rows() -> None:
    body = _webflow('-cloud-price="', '-cloud-price="0" data-was="', 10)
    assert adapter.parse(body, PAGE, FETCHED) == []


@pytest.mark.parametrize(
    ("old", "new", "where", "error"),
    [
        ('data-secure-cloud-price="2.69"', 'data-secure-cloud-price="2.69/hr"', "price 5",
         "H100 SXM / data-secure-cloud-price: not a number"),
        ('data-secure-cloud-price="2.69"', 'data-secure-spot-price="1.49"', "price 5",
         "unknown price attribute 'data-secure-spot-price'"),
        ('data-line-clamp="">B200</div>', 'data-line-clamp=""></div>', "price 2",
         "a price with no card name"),
    ],
)  # fmt: skip
def test_a_webflow_row_that_cannot_be_read_is_rejected_and_the_others_kept(
    old: str, new: str, where: str, error: str
) -> None:
    whole = adapter.parse(real(WEBFLOW_2025), PAGE, FETCHED)
    rejected, rows = one_rejected(adapter, _webflow(old, new, 1), PAGE, FETCHED, re.escape(error))
    assert rejected.where == where and len(rows) < len(whole)


# -- the 2026 JSON-LD page -------------------------------------------------------------------


def test_the_2026_page_reads_its_json_ld_products() -> None:
    rows = parse(real(JSONLD_2026))
    assert len(rows) == 38
    h100 = rows["H100 SXM/Secure Cloud"]
    assert (h100.gpu, h100.price, h100.billing, h100.vram_gb) == (
        "h100-80g", D("2.9900"), "hourly", None,
    )  # fmt: skip
    assert h100.unit_raw == "$/hr per GPU (Offer 'Secure Cloud')"
    assert rows["A100 SXM/Secure Cloud"].gpu == "unknown"  # no size stated: 40 or 80 GB
    assert rows["RTX 5090/Community Cloud"].gpu == "rtx5090-32g"


def test_a_json_ld_offer_priced_null_is_not_offered_but_one_without_price_is_an_error() -> None:
    text = real(JSONLD_2026).decode()
    b300 = '"name": "Secure Cloud",\n            "price": "7.39",'
    assert text.count(b300) == 1
    rows = parse(text.replace(b300, '"name": "Secure Cloud",\n            "price": null,').encode())
    assert "B300/Community Cloud" in rows and "B300/Secure Cloud" not in rows
    body = text.replace(b300, '"name": "Secure Cloud",').encode()
    rejected, rows = one_rejected(adapter, body, PAGE, FETCHED, "Secure Cloud: no price")
    assert rejected.where == "B300 GPU on Runpod"
    assert not any(row.offer_id.startswith("B300/") for row in rows)


def test_the_modelled_json_ld_page_still_parses() -> None:
    rows = parse(read(RUNPOD))
    assert len(rows) == 16
    h100 = rows["H100 SXM/Community Cloud"]
    assert (h100.gpu, h100.vram_gb, h100.ram_gb, h100.cpu_cores, h100.price) == (
        "h100-80g", 80, 125, 20, D("2.6900"),
    )  # fmt: skip
    assert rows["A100 SXM/Secure Cloud"].gpu == "a100-80g"  # size from additionalProperty VRAM
    assert rows["RTX 6000 Ada/Secure Cloud"].gpu == "rtx6000ada-48g"


def test_a_page_saved_from_a_browser_parses_like_the_fetched_one() -> None:
    saved = read(RUNPOD_SAVED)
    assert saved.startswith(b"\xef\xbb\xbf") and b"saved from url" in saved and b"\r\n" in saved
    uri = (LIVE_DIR / RUNPOD_SAVED).resolve().as_uri()
    got = {k: (r.gpu, r.price) for k, r in parse(saved, uri).items()}
    assert got == {k: (r.gpu, r.price) for k, r in parse(read(RUNPOD)).items()}


# -- what all formats share ------------------------------------------------------------------


def test_the_formats_name_the_same_offer_alike() -> None:
    """The same card and cloud has one offer_id whichever format it was read from."""
    webflow = set(parse(real(WEBFLOW_2025)))
    jsonld = set(parse(real(JSONLD_2026)))
    api = set(parse(real(ANSWER_2026), API))
    for offer in ("H100 SXM/Secure Cloud", "H100 PCIe/Community Cloud", "H100 NVL/Secure Cloud"):
        assert offer in webflow and offer in jsonld and offer in api


def test_nothing_depends_on_the_url() -> None:
    for name in (NEXT_2023, WEBFLOW_2025, JSONLD_2026, GPU_TYPES_2025, ANSWER_2026):
        body = real(name)
        assert parse(body, API).keys() == parse(body, (REAL / name).as_uri()).keys()


@pytest.mark.parametrize(
    ("name", "body", "error"),
    [
        ("a foreign page", read("generic_table_en.html"), "not a RunPod pricing page"),
        # the project's old, invented pricing-row layout (div.gpu-pricing-row + .gpu-name)
        ("invented rows", b'<div class="gpu-pricing-row"><h3 class="gpu-name">H100</h3></div>',
         "a pricing-row layout this parser does not know"),
        ("an error page", b"<html><title>502 Bad Gateway</title></html>", "not a RunPod"),
        ("empty", b"", "empty body"),
    ],
)  # fmt: skip
def test_a_body_that_is_no_runpod_format_is_an_error(name: str, body: bytes, error: str) -> None:
    with pytest.raises(ParseError, match=error):
        adapter.parse(body, PAGE, FETCHED)


# -- gpuprice parse runpod FILE ----------------------------------------------------------------


def _gpuprice_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, body: bytes):
    monkeypatch.setenv("GPUPRICE_HOME", str(tmp_path))  # no warehouse: the configured default rate
    saved = tmp_path / name
    saved.write_bytes(body)
    stamp = datetime(2026, 9, 4, 3, 0).timestamp()
    os.utime(saved, (stamp, stamp))
    result = CliRunner().invoke(app, ["parse", "runpod", str(saved)])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_gpuprice_parse_runpod_saved_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _gpuprice_parse(tmp_path, monkeypatch, "Pricing _ Runpod.html", read(RUNPOD_SAVED))
    assert len(rows) == 16
    h100 = next(r for r in rows if r["offer_id"] == "H100 SXM/Secure Cloud")
    assert (h100["gpu"], h100["currency"], h100["price"]) == ("h100-80g", "USD", "2.9900")
    assert h100["per_card_hour"] == "2.9900"  # as listed
    # no warehouse is read: a CNY figure at the configured default, and it says so
    assert h100["cny_per_card_hour_at_default"] == "21.229000"  # 2.99 × the configured 7.10
    assert h100["cny_note"] == "≈ ¥21.229000 at the configured default 7.1 CNY/USD"


@pytest.mark.parametrize(
    ("name", "count"),
    [(NEXT_2023, 77), (WEBFLOW_2025, 10), (JSONLD_2026, 38), (GPU_TYPES_2025, 149),
     (ANSWER_2026, 88)],
)  # fmt: skip
def test_gpuprice_parse_runpod_reads_every_real_capture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, count: int
) -> None:
    rows = _gpuprice_parse(tmp_path, monkeypatch, name, real(name))
    assert len(rows) == count
    assert all(r["source"] == "runpod" and r["currency"] == "USD" for r in rows)
