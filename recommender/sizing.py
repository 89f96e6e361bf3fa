"""How many cards, and whether the listing's CPU, RAM and disk keep up with them."""

from __future__ import annotations

import math
from dataclasses import dataclass

from recommender.architecture import WeightFormat
from recommender.budget import budget_text, card_budget, layout_fits
from recommender.cards import CardPrice, CardSpec
from recommender.layout import (
    Layout,
    inference_layouts,
    training_layouts,
    with_replicas_allowed,
)
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


def weight_format_in_use(mem: MemoryEstimate) -> WeightFormat | None:
    """The checkpoint's own format when it is what gets served (its blocks then constrain
    TP); None when the weights are served at another precision."""
    fmt, w = mem.arch.quantization, mem.workload
    return fmt if fmt is not None and fmt.precision == w.precision and w.method != "qlora" else None


def layouts_for(mem: MemoryEstimate, spec: CardSpec) -> list[Layout]:
    if mem.workload.is_training:
        return training_layouts(spec)
    return inference_layouts(mem.arch, spec, weight_format_in_use(mem))


def layout_need_gb(mem: MemoryEstimate, layout: Layout) -> float:
    """Exact need on each card of `layout` (before any margin)."""
    return mem.per_card_layout_gb(layout.tp, layout.pp, layout.dp)


def _with_replicas(mem: MemoryEstimate, spec: CardSpec, replica: Layout) -> Layout | None:
    """`replica`, repeated as data-parallel replicas until the sequences fit; None when one
    replica cannot hold even one sequence at the context."""
    budget = card_budget(mem, spec, replica)
    if budget.fits:
        return replica
    if budget.sequences_fit < 1:
        return None
    dp = math.ceil(mem.workload.concurrency / budget.sequences_fit)
    layout = with_replicas_allowed(mem.arch, replica.with_replicas(dp), weight_format_in_use(mem))
    return layout if layout is not None and layout_fits(mem, spec, layout) else None


def layout_needed(mem: MemoryEstimate, spec: CardSpec) -> Layout | None:
    """Fewest-card layout that fits. Inference: the engine budget of each card holds its
    replica's sequences, replicas added (DP) when one holds the model but not them all; at
    equal cards the smaller replica (more DP, less TP traffic) wins. Training: the
    per-card need plus the seeds' 20% margin fits the card."""
    best: Layout | None = None
    for replica in layouts_for(mem, spec):
        if replica.cards > MAX_CARDS:
            break
        if mem.workload.is_training:
            if layout_fits(mem, spec, replica):
                return replica
            continue
        layout = _with_replicas(mem, spec, replica)
        if (
            layout is not None
            and layout.cards <= MAX_CARDS
            and (best is None or layout.cards < best.cards)
        ):
            best = layout
    return best


def smaller_layout(mem: MemoryEstimate, spec: CardSpec, layout: Layout) -> Layout | None:
    """The valid single-replica layout just below `layout` (fewer cards), if any."""
    below = [lay for lay in layouts_for(mem, spec) if lay.cards < layout.cards]
    return below[-1] if below else None


def cards_needed(mem: MemoryEstimate, spec: CardSpec) -> int | None:
    """Smallest valid card count that fits (see layout_needed)."""
    layout = layout_needed(mem, spec)
    return None if layout is None else layout.cards


def rule_of_thumb_cards(mem: MemoryEstimate, spec: CardSpec) -> int:
    """The card count the seeds quote: the rule-of-thumb figure's low end divided by the
    card's VRAM, rounded up, with no margin. For inference that is weights only (seed 000
    §6.1: 70B FP16 ~140 GB -> "H20 96GB双卡或H100 80GB双卡"); for training the low end of
    the method's bytes-per-parameter range (seed 003 §二). It is a floor: the exact count
    (`cards_needed`) adds KV cache, activations, runtime and the engine's budget."""
    return max(1, math.ceil(round(mem.rule_low_gb / spec.vram_gb, 9)))


def count_comparison(mem: MemoryEstimate, spec: CardSpec, layout: Layout, rule: int) -> str:
    """One sentence saying how the seeds' count and the exact count were reached and why
    they differ, so a reader holding a seed article sees both."""
    exact = layout.cards
    rule_part = (
        f"seeds' rule of thumb {mem.rule_low_gb:.1f} GB ({_rule_what(mem)}) ÷ "
        f"{spec.vram_gb:g} GB = {rule} card(s), no margin"
    )
    if mem.workload.is_training:
        per = layout_need_gb(mem, layout)
        exact_part = (
            f"exact model {mem.total_gb:.1f} GB ({per:.1f} GB per card at {exact} card(s), "
            f"{layout.label}) + {MARGIN:.0%} margin = {exact} card(s)"
        )
    else:
        exact_part = f"engine budget: {layout.label} = {exact} card(s), each " + budget_text(
            mem, card_budget(mem, spec, layout)
        )
    if rule == exact:
        return f"{rule_part}; {exact_part}: the two agree."
    if exact > rule:
        return (
            f"{rule_part}; {exact_part}. The exact count adds what the seed figure leaves out "
            f"({_left_out(mem)}): {_shortfall_text(mem, spec, layout, rule)}. {rule} card(s) is "
            "the seeds' floor, not a safe size."
        )
    return (
        f"{rule_part}; {exact_part}: the exact model needs less than the seeds' flat "
        f"bytes-per-parameter figure for this {mem.workload.precision} setup."
    )


def _shortfall_text(mem: MemoryEstimate, spec: CardSpec, layout: Layout, rule: int) -> str:
    fewer = smaller_layout(mem, spec, layout)
    if fewer is None:
        return "no smaller layout exists"
    if mem.workload.is_training:
        need = layout_need_gb(mem, fewer) * (1 + MARGIN)
        text = (
            f"at {fewer.cards} card(s) ({fewer.label}) it would need {need:.1f} GB per card "
            f"> {spec.vram_gb:g} GB"
        )
    else:
        b = card_budget(mem, spec, fewer)
        text = (
            f"at {fewer.cards} card(s) ({fewer.label}) {b.kv_room_gb:.1f} GB would be left for "
            f"KV, {b.need_gb:.1f} GB needed"
        )
    skipped = [n for n in range(fewer.cards + 1, layout.cards) if n >= rule]
    if skipped and not mem.workload.is_training and layout.dp == 1:
        text += (
            f"; {', '.join(map(str, skipped))} card(s) is no valid layout "
            "(tensor parallel runs on 1, 2, 4 or 8 cards dividing the heads)"
        )
    return text


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
    state = f" + recurrent state {mem.state_gb:.1f} GB" if mem.state_gb else ""
    return (
        f"KV cache {mem.kv_cache_gb:.1f} GB{state}, runtime, CUDA graphs and prefill "
        f"{mem.overhead_gb:.1f} GB per card, the engine's {mem.workload.gpu_memory_utilization:g} "
        "share of the card"
    )


def headroom_gb(mem: MemoryEstimate, spec: CardSpec, layout: Layout | int) -> float:
    """Memory left across the cards after the exact need: for inference what the engine's
    budget leaves beyond the requested sequences' cache, for training VRAM beyond the need."""
    if isinstance(layout, int):
        layout = Layout(dp=layout, training=True) if mem.workload.is_training else Layout(tp=layout)
    if mem.workload.is_training:
        return layout.cards * (spec.vram_gb - layout_need_gb(mem, layout))
    b = card_budget(mem, spec, layout)
    return layout.cards * (b.kv_room_gb - b.need_gb)


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
