"""Deterministic simulated prices for the demo market. Pure: no I/O, no clock.

On the anchor day (2026-09-04) every price that the seeds publish is served exactly
(seed 003: 极智算 container list/monthly prices, discount labels and configs, SMM quotes
4090-24G 长三角 1.26 and H20-96G 京津冀 7.47 元/卡时; seed 000: 8-card bare-metal monthly
prices). Series marked ``published=False`` are simulated anchors chosen plausibly relative to
the published ones; they are not real figures.

Every other day in ``FIRST_DAY..LAST_DAY`` comes from a seeded walk outward from the anchor,
forwards and backwards, so any day is reproducible from ``(seed, day)`` alone:

* step changes of 5–15 % (price cuts and rises, biased back towards the anchor so six years
  of walking stays plausible) at gaps of 8–26 days, so every 90-day window holds several;
* monthly discount tier changes (with a matching label) at gaps of 25–50 days;
* SMM quotes also move a little every day, as market averages do.

Note the seed's own inconsistency, kept on purpose around the anchor day: 极智算 labels the
4090 and 910B monthly plans 95折 and 93折 while their prices are 0.80 of list. After the
first tier change away from the anchor, label and price agree again.

The whole walk for one seed is computed once (a few tens of ms) and cached; one day's
snapshot after that costs microseconds.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from typing import TypeVar

__all__ = [
    "ANCHOR_DAY",
    "BARE_METAL",
    "CONTAINERS",
    "DEFAULT_SEED",
    "DISCOUNT_TIERS",
    "FIRST_DAY",
    "LAST_DAY",
    "QUOTES",
    "BareMetalOffer",
    "BareMetalSpec",
    "ContainerOffer",
    "ContainerSpec",
    "DaySnapshot",
    "MarketQuote",
    "PriceModel",
    "QuoteSpec",
    "price_model",
]

ANCHOR_DAY = date(2026, 9, 4)
FIRST_DAY = date(2025, 1, 1)
LAST_DAY = date(2030, 12, 31)
DEFAULT_SEED = 20260904

T = TypeVar("T")

CENT = Decimal("0.01")
TEN_YUAN = Decimal("10")

# Tiers a marketplace prints for prepaid monthly plans: (label, ratio of list price).
DISCOUNT_TIERS: tuple[tuple[str, Decimal], ...] = (
    ("95折", Decimal("0.95")),
    ("93折", Decimal("0.93")),
    ("9折", Decimal("0.90")),
    ("88折", Decimal("0.88")),
    ("85折", Decimal("0.85")),
    ("8折", Decimal("0.80")),
    ("75折", Decimal("0.75")),
)


@dataclass(frozen=True, slots=True)
class ContainerSpec:
    """A 1-card container instance as 极智算 lists it, with its anchor-day prices."""

    sku: str
    gpu_name: str
    vram: str
    cpu_cores: int
    ram_gb: int
    disk_gb: int
    interconnect: str
    region: str
    list_price: Decimal  # 挂牌 元/时
    monthly_price: Decimal  # 月付折后 元/时
    discount_label: str
    published: bool = True


@dataclass(frozen=True, slots=True)
class BareMetalSpec:
    """An 8-card bare-metal server, priced per month for the whole machine."""

    sku: str
    gpu_name: str
    gpu_count: int
    vram: str
    cpu_cores: int
    cpu_model: str
    ram_gb: int
    disk: str
    interconnect: str
    network: str
    region: str
    monthly_price: Decimal  # 元/月 for the server
    published: bool = True


@dataclass(frozen=True, slots=True)
class QuoteSpec:
    """An SMM-style market quote series (元/卡时)."""

    card: str
    region: str
    basis: str
    price: Decimal
    published: bool


CONTAINERS: tuple[ContainerSpec, ...] = (
    ContainerSpec(
        "ctr-rtx4090-24g-hz1", "RTX 4090", "24GB GDDR6X", 15, 60, 100, "PCIe 4.0",
        "华东-杭州", Decimal("1.96"), Decimal("1.57"), "95折",
    ),
    ContainerSpec(
        "ctr-910b-64g-bj2", "昇腾 910B", "64GB HBM2e", 23, 250, 500, "HCCS",
        "华北-北京", Decimal("4.47"), Decimal("3.58"), "93折",
    ),
    ContainerSpec(
        "ctr-h20-96g-wlcb1", "NVIDIA H20", "96GB HBM3", 24, 128, 50, "NVLink",
        "华北-乌兰察布", Decimal("7.75"), Decimal("6.20"), "8折",
    ),
)  # fmt: skip

BARE_METAL: tuple[BareMetalSpec, ...] = (
    BareMetalSpec(
        "bm-rtx4090-24g-x8-hz1", "RTX 4090 24G", 8, "24GB GDDR6X", 64, "2×Xeon Gold 6430",
        512, "2×3.84TB NVMe", "PCIe 4.0", "2×25G 以太网", "华东-杭州", Decimal("7920"),
    ),
    BareMetalSpec(
        "bm-rtx5090-32g-x8-hz1", "RTX 5090 32G", 8, "32GB GDDR7", 64, "2×Xeon Gold 6530",
        768, "2×3.84TB NVMe", "PCIe 5.0", "2×25G 以太网", "华东-杭州", Decimal("13990"),
    ),
    BareMetalSpec(
        "bm-h100-80g-x8-bj2", "H100 SXM5 80G", 8, "80GB HBM3", 112, "2×Xeon Platinum 8480+",
        2048, "4×3.84TB NVMe", "NVLink 4.0 + NVSwitch", "8×400G IB", "华北-北京",
        Decimal("84480"),
    ),
    BareMetalSpec(
        "bm-910b-64g-x8-bj2", "昇腾 910B 64G", 8, "64GB HBM2e", 192, "4×鲲鹏 920",
        1536, "2×3.84TB NVMe", "HCCS", "8×200G RoCE", "华北-北京", Decimal("15600"),
    ),
)  # fmt: skip

# Published: the two SMM figures quoted in seed 003. The rest are simulated anchors set near
# the 极智算 bare-metal per-card-hour level (a market average runs a little under one
# platform's list) and, for A100, near seed 002's "8卡月租约6-7万".
QUOTES: tuple[QuoteSpec, ...] = (
    QuoteSpec("4090-24G", "长三角", "整机包月均价", Decimal("1.26"), True),
    QuoteSpec("4090-24G", "粤港澳", "整机包月均价", Decimal("1.31"), False),
    QuoteSpec("4090-24G", "成渝", "整机包月均价", Decimal("1.19"), False),
    QuoteSpec("5090-32G", "长三角", "整机包月均价", Decimal("2.38"), False),
    QuoteSpec("H20-96G", "京津冀", "整机包月均价", Decimal("7.47"), True),
    QuoteSpec("H20-96G", "长三角", "整机包月均价", Decimal("7.62"), False),
    QuoteSpec("A100-80G", "京津冀", "整机包月均价", Decimal("10.40"), False),
    QuoteSpec("H100-80G", "京津冀", "整机包月均价", Decimal("13.90"), False),
    QuoteSpec("910B-64G", "京津冀", "整机包月均价", Decimal("2.55"), False),
)


@dataclass(frozen=True, slots=True)
class ContainerOffer:
    spec: ContainerSpec
    list_price: Decimal
    monthly_price: Decimal
    discount_label: str
    stock: int


@dataclass(frozen=True, slots=True)
class BareMetalOffer:
    spec: BareMetalSpec
    monthly_price: Decimal
    stock: int


@dataclass(frozen=True, slots=True)
class MarketQuote:
    spec: QuoteSpec
    low: Decimal
    high: Decimal
    avg: Decimal
    change: Decimal  # vs the previous day


@dataclass(frozen=True, slots=True)
class DaySnapshot:
    day: date
    containers: tuple[ContainerOffer, ...]
    bare_metal: tuple[BareMetalOffer, ...]
    quotes: tuple[MarketQuote, ...]


# -- the walk ---------------------------------------------------------------------------------

_N_DAYS = (LAST_DAY - FIRST_DAY).days + 1
_ANCHOR_INDEX = (ANCHOR_DAY - FIRST_DAY).days

STEP_GAP_DAYS = (8, 26)
TIER_GAP_DAYS = (25, 50)


def _rng(seed: int, series: str, direction: str) -> random.Random:
    # str seeds are hashed with SHA-512 by random.Random, so this is stable across runs and
    # independent of PYTHONHASHSEED.
    return random.Random(f"{seed}|{series}|{direction}")


def _unit_hash(seed: int, *parts: object) -> float:
    """A uniform number in [0, 1) from the parts alone: for per-day values needing no walk."""
    digest = hashlib.blake2b("|".join(map(str, (seed, *parts))).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def _quantize(value: Decimal, quantum: Decimal) -> Decimal:
    return (value / quantum).quantize(Decimal(1), rounding=ROUND_HALF_UP) * quantum


def _step(value: Decimal, anchor: Decimal, quantum: Decimal, rng: random.Random) -> Decimal:
    """A 5–15 % cut or rise; the further from the anchor, the likelier the way back."""
    drift = math.log(float(value / anchor))
    p_down = min(0.9, max(0.1, 0.5 + 2.0 * drift))
    size = Decimal(str(round(rng.uniform(0.05, 0.15), 4)))
    factor = 1 - size if rng.random() < p_down else 1 + size
    new = _quantize(value * factor, quantum)
    return new if new != value else value + (quantum if factor > 1 else -quantum)


def _jitter(value: Decimal, anchor: Decimal, rng: random.Random) -> Decimal:
    """A market average's daily move: often none, else 0.2–0.8 % (at least one cent)."""
    if rng.random() < 0.45:
        return value
    drift = math.log(float(value / anchor))
    sign = -1 if rng.random() < min(0.8, max(0.2, 0.5 + 3.0 * drift)) else 1
    move = max(CENT, _quantize(value * Decimal(str(round(rng.uniform(0.002, 0.008), 4))), CENT))
    return value + sign * move


