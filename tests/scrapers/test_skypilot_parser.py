"""SkyPilot catalogs (vms.csv of any cloud): real captures from skypilot-org/skypilot-catalog,
and broken variants made by replacing text in them."""

from __future__ import annotations

import csv
import io
import re
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from scrapers.rows import OfferRow, ParseError
from scrapers.sources.skypilot import (
    DEFAULT_CATALOG_VERSION,
    DEFAULT_CLOUDS,
    LIVE_URL,
    SkypilotAdapter,
    SkypilotOptions,
    UnknownCloud,
    _card_mib,
    catalog_url,
)
from tests.support.listings import one_rejected

D = Decimal
REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "skypilot"
CATALOGS = f"{LIVE_URL}/catalogs"
FETCHED = datetime(2026, 1, 1)


def capture(folder: str) -> bytes:
    return (REAL / folder / "vms.csv").read_bytes()


def url(folder: str) -> str:
    return f"{CATALOGS}/{folder}/vms.csv"


def parse(folder: str, body: bytes | None = None, at: str | None = None) -> list[OfferRow]:
    rows = SkypilotAdapter().parse(
        capture(folder) if body is None else body, at or url(folder), FETCHED
    )
    assert all(isinstance(row, OfferRow) for row in rows)
    return rows  # type: ignore[return-value]


def offers(folder: str, body: bytes | None = None) -> dict[tuple[str, str], OfferRow]:
    rows = parse(folder, body)
    by_id = {(row.offer_id, row.billing): row for row in rows}
    assert len(by_id) == len(rows), "an offer id is listed twice for one billing"
    return by_id


def variant(folder: str, old: str, new: str, count: int = 1) -> bytes:
    """The capture with ``old`` replaced (it must occur at least ``count`` times)."""
    text = capture(folder).decode("utf-8")
    assert text.count(old) >= count, f"{old!r} is not in {folder}"
    return text.replace(old, new, count).encode("utf-8")


def rejected(folder: str, body: bytes, reason: str) -> tuple[str, int]:
    """Where the one listing ``body`` rejects is (its reason containing ``reason``), and how
    many rows fewer than the capture the page gives."""
    whole = parse(folder)
    gone, rows = one_rejected(SkypilotAdapter(), body, url(folder), FETCHED, re.escape(reason))
    return gone.where, len(whole) - len(rows)


def refused(folder: str, body: bytes, at: str | None = None) -> str:
    with pytest.raises(ParseError) as error:
        SkypilotAdapter().parse(body, at or url(folder), FETCHED)
    return str(error.value)


# -- fetch plan and options ------------------------------------------------------------------


def test_fetch_plan_is_one_get_per_cloud_of_the_catalog_skypilot_reads() -> None:
    assert DEFAULT_CATALOG_VERSION == "v8"
    assert DEFAULT_CLOUDS == ("aws", "gcp", "lambda", "runpod", "verda", "nebius")
    assert SkypilotAdapter().fetch_plan(LIVE_URL + "/") == [
        f"{LIVE_URL}/catalogs/v8/{cloud}/vms.csv" for cloud in DEFAULT_CLOUDS
    ]
    adapter = SkypilotAdapter(
        options=SkypilotOptions(clouds=["runpod", "verda"], catalog_version="v8")
    )  # type: ignore[arg-type]
    assert adapter.options.clouds == ("runpod", "verda")  # gpuprice.toml gives a list
    assert adapter.fetch_plan("http://127.0.0.1:8080") == [
        "http://127.0.0.1:8080/catalogs/v8/runpod/vms.csv",
        "http://127.0.0.1:8080/catalogs/v8/verda/vms.csv",
    ]
    assert (adapter.name, adapter.kind, adapter.currency, adapter.secret) == (
        "skypilot", "offers", "USD", None,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"clouds": "aws"}, "clouds must be a list of cloud names, got 'aws'"),
        ({"clouds": []}, "clouds is empty"),
        ({"clouds": ["AWS"]}, "not a SkyPilot cloud name: 'AWS'"),
        ({"clouds": ["aws/../gcp"]}, "not a SkyPilot cloud name: 'aws/../gcp'"),
        ({"clouds": ["aws", "aws"]}, "a cloud is listed twice in ['aws', 'aws']"),
        ({"catalog_version": "9"}, "catalog_version must look like 'v9', got '9'"),
    ],
)
def test_options_are_checked(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match="^" + message.replace("[", r"\[").replace("]", r"\]")):
        SkypilotOptions(**options)  # type: ignore[arg-type]


