"""How many cards, and whether the listing's CPU, RAM and disk keep up with them."""

from __future__ import annotations

from dataclasses import dataclass

from recommender.cards import CardPrice, CardSpec
from recommender.memory import MARGIN, MemoryEstimate

# 8 servers of 8: beyond this the plan is a cluster design, not a rental choice.
MAX_CARDS = 64

# Seed 003 §四: system RAM at least 1.5x total VRAM, or data loading starves the GPUs.
RAM_PER_VRAM = 1.5
# Seed 003 §五 step 4: the data disk holds the dataset plus at least 3 checkpoints.
CHECKPOINTS_KEPT = 3
# DataLoader workers: 4 per card keeps tokenisation/augmentation ahead of a training
# GPU (PyTorch's usual num_workers guidance); serving needs ~2 (API server, tokenizer).
CPU_CORES_PER_CARD = {"training": 4, "inference": 2}


def cards_needed(mem: MemoryEstimate, spec: CardSpec) -> int | None:
    """Smallest count whose per-card need, plus the 20% margin, fits the card."""
    for cards in range(1, MAX_CARDS + 1):
        if mem.with_margin_gb(cards) <= spec.vram_gb:
            return cards
    return None


def rule_of_thumb_cards(mem: MemoryEstimate, spec: CardSpec) -> int:
    """The seeds' way: rule-of-thumb total (high end) plus 20%, divided by card VRAM."""
    need = mem.rule_high_gb * (1 + MARGIN)
    return max(1, -int(-need // spec.vram_gb))


def headroom_gb(mem: MemoryEstimate, spec: CardSpec, cards: int) -> float:
    """VRAM left across the cards after the exact need (before the margin)."""
    return cards * (spec.vram_gb - mem.per_card_gb(cards))


@dataclass(frozen=True)
class Companion:
    cpu_needed: int
    cpu_listed: int | None
    ram_needed_gb: float
    ram_listed_gb: float | None
    disk_needed_gb: float
    disk_listed_gb: float | None
    disk_basis: str
    warnings: tuple[str, ...]


def companion_check(
    mem: MemoryEstimate, spec: CardSpec, price: CardPrice, cards: int, cards_rented: int
) -> Companion:
    """Compare what the workload needs with what the listing comes with.

    Listings state CPU / RAM / disk for a one-card container; we assume an N-card
    rental gets N times that (how Chinese container platforms scale instances). For a
    whole bare-metal server that is an approximation: check the server's own spec.
    """
    workload = mem.workload
    cpu_needed = CPU_CORES_PER_CARD[workload.task] * cards
    ram_needed = RAM_PER_VRAM * spec.vram_gb * cards
    if workload.is_training:
        disk_needed = (
            mem.model_files_gb + workload.dataset_gb + CHECKPOINTS_KEPT * mem.checkpoint_gb
        )
        kind = "optimizer-state" if workload.method in ("full", "pretrain") else "adapter-only"
        disk_basis = (
            f"model {mem.model_files_gb:.1f} GB + dataset {workload.dataset_gb:g} GB + "
            f"{CHECKPOINTS_KEPT} x {mem.checkpoint_gb:.2f} GB {kind} checkpoints"
        )
    else:
        disk_needed = mem.model_files_gb + workload.dataset_gb
        disk_basis = f"model files {mem.model_files_gb:.1f} GB + dataset {workload.dataset_gb:g} GB"

    def scaled(value: float | None) -> float | None:
        return None if value is None else value * cards_rented

    cpu_listed = None if price.cpu_cores is None else price.cpu_cores * cards_rented
    ram_listed = scaled(price.ram_gb)
    disk_listed = scaled(price.disk_gb)
    warnings: list[str] = []
    checks = (
        ("CPU", cpu_needed, cpu_listed, "cores",
         f"{CPU_CORES_PER_CARD[workload.task]} per card for "
         + ("DataLoader workers" if workload.is_training else "API server and tokenizer")),
        ("system RAM", ram_needed, ram_listed, "GB",
         f"{RAM_PER_VRAM} x {cards * spec.vram_gb:g} GB VRAM, seed 003 §四"),
        ("data disk", disk_needed, disk_listed, "GB", disk_basis),
    )  # fmt: skip
    for name, needed, listed, unit, basis in checks:
        if listed is None:
            warnings.append(
                f"listing does not state {name}: make sure it has >= {needed:,.0f} {unit} ({basis})"
            )
        elif listed < needed:
            warnings.append(
                f"{name} {listed:,.0f} {unit} listed < {needed:,.0f} {unit} needed ({basis})"
            )
    return Companion(
        cpu_needed,
        cpu_listed,
        ram_needed,
        ram_listed,
        disk_needed,
        disk_listed,
        disk_basis,
        tuple(warnings),
    )
