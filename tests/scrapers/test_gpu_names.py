"""canonical_gpu: every spelling the sources use maps to one id; anything uncertain is unknown."""

from __future__ import annotations

import pytest

from scrapers.gpu_names import CANONICAL_GPUS, MODELS, canonical_gpu, nominal_vram_gb
from scrapers.rows import UNKNOWN_GPU

ALL_IDS = {
    "rtx3060-12g", "rtx3060-8g", "rtx3080ti-12g", "rtx3090-24g", "rtx3090ti-24g",
    "rtx4090-24g", "rtx4090-48g", "rtx4090d-24g", "rtx5090-32g", "rtx5090d-32g",
    "rtxa6000-48g", "rtx6000ada-48g", "rtxpro6000-96g",
    "t4-16g", "v100-16g", "v100-32g", "v100s-32g", "a10-24g", "a30-24g", "a40-48g",
    "a100-40g", "a100-80g", "a800-40g", "a800-80g", "l4-24g", "l20-48g", "l40-48g", "l40s-48g",
    "h100-80g", "h100nvl-94g", "h800-80g", "h200-141g", "h20-96g", "h20-141g", "b200-180g",
    "mi300x-192g", "910b-64g",
    # issue 36: every card the real captures list
    "rtx3070-8g", "rtx3080-10g", "rtx4060ti-16g", "rtx4070ti-12g", "rtx4070tisuper-16g",
    "rtx4080-16g", "rtx4080super-16g", "rtx5070-12g", "rtx5080-16g",
    "rtxa2000-6g", "rtxa4000-16g", "rtxa4500-20g", "rtxa5000-24g",
    "rtx2000ada-16g", "rtx4000ada-20g", "rtx4000adasff-20g", "rtx5000ada-32g", "rtx5880ada-48g",
    "quadrortx6000-24g", "rtxpro4000-24g", "rtxpro4500-32g", "rtxpro5000-48g",
    "rtxpro6000maxq-96g", "h200nvl-141g", "b300-288g", "gh200-96g",
}  # fmt: skip


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
        ("H100 PCIe", "h100-80g"),  # SXM and PCIe share one id
        ("H100 80GB HBM3", "h100-80g"),
        ("NVIDIA H100", "h100-80g"),
        ("H100 SXM5 80G", "h100-80g"),
        ("H100-80G", "h100-80g"),
        ("H100 NVL", "h100nvl-94g"),
        ("H100NVL", "h100nvl-94g"),
        ("H100 NVL 94GB", "h100nvl-94g"),
        ("H100 PCIe NVLink 80GB", "h100-80g"),  # NVLink bridge, not the NVL card
        ("H20-96G", "h20-96g"),
        ("NVIDIA H20 96GB", "h20-96g"),
        ("H20-141G", "h20-141g"),
        ("NVIDIA H20 141GB HBM3e", "h20-141g"),
        ("H200", "h200-141g"),
        ("H200 141GB HBM3e", "h200-141g"),
        ("NVIDIA H200 141GB SXM", "h200-141g"),
        ("H800", "h800-80g"),
        ("H800 80GB", "h800-80g"),
        ("A100-SXM4-80GB", "a100-80g"),
        ("A100 SXM4 80GB", "a100-80g"),
        ("A100 40GB PCIe", "a100-40g"),
        ("A100-PCIE-40GB", "a100-40g"),
        ("A100-80G", "a100-80g"),
        ("A800-80GB", "a800-80g"),
        ("A800 40GB PCIe", "a800-40g"),
        ("L40S", "l40s-48g"),
        ("NVIDIA L40S 48GB", "l40s-48g"),
        ("L40", "l40-48g"),
        ("NVIDIA L40", "l40-48g"),
        ("L20", "l20-48g"),
        ("NVIDIA L20 48GB", "l20-48g"),
        ("L4", "l4-24g"),
        ("NVIDIA L4", "l4-24g"),
        ("Tesla T4", "t4-16g"),
        ("T4 16GB", "t4-16g"),
        ("Tesla V100-SXM2-32GB", "v100-32g"),
        ("Tesla V100-SXM2-16GB", "v100-16g"),
        ("V100 SXM2 32GB", "v100-32g"),
        ("Tesla V100S-PCIE-32GB", "v100s-32g"),
        ("V100S", "v100s-32g"),
        ("A10", "a10-24g"),
        ("NVIDIA A10 24GB", "a10-24g"),
        ("A30", "a30-24g"),
        ("A40", "a40-48g"),
        ("RTX A6000", "rtxa6000-48g"),
        ("NVIDIA RTX A6000", "rtxa6000-48g"),
        ("RTXA6000", "rtxa6000-48g"),
        ("RTX-A6000", "rtxa6000-48g"),
        ("NVIDIA A6000", "rtxa6000-48g"),
        ("RTX 6000 Ada", "rtx6000ada-48g"),
        ("RTX 6000 Ada Generation", "rtx6000ada-48g"),
        ("RTX6000-Ada", "rtx6000ada-48g"),
        ("RTX-6000-Ada", "rtx6000ada-48g"),
        ("RTX PRO 6000", "rtxpro6000-96g"),
        ("RTX Pro 6000", "rtxpro6000-96g"),
        ("RTX-PRO-6000", "rtxpro6000-96g"),
        ("RTXPRO6000WS", "rtxpro6000-96g"),
        ("RTX PRO 6000 WK", "rtxpro6000-96g"),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "rtxpro6000-96g"),
        ("RTX PRO 6000 Blackwell 96GB", "rtxpro6000-96g"),
        ("B200", "b200-180g"),
        ("B200 SXM6 180GB", "b200-180g"),
        ("NVIDIA B200 192GB", "b200-180g"),  # launch spelling of the same card
        ("MI300X", "mi300x-192g"),
        ("AMD MI300X 192GB OAM", "mi300x-192g"),
        ("AMD Instinct MI300X OAM", "mi300x-192g"),
        ("MI300X-192G", "mi300x-192g"),
        ("RTX 3060", "rtx3060-12g"),
        ("RTX 3060 12GB", "rtx3060-12g"),
        ("RTX 3060 8GB", "rtx3060-8g"),
        ("RTX 3080 Ti", "rtx3080ti-12g"),
        ("RTX3080Ti", "rtx3080ti-12g"),
        ("RTX 3090", "rtx3090-24g"),
        ("RTX 3090 24GB", "rtx3090-24g"),
        ("RTX 3090 Ti", "rtx3090ti-24g"),
        ("RTX_3090_Ti", "rtx3090ti-24g"),
    ],
)
def test_known_spellings(name: str, expected: str) -> None:
    assert canonical_gpu(name) == expected


