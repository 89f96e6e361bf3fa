"""SkyPilot's price catalogs, SIMULATED: ``/catalogs/<v8|v9>/<cloud>/vms.csv`` for the clouds
the skypilot source reads by default (aws, gcp, lambda, runpod, verda, nebius).

Each cloud's file has the header of its real capture in ``tests/fixtures/real/skypilot/``
(column order differs per cloud, as there) and a few of that capture's lines, word for word
but for the prices, which move from the captured ones by the platform's walk: aws
``v9/aws`` (g6e L40S, zone by zone spot prices), gcp ``v9/gcp`` (H100 attached to a VM, no
InstanceType), lambda ``v9/lambda``, runpod ``v8/runpod`` (its A100 with ``SizeInMiB`` 80),
verda ``v8/verda`` (H200), nebius ``v9/nebius`` (H100, L40S and a CPU-only line).
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal

from demo.market.platforms.base import Answer, Platform, PlatformRequest, route
from demo.market.platforms.model import Ctx

__all__ = ["SKYPILOT"]

CSV = "text/csv; charset=utf-8"
VERSIONS = ("v8", "v9")

HEADERS = {
    "aws": "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,"
    "SpotPrice,Region,AvailabilityZone,Arch,LocalDiskType,NVMeSupported,LocalDiskSize,"
    "LocalDiskCount",
    "gcp": "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
    "AvailabilityZone,Price,SpotPrice",
    "lambda": "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
    "GpuInfo,SpotPrice",
    "runpod": "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Region,SpotPrice,"
    "Price,AvailabilityZone,GpuInfo",
    "verda": "InstanceType,UpstreamCloudId,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,"
    "GpuInfo,Region,Price,SpotPrice",
    "nebius": "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
    "GpuInfo,SpotPrice",
}


def _aws_l40s(count: int, total: int) -> str:
    return (
        f"{{'Gpus': [{{'Name': 'L40S', 'Manufacturer': 'NVIDIA', 'Count': {count}, "
        f"'LogicalGpuCount': {count}, 'GpuPartitionSize': 1.0, 'Workloads': ['ml-ai', "
        f"'graphics'], 'MemoryInfo': {{'SizeInMiB': 45776}}}}], 'TotalGpuMemoryInMiB': {total}}}"
    )


def _info(name: str, count: object, mib: int, total: int, maker: str = "'NVIDIA'") -> str:
    return (
        f"{{'Gpus': [{{'Name': '{name}', 'Manufacturer': {maker}, 'Count': {count}, "
        f"'MemoryInfo': {{'SizeInMiB': {mib}}}}}], 'TotalGpuMemoryInMiB': {total}}}"
    )


GCP_H100 = "{'Gpus': [{'MemoryInfo': {'SizeInMiB': 81920}}]}"
VERDA_H200_1 = (
    '{"Gpus": [{"Name": "H200", "Count": 1, "MemoryInfo": {"SizeInMiB": 144384}}], '
    '"TotalGpuMemoryInMiB": 144384}'
)
VERDA_H200_2 = (
    '{"Gpus": [{"Name": "H200", "Count": 2, "MemoryInfo": {"SizeInMiB": 144384}}], '
    '"TotalGpuMemoryInMiB": 288768}'
)
RUNPOD_A100 = (
    "{'Gpus': [{'Name': 'A100 PCIe', 'Manufacturer': 'Nvidia', 'Count': 1, "
    "'MemoryInfo': {'SizeInMiB': 80}}], 'TotalGpuMemoryInMiB': 80}"
)

# Lines per cloud: the columns they fill ("Price" and "SpotPrice" as captured; "" = none).
LINES: dict[str, tuple[dict[str, str], ...]] = {
    "aws": tuple(
        {"InstanceType": itype, "AcceleratorName": "L40S", "AcceleratorCount": f"{n}.0",
         "vCPUs": cpus, "MemoryGiB": mem, "GpuInfo": _aws_l40s(n, 45776 * n), "Price": price,
         "SpotPrice": spot, "Region": region, "AvailabilityZone": zone, "Arch": "x86_64",
         "LocalDiskType": "ssd", "NVMeSupported": "True", "LocalDiskSize": disk,
         "LocalDiskCount": disks}
        for itype, n, cpus, mem, price, spot, region, zone, disk, disks in (
            ("g6e.2xlarge", 1, "8.0", "64.0", "2.24208", "1.099200", "us-east-1", "use1-az4",
             "450.0", "1.0"),
            ("g6e.2xlarge", 1, "8.0", "64.0", "2.24208", "0.892400", "us-east-1", "use1-az6",
             "450.0", "1.0"),
            ("g6e.48xlarge", 8, "192.0", "1536.0", "43.69912", "8.171000", "ap-northeast-1",
             "apne1-az1", "1900.0", "4.0"),
            ("g6e.48xlarge", 8, "192.0", "1536.0", "43.69912", "8.885100", "ap-northeast-1",
             "apne1-az4", "1900.0", "4.0"),
        )
    ),
    "gcp": tuple(
        {"InstanceType": "", "vCPUs": "", "MemoryGiB": "", "AcceleratorName": "H100",
         "AcceleratorCount": str(n), "GpuInfo": GCP_H100, "Region": region,
         "AvailabilityZone": zone, "Price": price, "SpotPrice": spot}
        for n, region, zone, price, spot in (
            (2, "us-west1", "us-west1-a", "8.40152", "10.6774"),
            (2, "us-west1", "us-west1-b", "8.40152", "10.6774"),
            (8, "asia-east1", "asia-east1-c", "33.60609", "38.656"),
        )
    ),
    "lambda": tuple(
        {"InstanceType": f"gpu_{n}x_a100", "AcceleratorName": "A100",
         "AcceleratorCount": f"{n}.0", "vCPUs": cpus, "MemoryGiB": mem, "Price": price,
         "Region": region, "GpuInfo": _info("A100", f"{n}.0", 40960, 40960), "SpotPrice": ""}
        for n, cpus, mem, price, region in (
            (8, "124.0", "1800.0", "15.92", "us-east-1"),
            (8, "124.0", "1800.0", "15.92", "europe-central-1"),
            (4, "120.0", "800.0", "7.96", "asia-south-1"),
        )
    ),
    "runpod": tuple(
        {"InstanceType": "1x_A100-80GB_SECURE", "AcceleratorName": "A100-80GB",
         "AcceleratorCount": "1.0", "vCPUs": "8.0", "MemoryGiB": "117.0", "Region": region,
         "SpotPrice": "0.82", "Price": "1.64", "AvailabilityZone": zone, "GpuInfo": RUNPOD_A100}
        for region, zone in (("CA", "CA-MTL-1"), ("CA", "CA-MTL-2"), ("CZ", "EU-CZ-1"))
    ),
    "verda": (
        {"InstanceType": "1H200.141S.44V", "UpstreamCloudId": "1H200.141S.44V", "vCPUs": "44.0",
         "MemoryGiB": "182.0", "AcceleratorName": "H200", "AcceleratorCount": "1.0",
         "GpuInfo": VERDA_H200_1, "Region": "FIN-02", "Price": "3.39", "SpotPrice": ""},
        {"InstanceType": "2H200.141S.88V", "UpstreamCloudId": "2H200.141S.88V", "vCPUs": "88.0",
         "MemoryGiB": "370.0", "AcceleratorName": "H200", "AcceleratorCount": "2.0",
         "GpuInfo": VERDA_H200_2, "Region": "FIN-02", "Price": "6.78", "SpotPrice": "2.373"},
    ),
    "nebius": (
        {"InstanceType": "cpu-d3_4vcpu-16gb", "AcceleratorName": "", "AcceleratorCount": "0",
         "vCPUs": "4", "MemoryGiB": "16", "Price": "0.0992", "Region": "eu-north1",
         "GpuInfo": "", "SpotPrice": ""},
        {"InstanceType": "gpu-h100-sxm_1gpu-16vcpu-200gb", "AcceleratorName": "H100",
         "AcceleratorCount": "1", "vCPUs": "16", "MemoryGiB": "200", "Price": "2.95",
         "Region": "eu-north1", "GpuInfo": _info("H100", 1, 0, 0), "SpotPrice": "1.25"},
        {"InstanceType": "gpu-h100-sxm_8gpu-128vcpu-1600gb", "AcceleratorName": "H100",
         "AcceleratorCount": "8", "vCPUs": "128", "MemoryGiB": "1600", "Price": "23.60",
         "Region": "eu-north1", "GpuInfo": _info("H100", 8, 0, 0), "SpotPrice": "10.00"},
        {"InstanceType": "gpu-l40s-a_1gpu-8vcpu-32gb", "AcceleratorName": "L40S",
         "AcceleratorCount": "1", "vCPUs": "8", "MemoryGiB": "32", "Price": "1.5484",
         "Region": "eu-north1", "GpuInfo": _info("L40S", 1, 0, 0), "SpotPrice": ""},
    ),
}  # fmt: skip


def _moved(ctx: Ctx, series: str, captured: str) -> str:
    """The captured price moved by the walk, printed with the capture's decimals."""
    if not captured:
        return ""
    value = Decimal(captured)
    quantum = Decimal(1).scaleb(value.as_tuple().exponent)  # type: ignore[arg-type]
    return str(ctx.price(series, value, quantum))


