"""The recommendation the tree returns, and its JSON shape."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from recommender.budget import CardBudget
from recommender.cards import CardPrice, CardSpec
from recommender.layout import Layout
from recommender.memory import (
    CUDA_GRAPH_GB,
    MARGIN,
    RUNTIME_OVERHEAD_GB,
    MemoryEstimate,
)
from recommender.pricing import MONTH_HOURS, Breakeven, ModeCost
from recommender.serve import ServeLine
from recommender.sizing import CPU_CORES_PER_CARD, MAX_CARDS, RAM_PER_VRAM, Companion
from recommender.speed import (
    ALLREDUCE_US,
    DECODE_BANDWIDTH_EFFICIENCY,
    DECODE_COMPUTE_EFFICIENCY,
    FP8_WEIGHT_ONLY_EFFICIENCY,
    LAYER_FLOOR_US,
    MOE_LAYER_FLOOR_US,
    PCIE_TP_EFFICIENCY,
    PP_HOP_US,
    DecodeSpeed,
)
from recommender.support import Support
from recommender.tokens import ApiComparison, TokenCost, TokenRate, compare_api
from recommender.weights import INT4_GROUP_OVERHEAD
from recommender.workload import Workload


@dataclass(frozen=True)
class SourceQuote:
    """What another source would charge for the same card, count and hours."""

    source: str
    mode: str
    monthly_cny: float
    date: str
    simulated: bool


@dataclass(frozen=True)
class Option:
    """One card type at one source, at the smallest count that fits, in its cheapest mode."""

    spec: CardSpec
    price: CardPrice
    count: int
    chosen: ModeCost
    modes: tuple[ModeCost, ...]
    per_card_gb: float
    headroom_gb: float
    rule_of_thumb_count: int  # the seeds' count: rule-of-thumb low end ÷ VRAM, no margin
    count_basis: str  # both counts and why they differ
    companion: Companion
    speed: DecodeSpeed | None
    cny_per_million_tokens: float | None
    breakeven: Breakeven | None
    warnings: tuple[str, ...]
    why: str
    within_budget: bool | None
    other_sources: tuple[SourceQuote, ...] = ()
    layout: Layout | None = None
    budget: CardBudget | None = None  # inference: the engine budget of one card
    serve: dict[str, ServeLine] = field(default_factory=dict)  # engine -> command
    support: Support | None = None  # how the card runs the weights' format
    tokens: TokenCost | None = None  # inference: ¥ per million tokens (best-case estimate)

    def api_comparison(self, api_cny_per_million: float | None) -> ApiComparison | None:
        if self.tokens is None or api_cny_per_million is None:
            return None
        return compare_api(self.tokens, api_cny_per_million)

    @property
    def gpu(self) -> str:
        return self.spec.gpu

    @property
    def mode(self) -> str:
        return self.chosen.mode

    @property
    def monthly_cny(self) -> float:
        return self.chosen.monthly_cny

    @property
    def pcie_multi_card(self) -> bool:
        """Tensor / ZeRO-3 parallelism over PCIe: works, but scales badly (seed 000 §6.3)."""
        if self.layout is not None:
            return self.layout.pcie
        return self.count > 1 and not self.spec.fast_interconnect

    def to_dict(self) -> dict[str, Any]:
        speed, be = self.speed, self.breakeven
        return {
            "gpu": self.gpu,
            "count": self.count,
            "mode": self.mode,
            "mode_label": self.chosen.label,
            "monthly_cny": _cny(self.monthly_cny),
            "monthly_formula": self.chosen.formula,
            "servers": self.chosen.servers,
            "cards_rented": self.chosen.cards_rented,
            "mode_costs": [
                {"mode": m.mode, "monthly_cny": _cny(m.monthly_cny), "formula": m.formula}
                for m in self.modes
            ],
            "vram_gb": self.spec.vram_gb,
            "per_card_gb": _gb(self.per_card_gb),
            "per_card_with_margin_gb": _gb(self.per_card_gb * (1 + MARGIN)),
            "engine_budget": _budget(self.budget),
            "kv_tokens_fit": self.budget.tokens_fit if self.budget else None,
            "serve": {
                engine: {"command": line.command, "note": line.note}
                for engine, line in self.serve.items()
            },
            "format_support": None
            if self.support is None
            else {"path": self.support.path, "why": self.support.why},
            "headroom_gb": _gb(self.headroom_gb),
            "rule_of_thumb_count": self.rule_of_thumb_count,
            "exact_count": self.count,
            "layout": _layout(self.layout),
            "fp8_support": self.spec.fp8_path,
            "count_basis": self.count_basis,
            "interconnect": self.spec.interconnect,
            "fast_interconnect": self.spec.fast_interconnect,
            "pcie_multi_card": self.pcie_multi_card,
            "domestic": self.spec.domestic,
            "why": self.why,
            "warnings": list(self.warnings),
            "companion": _companion(self.companion),
            "tokens_per_s_per_sequence": _round(speed.per_sequence_tps if speed else None, 1),
            "tokens_per_s_total": _round(speed.total_tps if speed else None, 1),
            "decode_bound": speed.bound if speed else None,
            "decode_upper_bound": True if speed else None,
            "decode_formula": speed.formula if speed else None,
            "decode_latency_floor_ms": _round(speed.floor_ms if speed else None, 4),
            "decode_latency_floor_formula": speed.floor_formula if speed else None,
            "decode_assumptions": list(speed.assumptions) if speed else [],
            "cny_per_million_tokens": _round(self.cny_per_million_tokens, 2),
            "token_cost": _token_cost(self.tokens),
            "breakeven_hours_vs_hourly": _round(be.hours_vs_hourly if be else None, 1),
            "breakeven_hours_vs_monthly_plan": _round(be.hours_vs_monthly_plan if be else None, 1),
            "within_budget": self.within_budget,
            "price_source": self.price.source,
            "price_observed_at": self.price.observed_at.isoformat(),
            "price_date": self.price.date,
            "simulated": self.price.simulated,
            "other_sources": [
                {
                    "source": q.source,
                    "mode": q.mode,
                    "monthly_cny": _cny(q.monthly_cny),
                    "price_date": q.date,
                    "simulated": q.simulated,
                }
                for q in self.other_sources
            ],
        }


@dataclass(frozen=True)
class Step:
    step: int
    title: str
    reasoning: str


@dataclass(frozen=True)
class Lever:
    """A budget lever, recomputed through the whole tree rather than estimated."""

    name: str
    change: str
    total_gb: float | None
    gpu: str | None
    count: int | None
    mode: str | None
    monthly_cny: float | None
    saving_cny: float | None
    within_budget: bool | None
    note: str

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["total_gb"] = _round(self.total_gb, 3)
        out["monthly_cny"] = _round(self.monthly_cny, 2)
        out["saving_cny"] = _round(self.saving_cny, 2)
        return out


@dataclass(frozen=True)
class Recommendation:
    workload: Workload
    memory: MemoryEstimate
    options: tuple[Option, ...]
    recommended: Option | None
    steps: tuple[Step, ...]
    levers: tuple[Lever, ...]
    alternatives: tuple[Lever, ...]  # smaller-footprint variants when several cards are needed
    unpriced: tuple[tuple[str, int], ...]  # (gpu, count) that fit but have no price
    unfit: tuple[str, ...]  # gpus that don't fit even at MAX_CARDS
    excluded: tuple[str, ...]  # gpus left out by the domestic filter
    unsupported: tuple[tuple[str, str], ...] = ()  # (gpu, why): e.g. FP8 weights, no path

    @property
    def runners_up(self) -> tuple[Option, ...]:
        """The next two options after the pick, in the objective's order."""
        return tuple(o for o in self.options if o is not self.recommended)[:2]

    @property
    def cheaper_skipped(self) -> Option | None:
        """The option with the lowest monthly bill, when it is cheaper than the pick."""
        pick = self.recommended
        cheaper = [o for o in self.options if pick is not None and o.monthly_cny < pick.monthly_cny]
        return min(cheaper, key=lambda o: o.monthly_cny) if cheaper else None

    @property
    def why_not_cheaper(self) -> str | None:
        """One sentence when an option with a lower monthly bill is not the pick: why (the
        pick avoids tensor parallel over PCIe, or costs less per token)."""
        pick, other = self.recommended, self.cheaper_skipped
        if pick is None or other is None:
            return None
        what = f"{other.count} x {other.gpu} at ¥{other.monthly_cny:,.2f}/month"
        if self.workload.objective == "tokens" and pick.tokens and other.tokens:
            return (
                f"Not the cheaper {what}: per token it costs ¥"
                f"{other.tokens.full.cny_per_million:,.2f}/M output tokens at its largest batch, "
                f"the pick ¥{pick.tokens.full.cny_per_million:,.2f}/M (--objective tokens)"
            )
        link = other.layout.label if other.layout is not None else f"{other.count} cards"
        return (
            f"Not the cheaper {what}: it splits the model over PCIe ({link}, no NVLink/HCCS), "
            "which scales badly (seed 000 §6.3, seed 003 §五 step 3); the pick keeps the "
            "model on one card or a fast link"
        )

    def to_dict(self) -> dict[str, Any]:
        budget = self.workload.budget_cny
        rec = self.recommended
        return {
            "workload": asdict(self.workload) | {"model": self.workload.model_name},
            "model": _model(self.memory),
            "memory": _memory(self.memory),
            "steps": [asdict(s) for s in self.steps],
            "options": [o.to_dict() | {"recommended": o is rec} for o in self.options],
            "recommended": None if rec is None else rec.to_dict(),
            "objective": self.workload.objective,
            "why_not_cheaper": self.why_not_cheaper,
            "compare_api": _api(rec, self.workload.api_cny_per_million),
            "budget": {
                "budget_cny": budget,
                "monthly_cny": None if rec is None else _cny(rec.monthly_cny),
                "within_budget": None if rec is None else rec.within_budget,
                "levers": [lever.to_dict() for lever in self.levers],
            },
            "alternatives": [a.to_dict() for a in self.alternatives],
            "unpriced": [{"gpu": g, "count": n} for g, n in self.unpriced],
            "unfit": list(self.unfit),
            "excluded_by_domestic_filter": list(self.excluded),
            "unsupported": [{"gpu": g, "why": why} for g, why in self.unsupported],
            "warnings": [w for w in (self.workload.context_warning,) if w],
            "assumptions": {
                "gb": "10^9 bytes",
                "card_memory": "the label read as GiB (what the driver reports), stated in GB",
                "gpu_memory_utilization": self.workload.gpu_memory_utilization,
                "margin": MARGIN,
                "margin_applies_to": "training only; serving uses the engine budget",
                "runtime_overhead_gb": RUNTIME_OVERHEAD_GB,
                "cuda_graph_gb": CUDA_GRAPH_GB,
                "decode_latency_floor_us": {
                    "per_layer": LAYER_FLOOR_US,
                    "per_all_reduce": ALLREDUCE_US,
                    "per_moe_layer": MOE_LAYER_FLOOR_US,
                    "per_pipeline_hop": PP_HOP_US,
                },
                "month_hours_for_monthly_plan": MONTH_HOURS,
                "decode_bandwidth_efficiency": DECODE_BANDWIDTH_EFFICIENCY,
                "decode_compute_efficiency": DECODE_COMPUTE_EFFICIENCY,
                "ram_per_vram": RAM_PER_VRAM,
                "cpu_cores_per_card": CPU_CORES_PER_CARD[self.workload.task],
                "max_cards": MAX_CARDS,
                "layouts": "TP 1/2/4/8 within one 8-card server (degree divides the heads, "
                "divides or is a multiple of the KV heads, splits every width, and keeps "
                "block-quantised shards whole blocks; expert parallel where only the experts "
                "fail or would be cut below 128 columns); beyond: PP over whole servers; DP "
                "replicas when one replica holds the model but not all the sequences",
                "pcie_tp_efficiency": PCIE_TP_EFFICIENCY,
                "fp8_weight_only_efficiency": FP8_WEIGHT_ONLY_EFFICIENCY,
                "int4_group_overhead_bytes_per_param": round(INT4_GROUP_OVERHEAD, 5),
                "moe_decode": "routed experts read per step = E x (1 - (1 - k/E)^sequences)",
                "decode_kv": "KV read at the full context; MLA latent read on every TP card",
                "zero_stage": self.workload.zero_stage if self.workload.is_training else None,
            },
        }