# The China-market D cards are never folded into the 4090 / 5090, nor the other way round.
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("RTX 4090D", "rtx4090d-24g"),
        ("RTX 4090 D", "rtx4090d-24g"),
        ("NVIDIA GeForce RTX 4090 D", "rtx4090d-24g"),
        ("4090D-24G", "rtx4090d-24g"),
        ("RTX 4090", "rtx4090-24g"),
        ("RTX 5090D", "rtx5090d-32g"),
        ("RTX 5090 D", "rtx5090d-32g"),
        ("5090D 32GB", "rtx5090d-32g"),
        ("RTX 5090", "rtx5090-32g"),
        ("RTX 5090 D V2", UNKNOWN_GPU),  # the 24 GB V2 is another card
        ("RTX 5090D V2 24GB", UNKNOWN_GPU),
        ("RTX 4090D 48G", UNKNOWN_GPU),  # no 48 GB 4090 D in the catalog
        ("RTX 4090 DDR", "rtx4090-24g"),  # "DDR" is not the D suffix
    ],
)
def test_d_cards_are_their_own_models(name: str, expected: str) -> None:
    assert canonical_gpu(name) == expected


@pytest.mark.parametrize(
    "name",
    [
        "A100",  # 40 GB and 80 GB both exist
        "NVIDIA A100 PCIe",
        "A100 SXM",
        "A800",  # 40 / 80 GB
        "A800 PCIe",
        "V100",  # 16 / 32 GB
        "Tesla V100",
        "V100 FHHL",
        "V100 SXM2",
        "H20",  # 96 / 141 GB
        "NVIDIA H20",
        "H20-NVLink",
        "H100 24GB",  # size contradicts the model
        "H20 80GB",
        "V100 24GB",
        "H800 NVL",
        "910B4",  # 32 GB variant
        "Ascend 910B2",  # binned variants with fewer AI cores
        "Ascend 910B3",
        "昇腾910",
        "A10G",  # AWS's A10G is not the A10
        "A30X",
        "L40 CNX",
        "H20A",
        "GB200",
        "MI300A",
        "MI325X",
        "RTX 6000",  # Quadro (24 GB) only with its size: trackers write "RTX 6000" for all three
        "RTX 6000 48GB",
        "RTX 3080",  # 10 / 12 GB, not the 3080 Ti
        "RTX 3080 12GB",  # the 2022 card is not in the table
        "RTX 4060 Ti",  # 8 / 16 GB
        "RTX 4060 8GB",
        "RTX 4070",  # 4070, 4070 SUPER, 4070 Ti: all 12 GB
        "RTX 4070 SUPER",
        "RTX 5070 Ti",
        "RTX A2000 12GB",
        "RTX A5000 Laptop GPU",
        "RTX 2000 Ada Generation Laptop GPU",
        "RTX PRO 4000 Blackwell SFF",
        "RTX PRO 4500 SE",  # the 165 W Server Edition
        "NVIDIA RTX PRO 4500 Blackwell Server Edition",
        "RTX PRO 5000",  # 48 / 72 GB
        "PRO 6000 MIG 24GB Max-Q",
        "GH200",  # 96 GB HBM3 or 144 GB HBM3e
        "GB300",  # a Grace superchip, not the B300
        "H200 NVL 80GB",
        "RTX A6000 Ada",  # two cards in one name
        "PRO 6000 MIG 24GB",  # a slice of a card
        "PRO 6000 MIG 48GB",
        "RTX 3060 Ti",
        "RTX 4090 Laptop GPU",  # 16 GB notebook chip
        "RTX 3060 Mobile",
        "RTX 5090 Max-Q",
        "vGPU-48GB",  # a virtual slice, not a card
        "摩尔线程 MTT S4000",
        "H100/H200",  # two models
        "NVIDIA RTX A6000/A40",
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
    assert canonical_gpu("A800", 40) == "a800-40g"
    assert canonical_gpu("A800 SXM4", 80) == "a800-80g"
    assert canonical_gpu("V100", 16) == "v100-16g"
    assert canonical_gpu("Tesla V100", 32) == "v100-32g"
    assert canonical_gpu("H20-NVLink", 96) == "h20-96g"
    assert canonical_gpu("H20", 141) == "h20-141g"
    assert canonical_gpu("RTX 4090", 48) == "rtx4090-48g"
    assert canonical_gpu("昇腾 910B", 64) == "910b-64g"
    assert canonical_gpu("B200", 180) == "b200-180g"
    assert canonical_gpu("B200", 192) == "b200-180g"
    assert canonical_gpu("A100", 64) == UNKNOWN_GPU  # no such size
    assert canonical_gpu("V100", 24) == UNKNOWN_GPU
    assert canonical_gpu("H100", 24) == UNKNOWN_GPU
    assert canonical_gpu("H100", 94) == "h100nvl-94g"  # the only H100 with 94 GB
    assert canonical_gpu("H100", 96) == UNKNOWN_GPU
    assert canonical_gpu("RTX 4090 24GB", 48) == UNKNOWN_GPU  # name and column disagree
    assert canonical_gpu("RTX 4090 24GB", 24) == "rtx4090-24g"
    assert canonical_gpu("A800-80GB", 40) == UNKNOWN_GPU


def test_the_8gb_rtx_3060_only_when_the_name_says_so() -> None:
    # SkyPilot's vast catalog lists a 1x-RTX_3060_Ti (8 GB) under the name "RTX3060".
    assert canonical_gpu("RTX3060", 8) == UNKNOWN_GPU
    assert canonical_gpu("RTX 3060 8GB", 8) == "rtx3060-8g"
    assert canonical_gpu("RTX 3060 8GB") == "rtx3060-8g"
    assert canonical_gpu("RTX3060", 12) == "rtx3060-12g"


def test_table_covers_exactly_the_canonical_ids() -> None:
    assert ALL_IDS == CANONICAL_GPUS
    # sizes spelled two ways: B200's launch 192 GB, B300's 262 GiB usable, RunPod's 143 GB
    aliases = {("b200-180g", 192), ("b300-288g", 262), ("h200nvl-141g", 143)}
    for model in MODELS:
        for vram, gid in model.sizes.items():
            assert gid.endswith(f"-{vram}g") or (gid, vram) in aliases, gid
            assert gid == gid.lower() and " " not in gid
        if model.default_vram is not None:
            assert model.default_vram in model.sizes
        assert model.named_sizes <= set(model.sizes)


# Ids a second row reaches by memory alone (gpu_names' docstring): the name lost a word, the
# stated size names the card.
REACHED_BY_MEMORY = {
    "h100nvl-94g": "a bare H100 with 94 GB",
    "rtx4070tisuper-16g": "a 4070 or 4070 SUPER with 16 GB",
    "quadrortx6000-24g": "a plain RTX 6000 with 24 GB",
}


def test_each_id_has_one_model_row() -> None:
    owners: dict[str, list[int]] = {}
    for n, model in enumerate(MODELS):
        for gid in set(model.sizes.values()):
            owners.setdefault(gid, []).append(n)
    shared = {gid for gid, rows in owners.items() if len(rows) > 1}
    assert shared == set(REACHED_BY_MEMORY), f"ids in two GpuModel rows: {sorted(shared)}"
    for gid in shared:
        assert len(owners[gid]) == 2, gid
        # exactly one of the two rows names the card itself (the id is its default)
        own = [n for n in owners[gid] if MODELS[n].sizes.get(MODELS[n].default_vram or 0) == gid]
        assert len(own) == 1, gid


# Live sources' spellings (issue 6): vast.ai, RunPod, 矩池云, AutoDL, Lambda, SkyPilot catalogs
# and generic tables, with the memory the source states beside the name.
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
        ("H20-NVLink", 96, "h20-96g"),  # AutoDL, with its stated memory
        ("RTX 5090 32GB 云主机", None, "rtx5090-32g"),
        ("H100 NVL", 94, "h100nvl-94g"),  # RunPod memoryInGb
        ("B200", 180, "b200-180g"),
        ("MI300X", 192, "mi300x-192g"),
        ("RTX PRO 6000 WK", 96, "rtxpro6000-96g"),
        ("Tesla V100", 16, "v100-16g"),
        ("V100 SXM2 32GB", 32, "v100-32g"),
        ("NVIDIA Tesla V100", 16, "v100-16g"),  # Lambda: "16 GB" in the description
        ("NVIDIA A6000", 48, "rtxa6000-48g"),
        ("NVIDIA A10", 24, "a10-24g"),
        ("NVIDIA B200 SXM6", 180, "b200-180g"),
        ("RTX-A6000", 48, "rtxa6000-48g"),  # SkyPilot hyperstack
        ("RTX-PRO-6000", 96, "rtxpro6000-96g"),  # SkyPilot verda
        ("RTXPRO6000WS", 96, "rtxpro6000-96g"),  # SkyPilot vast
        ("RTX6000-Ada", 48, "rtx6000ada-48g"),
        ("L4", 24, "l4-24g"),  # SkyPilot gcp
        ("H200 NVL", 143, "h200nvl-141g"),  # RunPod: 143 GB, not the H200 SXM
        ("H100", 94, "h100nvl-94g"),  # SkyPilot vast 1x-H100_NVL under the name "H100"
    ],
)
def test_live_source_spellings(name: str, vram: int | None, expected: str) -> None:
    assert canonical_gpu(name, vram) == expected