def _walk(
    seed: int,
    series: str,
    anchor: Decimal,
    quantum: Decimal,
    *,
    daily: bool = False,
) -> list[Decimal]:
    """Value for every day FIRST_DAY..LAST_DAY, equal to ``anchor`` on ANCHOR_DAY."""
    values: list[Decimal] = [anchor] * _N_DAYS
    for direction, stride in (("fwd", 1), ("bwd", -1)):
        rng = _rng(seed, series, direction)
        noise = _rng(seed, series, direction + "-daily")
        # Walking backwards, an event at index i means the value changed between i and i+1.
        next_event = _ANCHOR_INDEX + stride * rng.randint(*STEP_GAP_DAYS)
        i = _ANCHOR_INDEX + stride
        while 0 <= i < _N_DAYS:
            value = values[i - stride]
            if i == next_event:
                value = _step(value, anchor, quantum, rng)
                next_event += stride * rng.randint(*STEP_GAP_DAYS)
            elif daily:
                value = _jitter(value, anchor, noise)
            values[i] = value
            i += stride
    return values


def _tier_walk(
    seed: int, series: str, anchor_ratio: Decimal, anchor_label: str
) -> list[tuple[Decimal, str]]:
    """(monthly/list ratio, label) for every day; the anchor's own pair around the anchor day."""
    ratios = [r for _, r in DISCOUNT_TIERS]
    home = min(range(len(ratios)), key=lambda k: abs(ratios[k] - anchor_ratio))
    values: list[tuple[Decimal, str]] = [(anchor_ratio, anchor_label)] * _N_DAYS
    for direction, stride in (("fwd", 1), ("bwd", -1)):
        rng = _rng(seed, series, direction)
        tier = home
        next_event = _ANCHOR_INDEX + stride * rng.randint(*TIER_GAP_DAYS)
        i = _ANCHOR_INDEX + stride
        while 0 <= i < _N_DAYS:
            value = values[i - stride]
            if i == next_event:
                options = [
                    t for t in (tier - 2, tier - 1, tier + 1, tier + 2) if 0 <= t < len(ratios)
                ]
                # Prefer the tiers nearer home so the walk does not wander to an extreme.
                weights = [1.0 / (1 + abs(t - home)) for t in options]
                tier = rng.choices(options, weights)[0]
                label, ratio = DISCOUNT_TIERS[tier]
                value = (ratio, label)
                next_event += stride * rng.randint(*TIER_GAP_DAYS)
            values[i] = value
            i += stride
    return values