def _rate(r: TokenRate) -> dict[str, Any]:
    return {
        "sequences": r.sequences,
        "tokens_per_s_total": round(r.total_tps, 1),
        "tokens_per_s_per_sequence": round(r.per_sequence_tps, 1),
        "decode_bound": r.bound,
        "cny_per_million_output_tokens": round(r.cny_per_million, 4),
    }


def _token_cost(t: TokenCost | None) -> dict[str, Any] | None:
    if t is None:
        return None
    return {
        "label": t.label,
        "one_sequence": _rate(t.one),
        "largest_batch": _rate(t.full) | {"limit": t.batch_limit},
        "prefill_tokens_per_s": round(t.prefill_tps, 1),
        "cny_per_million_input_tokens": round(t.prefill_cny_per_million, 4),
        "monthly_cny": _cny(t.monthly_cny),
        "hours_per_month": t.hours_per_month,
        "price_date": t.price_date,
        "simulated": t.simulated,
        "formula": t.formula,
    }


def _api(rec: Option | None, api: float | None) -> dict[str, Any] | None:
    found = None if rec is None else rec.api_comparison(api)
    if found is None or rec is None:
        return None
    return {
        "api_cny_per_million_output_tokens": found.api_cny_per_million,
        "breakeven_million_tokens_per_day": round(found.breakeven_m_per_day, 3),
        "capacity_million_tokens_per_day": round(found.capacity_m_per_day, 3),
        "self_hosting_can_beat_api": found.beats_api,
        "sentence": found.sentence(rec.monthly_cny),
    }


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def _gb(value: float) -> float:
    return round(value, 3)


