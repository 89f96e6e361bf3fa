"""Lambda Cloud: the instance-types API (modelled answer) and the public pricing page (real
captures of three generations, tests/fixtures/real/lambda/)."""

from __future__ import annotations

import json
import re
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from scrapers.http import Request
from scrapers.rows import ParseError
from scrapers.sources.lambda_cloud import PRICING_URL, UNIT_RAW, LambdaAdapter
from tests.support.listings import one_rejected

D = Decimal
FETCHED = datetime(2026, 9, 4, 3, 0)
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
API = FIXTURES / "live" / "lambda_instance_types.json"
REAL = FIXTURES / "real" / "lambda"
API_URL = "https://cloud.lambdalabs.com/api/v1/instance-types"


def parse(body: bytes, url: str = API_URL) -> list:
    return LambdaAdapter().parse(body, url, FETCHED)


def api(**changes) -> bytes:
    """The modelled answer with ``changes`` applied to its gpu_8x_h100_sxm5 instance type."""
    doc = json.loads(API.read_text(encoding="utf-8"))
    entry = doc["data"]["gpu_8x_h100_sxm5"]
    for key, value in changes.items():
        target = entry["instance_type"]
        *path, last = key.split("__")
        for part in path:
            target = target[part]
        if value is None:
            del target[last]
        else:
            target[last] = value
    return json.dumps(doc).encode()


def test_the_adapter_and_its_two_fetch_plans() -> None:
    adapter = LambdaAdapter()
    assert (adapter.name, adapter.kind, adapter.currency) == ("lambda", "offers", "USD")
    assert adapter.fetch_plan("https://cloud.lambdalabs.com/") == [Request(API_URL)]
    assert adapter.public_fetch_plan("https://cloud.lambdalabs.com") == [PRICING_URL]
    assert PRICING_URL == "https://lambda.ai/pricing"
    secret = adapter.secret
    assert (secret.env, secret.what) == ("GPUPRICE_LAMBDA_API_KEY", "API key")
    assert secret.headers(" secret_abc \n") == {"Authorization": "Bearer secret_abc"}


# -- the instance-types API (modelled answer) --------------------------------------------------


def test_the_instance_types_answer() -> None:
    rows = {r.offer_id: r for r in parse(API.read_bytes())}
    assert sorted(rows) == [
        "gpu_1x_a10", "gpu_1x_a100_sxm4", "gpu_1x_gh200", "gpu_1x_h100_pcie", "gpu_4x_a6000",
        "gpu_8x_a100_80gb_sxm4", "gpu_8x_h100_sxm5",
    ]  # fmt: skip
    h100 = rows["gpu_8x_h100_sxm5"]
    assert (h100.gpu, h100.gpu_name_raw, h100.gpu_count, h100.vram_gb) == (
        "h100-80g", "H100 (80 GB SXM5)", 8, 80,
    )  # fmt: skip
    # 2392 cents for the 8-card instance: $23.92, $2.99 per card-hour
    assert (h100.billing, h100.price, h100.currency, h100.unit, h100.unit_raw) == (
        "hourly", D("23.9200"), "USD", "USD/server-hour", UNIT_RAW,
    )  # fmt: skip
    assert h100.per_card_hour == D("2.99")  # USD, not converted
    assert (h100.cpu_cores, h100.ram_gb, h100.disk_gb, h100.stock) == (208, 1800, 22528, None)
    pcie = rows["gpu_1x_h100_pcie"]
    assert (pcie.price, pcie.unit, pcie.stock) == (D("2.4900"), "USD/card-hour", 0)  # sold out
    assert rows["gpu_1x_a100_sxm4"].gpu == "a100-40g"
    assert rows["gpu_8x_a100_80gb_sxm4"].gpu == "a100-80g"
    assert (rows["gpu_1x_a10"].gpu, rows["gpu_4x_a6000"].gpu) == ("a10-24g", "rtxa6000-48g")
    assert rows["gpu_1x_gh200"].gpu == "gh200-96g"  # "1x GH200 (96 GB)"
    assert {r.source for r in rows.values()} == {"lambda"}


