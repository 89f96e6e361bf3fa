"""Reference data: GPU specifications and the seeds' published prices (real data, cited).

Published prices are loaded as history under the sources ``jygpu-published`` and
``smm-published``, never mixed with scraped rows, and never marked simulated.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime
from decimal import Decimal
from importlib import resources

import duckdb

from scrapers.gpu_names import CANONICAL_GPUS
from scrapers.rows import HOURS_PER_MONTH, OfferRow, SpotQuoteRow
from scrapers.units import parse_discount
from warehouse.ingest.insert import insert_rows

# The seeds' published prices are stored under "<source>-published": real, dated reference
# history, which readers leave out where only scraped platforms belong.
PUBLISHED_SUFFIX = "-published"

SEED_000 = (
    "seed 000 (JYGPU《GPU选卡决策树》, undated; prices identical to seed 003's 2026-09-04 listing)"
)
SEED_002 = (
    "seed 002 (《RTX 4090 / H100 / 昇腾910B 租用对比》, 算力市场 2026年7月实时参考价, 已含折扣)"
)
SEED_003 = "seed 003 (《4090 / 910B / H20 选型清单》, 极智算 jygpu.com 算力市场挂牌价 2026-09-04)"
SEED_003_SMM = "seed 003 FAQ Q1 (上海有色网 SMM 算力专区 2026-09-04 报价)"

# One row per canonical card; every figure's citation is in the row's `source` column,
# disagreements between the seeds and the datasheets in `note`.
GPU_SPEC_CSV = "gpu_spec.csv"
# Columns every row must fill (NOT NULL in gpu_spec; fp8 is added by migration 008, where
# DuckDB cannot make a new column NOT NULL, so it is checked here).
REQUIRED_SPEC_COLUMNS = (
    "gpu", "vendor", "model", "vram_gb", "memory_type", "bandwidth_gbs", "fp16_tflops_dense",
    "fp8", "interconnect", "tdp_w", "software_stack", "domestic", "source",
)  # fmt: skip
BOOLEAN_SPEC_COLUMNS = ("fp8", "domestic")


class SpecTableError(ValueError):
    """gpu_spec.csv does not match the catalog of canonical GPU ids, or misses a figure."""


def gpu_specs() -> list[dict[str, str]]:
    """The GPU reference table as shipped (strings; DuckDB casts them on insert), checked:
    exactly one row per canonical id of :mod:`scrapers.gpu_names` and no other row, every
    required figure present, booleans spelled True/False."""
    text = (
        resources.files("warehouse.ingest.data").joinpath(GPU_SPEC_CSV).read_text(encoding="utf-8")
    )
    specs = list(csv.DictReader(io.StringIO(text)))
    _check_specs(specs)
    return specs


def _check_specs(specs: list[dict[str, str]]) -> None:
    ids = [spec["gpu"] for spec in specs]
    twice = sorted({gpu for gpu in ids if ids.count(gpu) > 1})
    missing = sorted(CANONICAL_GPUS - set(ids))
    extra = sorted(set(ids) - CANONICAL_GPUS)
    if twice or missing or extra:
        raise SpecTableError(
            f"{GPU_SPEC_CSV} must have one row per canonical GPU id: "
            f"missing {missing}, not a canonical id {extra}, twice {twice}"
        )
    for spec in specs:
        empty = [column for column in REQUIRED_SPEC_COLUMNS if not spec.get(column)]
        if empty:
            raise SpecTableError(f"{GPU_SPEC_CSV}: {spec['gpu']} has no {', '.join(empty)}")
        for column in BOOLEAN_SPEC_COLUMNS:
            if spec[column] not in ("True", "False"):
                raise SpecTableError(
                    f"{GPU_SPEC_CSV}: {spec['gpu']} {column} is {spec[column]!r}, "
                    "expected True or False"
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
        source=f"jygpu{PUBLISHED_SUFFIX}",
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
            per_card_hour=Decimal(hourly),
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
                per_card_hour=Decimal(monthly),
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
        source=f"jygpu{PUBLISHED_SUFFIX}",
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
        per_card_hour=(price / 8 / HOURS_PER_MONTH).quantize(Decimal("0.000001")),
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
            source=f"smm{PUBLISHED_SUFFIX}",
            gpu=gpu,
            gpu_name_raw=name,
            region=region,
            basis="整机包月均价",
            price=Decimal(price),
            unit_raw="元/卡时",
            per_card_hour=Decimal(price),
        )
        out.append((quote, SEED_003_SMM))
    return out


def load_reference(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Upsert GPU specs and insert the published prices; idempotent."""
    con.execute("BEGIN TRANSACTION")
    try:
        specs = gpu_specs()
        columns = ", ".join(specs[0])
        placeholders = ", ".join("?" * len(specs[0]))
        for spec in specs:
            values = [value if value != "" else None for value in spec.values()]
            # DELETE + INSERT, not INSERT OR REPLACE: a DuckLake has no key (warehouse.store.lake)
            con.execute("DELETE FROM gpu_spec WHERE gpu = ?", [spec["gpu"]])
            con.execute(f"INSERT INTO gpu_spec ({columns}) VALUES ({placeholders})", values)
        added = 0
        for row, citation in published_rows():
            added += insert_rows(con, [row], page=None, run_id=None, citation=citation)
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return {"gpu_spec": len(specs), "published_rows_added": added}