def _cny(value: float) -> float:
    return round(value, 2)


def _layout(layout: Layout | None) -> dict[str, Any] | None:
    if layout is None:
        return None
    return {
        "ep": layout.ep,
        "label": layout.label,
        "tp": layout.tp,
        "pp": layout.pp,
        "dp": layout.dp,
        "nodes": layout.nodes,
        "cards": layout.cards,
        "pcie": layout.pcie,
    }


def _model(mem: MemoryEstimate) -> dict[str, Any]:
    a = mem.arch
    fmt = a.quantization
    return {
        "name": a.name,
        "params_b": round(a.params_b, 4),
        "active_params_b": round(a.active_params_b, 4),
        "moe": a.is_moe,
        "attention": a.attention,
        "kv_bytes_per_token": round(mem.kv_bytes_per_token),
        "layers": a.layers,
        "hidden": a.hidden,
        "heads": a.query_heads,
        "kv_heads": a.kv_heads,
        "head_dim": a.head_dim,
        "kv_lora_rank": a.kv_lora_rank or None,
        "qk_rope_head_dim": a.qk_rope_head_dim or None,
        "sliding_window": a.sliding_window,
        "sliding_layers": a.sliding_layers,
        "window_kind": a.window_kind if a.sliding_layers else None,
        "attention_layers": a.attention_layers,
        "recurrent_layers": a.recurrent_layers,
        "recurrent_state_bytes_per_sequence": round(a.recurrent_state_bytes),
        "layer_mix": a.layer_mix or None,
        "total_params_b": round(a.total_params_b, 4),
        "vision_params_b": round(a.vision_params_b, 4),
        "vision": a.vision_note or None,
        "max_position_embeddings": a.max_position_embeddings,
        "params_by_group": None if a.params is None else asdict(a.params),
        "repo_id": a.repo_id,
        "experts": {
            "routed": a.routed_experts,
            "shared": a.shared_experts,
            "per_token": a.experts_per_token,
            "moe_layers": a.moe_layers,
            "first_dense_layers": a.first_dense_layers,
        }
        if a.routed_experts
        else None,
        "vocab": a.vocab,
        "tied_embeddings": a.tied_embeddings,
        "quantization": None
        if fmt is None
        else {
            "method": fmt.method,
            "precision": fmt.precision,
            "bytes_per_param": round(fmt.bytes_per_param, 6),
            "detail": fmt.detail,
            "not_converted": sorted(fmt.not_converted),
            "block": list(fmt.block) if fmt.block else None,
            "kv_cache_dtype": fmt.kv_cache_dtype,
        },
        "checkpoint_gb": None if a.checkpoint_gb is None else round(a.checkpoint_gb, 3),
        "architecture": "estimated" if a.estimated else "config",
        "source": a.source,
        "figure_sources": a.sources(),
    }