def test_the_count_and_card_from_the_description_when_the_answer_omits_them() -> None:
    [row] = [
        r for r in parse(api(specs__gpus=None, gpu_description=None))
        if r.offer_id == "gpu_8x_h100_sxm5"
    ]  # fmt: skip
    assert (row.gpu_count, row.gpu_name_raw, row.gpu) == (8, "H100 (80 GB SXM5)", "h100-80g")


def test_cents_written_as_a_string_of_digits() -> None:
    """Lambda's OpenAPI example writes price_cents_per_hour as "80"."""
    rows = {r.offer_id: r for r in parse(api(price_cents_per_hour="2392"))}
    assert rows["gpu_8x_h100_sxm5"].price == D("23.9200")


def test_an_instance_type_without_gpus_gives_no_row() -> None:
    rows = parse(api(specs__gpus=0, gpu_description=""))
    assert "gpu_8x_h100_sxm5" not in {r.offer_id for r in rows} and len(rows) == 6


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (api(price_cents_per_hour=None), "price_cents_per_hour: Field required"),
        (api(price_cents_per_hour=23.92),
         "price_cents_per_hour: Input should be a valid integer, got a number with a fractional"),
        (api(price_cents_per_hour="$23.92"), "price_cents_per_hour: Input should be a valid integer"),
        (api(price_cents_per_hour=0), "price_cents_per_hour is 0"),
        (api(price_cents_per_hour=-5), "price_cents_per_hour: Input should be greater than or equal to 0"),
        (api(specs__gpus=None, description="H100 cluster"), "no specs.gpus and no count"),
        (api(specs__gpus="eight"), "specs.gpus: Input should be a valid integer"),
        (api(specs=None), "specs: Field required"),
        (api(name="gpu_8x_h100"), "instance_type.name is 'gpu_8x_h100'"),
        (api(gpu_description=None, description="H100 (80 GB SXM5)", specs__gpus=8),
         "no gpu_description"),
    ],
)  # fmt: skip
def test_an_instance_type_that_does_not_read_is_rejected_and_the_others_kept(
    body: bytes, reason: str
) -> None:
    rejected, rows = one_rejected(LambdaAdapter(), body, API_URL, FETCHED, reason)
    assert rejected.where == "gpu_8x_h100_sxm5" and "instance_type" in rejected.excerpt
    assert len(rows) == 6


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"data": {}}', "the API lists no instance types"),
        (b'{"data": []}', "no data object in the answer"),
        (b'{"instance_types": {}}', "no data object in the answer"),
        (b"[1, 2]", "not a Lambda API answer (a JSON list)"),
        (b'{"data": {"gpu_1x_a10": {"regions_with_capacity_available": []}}}',
         "no row; 1 rejected: gpu_1x_a10: instance_type: Field required"),
        (b'{"data": ', "body is not JSON"),
    ],
)  # fmt: skip
def test_a_broken_answer_is_an_error(body: bytes, message: str) -> None:
    with pytest.raises(ParseError) as raised:
        parse(body)
    assert message in str(raised.value)


def test_an_error_answer_carries_lambdas_message() -> None:
    body = json.dumps({
        "error": {
            "code": "global/invalid-api-key",
            "message": "API key is invalid, expired, or deleted.",
            "suggestion": "Create a new API key and try again.",
        }
    }).encode()  # fmt: skip
    with pytest.raises(ParseError) as raised:
        parse(body)
    assert str(raised.value) == (
        f"{API_URL}: Lambda API error global/invalid-api-key: API key is invalid, expired, or "
        "deleted. (Create a new API key and try again.)"
    )
    with pytest.raises(ParseError, match=r"Lambda API error no code: no message$"):
        parse(b'\xef\xbb\xbf  {"error": {}}')


def test_an_only_cpu_answer_is_no_rows() -> None:
    doc = {"data": {"cpu_4x_general": {"instance_type": {
        "name": "cpu_4x_general", "description": "4x CPU", "gpu_description": "",
        "price_cents_per_hour": 10, "specs": {"vcpus": 4, "memory_gib": 16, "gpus": 0},
    }, "regions_with_capacity_available": []}}}  # fmt: skip
    assert parse(json.dumps(doc).encode()) == []  # no listing states a GPU price


