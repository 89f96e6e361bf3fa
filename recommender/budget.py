"""The serving engine's memory budget on one card, and the KV tokens it leaves.

vLLM (and SGLang with --mem-fraction-static) takes `gpu_memory_utilization` x the card's
memory as its whole budget (vLLM CacheConfig: default 0.9). From it come the weights
shard, the non-torch runtime (CUDA context, NCCL / cuBLAS workspaces), the CUDA graphs
and the peak activations of a profiling pass; what is left is the KV cache (and a
hybrid's recurrent state), handed out in blocks to the running sequences. So the
question per layout is not "need + 20% <= VRAM" but "does the KV left hold the
sequences", and its answer is a number of tokens.

Card memory: the marketed "80 GB" of an H100 or "24 GB" of an RTX 4090 is GiB (2^30
bytes), which is what the driver reports to the engine; the budget reads it so and states
it in GB (10^9 bytes), the unit everything else here uses.

Training has no such engine: it keeps the seeds' 20% margin over the card's label
(recommender.memory.MARGIN).
"""

from __future__ import annotations

from dataclasses import dataclass

from recommender.cards import CardSpec
from recommender.layout import Layout
from recommender.memory import GB, MARGIN, MemoryEstimate, kv_cache_bytes, kv_share_per_card

GIB = 2**30


def capacity_gb(spec: CardSpec) -> float:
    """The card's memory as the driver reports it, in GB: the label read as GiB."""
    return spec.vram_gb * GIB / GB


@dataclass(frozen=True)
class CardBudget:
    """One card of one replica: where its memory goes (all GB, 10^9 bytes)."""

    capacity_gb: float
    usable_gb: float  # capacity x gpu_memory_utilization
    weights_gb: float  # this card's shard
    reserve_gb: float  # runtime + CUDA graphs + activations
    kv_room_gb: float  # left for KV cache and recurrent state
    need_gb: float  # KV + state the replica's sequences need on this card at the context
    tokens_fit: int  # KV tokens the room holds (sliding layers capped at the context)
    sequences_fit: int  # whole sequences at the requested context

    @property
    def fits(self) -> bool:
        return self.kv_room_gb > 0 and self.need_gb <= self.kv_room_gb


def card_budget(mem: MemoryEstimate, spec: CardSpec, layout: Layout) -> CardBudget:
    """The budget of one card in `layout` (inference)."""
    w, arch = mem.workload, mem.arch
    cap = capacity_gb(spec)
    usable = cap * w.gpu_memory_utilization
    tp, pp = layout.tp, layout.pp
    weights = mem.weights_gb / (tp * pp)
    reserve = mem.replicated_gb
    room = usable - weights - reserve
    context = w.context_tokens
    per_seq_kv = kv_cache_bytes(arch, w.kv_bytes, context, 1) * kv_share_per_card(arch, tp) / pp
    per_seq = per_seq_kv + arch.recurrent_state_bytes / (tp * pp)
    per_token = per_seq_kv / context
    free = max(0.0, room) * GB
    return CardBudget(
        capacity_gb=cap,
        usable_gb=usable,
        weights_gb=weights,
        reserve_gb=reserve,
        kv_room_gb=room,
        need_gb=mem.cache_per_card_gb(tp, pp, layout.dp),
        tokens_fit=int(free // per_token) if per_token else 0,
        sequences_fit=int(free // per_seq) if per_seq else 0,
    )


def layout_fits(mem: MemoryEstimate, spec: CardSpec, layout: Layout) -> bool:
    """Inference: the engine budget holds the replica's sequences. Training: the per-card
    need plus the seeds' 20% margin fits the card's label."""
    if mem.workload.is_training:
        need = mem.per_card_layout_gb(layout.tp, layout.pp, layout.dp)
        return need * (1 + MARGIN) <= spec.vram_gb
    return card_budget(mem, spec, layout).fits


def budget_text(mem: MemoryEstimate, b: CardBudget) -> str:
    """One line: where a card's memory goes and how many KV tokens are left."""
    w = mem.workload
    return (
        f"{w.gpu_memory_utilization:g} x {b.capacity_gb:.1f} GB = {b.usable_gb:.1f} GB usable "
        f"- weights {b.weights_gb:.1f} GB - reserve {b.reserve_gb:.1f} GB (runtime "
        f"{mem.runtime_gb:g}, CUDA graphs {mem.cuda_graph_gb:g}, activations "
        f"{mem.activations_gb:.2f}) = {b.kv_room_gb:.1f} GB for KV: {b.tokens_fit:,} tokens, "
        f"{b.sequences_fit:,} sequence(s) of {w.context_tokens:,}"
    )