def _memory(mem: MemoryEstimate) -> dict[str, Any]:
    out: dict[str, Any] = {
        "weights_gb": _gb(mem.weights_gb),
        "weights_basis": mem.weights_basis,
        "kv_cache_gb": _gb(mem.kv_cache_gb),
        "kv_dtype": mem.workload.kv_dtype,
        "kv_label": mem.workload.kv_label,
        "kv_bytes_per_token": round(mem.kv_bytes_per_token),
        "recurrent_state_gb": _gb(mem.state_gb),
        "cuda_graph_gb": mem.cuda_graph_gb,
        "overhead_gb": _gb(mem.overhead_gb),
        "total_gb": _gb(mem.total_gb),
        "total_with_margin_gb": _gb(mem.total_gb * (1 + MARGIN)),
        "rule_of_thumb_gb": _gb(mem.rule_high_gb),
        "rule_of_thumb_low_gb": _gb(mem.rule_low_gb),
        "rule_of_thumb_high_gb": _gb(mem.rule_high_gb),
        "rule_of_thumb_with_margin_gb": _gb(mem.rule_high_gb * (1 + MARGIN)),
        "rule_of_thumb_basis": mem.rule_basis,
        "rule_vs_exact": (
            f"Card counts are given both ways: rule_of_thumb_count = rule_of_thumb_low_gb "
            f"({_gb(mem.rule_low_gb)} GB, "
            + (
                "weights only, seed 000 §三/§6.1"
                if not mem.workload.is_training
                else "low end of the seeds' bytes-per-parameter range"
            )
            + ") ÷ card VRAM, no margin, as the seeds count; exact_count "
            + (
                f"fits total_gb with shared parts split across cards plus the {MARGIN:.0%} "
                "margin on each card."
                if mem.workload.is_training
                else "fits weights, KV cache, recurrent state and the reserve within "
                f"{mem.workload.gpu_memory_utilization:g} of each card (the engine budget)."
            )
        ),
        "sharded_gb": _gb(mem.sharded_gb),
        "per_card_fixed_gb": _gb(mem.replicated_gb),
        "margin": MARGIN,
        "notes": list(mem.notes),
    }
    if mem.workload.is_training:
        out |= {
            "gradients_gb": _gb(mem.gradients_gb),
            "optimizer_gb": _gb(mem.optimizer_gb),
            "activations_gb": _gb(mem.activations_gb),
            "adapters_gb": _gb(mem.adapters_gb),
            "adapter_params_b": round(mem.adapter_params_b, 4),
            "checkpoint_gb": _gb(mem.checkpoint_gb),
        }
    else:
        out["prefill_activations_gb"] = _gb(mem.activations_gb)
    return out


def _budget(b: CardBudget | None) -> dict[str, Any] | None:
    if b is None:
        return None
    return {
        "capacity_gb": _gb(b.capacity_gb),
        "usable_gb": _gb(b.usable_gb),
        "weights_gb": _gb(b.weights_gb),
        "reserve_gb": _gb(b.reserve_gb),
        "kv_room_gb": _gb(b.kv_room_gb),
        "need_gb": _gb(b.need_gb),
        "tokens_fit": b.tokens_fit,
        "sequences_fit": b.sequences_fit,
    }


def _companion(c: Companion) -> dict[str, Any]:
    return {
        "cpu_cores_needed": c.cpu_needed,
        "cpu_cores_listed": c.cpu_listed,
        "ram_needed_gb": _gb(c.ram_needed_gb),
        "ram_listed_gb": c.ram_listed_gb,
        "disk_needed_gb": _gb(c.disk_needed_gb),
        "disk_listed_gb": c.disk_listed_gb,
        "disk_basis": c.disk_basis,
        "ok": not c.warnings,
    }