@pytest.mark.parametrize(
    "name",
    [
        "A100 SXM",
        "A100 PCIe",
        "H20-NVLink",  # without the memory AutoDL states beside it
        "Ascend 910B2",
        "RTX6000",  # SkyPilot's Lambda catalog, without the GpuInfo memory beside it
        "RTX 4060",  # SkyPilot vast, without its 16 GB
        "MTT S4000",
        "PRO 6000 MIG 24GB",
        "NVIDIA GH200",
    ],
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
        ("RTX 3090", 24576, 24),
        ("H100 NVL", 95830, 94),
        ("H100", 95830, 94),  # 93.6 GiB: the H100 NVL's 94
        ("B300", 268288, 262),  # SkyPilot verda: 262 GiB usable of the 288 GB module
        ("B200", 183359, 180),
        ("V100", 16384, 16),
        ("V100", 32768, 32),
        ("RTX3060", 8192, 8),  # a size of the model, kept; canonical_gpu still refuses it
        ("RTX 4080", 16376, 16),
        ("MTT S4000", 49152, 48),  # unknown model: the rounded GiB figure
    ],
)
def test_nominal_vram_from_measured_mib(name: str, mib: int, expected: int) -> None:
    assert nominal_vram_gb(name, mib) == expected


# Issue 36: the cards the real captures list (RunPod, Lambda, SkyPilot, a tracker's CSV), with
# the memory each source states beside the name (None: the source states none).
@pytest.mark.parametrize(
    ("name", "vram", "expected"),
    [
        ("RTX 3070", 8, "rtx3070-8g"),  # RunPod memoryInGb
        ("RTX 3070", None, "rtx3070-8g"),
        ("RTX 3080", 10, "rtx3080-10g"),
        ("RTX 3080 10GB", None, "rtx3080-10g"),
        ("RTX4060", 16, "rtx4060ti-16g"),  # SkyPilot vast 4x-RTX_4060_Ti
        ("RTX 4060 Ti 16GB", None, "rtx4060ti-16g"),
        ("RTX 4070 Ti", 12, "rtx4070ti-12g"),
        ("RTX4070Ti", None, "rtx4070ti-12g"),
        ("RTX 4070 Ti SUPER", None, "rtx4070tisuper-16g"),
        ("RTX_4070S_Ti", None, "rtx4070tisuper-16g"),  # vast.ai's spelling
        ("RTX4070", 16, "rtx4070tisuper-16g"),  # SkyPilot vast 4x-RTX_4070S_Ti
        ("RTX 4080", 16, "rtx4080-16g"),
        ("NVIDIA GeForce RTX 4080", None, "rtx4080-16g"),
        ("RTX 4080 SUPER", 16, "rtx4080super-16g"),
        ("RTX 4080S", None, "rtx4080super-16g"),
        ("RTX 5070", None, "rtx5070-12g"),
        ("RTX5070", 12, "rtx5070-12g"),  # SkyPilot vast 4x-RTX_5070
        ("RTX 5080", 16, "rtx5080-16g"),
        ("RTX A2000", 6, "rtxa2000-6g"),
        ("RTX A4000", 16, "rtxa4000-16g"),
        ("NVIDIA RTX A4000", None, "rtxa4000-16g"),
        ("RTX-A4000", 16, "rtxa4000-16g"),  # SkyPilot hyperstack
        ("RTX A4500", 20, "rtxa4500-20g"),
        ("RTX A5000", None, "rtxa5000-24g"),  # RunPod 2026 JSON-LD: no memory
        ("RTXA5000", 24, "rtxa5000-24g"),  # SkyPilot vast
        ("NVIDIA RTX A5000", 24, "rtxa5000-24g"),  # Hyperstack
        ("RTX 2000 Ada", 16, "rtx2000ada-16g"),
        ("RTX 4000 Ada", 20, "rtx4000ada-20g"),
        ("RTX 4000 Ada Generation", None, "rtx4000ada-20g"),
        ("RTX 4000 Ada SFF", 20, "rtx4000adasff-20g"),  # RunPod's spelling
        ("RTX 4000 SFF Ada Generation", None, "rtx4000adasff-20g"),  # NVIDIA's
        ("RTX 5000 Ada", 32, "rtx5000ada-32g"),
        ("RTX5880-Ada", 48, "rtx5880ada-48g"),  # SkyPilot vast
        ("NVIDIA Quadro RTX 6000", 24, "quadrortx6000-24g"),  # Lambda 2023, 2024
        ("NVIDIA Quadro RTX 6000", None, "quadrortx6000-24g"),
        ("RTX6000", 24, "quadrortx6000-24g"),  # SkyPilot's Lambda catalog, GpuInfo 24576 MiB
        ("RTX 6000 24GB", None, "quadrortx6000-24g"),
        ("RTX PRO 4000", 24, "rtxpro4000-24g"),
        ("RTX PRO 4500", 32, "rtxpro4500-32g"),
        ("RTX PRO 5000", 48, "rtxpro5000-48g"),
        ("RTX PRO 6000 MaxQ", 96, "rtxpro6000maxq-96g"),
        ("RTX PRO 6000 Blackwell Max-Q Workstation Edition", None, "rtxpro6000maxq-96g"),
        ("RTX PRO 6000 WK", 96, "rtxpro6000-96g"),  # the 600 W card stays itself
        ("H200 NVL", None, "h200nvl-141g"),
        ("NVIDIA H200 NVL 141GB", None, "h200nvl-141g"),
        ("H200", 141, "h200-141g"),  # not the NVL
        ("B300", None, "b300-288g"),  # RunPod 2026 JSON-LD
        ("B300", 288, "b300-288g"),  # RunPod API
        ("B300", 262, "b300-288g"),  # SkyPilot verda
        ("NVIDIA B300 SXM6 AC", None, "b300-288g"),
        ("GH200", 96, "gh200-96g"),
        ("NVIDIA GH200 96 GB", None, "gh200-96g"),
    ],
)
def test_issue_36_cards(name: str, vram: int | None, expected: str) -> None:
    assert canonical_gpu(name, vram) == expected


