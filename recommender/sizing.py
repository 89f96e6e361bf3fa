"""How many cards, and whether the listing's CPU, RAM and disk keep up with them."""

from __future__ import annotations

import math
from dataclasses import dataclass

from recommender.cards import CardPrice, CardSpec
from recommender.layout import Layout, inference_layouts, training_layouts
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


def layouts_for(mem: MemoryEstimate, spec: CardSpec) -> list[Layout]:
    if mem.workload.is_training:
        return training_layouts(spec)
    return inference_layouts(mem.arch, spec)


def layout_need_gb(mem: MemoryEstimate, layout: Layout) -> float:
    """Exact need on each card of `layout`, before the margin."""
    return mem.per_card_layout_gb(layout.tp, layout.pp, layout.dp)


def layout_needed(mem: MemoryEstimate, spec: CardSpec) -> Layout | None:
    """Fewest-card valid layout whose per-card need, plus the 20% margin, fits the card."""
    for layout in layouts_for(mem, spec):
        if layout.cards <= MAX_CARDS and layout_need_gb(mem, layout) * (1 + MARGIN) <= (
            spec.vram_gb
        ):
            return layout
    return None


def smaller_layout(mem: MemoryEstimate, spec: CardSpec, layout: Layout) -> Layout | None:
    """The valid layout just below `layout` (fewer cards), if any."""
    below = [lay for lay in layouts_for(mem, spec) if lay.cards < layout.cards]
    return below[-1] if below else None


def cards_needed(mem: MemoryEstimate, spec: CardSpec) -> int | None:
    """Smallest valid card count whose per-card need, plus the 20% margin, fits the card."""
    layout = layout_needed(mem, spec)
    return None if layout is None else layout.cards


def rule_of_thumb_cards(mem: MemoryEstimate, spec: CardSpec) -> int:
    """The card count the seeds quote: the rule-of-thumb figure's low end divided by the
    card's VRAM, rounded up, with no margin. For inference that is weights only (seed 000
    §6.1: 70B FP16 ~140 GB -> "H20 96GB双卡或H100 80GB双卡"); for training the low end of
    the method's bytes-per-parameter range (seed 003 §二). It is a floor: the exact count
    (`cards_needed`) adds KV cache, activations, runtime and the 20% margin."""
    return max(1, math.ceil(round(mem.rule_low_gb / spec.vram_gb, 9)))


def count_comparison(mem: MemoryEstimate, spec: CardSpec, layout: Layout, rule: int) -> str:
    """One sentence saying how the seeds' count and the exact count were reached and why
    they differ, so a reader holding a seed article sees both."""
    exact = layout.cards
    per = layout_need_gb(mem, layout)
    rule_part = (
        f"seeds' rule of thumb {mem.rule_low_gb:.1f} GB ({_rule_what(mem)}) ÷ "
        f"{spec.vram_gb:g} GB = {rule} card(s), no margin"
    )
    exact_part = (
        f"exact model {mem.total_gb:.1f} GB ({per:.1f} GB per card at {exact} card(s), "
        f"{layout.label}) + {MARGIN:.0%} margin = {exact} card(s)"
    )
    if rule == exact:
        return f"{rule_part}; {exact_part}: the two agree."
    if exact > rule:
        fewer = smaller_layout(mem, spec, layout)
        if fewer is None:
            shortfall = "no smaller layout exists"
        else:
            need = layout_need_gb(mem, fewer) * (1 + MARGIN)
            shortfall = (
                f"at {fewer.cards} card(s) ({fewer.label}) it would need {need:.1f} GB per "
                f"card > {spec.vram_gb:g} GB"
            )
            skipped = [n for n in range(fewer.cards + 1, exact) if n >= rule]
            if skipped and not mem.workload.is_training:
                shortfall += (
                    f"; {', '.join(map(str, skipped))} card(s) is no valid layout "
                    "(tensor parallel runs on 1, 2, 4 or 8 cards dividing the heads)"
                )
        return (
            f"{rule_part}; {exact_part}, because the exact model adds what the seed figure "
            f"leaves out ({_left_out(mem)}) and the {MARGIN:.0%} margin: {shortfall}. "
            f"{rule} card(s) is the seeds' floor, not a safe size (seed 000 建议4: keep 20% spare)."
        )
    return (
        f"{rule_part}; {exact_part}: the exact model needs less than the seeds' flat "
        f"bytes-per-parameter figure for this {mem.workload.precision} setup."
    )


def _rule_what(mem: MemoryEstimate) -> str:
    w = mem.workload
    if not w.is_training:
        return f"weights only, {w.weight_bytes:g} B/param, seed 000 §三"
    return f"low end for {w.method}, seed 003 §二"


def _left_out(mem: MemoryEstimate) -> str:
    if mem.workload.is_training:
        adapters = mem.adapters_gb + mem.gradients_gb + mem.optimizer_gb
        lora = f"adapters with gradients and Adam {adapters:.2f} GB, " if mem.adapters_gb else ""
        return (
            f"{lora}activations {mem.activations_gb:.1f} GB and runtime {mem.runtime_gb:g} GB "
            "per card"
        )
    return (
        f"KV cache {mem.kv_cache_gb:.1f} GB, runtime and prefill {mem.overhead_gb:.1f} GB per card"
    )


def headroom_gb(mem: MemoryEstimate, spec: CardSpec, layout: Layout | int) -> float:
    """VRAM left across the cards after the exact need (before the margin)."""
    if isinstance(layout, int):
        return layout * (spec.vram_gb - mem.per_card_gb(layout))
    return layout.cards * (spec.vram_gb - layout_need_gb(mem, layout))


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