# -- the public pricing page (real captures) ---------------------------------------------------


def page_rows(name: str) -> list[tuple]:
    rows = LambdaAdapter().parse((REAL / name).read_bytes(), "file:///saved.html", FETCHED)
    return [(r.gpu_name_raw, r.gpu, r.gpu_count, r.vram_gb, str(r.price), r.unit) for r in rows]


def test_the_2023_page_prices_per_instance() -> None:
    rows = page_rows("lambda_20230909194011.html")
    assert len(rows) == 15  # 13 instances, then the Reserved and Sprint clusters
    assert rows[:3] == [
        ("NVIDIA H100 PCIe", "h100-80g", 1, 80, "1.9900", "USD/card-hour"),
        ("NVIDIA H100 SXM", "h100-80g", 8, 80, "20.7200", "USD/server-hour"),
        ("NVIDIA A100", "a100-40g", 1, 40, "1.1000", "USD/card-hour"),
    ]
    assert rows[6] == ("NVIDIA A100", "a100-80g", 8, 80, "12.0000", "USD/server-hour")
    assert rows[12] == ("NVIDIA Tesla V100", "v100-16g", 8, 16, "4.4000", "USD/server-hour")
    assert [r[:4] for r in rows[13:]] == [("H100 SXM", "h100-80g", 8, 80)] * 2


def test_the_2024_excerpt_starts_inside_its_table_and_prices_per_gpu() -> None:
    rows = page_rows("lambda_20241103180910.html")
    assert len(rows) == 17  # "Reserved 8x NVIDIA H100 SXM" (CONTACT SALES) gives none
    assert rows[0] == ("NVIDIA H100 SXM", "h100-80g", 8, 80, "2.9900", "USD/card-hour")
    assert rows[5:7] == [
        ("NVIDIA A100 SXM", "a100-80g", 8, 80, "1.7900", "USD/card-hour"),
        ("NVIDIA A100 SXM", "a100-40g", 8, 40, "1.2900", "USD/card-hour"),
    ]


def test_the_2026_react_table_takes_its_count_from_the_tab() -> None:
    assert page_rows("lambda_20260109103934.html") == [
        ("NVIDIA B200 SXM6", "b200-180g", 8, 180, "4.9900", "USD/card-hour"),
        ("NVIDIA H100 SXM", "h100-80g", 8, 80, "2.9900", "USD/card-hour"),
        ("NVIDIA A100 SXM", "a100-80g", 8, 80, "1.7900", "USD/card-hour"),
        ("NVIDIA A100 SXM", "a100-40g", 8, 40, "1.2900", "USD/card-hour"),
        ("NVIDIA Tesla V100", "v100-16g", 8, 16, "0.5500", "USD/card-hour"),
    ]


def test_a_page_without_a_price_table_is_an_error() -> None:
    body = b"<html><body><h1>Sign in to Lambda</h1><form><input type=password></form></body></html>"
    with pytest.raises(ParseError, match=r"no table with a GPU-model and a price column"):
        parse(body, PRICING_URL)
    with pytest.raises(ParseError, match="empty body"):
        parse(b"  ", PRICING_URL)


def test_a_reserved_row_with_a_price_is_not_an_instance_either() -> None:
    body = (
        (REAL / "lambda_20241103180910.html")
        .read_bytes()
        .replace(b"<strong><span>CONTACT SALES</span></strong>", b"$1.85 / GPU / hr")
    )
    rows = LambdaAdapter().parse(body, PRICING_URL, FETCHED)
    assert len(rows) == 17 and D("1.8500") not in {r.price for r in rows}


# -- the 2023 page's Reserved and Sprint clusters: prepaid terms ------------------------------

PAGE_2023 = REAL / "lambda_20230909194011.html"


def term_rows(body: bytes) -> dict[str, object]:
    rows = LambdaAdapter().parse(body, PRICING_URL, FETCHED)
    return {r.offer_id: r for r in rows if r.discount_label}


