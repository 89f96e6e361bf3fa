"""Card specifications and prices: the inputs the warehouse (or a test) passes in.

Nothing here reads the warehouse. `DEFAULT_SPECS` and `seed_prices()` exist so the
recommender can run, and be tested, with no database at all.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from types import MappingProxyType

from recommender.errors import RecommenderInputError

# Interconnect names that give real multi-card bandwidth. Matched as substrings so the
# warehouse may store "NVLink 4.0", "nvlink" or "HCCS 392GB/s" alike. A negated mention
# ("PCIe 4.0 x16, no NVLink", as gpu_spec describes the 4090; "不支持 NVLink", as seed 002
# prints it) is removed first, so it never reads as the link it denies.
_FAST_LINKS = ("nvlink", "nvswitch", "hccs", "infinity fabric")
_NEGATED_LINK = re.compile(
    r"(?:\bno|\bnot|\bwithout|不支持|无)\s*(?:" + "|".join(_FAST_LINKS) + ")"
)
# A bridge joins pairs of PCIe cards ("NVLink bridge (2 GPUs)"); NVSwitch / SXM / HCCS
# boards join the whole 8-card server.
_BRIDGE = re.compile(r"\bbridge\b")
CARDS_PER_NODE = 8

# Ampere NVIDIA cards have no FP8 tensor cores but run FP8 checkpoints weight-only
# (vLLM's FP8 Marlin kernels, W8A16: weights stored in FP8, dequantised to 16-bit for each
# matmul; they need compute capability 8.0+). Turing / Volta and Ascend 910B have no such
# path: an FP8 checkpoint must be re-quantised (INT8 W8A8 on Ascend) or served in BF16.
_FP8_WEIGHT_ONLY = re.compile(r"^(a100|a800|a10-|a30-|a40-|rtx30|rtxa6000)")
FP8_NATIVE = "native"
FP8_WEIGHT_ONLY = "weight-only"
FP8_NONE = "none"


@dataclass(frozen=True)
class CardSpec:
    """One GPU model. vram_gb is the marketed figure, read as 10^9 bytes (see memory.py)."""

    gpu: str
    vram_gb: float
    bandwidth_gbs: float
    fp16_tflops_dense: float
    interconnect: str
    link_gbs: float | None
    domestic: bool
    fp8: bool | None = None  # FP8 tensor cores (gpu_spec.fp8); None: not stated

    def __post_init__(self) -> None:
        if not self.gpu:
            raise RecommenderInputError(
                f"CardSpec.gpu must be a canonical id such as 'h20-96g', got {self.gpu!r}"
            )
        for name in ("vram_gb", "bandwidth_gbs", "fp16_tflops_dense"):
            value = getattr(self, name)
            if not _positive(value):
                raise RecommenderInputError(
                    f"CardSpec {self.gpu}: {name} must be a positive number, got {value!r}"
                )

    @property
    def fast_interconnect(self) -> bool:
        """True for NVLink / HCCS class links, where tensor parallelism scales."""
        text = _NEGATED_LINK.sub(" ", self.interconnect.lower())
        return any(key in text for key in _FAST_LINKS)

    @property
    def fast_domain(self) -> int:
        """How many cards one fast link joins: tensor parallelism wider than this runs over
        PCIe. A bridge joins 2, NVSwitch / HCCS boards the whole 8-card server."""
        if not self.fast_interconnect:
            return 1
        text = _NEGATED_LINK.sub(" ", self.interconnect.lower())
        return 2 if _BRIDGE.search(text) else CARDS_PER_NODE

    @property
    def fp8_path(self) -> str:
        """native (FP8 tensor cores), weight-only (Ampere via FP8 Marlin) or none."""
        if self.fp8:
            return FP8_NATIVE
        return FP8_WEIGHT_ONLY if _FP8_WEIGHT_ONLY.match(self.gpu) else FP8_NONE


@dataclass(frozen=True)
class CardPrice:
    """Latest listed prices for one card at one source.

    hourly_cny and monthly_plan_cny_per_hour are per card per hour (container);
    bare_metal_cny_per_server_month is per whole server of `cards_per_server` cards.
    A mode whose price is None is simply not offered. cpu_cores / ram_gb / disk_gb
    are what the one-card container listing comes with.
    """

    gpu: str
    source: str
    observed_at: datetime
    hourly_cny: float | None = None
    monthly_plan_cny_per_hour: float | None = None
    bare_metal_cny_per_server_month: float | None = None
    cards_per_server: int = 8
    cpu_cores: int | None = None
    ram_gb: float | None = None
    disk_gb: float | None = None
    simulated: bool = False

    def __post_init__(self) -> None:
        for name in ("hourly_cny", "monthly_plan_cny_per_hour", "bare_metal_cny_per_server_month"):
            value = getattr(self, name)
            if value is not None and not _positive(value):
                raise RecommenderInputError(
                    f"CardPrice {self.gpu}@{self.source}: {name} must be a positive number "
                    f"or None (mode not offered), got {value!r}"
                )
        if not isinstance(self.cards_per_server, int) or self.cards_per_server < 1:
            raise RecommenderInputError(
                f"CardPrice {self.gpu}@{self.source}: cards_per_server must be an int >= 1"
            )

    @property
    def date(self) -> str:
        return self.observed_at.date().isoformat()

    @property
    def label(self) -> str:
        """Source and date, with the SIMULATED mark the design asks for on demo data."""
        mark = " SIMULATED" if self.simulated else ""
        return f"{self.source}, {self.date}{mark}"


def _positive(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )


def spec_map(specs: Mapping[str, CardSpec] | Iterable[CardSpec]) -> dict[str, CardSpec]:
    """Accept either a {gpu: spec} mapping or a plain list (what a SQL read returns)."""
    items = specs.values() if isinstance(specs, Mapping) else specs
    out: dict[str, CardSpec] = {}
    for spec in items:
        if not isinstance(spec, CardSpec):
            raise RecommenderInputError(f"specs must hold CardSpec objects, got {spec!r}")
        out[spec.gpu] = spec
    return out


def latest_prices(prices: Iterable[CardPrice]) -> list[CardPrice]:
    """Keep the newest observation per (gpu, source): older snapshots are history, not offers."""
    newest: dict[tuple[str, str], CardPrice] = {}
    for price in prices:
        if not isinstance(price, CardPrice):
            raise RecommenderInputError(f"prices must hold CardPrice objects, got {price!r}")
        key = (price.gpu, price.source)
        if key not in newest or price.observed_at > newest[key].observed_at:
            newest[key] = price
    return sorted(newest.values(), key=lambda p: (p.gpu, p.source))


# Vendor datasheet figures. FP16 is dense tensor throughput (no sparsity): H100/H200
# 989 not the 1979 sparse figure seed 000 prints; RTX 4090 165 (FP32 accumulate, what
# training uses) where seeds 002/003 print 330 (FP16 accumulate). H100 is the SXM part
# (HBM3, 3350 GB/s) that 8-card NVLink servers carry. 910B bandwidth follows seed 000
# (1312 GB/s); seed 002 prints 1200. link_gbs is bidirectional per card, as seed 000
# quotes it (NVLink 4 900, HCCS 392, PCIe 4.0 x16 64, PCIe 5.0 x16 128).
# fp8 as warehouse/ingest/data/gpu_spec.csv states it (Ada, Hopper, Blackwell yes;
# Ampere and 910B no).
_SPECS = (
    CardSpec("rtx4090-24g", 24, 1008, 165.2, "PCIe 4.0", 64, False, True),
    CardSpec("rtx4090-48g", 48, 1008, 165.2, "PCIe 4.0", 64, False, True),
    CardSpec("rtx5090-32g", 32, 1792, 209.5, "PCIe 5.0", 128, False, True),
    CardSpec("l40s-48g", 48, 864, 362.1, "PCIe 4.0", 64, False, True),
    CardSpec("a100-40g", 40, 1555, 312, "NVLink 3.0", 600, False, False),
    CardSpec("a100-80g", 80, 2039, 312, "NVLink 3.0", 600, False, False),
    CardSpec("h100-80g", 80, 3350, 989.4, "NVLink 4.0", 900, False, True),
    CardSpec("h200-141g", 141, 4800, 989.4, "NVLink 4.0", 900, False, True),
    CardSpec("h20-96g", 96, 4000, 148, "NVLink 4.0", 900, False, True),
    CardSpec("910b-64g", 64, 1312, 320, "HCCS", 392, True, False),
)

DEFAULT_SPECS: Mapping[str, CardSpec] = MappingProxyType({s.gpu: s for s in _SPECS})

# The seeds quote Beijing-time listing dates.
_CST = timezone(timedelta(hours=8))
SEED_DATE = datetime(2026, 9, 4, tzinfo=_CST)


def seed_prices() -> list[CardPrice]:
    """The seeds' published jygpu.com prices, for running without a warehouse.

    Hourly / monthly-plan prices and container specs are seed 003's 2026-09-04 listing
    (4090 1.96 / 1.57, 910B 4.47 / 3.58, H20 7.75 / 6.20; 15 cores / 60 GB / 100 GB,
    23 / 250 / 500, 24 / 128 / 50). 8-card bare-metal months come from seed 003 (4090
    ¥7,920) and seed 000's table (910B ¥15,600, RTX 5090 ¥13,990, H100 ¥84,480); seed 000
    is undated, so those rows carry seed 003's date. These are real published prices,
    not simulated ones, but they are a fixed snapshot: never show them as live.
    """
    s3 = "jygpu.com published (seed 003)"
    s03 = "jygpu.com published (seed 003; bare metal seed 000)"
    s0 = "jygpu.com published (seed 000)"
    return [
        CardPrice("rtx4090-24g", s3, SEED_DATE, 1.96, 1.57, 7920, 8, 15, 60, 100),
        CardPrice("910b-64g", s03, SEED_DATE, 4.47, 3.58, 15600, 8, 23, 250, 500),
        CardPrice("h20-96g", s3, SEED_DATE, 7.75, 6.20, None, 8, 24, 128, 50),
        CardPrice("rtx5090-32g", s0, SEED_DATE, None, None, 13990),
        CardPrice("h100-80g", s0, SEED_DATE, None, None, 84480),
    ]
