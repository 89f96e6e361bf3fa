"""优云智算 Compshare: UCloud's request signature, the fetch plan, and GetCompShareInstancePrice
answers (one real, saved by compshare-agent; one modelled with every ChargeType)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from scrapers.gpu_names import canonical_gpu
from scrapers.http import Request
from scrapers.rows import OfferRow, ParseError
from scrapers.sources.base import KeyPairSpec
from scrapers.sources.compshare import (
    DEFAULT_MACHINES,
    CompshareAdapter,
    Machine,
    sign,
)
from tests.support.listings import one_rejected

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REAL = FIXTURES / "real" / "compshare" / "compshare-agent_real_cli_golden_report.md"
MODELLED = FIXTURES / "live" / "compshare_price.json"
FETCHED = datetime(2026, 11, 30, 8, 0, 0)
ASKED_5090 = (
    "https://api.compshare.cn/?Action=GetCompShareInstancePrice"
    "#Region=cn-wlcb&Zone=cn-wlcb-01&GpuType=5090&Gpu=1&Cpu=16&Memory=65536"
)


def _parse(body: bytes | str, url: str = ASKED_5090) -> list[OfferRow]:
    raw = body.encode() if isinstance(body, str) else body
    return CompshareAdapter().parse(raw, url, FETCHED)


def _modelled() -> str:
    return MODELLED.read_text(encoding="utf-8")


def _variant(old: str, new: str) -> str:
    """The base fixture with every occurrence of ``old`` replaced."""
    text = _modelled()
    assert old in text, f"{old!r} not in the base fixture"
    return text.replace(old, new)


# -- the signature ------------------------------------------------------------------------

# ucloud/ucloud-sdk-go ucloud/auth/credential_test.go (TestCredential_CreateSign "noPublicKey",
# commit ff76b12bf9c780a6464a337bb0f51a2a6b2a5ca4) and ucloud/ucloud-sdk-python3
# tests/test_unit/test_core/test_auth.py (commit 32d3c696f2245007b5cb8bc191e5907fb1da9c10).
SDK_PUBLIC = "ucloudsomeone@example.com1296235120854146120"
SDK_PRIVATE = "46f09bb9fab4f12dfc160dae12273d5332b5debe"
SDK_PARAMS = {
    "Action": "CreateUHostInstance",
    "CPU": "2",
    "ChargeType": "Month",
    "DiskSpace": "10",
    "ImageId": "f43736e1-65a5-4bea-ad2e-8a46e18883c2",
    "LoginMode": "Password",
    "Memory": "2048",
    "Name": "Host01",
    "Password": "VUNsb3VkLmNu",
    "Quantity": "1",
    "Region": "cn-bj2",
    "Zone": "cn-bj2-04",
}


def test_signature_matches_the_sdk_test_vector() -> None:
    signed = sign(SDK_PARAMS, SDK_PUBLIC, SDK_PRIVATE)
    assert signed["Signature"] == "4f9ef5df2abab2c6fccd1e9515cb7e2df8c6bb65"
    assert signed["PublicKey"] == SDK_PUBLIC
    assert {k: v for k, v in signed.items() if k not in ("Signature", "PublicKey")} == SDK_PARAMS
    assert "Signature" not in SDK_PARAMS  # the caller's dict is not touched


def test_signature_does_not_depend_on_parameter_order() -> None:
    shuffled = dict(reversed(list(SDK_PARAMS.items())))
    assert sign(shuffled, SDK_PUBLIC, SDK_PRIVATE)["Signature"] == (
        "4f9ef5df2abab2c6fccd1e9515cb7e2df8c6bb65"
    )


def test_signature_matches_the_python_sdk_doctest() -> None:
    # ucloud-sdk-python3 ucloud/core/auth/_cfg.py, Credential's doctest.
    signed = sign({"foo": "bar"}, "my_public_key", "my_private_key")
    assert signed["Signature"] == "d4411ab30953fb0bbcb1e7313081f05e4e91a394"


def test_signature_changes_with_any_value_and_refuses_signed_params() -> None:
    other = dict(SDK_PARAMS, CPU="4")
    assert sign(other, SDK_PUBLIC, SDK_PRIVATE)["Signature"] != (
        "4f9ef5df2abab2c6fccd1e9515cb7e2df8c6bb65"
    )
    with pytest.raises(ValueError, match="already signed"):
        sign(sign(SDK_PARAMS, SDK_PUBLIC, SDK_PRIVATE), SDK_PUBLIC, SDK_PRIVATE)


# -- the fetch plan and the key pair ------------------------------------------------------


def test_fetch_plan_is_one_unsigned_request_per_machine() -> None:
    plan = CompshareAdapter().fetch_plan("https://api.compshare.cn/")
    assert len(plan) == len(DEFAULT_MACHINES) == 4
    first = plan[0]
    assert isinstance(first, Request)
    assert first.method == "POST"
    assert first.url == (
        "https://api.compshare.cn/?Action=GetCompShareInstancePrice"
        "#Region=cn-wlcb&Zone=cn-wlcb-01&GpuType=4090&Gpu=1&Cpu=16&Memory=65536"
    )
    assert first.json_body == {
        "Action": "GetCompShareInstancePrice",
        "Region": "cn-wlcb",
        "Zone": "cn-wlcb-01",
        "GpuType": "4090",
        "Gpu": "1",
        "Cpu": "16",
        "Memory": "65536",
    }
    assert first.headers == ()
    gpu_types = [r.json_body["GpuType"] for r in plan if isinstance(r, Request)]
    assert gpu_types == ["4090", "3090", "3080Ti", "5090"]
    for request in plan:
        assert isinstance(request, Request)
        body = request.json_body
        assert "Signature" not in body and "PublicKey" not in body and "ChargeType" not in body
        # what the parser reads from the fragment is what was sent
        asked = dict(parse_qsl(urlsplit(request.url).fragment))
        assert asked == {k: v for k, v in body.items() if k != "Action"}


def test_key_pair_signs_the_body_and_keeps_the_url() -> None:
    adapter = CompshareAdapter((Machine("3080Ti", 2, 24, 64, "cn-sh2", "cn-sh2-02"),))
    assert adapter.name == "compshare" and adapter.kind == "offers" and adapter.currency == "CNY"
    assert adapter.secret is None  # nothing goes into a header
    spec = adapter.key_pair
    assert isinstance(spec, KeyPairSpec)
    assert spec.envs == ("GPUPRICE_UCLOUD_PUBLIC_KEY", "GPUPRICE_UCLOUD_PRIVATE_KEY")
    (request,) = adapter.fetch_plan("https://api.compshare.cn")
    assert isinstance(request, Request)
    signed = spec.sign(request, "pub", "priv")
    assert signed.url == request.url and signed.method == "POST"
    assert signed.json_body == sign(request.json_body, "pub", "priv")
    assert "priv" not in signed.url and "pub" not in signed.url
    assert signed.json_body["Memory"] == "65536" and signed.json_body["Gpu"] == "2"
    with pytest.raises(ValueError, match="no JSON parameters"):
        spec.sign(Request("https://api.compshare.cn/"), "pub", "priv")


# -- the real answer ----------------------------------------------------------------------


def _real_answer() -> bytes:
    """The `"price"` object of case golden_01_create, decoded where it stands in the report."""
    report = REAL.read_text(encoding="utf-8")
    case = report.index("## golden_01_create")
    start = report.index("{", report.index('"price": {', case))
    answer, _ = json.JSONDecoder().raw_decode(report, start)
    assert answer["Action"] == "GetCompShareInstancePriceResponse"
    return json.dumps(answer).encode()


def test_real_answer_gives_one_row_per_charge_type() -> None:
    url = (
        "https://api.compshare.cn/?Action=GetCompShareInstancePrice"
        "#GpuType=4090&Gpu=1&Zone=cn-wlcb-01"
    )
    rows = _parse(_real_answer(), url)
    got = [(r.offer_id, r.billing, r.price, r.list_price, r.unit) for r in rows]
    assert got == [
        ("4090x1/cn-wlcb-01/Postpay", "hourly", Decimal("1.58"), Decimal("1.66"), "CNY/card-hour"),
        ("4090x1/cn-wlcb-01/Dynamic", "hourly", Decimal("1.58"), Decimal("1.66"), "CNY/card-hour"),
        ("4090x1/cn-wlcb-01/Day", "daily", Decimal("34.9"), Decimal("36.73"), "CNY/card-day"),
        (
            "4090x1/cn-wlcb-01/Month",
            "monthly",
            Decimal("951.85"),
            Decimal("1001.95"),
            "CNY/card-month",
        ),
        ("4090x1/cn-wlcb-01/Spot", "spot", Decimal("1.1"), Decimal("1.16"), "CNY/card-hour"),
    ]
    for row in rows:
        assert row.gpu == "rtx4090-24g" and row.gpu_name_raw == "4090"
        assert row.gpu_count == 1 and row.vram_gb == 24 and row.currency == "CNY"
        assert row.region == "cn-wlcb-01" and row.source == "compshare"
        assert row.cpu_cores is None and row.ram_gb is None  # the report does not print them
        assert row.discount_label is None and row.stated_discount is None
        assert row.observed_at == FETCHED and not row.simulated
    assert [r.per_card_hour for r in rows] == [
        Decimal("1.5800"),
        Decimal("1.5800"),
        Decimal("1.454167"),  # 34.9 / 24
        Decimal("1.322014"),  # 951.85 / 720
        Decimal("1.1000"),
    ]


# -- the modelled answer: every ChargeType, list price, discount type ---------------------


def test_modelled_answer_exact_rows() -> None:
    rows = _parse(_modelled())
    got = [(r.offer_id, r.billing, r.price, r.list_price, r.per_card_hour) for r in rows]
    assert got == [
        ("5090x1/16C64G/cn-wlcb-01/Postpay", "hourly", Decimal("2.77"), Decimal("2.92"),
         Decimal("2.7700")),
        ("5090x1/16C64G/cn-wlcb-01/Dynamic", "hourly", Decimal("2.77"), Decimal("2.92"),
         Decimal("2.7700")),
        ("5090x1/16C64G/cn-wlcb-01/Day", "daily", Decimal("61.2"), Decimal("64.4"),
         Decimal("2.5500")),
        ("5090x1/16C64G/cn-wlcb-01/Month", "monthly", Decimal("1680.5"), Decimal("1769"),
         Decimal("2.334028")),
        ("5090x1/16C64G/cn-wlcb-01/Year", "yearly", Decimal("17640"), Decimal("18570"),
         Decimal("2.013699")),
        ("5090x1/16C64G/cn-wlcb-01/Spot", "spot", Decimal("1.94"), Decimal("2.04"),
         Decimal("1.9400")),
    ]  # fmt: skip
    assert [r.unit for r in rows] == [
        "CNY/card-hour", "CNY/card-hour", "CNY/card-day", "CNY/card-month", "CNY/card-year",
        "CNY/card-hour",
    ]  # fmt: skip
    assert [r.discount_label for r in rows] == [None] * 5 + ["夜间折扣"]
    assert {r.unit_raw for r in rows[:2]} == {
        "元/实例 per hour, postpaid (Instance, Postpay; disks not included)",
        "元/实例 per hour, prepaid (Instance, Dynamic; disks not included)",
    }
    for row in rows:
        assert row.gpu == "rtx5090-32g" and row.vram_gb == 32
        assert row.cpu_cores == 16 and row.ram_gb == 64


def test_multi_card_machine_is_priced_per_server() -> None:
    url = ASKED_5090.replace("GpuType=5090&Gpu=1", "GpuType=3090&Gpu=4")
    (row, *_) = _parse(_modelled(), url)
    assert row.offer_id == "3090x4/16C64G/cn-wlcb-01/Postpay"
    assert row.gpu == canonical_gpu("RTX 3090", 24) and row.gpu_count == 4
    assert row.unit == "CNY/server-hour" and row.price == Decimal("2.77")
    assert row.per_card_hour == Decimal("0.6925")


def test_original_price_is_the_list_price_without_list_price_details() -> None:
    doc = json.loads(_modelled())
    del doc["ListPriceDetails"]
    doc["OriginalPriceDetails"][0]["Instance"] = 3.01
    rows = _parse(json.dumps(doc))
    assert rows[0].list_price == Decimal("3.01")
    del doc["OriginalPriceDetails"]
    assert [r.list_price for r in _parse(json.dumps(doc))] == [None] * 6


def test_singular_field_names_of_the_generated_docs_are_read() -> None:
    # UCloudDoc-Team/api ucompshare-api/get_comp_share_instance_price.md and both SDKs spell
    # the arrays PriceDetail / OriginalPriceDetail / ListPriceDetail.
    singular = (
        _modelled()
        .replace('"PriceDetails"', '"PriceDetail"')
        .replace('"ListPriceDetails"', '"ListPriceDetail"')
        .replace('"OriginalPriceDetails"', '"OriginalPriceDetail"')
    )
    assert [(r.price, r.list_price) for r in _parse(singular)] == [
        (r.price, r.list_price) for r in _parse(_modelled())
    ]


# -- refused answers ----------------------------------------------------------------------


def test_error_answer_carries_ucloud_message() -> None:
    body = '{"Action": "GetCompShareInstancePriceResponse", "RetCode": 171, "Message": "Signature VerifyAC Error"}'
    with pytest.raises(ParseError, match=r"RetCode 171\): Signature VerifyAC Error"):
        _parse(body)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('"PriceDetails"', '"Prices"', "no PriceDetails in the answer"),
        ('"RetCode": 0', '"Code": 0', "RetCode: Field required"),
        ('"GetCompShareInstancePriceResponse"', '"DescribeCompShareInstanceResponse"',
         "not a price answer"),
    ],
)  # fmt: skip
def test_broken_answer_is_refused(old: str, new: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        _parse(_variant(old, new))


@pytest.mark.parametrize(
    ("old", "new", "where", "reason"),
    [
        ('{"ChargeType": "Month", "Instance": 1680.5', '{"ChargeType": "Month", "Price": 1680.5',
         "PriceDetails[3]", "Instance: Field required"),
        ('"ChargeType": "Day", "Instance": 61.2', '"ChargeType": "Day", "Instance": 0',
         "PriceDetails[2]", "Instance: Input should be greater than 0"),
        ('"ChargeType": "Day", "Instance": 61.2', '"ChargeType": "Day", "Instance": "61,2"',
         "PriceDetails[2]", "Instance: Input should be a valid decimal"),
        ('"ChargeType": "Spot", "Instance": 1.94', '"ChargeType": "Weekly", "Instance": 1.94',
         "PriceDetails[5]", "unknown ChargeType 'Weekly'"),
        ('"ChargeType": "Dynamic"', '"ChargeType": "Postpay"', "PriceDetails[1]", "listed twice"),
        ('"ChargeType": "Postpay", "Instance": 2.92', '"ChargeType": "Postpay", "Instance": 2.5',
         "PriceDetails[0]", "list price 2.5000 is below the price paid 2.7700"),
        ('"InstanceDiscountType": 1', '"InstanceDiscountType": 7', "PriceDetails[5]",
         "unknown InstanceDiscountType 7"),
        # A price paid a hundred times its list price (fen read as yuan) cannot pass.
        ('"ChargeType": "Postpay", "Instance": 2.77', '"ChargeType": "Postpay", "Instance": 277',
         "PriceDetails[0]", "below the price paid 277"),
    ],
)  # fmt: skip
def test_an_entry_that_does_not_read_is_rejected_and_the_others_kept(
    old: str, new: str, where: str, reason: str
) -> None:
    whole = _parse(_modelled())
    rejected, rows = one_rejected(
        CompshareAdapter(), _variant(old, new).encode(), ASKED_5090, FETCHED, reason
    )
    assert rejected.where == where and rejected.excerpt.startswith("{")
    assert len(rows) == len(whole) - 1


def test_empty_price_list_is_refused() -> None:
    doc = json.loads(_modelled())
    doc["PriceDetails"] = []
    with pytest.raises(ParseError, match="PriceDetails is empty"):
        _parse(json.dumps(doc))


def test_both_spellings_at_once_are_refused() -> None:
    doc = json.loads(_modelled())
    doc["PriceDetail"] = doc["PriceDetails"]
    with pytest.raises(ParseError, match="both PriceDetails and PriceDetail"):
        _parse(json.dumps(doc))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "empty body"),
        (b"<html><title>502 Bad Gateway</title></html>", "body is not JSON"),
        (b"[]", "Input should be a valid dictionary"),
    ],
)
def test_empty_or_non_json_body(body: bytes, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        _parse(body)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("https://api.compshare.cn/?Action=GetCompShareInstancePrice", "no GpuType"),
        (ASKED_5090.replace("GpuType=5090", "GpuType=9090"), "unknown GpuType '9090'"),
        (ASKED_5090.replace("Gpu=1", "Gpu=0"), "Gpu: not a whole number of at least 1"),
        (ASKED_5090.replace("Memory=65536", "Memory=1500"), "not whole GB"),
        (ASKED_5090.replace("&Zone=cn-wlcb-01", ""), "no Zone"),
    ],
)
def test_the_machine_must_be_stated_in_the_url(url: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        _parse(_modelled(), url)


def test_fetched_at_with_a_timezone_is_stored_naive_utc() -> None:
    aware = datetime(2026, 11, 30, 16, 0, tzinfo=UTC)
    rows = CompshareAdapter().parse(_modelled().encode(), ASKED_5090, aware)
    assert rows[0].observed_at == datetime(2026, 11, 30, 16, 0)