# -- real captures, exact values --------------------------------------------------------------


def test_verda_json_gpu_info_per_instance_prices_and_spot_only_sizes() -> None:
    got = offers("v8/verda")
    h100 = got[("verda/1H100.80S.32V/FIN-02", "hourly")]
    assert (h100.gpu, h100.gpu_name_raw, h100.gpu_count, h100.vram_gb) == (
        "h100-80g", "H100", 1, 80,
    )  # fmt: skip
    assert (h100.price, h100.currency, h100.unit) == (D("2.2900"), "USD", "USD/card-hour")
    assert h100.per_card_hour == D("2.29")  # USD, not converted
    assert h100.unit_raw == "verda: USD per instance-hour (SkyPilot catalog)"
    assert (h100.region, h100.cpu_cores, h100.ram_gb, h100.list_price) == (
        "verda/FIN-02", 32, 185, D("2.29"),
    )  # fmt: skip
    assert h100.source == "skypilot" and h100.observed_at == FETCHED
    spot = got[("verda/1H100.80S.32V/FIN-02", "spot")]
    assert (spot.price, spot.list_price) == (D("0.8015"), None)
    assert spot.unit_raw == "verda: USD per instance-hour (SkyPilot catalog), spot price"
    # the whole instance's price, divided by its cards for the per-card-hour figure
    four = got[("verda/4A100.88V/FIN-03", "hourly")]
    assert (four.gpu, four.gpu_count, four.unit, four.price) == (
        "a100-80g", 4, "USD/server-hour", D("5.1600"),
    )  # fmt: skip
    assert four.per_card_hour == D("1.29")  # 5.16 / 4
    assert ("verda/4A100.88V/FIN-03", "spot") not in got  # no SpotPrice
    # Price empty, SpotPrice given: a spot row only
    assert ("verda/2B300.60V/FIN-03", "hourly") not in got
    assert got[("verda/2B300.60V/FIN-03", "spot")].price == D("4.8930")
    assert got[("verda/1B300.30V/FIN-03", "hourly")].gpu == "b300-288g"  # 268288 MiB usable
    assert got[("verda/1H200.141S.44V/FIN-03", "hourly")].gpu == "h200-141g"  # 144384 MiB
    assert not [key for key in got if "CPU." in key[0]]  # CPU instances are not GPU prices
    assert len(got) == 33


def test_hyperstack_python_literal_with_json_null_and_one_type_in_two_regions() -> None:
    got = offers("v8/hyperstack")
    a100 = got[("hyperstack/n3-A100x1/CANADA-1", "hourly")]
    assert (a100.gpu, a100.vram_gb, a100.price, a100.cpu_cores, a100.ram_gb) == (
        "a100-80g", 80, D("1.3500"), 28, 120,
    )  # fmt: skip
    canada = got[("hyperstack/n3-H100-SXM5x8/CANADA-1", "hourly")]
    us = got[("hyperstack/n3-H100-SXM5x8/US-1", "hourly")]
    assert (canada.ram_gb, us.ram_gb, canada.price, us.price) == (1800, 960, D("19.2"), D("19.2"))
    assert got[("hyperstack/n3-H100x8-NVLink/CANADA-1", "hourly")].gpu == "h100-80g"
    assert got[("hyperstack/n3-RTX-A4000x10/NORWAY-1", "hourly")].gpu_count == 10
    assert not [key for key in got if key[1] == "spot"]
    assert len(got) == 25