@pytest.mark.parametrize(
    ("name", "vram"),
    [
        ("RTX3060", 8),  # SkyPilot vast 1x-RTX_3060_Ti: 3060 8GB or 3060 Ti
        ("RTX 4070", 12),  # 4070, 4070 SUPER or a 4070 Ti that lost its "Ti"
        ("RTX5070", 16),  # a 5070 Ti, not in the table
        ("RTX 6000", 48),  # 6000 Ada or RTX A6000: the name does not say
        ("RTX 6000", None),
        ("A100 PCIe", None),  # RunPod 2026 JSON-LD: 40 or 80 GB
        ("A100 SXM", None),
        ("Nvidia A100", None),  # GCP: the page states only the host's memory
        ("PRO 6000 MIG 24GB", 24),  # a slice of an RTX PRO 6000
        ("PRO 6000 MIG 48GB", 48),
        ("RTX PRO 4500 SE", 32),
        ("GH200", None),
        ("GH200", 144),  # the HBM3e edition is not in the table
        ("H100 NVL", 80),  # contradicts the NVL's 94
        ("B300", 180),
        ("RTX 4000 Ada", 16),
    ],
)
def test_issue_36_names_that_stay_unknown(name: str, vram: int | None) -> None:
    assert canonical_gpu(name, vram) == UNKNOWN_GPU


