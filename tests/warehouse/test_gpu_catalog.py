"""The card catalog across layers: scrapers.gpu_names ids, gpu_spec.csv rows (with fp8) and the
drift references agree, and the real captures' prices fall inside the new cards' ranges."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from scrapers.fx import FxRate, FxRates
from scrapers.gpu_names import CANONICAL_GPUS
from scrapers.rows import UNKNOWN_GPU
from scrapers.sources import build_adapter
from warehouse.ingest import reference
from warehouse.ingest.drift import REFERENCE_CNY_PER_CARD_HOUR, implausible
from warehouse.ingest.money import convert
from warehouse.ingest.reference import SpecTableError, gpu_specs

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
FX = FxRates((), (FxRate(date(2000, 1, 1), "USD", Decimal("7.10"), "test default"),))

FP8 = {  # native FP8 tensor cores: Hopper, Ada, Blackwell, CDNA 3
    "rtx4090-24g", "rtx4090-48g", "rtx4090d-24g", "rtx5090-32g", "rtx5090d-32g",
    "rtx6000ada-48g", "rtxpro6000-96g", "l4-24g", "l20-48g", "l40-48g", "l40s-48g",
    "h100-80g", "h100nvl-94g", "h800-80g", "h200-141g", "h20-96g", "h20-141g", "b200-180g",
    "mi300x-192g",
    "rtx4060ti-16g", "rtx4070ti-12g", "rtx4070tisuper-16g", "rtx4080-16g", "rtx4080super-16g",
    "rtx5070-12g", "rtx5080-16g", "rtx2000ada-16g", "rtx4000ada-20g", "rtx4000adasff-20g",
    "rtx5000ada-32g", "rtx5880ada-48g", "rtxpro4000-24g", "rtxpro4500-32g", "rtxpro5000-48g",
    "rtxpro6000maxq-96g", "h200nvl-141g", "b300-288g", "gh200-96g",
}  # fmt: skip


def test_one_spec_row_per_canonical_id() -> None:
    specs = gpu_specs()
    assert sorted(s["gpu"] for s in specs) == sorted(CANONICAL_GPUS)
    for spec in specs:
        assert spec["source"] and float(spec["bandwidth_gbs"]) > 0, spec["gpu"]
        assert float(spec["fp16_tflops_dense"]) > 0 and int(spec["tdp_w"]) > 0, spec["gpu"]
        assert int(spec["vram_gb"]) == int(spec["gpu"].rsplit("-", 1)[1].removesuffix("g"))


def test_fp8_follows_the_architecture() -> None:
    got = {s["gpu"]: s["fp8"] for s in gpu_specs()}
    assert {gpu for gpu, fp8 in got.items() if fp8 == "True"} == FP8
    assert {gpu for gpu, fp8 in got.items() if fp8 == "False"} == CANONICAL_GPUS - FP8


def test_the_4090d_and_5090d_rows_are_not_the_full_cards() -> None:
    specs = {s["gpu"]: s for s in gpu_specs()}
    assert float(specs["rtx4090d-24g"]["fp16_tflops_dense"]) < float(
        specs["rtx4090-24g"]["fp16_tflops_dense"]
    )
    assert specs["rtx4090d-24g"]["tdp_w"] == "425"
    assert float(specs["rtx5090d-32g"]["fp16_tflops_dense"]) < float(
        specs["rtx5090-32g"]["fp16_tflops_dense"]
    )
    assert specs["h100nvl-94g"]["bandwidth_gbs"] == "3900.0"
    assert specs["h100-80g"]["bandwidth_gbs"] == "3350.0"  # existing row kept


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda rows: rows[1:], r"missing \['rtx4090-24g'\]"),
        (lambda rows: [*rows, {**rows[0], "gpu": "gtx1080-8g"}], r"not a canonical id \['gtx1080"),
        (lambda rows: [*rows, rows[0]], r"twice \['rtx4090-24g'\]"),
        (lambda rows: [{**rows[0], "tdp_w": ""}, *rows[1:]], "rtx4090-24g has no tdp_w"),
        (lambda rows: [{**rows[0], "fp8": "yes"}, *rows[1:]], "fp8 is 'yes', expected True"),
        (lambda rows: [{**rows[0], "fp8": ""}, *rows[1:]], "rtx4090-24g has no fp8"),
    ],
)
def test_a_broken_spec_table_is_refused(
    change: Callable[[list[dict[str, str]]], list[dict[str, str]]], message: str
) -> None:
    with pytest.raises(SpecTableError, match=message):
        reference._check_specs(change(gpu_specs()))


def test_every_card_has_a_drift_reference() -> None:
    assert set(REFERENCE_CNY_PER_CARD_HOUR) == CANONICAL_GPUS
    assert REFERENCE_CNY_PER_CARD_HOUR["h100nvl-94g"] == Decimal("22.65")  # $3.19 × 7.10
    assert REFERENCE_CNY_PER_CARD_HOUR["rtx4090d-24g"] == REFERENCE_CNY_PER_CARD_HOUR["rtx4090-24g"]


def _capture_rows() -> list[tuple[str, object]]:
    out = []
    for case in sorted(REAL.rglob("*.expected.json")):
        spec = json.loads(case.read_text(encoding="utf-8"))
        if spec.get("expect_error"):
            continue
        capture = case.with_name(case.name.removesuffix(".expected.json"))
        adapter = build_adapter(
            spec.get("source") or spec["adapter"], spec["adapter"], spec.get("options"),
        )  # fmt: skip
        rows = adapter.parse(
            capture.read_bytes(), spec["url"], datetime.fromisoformat(spec["fetched_at"])
        )
        # priced as the load prices them (the plausible ranges are in CNY)
        out.extend((str(case.relative_to(REAL)), convert(row, FX)) for row in rows)
    return out


def test_real_capture_prices_are_plausible_for_their_cards() -> None:
    rows = _capture_rows()
    known = [(case, row) for case, row in rows if row.gpu != UNKNOWN_GPU]
    newly_known = {row.gpu for _, row in known} - {
        "rtx4090-24g", "rtx4090-48g", "rtx5090-32g", "a100-40g", "a100-80g", "h100-80g",
        "h200-141g", "h20-96g", "l40s-48g", "910b-64g",
    }  # fmt: skip
    assert {"h100nvl-94g", "b200-180g", "rtxa6000-48g", "a40-48g", "v100-16g"} <= newly_known
    problems = [(case, why) for case, row in known if (why := implausible(row))]
    assert not problems, problems[:5]