def test_lambda_reads_the_per_card_size_not_its_total() -> None:
    got = offers("v9/lambda")
    # TotalGpuMemoryInMiB says 40960 for 8 cards: the per-card size, as MemoryInfo says too
    eight = got[("lambda/gpu_8x_a100/us-east-1", "hourly")]
    assert (eight.gpu, eight.vram_gb, eight.gpu_count, eight.price) == (
        "a100-40g", 40, 8, D("15.92"),
    )  # fmt: skip
    assert (eight.cpu_cores, eight.ram_gb, eight.region) == (124, 1800, "lambda/us-east-1")
    assert eight.per_card_hour == D("1.99")  # 15.92 / 8
    assert got[("lambda/gpu_1x_a100_sxm4/us-midwest-1", "hourly")].unit == "USD/card-hour"
    assert len({row.region for row in got.values()}) == 17
    assert len(got) == 68


def test_runpod_zone_rows_collapse_to_one_offer_per_region() -> None:
    rows = parse("v8/runpod")
    assert len(rows) == 16  # 25 zone lines, 8 regions, hourly + spot
    got = {(row.offer_id, row.billing): row for row in rows}
    ca = got[("runpod/1x_A100-80GB_SECURE/CA", "hourly")]
    assert (ca.price, ca.region, ca.gpu) == (D("1.64"), "runpod/CA", "a100-80g")
    assert ca.unit_raw == "runpod: USD per instance-hour (SkyPilot catalog)"  # same in each zone
    assert got[("runpod/1x_A100-80GB_SECURE/US", "spot")].price == D("0.82")
    # 'SizeInMiB': 80 is RunPod's size in GiB, not MiB: no memory is taken from it
    assert ca.vram_gb is None


def test_zones_of_one_region_with_different_prices_give_the_lowest() -> None:
    cheaper = variant(
        "v8/runpod",
        "CA,0.82,1.64,CA-MTL-2",
        "CA,0.82,1.60,CA-MTL-2",
    )
    ca = offers("v8/runpod", cheaper)[("runpod/1x_A100-80GB_SECURE/CA", "hourly")]
    assert ca.price == D("1.6000")
    assert ca.unit_raw == (
        "runpod: USD per instance-hour (SkyPilot catalog), the lowest of 3 zones' prices"
    )


def test_runpod_v7_gpu_info_that_is_just_the_name() -> None:
    got = offers("v7/runpod")
    two = got[("runpod/2x_A100-80GB_SECURE/IS", "hourly")]
    assert (two.gpu, two.vram_gb, two.gpu_count, two.price) == ("a100-80g", None, 2, D("3.24"))
    assert got[("runpod/2x_A100-80GB_SECURE/IS", "spot")].price == D("2.38")
    assert len(got) == 32


def test_aws_spot_prices_differ_by_zone_and_the_lowest_is_kept() -> None:
    got = offers("v9/aws")
    east = got[("aws/g6e.48xlarge/us-east-1", "spot")]
    assert (east.price, east.gpu_count, east.unit) == (D("4.5998"), 8, "USD/server-hour")
    assert east.unit_raw == (
        "aws: USD per instance-hour (SkyPilot catalog), spot price, the lowest of 4 zones' prices"
    )
    hourly = got[("aws/g6e.48xlarge/us-east-1", "hourly")]
    assert (hourly.price, hourly.gpu, hourly.vram_gb) == (D("30.1312"), "l40s-48g", 48)  # 30.13118
    assert (hourly.cpu_cores, hourly.ram_gb) == (192, 1536)
    # no on-demand price in ap-northeast-3: spot only
    assert ("aws/g6e.48xlarge/ap-northeast-3", "hourly") not in got
    assert got[("aws/g6e.48xlarge/ap-northeast-3", "spot")].price == D("20.7030")
    # the zones' GpuInfo differ in the order of 'Workloads' only: still one instance type
    assert got[("aws/g6e.2xlarge/us-east-1", "spot")].price == D("0.8924")
    assert len(got) == 38