def test_the_2023_reserved_and_sprint_prices_are_prepaid_terms_per_gpu_hour() -> None:
    rows = term_rows(PAGE_2023.read_bytes())
    assert sorted(rows) == ["Reserved|8x NVIDIA H100|3-years", "Sprint|8x NVIDIA H100|3-months"]
    reserved, sprint = (
        rows["Reserved|8x NVIDIA H100|3-years"],
        rows["Sprint|8x NVIDIA H100|3-months"],
    )
    assert (reserved.billing, reserved.price, reserved.per_card_hour) == (
        "yearly",
        D("1.89"),
        D("1.89"),
    )
    assert (sprint.billing, sprint.price, sprint.per_card_hour) == ("monthly", D("4.85"), D("4.85"))
    for row, term, vcpus in ((reserved, "3-years", 200), (sprint, "3-months", 224)):
        assert (row.gpu, row.gpu_name_raw, row.gpu_count, row.vram_gb) == (
            "h100-80g",
            "H100 SXM",
            8,
            80,
        )
        assert (row.unit, row.currency, row.cpu_cores) == ("USD/card-hour", "USD", vcpus)
        assert row.discount_label.endswith(f"({term})") and term in row.unit_raw
        assert row.list_price is None  # the page states no on-demand price for a cluster


@pytest.mark.parametrize(
    ("old", "new", "where", "reason"),
    [
        (b">3-years<", b">for a while<", "table 2 row 1",
         "a term such as '3-years'; got 'Reserved', '8x NVIDIA H100', 'for a while'"),
        (b">$4.85/H100/hour<", b">$4.85 per cluster-hour<", "table 2 row 2",
         "'$4.85 per cluster-hour' is not USD per GPU-hour"),
        (b">$4.85/H100/hour<", b">$4.85/H100/month<", "table 2 row 2",
         "'$4.85/H100/month' is not USD per GPU-hour"),
        (b">$1.89/H100/hour<", b">Contact sales<", "table 2 row 1", "no price given"),
    ],
)  # fmt: skip
def test_a_term_row_that_does_not_read_is_rejected_and_the_others_kept(
    old: bytes, new: bytes, where: str, reason: str
) -> None:
    body = PAGE_2023.read_bytes()
    assert old in body
    rejected, rows = one_rejected(
        LambdaAdapter(), body.replace(old, new, 1), PRICING_URL, FETCHED, re.escape(reason)
    )
    assert rejected.where == where
    assert len(rows) == 14  # the 13 instances and the other cluster


def test_a_changed_term_table_header_is_an_error() -> None:
    body = PAGE_2023.read_bytes().replace(b"Per Hour Price</span>", b"Hourly rate</span>", 1)
    with pytest.raises(ParseError, match="table 2 has a Term column but no per hour price"):
        term_rows(body)


def test_a_term_in_weeks_is_weekly_and_the_simulated_marker_carries_over() -> None:
    body = PAGE_2023.read_bytes().replace(b">3-months<", b">2 weeks<", 1)
    body = b'<meta name="gpuprice-simulated" content="true">' + body
    sprint = term_rows(body)["Sprint|8x NVIDIA H100|2 weeks"]
    assert (sprint.billing, sprint.simulated) == ("weekly", True)


def test_the_generation_is_told_by_content() -> None:
    adapter = LambdaAdapter()
    generations = {
        name: adapter.generation((REAL / name).read_bytes(), "file:///saved.html")
        for name in sorted(p.name for p in REAL.glob("*.html"))
    }
    assert [g.split(" (")[0] for g in generations.values()] == [
        "lambdalabs.com gpu-cloud page",
        "lambdalabs.com gpu-cloud page",
        "lambda.ai pricing page",
    ]
    assert "2023" in generations["lambda_20230909194011.html"]
    assert "2024" in generations["lambda_20241103180910.html"]
    assert adapter.generation(API.read_bytes(), API_URL).startswith("instance-types API answer")
    assert adapter.generation(b"<table></table>", PRICING_URL).startswith("a pricing page of")