# A tracker's text scrape of Lambda's pricing rows (krisjiang-matrix/gpu_price_track raw_label:
# plan, VRAM/GPU, vCPUs, RAM, STORAGE joined by spaces) gives the card the same id as its
# clean name, or unknown; the glued figures never make a card.
@pytest.mark.parametrize(
    ("glued", "clean", "expected"),
    [
        ("RTX 6000 24 GB 14 46 GiB 512 GiB SSD", "RTX 6000 24 GB", "quadrortx6000-24g"),
        ("NVIDIA GH200 96 GB 64 432 GiB 4 TiB SSD", "NVIDIA GH200 96 GB", "gh200-96g"),
        ("NVIDIA A100 SXM 40 GB 124 1800 GiB 5.8 TiB SSD", "NVIDIA A100 SXM 40 GB", "a100-40g"),
        ("NVIDIA A10 24 GB 30 226 GiB 1.3 TiB SSD", "NVIDIA A10 24 GB", "a10-24g"),
        ("Tesla V100 16 GB 88 448 GiB 5.8 TiB SSD", "Tesla V100 16 GB", "v100-16g"),
        ("NVIDIA B200 SXM6 180 GB 208 2900 GiB 22 TiB SSD", "NVIDIA B200 SXM6 180 GB", "b200-180g"),
        # a model number in the glued RAM figure is not read as a card
        ("NVIDIA Foo 48 GB 28 4090 GiB 1 TiB SSD", "NVIDIA Foo 48 GB", UNKNOWN_GPU),
        ("RTX 6000 14 46 GiB 512 GiB SSD", "RTX 6000", UNKNOWN_GPU),  # no memory: unknown
    ],
)
def test_glued_lambda_columns(glued: str, clean: str, expected: str) -> None:
    assert canonical_gpu(glued) == canonical_gpu(clean) == expected


def test_only_lambdas_exact_tail_is_cut() -> None:
    # a GiB size beside the card is not the tail: it stays, and is no GB size either
    assert canonical_gpu("RTX 4090 48GiB") == "rtx4090-24g"  # no size read: the stock card
    assert canonical_gpu("A100 80 GB 2 GiB") == "a100-80g"
    assert canonical_gpu("RTX 6000 24 GB 46 GB 512 GB") == UNKNOWN_GPU  # three sizes