def test_gcp_attached_gpus_are_priced_without_their_vm() -> None:
    got = offers("v9/gcp")
    h100 = got[("gcp/H100:8/us-central1", "hourly")]
    assert (h100.gpu, h100.gpu_name_raw, h100.gpu_count, h100.vram_gb) == (
        "h100-80g", "H100", 8, 80,
    )  # fmt: skip
    assert (h100.price, h100.unit, h100.cpu_cores, h100.ram_gb) == (
        D("33.6061"), "USD/server-hour", None, None,
    )  # fmt: skip
    assert h100.unit_raw == (
        "gcp: USD per hour for 8 attached H100 alone, the host VM billed separately "
        "(SkyPilot catalog)"
    )
    assert got[("gcp/H100:8/us-central1", "spot")].price == D("42.7096")  # above on demand
    assert got[("gcp/H200:8/us-east5", "hourly")].gpu == "h200-141g"
    assert ("gcp/H200:8/us-east5", "spot") not in got  # SpotPrice empty
    assert got[("gcp/L4:1/asia-east1", "hourly")].unit == "USD/card-hour"
    assert got[("gcp/H100-MEGA:8/us-west4", "hourly")].gpu == "h100-80g"
    assert len(got) == 172


def test_nebius_memory_zero_means_none_stated_and_count_zero_is_a_cpu() -> None:
    got = offers("v9/nebius")
    l40s = got[("nebius/gpu-l40s-a_1gpu-8vcpu-32gb/eu-north1", "hourly")]
    assert (l40s.gpu, l40s.vram_gb, l40s.price) == ("l40s-48g", None, D("1.5484"))
    h100 = got[("nebius/gpu-h100-sxm_8gpu-128vcpu-1600gb/eu-north1", "hourly")]
    assert (h100.gpu, h100.price, h100.cpu_cores, h100.ram_gb) == ("h100-80g", D("23.6"), 128, 1600)
    assert got[("nebius/gpu-h100-sxm_8gpu-128vcpu-1600gb/eu-north1", "spot")].price == D("10")
    assert not [key for key in got if key[0].startswith("nebius/cpu-")]
    assert len(got) == 32


def test_vast_writes_the_offers_total_memory() -> None:
    got = offers("v9/vast")
    # 2 × RTX 5090: 'SizeInMiB': 65214 is both cards
    assert got[("vast/2x-RTX_5090-32-65536/Taiwan, TW, AS", "hourly")].vram_gb == 32
    assert got[("vast/2x-A100_SXM4-32-65536/Germany, DE, EU", "hourly")].gpu == "a100-40g"
    assert got[("vast/2x-A100_SXM4-32-65536/Montana, US, NA", "hourly")].gpu == "a100-80g"
    assert got[("vast/1x-H100_NVL-32-65536/Bulgaria, BG, EU", "hourly")].gpu == "h100nvl-94g"
    assert got[("vast/1x-RTX_3060_Ti-32-65536/Ontario, CA, NA", "hourly")].gpu == "unknown"  # 8 GB
    assert not [key for key in got if key[1] == "spot"]  # SpotPrice 0.00: none
    assert len(got) == 64


def test_the_same_file_read_as_another_cloud_keeps_the_per_card_convention() -> None:
    # vast's rule (total memory) applies to vast only: under its folder name, Fluidstack's
    # per-card 81920 MiB for 2 H100 would read as 40 GB each
    body = capture("v6/fluidstack")
    as_vast = SkypilotAdapter().parse(body, "/tmp/saved/vast/vms.csv", FETCHED)
    two = next(row for row in as_vast if row.offer_id == "vast/H100_PCIE_80GB::2/CANADA")
    assert (two.vram_gb, two.gpu) == (40, "unknown")
    local = SkypilotAdapter().parse(body, r"C:\saved\Fluidstack\vms.csv", FETCHED)
    assert {row.region for row in local} >= {"fluidstack/CANADA", "fluidstack/FINLAND"}


