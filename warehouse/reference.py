"""Reference data: GPU specifications and the seeds' published prices (real data, cited).

Published prices are loaded as history under the sources ``jygpu-published`` and
``smm-published``, never mixed with scraped rows, and never marked simulated.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import duckdb

from scrapers.rows import HOURS_PER_MONTH, OfferRow, SpotQuoteRow
from scrapers.units import parse_discount
from warehouse.load import insert_rows

SEED_000 = (
    "seed 000 (JYGPU《GPU选卡决策树》, undated; prices identical to seed 003's 2026-09-04 listing)"
)
SEED_002 = (
    "seed 002 (《RTX 4090 / H100 / 昇腾910B 租用对比》, 算力市场 2026年7月实时参考价, 已含折扣)"
)
SEED_003 = "seed 003 (《4090 / 910B / H20 选型清单》, 极智算 jygpu.com 算力市场挂牌价 2026-09-04)"
SEED_003_SMM = "seed 003 FAQ Q1 (上海有色网 SMM 算力专区 2026-09-04 报价)"

NVIDIA_ADA = "NVIDIA Ada Lovelace GPU Architecture whitepaper v2.1, Appendix A (GeForce RTX 4090)"
NVIDIA_BLACKWELL = (
    "NVIDIA RTX Blackwell GPU Architecture whitepaper v1.1, Appendix A (GeForce RTX 5090)"
)
NVIDIA_H100 = "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM5 80GB)"
NVIDIA_H200 = "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM 141GB)"
NVIDIA_A100 = "NVIDIA A100 Tensor Core GPU datasheet (A100 SXM4 40GB / 80GB)"
NVIDIA_L40S = "NVIDIA L40S datasheet"
NVIDIA_H20 = (
    "NVIDIA H20 product brief as reported by the seeds (000, 003); no public NVIDIA datasheet"
)

# (gpu, vendor, model, vram_gb, memory_type, bandwidth_gbs, fp16 dense, fp16 sparse,
#  fp16 dense with fp32 accumulate, what the seeds quote, interconnect, link_gbs, tdp_w,
#  software_stack, domestic, source, note)
GPU_SPECS: list[tuple] = [
    (
        "rtx4090-24g",
        "NVIDIA",
        "GeForce RTX 4090",
        24,
        "GDDR6X",
        1008.0,
        330.3,
        660.6,
        165.2,
        "seed 000: 165 (= FP32-accumulate dense); seeds 002/003: 330 (= FP16-accumulate dense)",
        "PCIe 4.0 x16, no NVLink",
        64.0,
        450,
        "CUDA",
        False,
        NVIDIA_ADA,
        "link_gbs is PCIe 4.0 x16 bidirectional as seed 003 counts it",
    ),
    (
        "rtx4090-48g",
        "NVIDIA",
        "GeForce RTX 4090 48GB (memory-modded)",
        48,
        "GDDR6X",
        1008.0,
        330.3,
        660.6,
        165.2,
        None,
        "PCIe 4.0 x16, no NVLink",
        64.0,
        450,
        "CUDA",
        False,
        NVIDIA_ADA,
        "aftermarket 48 GB board; compute as the 24 GB card",
    ),
    (
        "rtx5090-32g",
        "NVIDIA",
        "GeForce RTX 5090",
        32,
        "GDDR7",
        1792.0,
        419.0,
        838.0,
        209.5,
        "seed 000: 209 (= FP32-accumulate dense)",
        "PCIe 5.0 x16, no NVLink",
        128.0,
        575,
        "CUDA",
        False,
        NVIDIA_BLACKWELL,
        None,
    ),
    (
        "a100-40g",
        "NVIDIA",
        "A100 SXM4 40GB",
        40,
        "HBM2",
        1555.0,
        312.0,
        624.0,
        312.0,
        None,
        "NVLink 3.0",
        600.0,
        400,
        "CUDA",
        False,
        NVIDIA_A100,
        None,
    ),
    (
        "a100-80g",
        "NVIDIA",
        "A100 SXM4 80GB",
        80,
        "HBM2e",
        2039.0,
        312.0,
        624.0,
        312.0,
        "seed 002 FAQ: ~312 (dense)",
        "NVLink 3.0",
        600.0,
        400,
        "CUDA",
        False,
        NVIDIA_A100,
        None,
    ),
    (
        "h100-80g",
        "NVIDIA",
        "H100 SXM5 80GB",
        80,
        "HBM3",
        3350.0,
        989.4,
        1978.9,
        989.4,
        "seeds 000/002: 1979 (= with 2:4 sparsity; dense is 989)",
        "NVLink 4.0 + NVSwitch",
        900.0,
        700,
        "CUDA",
        False,
        NVIDIA_H100,
        "seed 002 says HBM2e (that is the PCIe card); the SXM5 card is HBM3",
    ),
    (
        "h200-141g",
        "NVIDIA",
        "H200 SXM 141GB",
        141,
        "HBM3e",
        4800.0,
        989.4,
        1978.9,
        989.4,
        None,
        "NVLink 4.0 + NVSwitch",
        900.0,
        700,
        "CUDA",
        False,
        NVIDIA_H200,
        None,
    ),
    (
        "h20-96g",
        "NVIDIA",
        "H20 96GB",
        96,
        "HBM3",
        4000.0,
        148.0,
        296.0,
        148.0,
        "seeds 000/003: 148 (dense)",
        "NVLink 4.0",
        900.0,
        400,
        "CUDA",
        False,
        NVIDIA_H20,
        None,
    ),
    (
        "l40s-48g",
        "NVIDIA",
        "L40S",
        48,
        "GDDR6",
        864.0,
        362.05,
        733.0,
        362.05,
        None,
        "PCIe 4.0 x16, no NVLink",
        64.0,
        350,
        "CUDA",
        False,
        NVIDIA_L40S,
        None,
    ),
    (
        "910b-64g",
        "Huawei",
        "Ascend 910B",
        64,
        "HBM2e",
        1312.0,
        320.0,
        None,
        None,
        "seeds 000/002/003: 320 (dense)",
        "HCCS",
        392.0,
        350,
        "CANN (torch_npu, MindSpore)",
        True,
        "seeds 000 (bandwidth 1312 GB/s), 002 (TDP 350 W), 003 (HCCS 392 GB/s); Huawei publishes no full datasheet",
        "seed 002 gives 1200 GB/s bandwidth; seed 000's 1312 GB/s is kept",
    ),
]

SPEC_COLUMNS = (
    "gpu, vendor, model, vram_gb, memory_type, bandwidth_gbs, fp16_tflops_dense, "
    "fp16_tflops_sparse, fp16_tflops_dense_fp32acc, seed_fp16_tflops, interconnect, link_gbs, "
    "tdp_w, software_stack, domestic, source, note"
)

SEP_04 = datetime(2026, 9, 4)
JULY = datetime(2026, 7, 1)


def _container(
    day: datetime,
    gpu: str,
    name: str,
    vram: int,
    hourly: str,
    monthly: str | None,
    label: str | None,
    cfg: tuple[int, int, int] | None,
    citation: str,
) -> list[OfferRow]:
    cpu, ram, disk = cfg or (None, None, None)
    common = dict(
        observed_at=day,
        source="jygpu-published",
        gpu=gpu,
        gpu_name_raw=name,
        gpu_count=1,
        vram_gb=vram,
        currency="CNY",
        unit="CNY/card-hour",
        unit_raw="元/时",
        cpu_cores=cpu,
        ram_gb=ram,
        disk_gb=disk,
    )
    rows = [
        OfferRow(
            offer_id=f"pub-{gpu}-container",
            billing="hourly",
            price=Decimal(hourly),
            cny_per_card_hour=Decimal(hourly),
            list_price=Decimal(hourly),
            **common,
        )
    ]
    if monthly:
        rows.append(
            OfferRow(
                offer_id=f"pub-{gpu}-container",
                billing="monthly",
                price=Decimal(monthly),
                cny_per_card_hour=Decimal(monthly),
                list_price=Decimal(hourly),
                stated_discount=parse_discount(label),
                discount_label=label,
                **common,
            )
        )
    return rows


def _bare_metal(day: datetime, gpu: str, name: str, vram: int, monthly: str) -> OfferRow:
    price = Decimal(monthly)
    return OfferRow(
        observed_at=day,
        source="jygpu-published",
        offer_id=f"pub-{gpu}-baremetal-8x",
        gpu=gpu,
        gpu_name_raw=name,
        gpu_count=8,
        vram_gb=vram,
        billing="bare_metal_monthly",
        price=price,
        currency="CNY",
        unit="CNY/server-month",
        unit_raw="元/月",
        cny_per_card_hour=(price / 8 / HOURS_PER_MONTH).quantize(Decimal("0.000001")),
    )


def published_rows() -> list[tuple[OfferRow | SpotQuoteRow, str]]:
    """The seeds' published prices with the citation of each."""
    out: list[tuple[OfferRow | SpotQuoteRow, str]] = []
    for row in (
        _container(
            SEP_04,
            "rtx4090-24g",
            "RTX 4090 24GB",
            24,
            "1.96",
            "1.57",
            "95折",
            (15, 60, 100),
            SEED_003,
        )
        + _container(
            SEP_04,
            "910b-64g",
            "昇腾 910B 64GB",
            64,
            "4.47",
            "3.58",
            "93折",
            (23, 250, 500),
            SEED_003,
        )
        + _container(
            SEP_04, "h20-96g", "NVIDIA H20 96GB", 96, "7.75", "6.20", "8折", (24, 128, 50), SEED_003
        )
    ):
        out.append((row, SEED_003))
    out.append((_bare_metal(SEP_04, "rtx4090-24g", "4090 24G×8", 24, "7920"), SEED_003))
    for gpu, name, vram, price in (
        ("rtx5090-32g", "RTX 5090 32GB ×8", 32, "13990"),
        ("h100-80g", "NVIDIA H100 80GB ×8", 80, "84480"),
        ("910b-64g", "昇腾910B 64GB ×8", 64, "15600"),
    ):
        out.append((_bare_metal(SEP_04, gpu, name, vram, price), SEED_000))
    for row in _container(
        JULY, "rtx4090-24g", "RTX 4090", 24, "2.45", None, None, None, SEED_002
    ) + _container(JULY, "910b-64g", "华为昇腾910B", 64, "4.47", None, None, None, SEED_002):
        out.append((row, SEED_002))
    for gpu, name, vram, price in (
        ("rtx4090-24g", "RTX 4090 ×8", 24, "7920"),
        ("h100-80g", "NVIDIA H100 ×8", 80, "84480"),
        ("910b-64g", "华为昇腾910B ×8", 64, "15600"),
    ):
        out.append((_bare_metal(JULY, gpu, name, vram, price), SEED_002))
    for gpu, name, region, price in (
        ("rtx4090-24g", "4090-24G", "长三角", "1.26"),
        ("h20-96g", "H20-96G", "京津冀", "7.47"),
    ):
        quote = SpotQuoteRow(
            observed_at=SEP_04,
            source="smm-published",
            gpu=gpu,
            gpu_name_raw=name,
            region=region,
            basis="整机包月均价",
            price=Decimal(price),
            unit_raw="元/卡时",
            cny_per_card_hour=Decimal(price),
        )
        out.append((quote, SEED_003_SMM))
    return out


def load_reference(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Upsert GPU specs and insert the published prices; idempotent."""
    con.execute("BEGIN TRANSACTION")
    try:
        placeholders = ", ".join("?" * len(GPU_SPECS[0]))
        for spec in GPU_SPECS:
            con.execute(
                f"INSERT OR REPLACE INTO gpu_spec ({SPEC_COLUMNS}) VALUES ({placeholders})",
                list(spec),
            )
        added = 0
        for row, citation in published_rows():
            added += insert_rows(con, [row], page=None, run_id=None, citation=citation)
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return {"gpu_spec": len(GPU_SPECS), "published_rows_added": added}
