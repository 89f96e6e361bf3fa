"""canonical_gpu: every spelling the sources use maps to one id; anything uncertain is unknown."""

from __future__ import annotations

import pytest

from scrapers.gpu_names import CANONICAL_GPUS, MODELS, canonical_gpu, nominal_vram_gb
from scrapers.rows import UNKNOWN_GPU


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("RTX 4090 24GB", "rtx4090-24g"),
        ("4090-24G", "rtx4090-24g"),
        ("NVIDIA GeForce RTX 4090", "rtx4090-24g"),  # its only stock size
        ("RTX4090", "rtx4090-24g"),
        ("RTX 4090 24GB GDDR6X", "rtx4090-24g"),  # the G of GDDR6X is not a size
        ("ＲＴＸ　４０９０", "rtx4090-24g"),  # full-width
        ("4090 48G", "rtx4090-48g"),
        ("RTX 4090 48GB", "rtx4090-48g"),
        ("RTX 5090", "rtx5090-32g"),
        ("5090-32G", "rtx5090-32g"),
        ("RTX 5090 32G", "rtx5090-32g"),
        ("昇腾910B", "910b-64g"),
        ("华为昇腾 910B 64GB", "910b-64g"),
        ("Ascend 910B", "910b-64g"),
        ("Ascend910B", "910b-64g"),
        ("910B-64G", "910b-64g"),
        ("H100 SXM", "h100-80g"),
        ("H100 80GB HBM3", "h100-80g"),
        ("NVIDIA H100", "h100-80g"),
        ("H100 SXM5 80G", "h100-80g"),
        ("H100-80G", "h100-80g"),
        ("H20-96G", "h20-96g"),
        ("NVIDIA H20", "h20-96g"),
        ("H200", "h200-141g"),
        ("H200 141GB HBM3e", "h200-141g"),
        ("A100-SXM4-80GB", "a100-80g"),
        ("A100 40GB PCIe", "a100-40g"),
        ("A100-80G", "a100-80g"),
        ("L40S", "l40s-48g"),
        ("NVIDIA L40S 48GB", "l40s-48g"),
    ],
)
def test_known_spellings(name: str, expected: str) -> None:
    assert canonical_gpu(name) == expected


@pytest.mark.parametrize(
    "name",
    [
        "RTX 4090D",  # a different (China-market) card
        "RTX 4090 D",
        "RTX 5090D",
        "A100",  # 40 GB and 80 GB both exist
        "NVIDIA A100 PCIe",
        "H100 24GB",  # size contradicts the model
        "H100 NVL",  # 94 GB variant
        "H20 141G",
        "910B4",  # 32 GB variant
        "昇腾910",
        "L40",  # not the L40S
        "H800",
        "MI300X-192G",
        "摩尔线程 MTT S4000",
        "H100/H200",  # two models
        "RTX 4090 24GB 48GB",  # two sizes
        "",
        "   ",
    ],
)
def test_uncertain_names_are_unknown(name: str) -> None:
    assert canonical_gpu(name) == UNKNOWN_GPU


def test_separate_vram_resolves_or_contradicts() -> None:
    assert canonical_gpu("A100", 40) == "a100-40g"
    assert canonical_gpu("A100", 80) == "a100-80g"
    assert canonical_gpu("RTX 4090", 48) == "rtx4090-48g"
    assert canonical_gpu("昇腾 910B", 64) == "910b-64g"
    assert canonical_gpu("A100", 64) == UNKNOWN_GPU  # no such size
    assert canonical_gpu("H100", 24) == UNKNOWN_GPU
    assert canonical_gpu("RTX 4090 24GB", 48) == UNKNOWN_GPU  # name and column disagree
    assert canonical_gpu("RTX 4090 24GB", 24) == "rtx4090-24g"


def test_table_covers_exactly_the_canonical_ids() -> None:
    assert {
        "rtx4090-24g", "rtx4090-48g", "rtx5090-32g", "a100-40g", "a100-80g",
        "h100-80g", "h200-141g", "h20-96g", "l40s-48g", "910b-64g",
    } == CANONICAL_GPUS  # fmt: skip
    for model in MODELS:
        for vram, gid in model.sizes.items():
            assert gid.endswith(f"-{vram}g")
        if model.default_vram is not None:
            assert model.default_vram in model.sizes


# Live sources' spellings (issue 6): vast.ai, RunPod, 矩池云, AutoDL and generic tables.
@pytest.mark.parametrize(
    ("name", "vram", "expected"),
    [
        ("H100 SXM", None, "h100-80g"),  # vast.ai, RunPod
        ("H100 PCIe", None, "h100-80g"),
        ("H100 80GB HBM3", None, "h100-80g"),
        ("NVIDIA H100 80GB HBM3", None, "h100-80g"),  # 矩池云
        ("RTX 4090 24GB", None, "rtx4090-24g"),
        ("4090-24G", None, "rtx4090-24g"),
        ("NVIDIA GeForce RTX 4090", None, "rtx4090-24g"),
        ("昇腾910B", None, "910b-64g"),
        ("A100-SXM4-80GB", None, "a100-80g"),
        ("NVIDIA A100-PCIE-40GB", None, "a100-40g"),
        ("A100 SXM4", 80, "a100-80g"),  # vast.ai: the size comes from gpu_ram
        ("A100 SXM4", 40, "a100-40g"),
        ("RTX 5090", None, "rtx5090-32g"),
        ("H100 SXM GPU on Runpod", None, "h100-80g"),
        ("RTX 4090 GPU on Runpod", None, "rtx4090-24g"),
        ("H200 SXM GPU on Runpod", None, "h200-141g"),
        ("L40S GPU on Runpod", None, "l40s-48g"),
        ("A100 SXM", 80, "a100-80g"),  # RunPod: VRAM from the product's properties
        ("H20-NVLink", None, "h20-96g"),  # AutoDL
        ("RTX 5090 32GB 云主机", None, "rtx5090-32g"),
    ],
)
def test_live_source_spellings(name: str, vram: int | None, expected: str) -> None:
    assert canonical_gpu(name, vram) == expected


@pytest.mark.parametrize(
    "name",
    ["A100 SXM", "H100 NVL", "RTX 4090D", "Ascend 910B2", "RTX 6000 Ada", "RTX 3090", "MTT S4000"],
)
def test_live_source_names_that_stay_unknown(name: str) -> None:
    assert canonical_gpu(name) == UNKNOWN_GPU


@pytest.mark.parametrize(
    ("name", "mib", "expected"),
    [
        ("RTX 4090", 24564, 24),
        ("H100 SXM", 81559, 80),
        ("H200", 143771, 141),  # 140.4 GiB: within 7 % of the marketed 141
        ("L40S", 46068, 48),  # 44.99 GiB as vast.ai reports a real L40S: 6.3 % under 48
        ("L40S", 44000, 43),  # 42.97 GiB: 10.5 % under, not the 48 GB card
        ("A100 SXM4", 81920, 80),
        ("A100 SXM4", 40960, 40),
        ("RTX 5090", 32607, 32),
        ("RTX 3090", 24576, 24),  # unknown model: the rounded GiB figure
    ],
)
def test_nominal_vram_from_measured_mib(name: str, mib: int, expected: int) -> None:
    assert nominal_vram_gb(name, mib) == expected