def test_fractional_gpus_and_tpus_are_not_cards() -> None:
    half = variant(
        "v8/verda",
        "1B300.30V,1B300.30V,30.0,275.0,B300,1.0,",
        "1B300.30V,1B300.30V,30.0,275.0,B300,0.5,",
    )
    got = offers("v8/verda", half)
    assert ("verda/1B300.30V/FIN-03", "hourly") not in got and len(got) == 31
    tpu = variant("v9/gcp", ",,,H200,8,", ",,,tpu-v6e-8,8,", 9)
    assert not [key for key in offers("v9/gcp", tpu) if "H200" in key[0] or "tpu" in key[0]]


# -- broken variants: an error, no rows ------------------------------------------------------


def test_a_renamed_required_column_is_an_error() -> None:
    body = variant("v8/verda", "AcceleratorCount", "AcceleratorCnt")
    assert "not a SkyPilot vms.csv: no column AcceleratorCount (header: InstanceType," in refused(
        "v8/verda", body
    )


def test_an_optional_column_left_out_leaves_its_field_empty() -> None:
    """GpuInfo renamed (the v5 Scaleway catalog's GPUInfo typo): the cards' memory is not
    stated, every price still is; no SpotPrice column (a cloud without spot): no spot rows."""
    whole = offers("v9/lambda")
    without_info = offers("v9/lambda", variant("v9/lambda", ",GpuInfo,", ",GPUInfo,"))
    assert without_info.keys() == whole.keys()
    assert all(row.vram_gb is None for row in without_info.values())
    table = list(csv.reader(io.StringIO(capture("v8/runpod").decode())))
    spot = table[0].index("SpotPrice")
    out = io.StringIO()
    csv.writer(out).writerows([f for i, f in enumerate(line) if i != spot] for line in table)
    no_spot = out.getvalue().encode()
    hourly = offers("v8/runpod", no_spot)
    assert {billing for _, billing in hourly} == {"hourly"}
    with_spot = offers("v8/runpod")
    assert hourly.keys() == {key for key in with_spot if key[1] == "hourly"}
    assert len(with_spot) > len(hourly)


def test_a_line_without_a_region_is_an_offer_with_none() -> None:
    got = offers("v8/verda", variant("v8/verda", ",FIN-03,6.99,2.447", ",,6.99,2.447"))
    (row,) = [r for (key, billing), r in got.items() if billing == "hourly" and r.region is None]
    assert row.offer_id == "verda/1B300.30V" and row.price == D("6.99")