def _stock(seed: int, sku: str, day: date, sold_out: float, most: int) -> int:
    u = _unit_hash(seed, "stock", sku, day.isoformat())
    return 0 if u < sold_out else 1 + int((u - sold_out) / (1 - sold_out) * most)


class PriceModel:
    """All simulated prices of the demo market for one seed. Build via :func:`price_model`."""

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self.seed = seed
        self._list: dict[str, list[Decimal]] = {}
        self._tiers: dict[str, list[tuple[Decimal, str]]] = {}
        for c in CONTAINERS:
            self._list[c.sku] = _walk(seed, f"ctr:{c.sku}:list", c.list_price, CENT)
            # Exact anchor ratio, so list × ratio rounds back to the published monthly price.
            ratio = c.monthly_price / c.list_price
            self._tiers[c.sku] = _tier_walk(seed, f"ctr:{c.sku}:tier", ratio, c.discount_label)
        self._bare: dict[str, list[Decimal]] = {
            b.sku: _walk(seed, f"bm:{b.sku}", b.monthly_price, TEN_YUAN) for b in BARE_METAL
        }
        self._quotes: dict[tuple[str, str], list[Decimal]] = {
            (q.card, q.region): _walk(seed, f"q:{q.card}:{q.region}", q.price, CENT, daily=True)
            for q in QUOTES
        }

    def _index(self, day: date) -> int:
        if not FIRST_DAY <= day <= LAST_DAY:
            raise ValueError(f"{day} is outside the simulated range {FIRST_DAY}..{LAST_DAY}")
        return (day - FIRST_DAY).days

    def day(self, day: date) -> DaySnapshot:
        """Every price of one day. Raises ``ValueError`` outside ``FIRST_DAY..LAST_DAY``."""
        i = self._index(day)
        containers = []
        for c in CONTAINERS:
            list_price = self._list[c.sku][i]
            ratio, label = self._tiers[c.sku][i]
            containers.append(
                ContainerOffer(
                    spec=c,
                    list_price=list_price,
                    monthly_price=_quantize(list_price * ratio, CENT),
                    discount_label=label,
                    stock=_stock(self.seed, c.sku, day, sold_out=0.08, most=60),
                )
            )
        bare = tuple(
            BareMetalOffer(b, self._bare[b.sku][i], _stock(self.seed, b.sku, day, 0.15, 6))
            for b in BARE_METAL
        )
        quotes = []
        for q in QUOTES:
            path = self._quotes[(q.card, q.region)]
            avg = path[i]
            spread = Decimal(
                str(round(0.04 + 0.04 * _unit_hash(self.seed, q.card, q.region, day), 3))
            )
            quotes.append(
                MarketQuote(
                    spec=q,
                    low=_quantize(avg * (1 - spread), CENT),
                    high=_quantize(avg * (1 + spread), CENT),
                    avg=avg,
                    change=avg - path[i - 1] if i > 0 else Decimal("0.00"),
                )
            )
        return DaySnapshot(day, tuple(containers), bare, tuple(quotes))

    def series(self, day_from: date, day_to: date, pick: Callable[[DaySnapshot], T]) -> list[T]:
        """``pick(snapshot)`` for every day in ``day_from..day_to`` (inclusive), for analysis."""
        n = (day_to - day_from).days
        return [pick(self.day(day_from + timedelta(days=k))) for k in range(n + 1)]


@lru_cache(maxsize=8)
def price_model(seed: int = DEFAULT_SEED) -> PriceModel:
    """The (cached) model for ``seed``; building it walks six years once, in tens of ms."""
    return PriceModel(seed)