def _vms_csv(ctx: Ctx, request: PlatformRequest) -> Answer:
    assert request.match is not None
    version, cloud = request.match["version"], request.match["cloud"]
    if version not in VERSIONS or cloud not in LINES:
        return Answer(404, "text/plain; charset=utf-8", b"404: Not Found")
    header = HEADERS[cloud].split(",")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    # On a layout-change day the on-demand price column is renamed: the adapter stops on it.
    writer.writerow(["OnDemandPrice" if c == "Price" and ctx.layout_changed else c
                     for c in header])  # fmt: skip
    for line in LINES[cloud]:
        key = f"{cloud}:{line['InstanceType'] or line['AcceleratorName']}:{line['Region']}"
        # Zones of one region share the on-demand price; spot prices move zone by zone.
        values = line | {
            "Price": _moved(ctx, key, line["Price"]),
            "SpotPrice": _moved(ctx, f"{key}:{line.get('AvailabilityZone', '')}:spot",
                                line["SpotPrice"]),
        }  # fmt: skip
        writer.writerow([values.get(c, "") for c in header])
    return Answer(200, CSV, out.getvalue().encode("utf-8"))


SKYPILOT = Platform(
    "skypilot",
    "SkyPilot price catalogs (vms.csv per cloud)",
    (25, 70),
    (route("GET", r"^/catalogs/(?P<version>[^/]+)/(?P<cloud>[^/]+)/vms\.csv$", _vms_csv),),
    "/catalogs/v8/aws/vms.csv",
)