@pytest.mark.parametrize(
    ("old", "new", "message", "lost"),
    [
        (",FIN-03,6.99,2.447", ",FIN-03,$6.99,2.447", "line 2: Price '$6.99' is not a number", 2),
        (",FIN-03,6.99,2.447", ",FIN-03,-6.99,2.447",
         "line 2: Price '-6.99' is not a non-negative number", 2),
        (",FIN-03,6.99,2.447", ",FIN-03,NaN,2.447",
         "line 2: Price 'NaN' is not a non-negative number", 2),
        (",FIN-03,6.99,2.447", ",FIN-03,0,2.447", "line 2: Price 0 is not a price", 2),
        (",FIN-03,6.99,2.447", ",FIN-03,6.99,n/a", "line 2: SpotPrice 'n/a' is not a number", 2),
        (",FIN-03,,4.893", ",FIN-03,,", "line 3: B300 with neither a Price nor a SpotPrice", 1),
        ("B300,1.0,", "B300,one,", "line 2: AcceleratorCount 'one' is not a number", 2),
        ("B300,1.0,", "B300,,", "line 2: B300 without an AcceleratorCount", 2),
        ("CPU.4V.16G,4.0,16.0,,,", "CPU.4V.16G,4.0,16.0,,1,",
         "AcceleratorCount 1 without AcceleratorName", 0),
        ("4.0,16.0,,,,FIN-01", "4.0,16.0,,,,FIN-01,extra",
         "line 24: 11 fields where the header has 10", 0),
    ],
)  # fmt: skip
def test_a_line_that_does_not_read_is_rejected_and_the_others_kept(
    old: str, new: str, message: str, lost: int
) -> None:
    where, fewer = rejected("v8/verda", variant("v8/verda", old, new), message)
    assert where == message.split(":")[0] if message.startswith("line") else where
    assert fewer == lost


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "'Manufacturer': null",
            "'Manufacturer': nul",
            "GpuInfo \"{'Gpus': [{'Name': 'A100-80G-PCIe', 'Manufacturer': nul",
        ),
        (
            "\"{'Gpus': [{'Name': 'A100-80G-PCIe'",
            "\"{'Cards': [{'Name': 'A100-80G-PCIe'",
            "GpuInfo has no 'Gpus' list",
        ),
        (
            "\"{'Gpus': [{'Name': 'A100-80G-PCIe'",
            "\"{'gpus': [], 'Gpus': [{'Name': 'A100-80G-PCIe'",
            "GpuInfo gives 'Gpus' twice, in two cases",
        ),
        (
            "'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 81920}\",1.35",
            "'SizeInMiB': '80 GB'}}], 'TotalGpuMemoryInMiB': 81920}\",1.35",
            "MemoryInfo.SizeInMiB '80 GB' is not a size",
        ),
        (
            "'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 81920}\",1.35",
            "'MemoryInfo': 81920}], 'TotalGpuMemoryInMiB': 81920}\",1.35",
            "GpuInfo MemoryInfo is not a dict",
        ),
    ],
)
def test_unreadable_gpu_info_rejects_its_line(old: str, new: str, message: str) -> None:
    where, fewer = rejected("v8/hyperstack", variant("v8/hyperstack", old, new), message)
    assert where == "line 2" and fewer == 1


def test_gpu_info_that_is_neither_a_dict_nor_the_name_rejects_its_line() -> None:
    body = variant("v7/runpod", ",A100-80GB,CA,1.19", ",H100 80GB,CA,1.19")
    where, _ = rejected("v7/runpod", body, "line 2: GpuInfo 'H100 80GB' is neither a dict nor")
    assert where.startswith("lines 2, ")  # its zones' lines are one listing


@pytest.mark.parametrize(
    ("name", "info"),
    [("A100-80GB", "A100 80GB"), ("RTXA6000", "RTX_A6000"), ("H100-80GB-HBM3", "H100_80GB_SXM5")],
)
def test_a_bare_gpu_info_in_another_spelling_of_the_card_states_no_memory(
    name: str, info: str
) -> None:
    """An older fetch_runpod.py wrote its own spelling of the card as GpuInfo (a fork's 2023
    RunPod catalog, tests/fixtures/real/skypilot): the same card, no memory stated."""
    assert _card_mib(info, name, 1, "runpod", "line 2") is None
    with pytest.raises(ParseError, match="is neither a dict nor"):
        _card_mib("L40S", name, 1, "runpod", "line 2")


def test_one_type_listed_again_in_a_region_with_other_hardware_is_rejected() -> None:
    body = variant("v8/runpod", "117.0,CA,0.82,1.64,CA-MTL-3", "234.0,CA,0.82,1.64,CA-MTL-3")
    where, _ = rejected(
        "v8/runpod",
        body,
        "line 4: listed again with different hardware "
        "(1× A100-80GB ? GB, 8.0 vCPUs, 234.0 GiB after 1× A100-80GB ? GB, 8.0 vCPUs, 117.0 GiB)",
    )
    assert where.startswith("lines ") and "4" in where


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "empty body"),
        (b"  \r\n", "empty body"),
        (
            b"<!DOCTYPE html><html><body>429 Too Many Requests</body></html>",
            "body is HTML, not a CSV catalog",
        ),
        (b'{"message": "Not Found"}', "body is JSON, not a CSV catalog"),
        (b"404: Not Found", "not a SkyPilot vms.csv: no column InstanceType"),
        (b"\xff\xfeI\x00n\x00", "body is not UTF-8"),
    ],
)
def test_not_a_catalog_is_an_error(body: bytes, message: str) -> None:
    assert message in refused("v8/verda", body)


def test_a_header_only_or_cpu_only_catalog_is_an_error() -> None:
    text = capture("v8/verda").decode("utf-8")
    header = text.split("\r\n")[0] + "\r\n"
    cpu_only = header + "".join(
        line + "\r\n" for line in text.split("\r\n") if line.startswith("CPU.")
    )
    for body in (header, cpu_only):
        assert (
            "no GPU instance rows (only a header, or CPU-only / TPU / fractional-GPU rows)"
            in refused("v8/verda", body.encode("utf-8"))
        )


@pytest.mark.parametrize(
    "at",
    [
        "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v9/vms.csv",
        "https://example.com/prices.csv",
        "vms.csv",
        "/tmp/aws/catalog.csv",
    ],
)
def test_a_url_that_names_no_cloud_is_an_error(at: str) -> None:
    assert "cannot tell which cloud this catalog is for: name the file <cloud>/vms.csv" in refused(
        "v8/verda", capture("v8/verda"), at
    )


def test_a_path_without_a_cloud_raises_unknown_cloud_and_catalog_url_names_one() -> None:
    with pytest.raises(UnknownCloud):
        SkypilotAdapter().parse(capture("v6/do"), "/tmp/do_catalog.csv", FETCHED)
    at = catalog_url(f"{LIVE_URL}/", "v6", "do")
    assert at == url("v6/do")
    assert {row.region for row in SkypilotAdapter().parse(capture("v6/do"), at, FETCHED)} == {
        "do/tor1"
    }


def test_lower_case_gpu_info_keys_give_the_card_memory() -> None:
    rows = offers("v6/do")
    assert sorted(rows) == [
        ("do/gpu-h100x1-80gb/tor1", "hourly"),
        ("do/gpu-h100x8-640gb/tor1", "hourly"),
    ]
    eight = rows[("do/gpu-h100x8-640gb/tor1", "hourly")]
    assert (eight.vram_gb, eight.gpu, eight.gpu_count, eight.price) == (
        80,
        "h100-80g",
        8,
        D("47.60"),
    )
    # the same catalog with the keys' usual case reads the same
    usual = variant("v6/do", "'gpus'", "'Gpus'", 2).replace(b"'memoryinfo'", b"'MemoryInfo'")
    assert {k: r.vram_gb for k, r in offers("v6/do", usual).items()} == {
        k: r.vram_gb for k, r in rows.items()
    }


@pytest.mark.parametrize(
    ("folder", "generation"),
    [
        ("v6/do", "catalog v6 (do), GpuInfo as a Python literal, lower-case keys"),
        ("v6/fluidstack", "catalog v6 (fluidstack), GpuInfo as a Python literal"),
        ("v7/runpod", "catalog v7 (runpod), GpuInfo as the card's name only"),
        ("v8/verda", "catalog v8 (verda), GpuInfo as JSON"),
        ("v9/nebius", "catalog v9 (nebius), GpuInfo as a Python literal"),
    ],
)
def test_the_generation_names_the_version_and_the_gpu_info_notation(
    folder: str, generation: str
) -> None:
    assert SkypilotAdapter().generation(capture(folder), url(folder)) == (
        f"SkyPilot vms.csv, {generation}"
    )


def test_the_generation_of_what_is_no_catalog_says_so_and_never_raises() -> None:
    adapter = SkypilotAdapter()
    assert adapter.generation(b"<html></html>", url("v8/aws")).endswith(
        "not one this adapter reads (catalog v8)"
    )
    assert "unknown version" in adapter.generation(capture("v8/verda"), "vms.csv")
