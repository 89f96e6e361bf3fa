"""The words for each tree step: what was decided, from which figures, with units."""

from __future__ import annotations

from recommender.budget import budget_text, card_budget
from recommender.layout import tp_choices
from recommender.memory import MARGIN, RUNTIME_OVERHEAD_GB, MemoryEstimate
from recommender.plan import Fit, Plan
from recommender.result import Lever, Option, Step
from recommender.sizing import layout_need_gb, smaller_layout, weight_format_in_use
from recommender.workload import Workload

_METHODS = {
    "online": "online serving (latency matters: per-sequence decode speed is checked)",
    "offline": "offline batch (throughput and ¥ per million tokens matter)",
    "full": "full-parameter fine-tune",
    "lora": "LoRA fine-tune (frozen base, low-rank adapters)",
    "qlora": "QLoRA fine-tune (4-bit frozen base, low-rank adapters)",
    "pretrain": "pretraining",
}


def build_steps(plan: Plan, levers: list[Lever], alternatives: list[Lever]) -> tuple[Step, ...]:
    return (
        Step(1, "Task", _task(plan.workload, plan.memory)),
        Step(2, "Memory", _memory(plan.memory)),
        Step(3, "Cards and count", _cards(plan, alternatives)),
        Step(4, "Rent mode", _rent(plan)),
        Step(5, "Budget", _budget(plan, levers)),
    )


def _task(w: Workload, mem: MemoryEstimate) -> str:
    a = mem.arch
    model = f"{a.name} ({a.params_b:.4g}B params, {a.attention.upper()}" + (
        f", {a.active_params_b:.4g}B active per token, MoE)" if a.is_moe else ")"
    )
    if w.is_training:
        lines = [
            f"Training, {_METHODS[w.method or 'full']}: {model}, weights {w.precision}, "
            f"sequence length {w.context_tokens:,} tokens, micro-batch {w.concurrency} per card, "
            f"dataset {w.dataset_gb:g} GB, {w.hours_per_month:g} card-hours/month per card.",
            "Training is sized by total memory (weights, gradients, optimizer state, "
            "activations) and multi-card interconnect (seed 000 §四 2A, seed 003 §五 step 1).",
        ]
    else:
        kv = w.kv_label
        lines = [
            f"Inference, {_METHODS[w.method or 'online']}: {model}, weights {w.precision}, "
            f"KV cache {kv}, {w.concurrency} concurrent sequence(s) x {w.context_tokens:,} tokens "
            f"of context, {w.hours_per_month:g} h/month.",
            "Inference is sized by model size and concurrency; VRAM decides whether it runs, "
            "bandwidth how fast (seed 000 §四 2B and §6.2).",
        ]
    if w.domestic:
        lines.append("信创 (domestic compliance) required: only domestic cards are considered.")
    return "\n".join(lines)


def _memory(mem: MemoryEstimate) -> str:
    w, a = mem.workload, mem.arch
    lines = []
    # The inference basis spells out both of its figures already.
    rule = f" = {mem.rule_low_gb:.1f}-{mem.rule_high_gb:.1f} GB" if w.is_training else ""
    margin = (
        f"; +{MARGIN:.0%} margin -> {mem.rule_high_gb * (1 + MARGIN):.1f} GB"
        if w.is_training
        else ""
    )
    lines.append(f"Rule of thumb: {mem.rule_basis}{rule}{margin}.")
    arch = "estimated architecture" if a.estimated else f"architecture from {a.source}"
    if w.is_training:
        parts = [f"weights {mem.weights_gb:.1f} GB ({mem.weights_basis})"]
        if mem.adapters_gb:
            parts.append(
                f"adapters {mem.adapters_gb:.2f} GB ({mem.adapter_params_b:.3g}B x 4 B FP32)"
            )
        parts += [
            f"gradients {mem.gradients_gb:.2f} GB",
            f"optimizer {mem.optimizer_gb:.2f} GB (Adam moments"
            + (" + FP32 master weights)" if not mem.adapters_gb else ")"),
            f"activations {mem.activations_gb:.2f} GB (checkpointed, {w.context_tokens:,} tokens x "
            f"micro-batch {w.concurrency}, incl. FP32 logits over {a.vocab:,} vocab)",
            f"runtime {RUNTIME_OVERHEAD_GB:g} GB",
        ]
        tail = f"; +{MARGIN:.0%} margin -> {mem.total_gb * (1 + MARGIN):.2f} GB on one card."
    else:
        parts = [
            f"weights {mem.weights_gb:.2f} GB ({mem.weights_basis})",
            f"KV cache {mem.kv_cache_gb:.2f} GB ({_kv_basis(mem)})",
        ]
        if mem.state_gb:
            parts.append(
                f"recurrent state {mem.state_gb:.3f} GB ({a.recurrent_state_bytes:,.0f} B per "
                f"sequence x {w.concurrency})"
            )
        parts.append(
            f"reserve {mem.overhead_gb:.2f} GB per card ({RUNTIME_OVERHEAD_GB:g} GB CUDA "
            f"context/runtime + {mem.cuda_graph_gb:g} GB CUDA graphs + "
            f"{mem.activations_gb:.2f} GB prefill activations)"
        )
        tail = (
            f". The engine may use {w.gpu_memory_utilization:g} of each card "
            "(--gpu-memory-utilization); no extra margin."
        )
    lines.append(f"Exact model ({arch}): " + " + ".join(parts) + f" = {mem.total_gb:.2f} GB{tail}")
    lines.append(
        f"Both are shown: the seeds' card counts (step 3) divide the rule of thumb's "
        f"{mem.rule_low_gb:.1f} GB ({_rule_low_what(w)}) by a card's VRAM with no margin; "
        f"the exact count needs the {mem.total_gb:.1f} GB above (shared parts split across "
        "cards, the reserve on each) to fit "
        + (f"every card with the {MARGIN:.0%} margin" if w.is_training else "the engine budget")
        + ", so it can be higher."
    )
    lines.extend(mem.notes)
    return "\n".join(lines)


def _kv_basis(mem: MemoryEstimate) -> str:
    w, a = mem.workload, mem.arch
    if a.attention == "mla":
        per = (
            f"MLA: {a.attention_layers} layers x ({a.kv_lora_rank} latent + "
            f"{a.qk_rope_head_dim} RoPE) x {w.kv_bytes:g} B"
        )
    else:
        per = (
            f"2 x {a.attention_layers} attention layers x {a.kv_heads} KV heads x {a.head_dim} "
            f"dims x {w.kv_bytes:g} B"
        )
    text = (
        f"{per} = {mem.kv_bytes_per_token:,.0f} B/token x {w.context_tokens:,} tokens x "
        f"{w.concurrency} sequence(s)"
    )
    if a.sliding_layers:
        text += (
            f"; {a.sliding_layers} {a.window_kind} layers capped at "
            f"{min(w.context_tokens, a.sliding_window or 0):,} tokens"
        )
    return text


def _rule_low_what(w: Workload) -> str:
    if w.is_training:
        return f"the low end of the {w.method} range"
    return "weights only, seed 000 §三 and §6.1"


def _cards(plan: Plan, alternatives: list[Lever]) -> str:
    lines = [_layout_rule(plan), *_fit_lines(plan), *_left_out_lines(plan, alternatives)]
    rec = plan.recommended
    if rec is None:
        lines.append("No priced card fits this workload.")
        return "\n".join(lines)
    lines.extend(_chosen_lines(plan, rec))
    return "\n".join(lines)


def _layout_rule(plan: Plan) -> str:
    """How the card count is chosen: data parallel for training, valid TP x PP layouts for
    inference."""
    mem = plan.memory
    w = plan.workload
    if w.is_training:
        return (
            "One card when it fits with the 20% margin, else the smallest data-parallel count "
            f"(any count in one 8-card server, whole servers beyond): ZeRO-{w.zero_stage} "
            "shards " + _ZERO_SHARDS[w.zero_stage] + f"; the {mem.replicated_gb:.2f} GB "
            "runtime and activations stay on each card."
        )
    choices, why_not = tp_choices(mem.arch, weight_format_in_use(mem))
    degrees = ", ".join(f"{c.tp}{' (EP)' if c.ep else ''}" for c in choices) or "none"
    ep = [c.why_ep for c in choices if c.ep]
    return (
        "Layouts an engine runs: tensor parallel (TP) over 1, 2, 4 or 8 cards of one server, "
        "the degree dividing the attention heads, dividing (or a multiple of) the KV heads "
        "and splitting every width into whole quantisation blocks; expert parallel (EP) "
        "where only the experts fail; beyond one server, pipeline stages (PP) over whole "
        "8-card servers; data-parallel (DP) replicas when one replica holds the model but "
        f"not all the sequences. {mem.arch.name}: {mem.arch.query_heads} heads, "
        f"{mem.arch.kv_heads} KV heads ({mem.arch.attention.upper()}) -> TP {degrees}"
        + (f" ({'; '.join(why_not)})" if why_not else "")
        + (f"; {'; '.join(ep)}" if ep else "")
        + ". Weights split over the replica's cards, KV cache over the KV heads (MLA: every "
        f"TP card keeps the whole latent), the {mem.replicated_gb:.2f} GB reserve stays on "
        "each card."
    )


def _fit_lines(plan: Plan) -> list[str]:
    """One line per card: the count that fits, or why it is not offered or does not fit."""
    mem = plan.memory
    lines = []
    for fit in plan.fits:
        s = fit.spec
        per = layout_need_gb(mem, fit.layout)
        fits = (
            f"{per:.1f} GB each + {MARGIN:.0%} = {per * (1 + MARGIN):.1f} GB <= {s.vram_gb:g} GB"
            if mem.workload.is_training
            else budget_text(mem, card_budget(mem, s, fit.layout))
        )
        lines.append(
            f"- {s.gpu} ({s.vram_gb:g} GB, {s.interconnect}): {fit.count} card(s) by the exact "
            f"model ({fit.layout.label}), {fits}; seeds' rule of thumb {fit.rule_count} card(s) "
            f"({mem.rule_low_gb:.1f} GB ÷ {s.vram_gb:g} GB, no margin)"
            + ("; multi-card over PCIe is slow" if fit.layout.pcie else "")
        )
    for gpu, why in plan.unsupported:
        lines.append(f"- {gpu}: not offered, {why}")
    for s in plan.unfit:
        lines.append(f"- {s.gpu} ({s.vram_gb:g} GB): does not fit even on 64 cards")
    differ = [f for f in plan.fits if f.count > f.rule_count]
    if differ:
        held = f"the exact need + {MARGIN:.0%}" if mem.workload.is_training else "the sequences"
        lines.append(
            f"Where the exact count is higher than the seeds' count, fewer cards would not hold {held}: "
            + "; ".join(_shortfall(mem, f) for f in differ)
            + ". The seeds' count is a floor, not a safe size (seed 000 建议4)."
        )
    return lines


def _left_out_lines(plan: Plan, alternatives: list[Lever]) -> list[str]:
    """What the filter, the listings or the specs left out, and the smaller footprints."""
    lines = []
    if plan.excluded:
        lines.append("Left out by the domestic filter: " + ", ".join(plan.excluded) + ".")
    if plan.unpriced:
        lines.append(
            "Fit but have no price in the given listings: "
            + ", ".join(f"{f.count} x {f.spec.gpu}" for f in plan.unpriced)
            + "."
        )
    if plan.unknown_priced_gpus:
        lines.append(
            "Prices ignored for cards without a spec: " + ", ".join(plan.unknown_priced_gpus)
        )
    if alternatives:
        lines.append("Needs more than one card; smaller footprints (seed 003 §二), recomputed:")
        lines.extend(f"- {_lever_line(a)}" for a in alternatives)
    return lines


def _chosen_lines(plan: Plan, rec: Option) -> list[str]:
    """The pick, why it beat a cheaper PCIe fit, and its companion check (CPU, RAM, disk)."""
    lines = []
    if plan.options[0] is not rec:
        lines.append(
            f"Cheapest fit {plan.options[0].count} x {plan.options[0].gpu} needs multi-card "
            f"over PCIe; preferring {rec.count} x {rec.gpu} ({rec.spec.interconnect})."
        )
    layout = f", {rec.layout.label}" if rec.layout is not None else ""
    lines.append(f"Chosen: {rec.count} x {rec.gpu}{layout}. Companion check ({rec.price.label}):")
    c = rec.companion
    lines.append(
        f"  CPU {c.cpu_listed if c.cpu_listed is not None else '?'} cores listed vs "
        f"{c.cpu_needed} needed; RAM {_opt(c.ram_listed_gb)} GB listed vs "
        f"{c.ram_needed_gb:.0f} GB needed (1.5 x VRAM); disk {_opt(c.disk_listed_gb)} GB "
        f"listed vs {c.disk_needed_gb:.1f} GB needed ({c.disk_basis})."
    )
    for warning in rec.warnings:
        lines.append(f"  ! {warning}")
    return lines


_ZERO_SHARDS = {
    0: "nothing (plain data parallel: every card holds everything)",
    1: "the optimizer state across the cards",
    2: "optimizer state and gradients across the cards",
    3: "weights, gradients and optimizer state across the cards",
}


def _shortfall(mem: MemoryEstimate, fit: Fit) -> str:
    below = smaller_layout(mem, fit.spec, fit.layout)
    if below is None:
        return f"{fit.spec.gpu} {fit.rule_count} -> {fit.count}"
    if mem.workload.is_training:
        need = layout_need_gb(mem, below) * (1 + MARGIN)
        short = f"{need:.1f} GB each > {fit.spec.vram_gb:g} GB"
    else:
        b = card_budget(mem, fit.spec, below)
        short = f"{b.kv_room_gb:.1f} GB left for KV < {b.need_gb:.1f} GB needed"
    return f"{fit.spec.gpu} {fit.rule_count} -> {fit.count} ({below.cards} card(s), {below.label}: {short})"


def _opt(value: float | None) -> str:
    return "?" if value is None else f"{value:,.0f}"


def _rent(plan: Plan) -> str:
    rec, w = plan.recommended, plan.workload
    if rec is None:
        return "No option to price."
    lines = [f"At {w.hours_per_month:g} h/month, {rec.count} x {rec.gpu} ({rec.price.label}):"]
    for m in rec.modes:
        mark = "  <- cheapest" if m is rec.chosen else ""
        lines.append(f"- {m.label}: ¥{m.monthly_cny:,.2f}/month ({m.formula}){mark}")
    be = rec.breakeven
    if be is not None and (be.hours_vs_hourly or be.hours_vs_monthly_plan):
        parts = []
        if be.hours_vs_hourly:
            parts.append(f"÷ ¥{rec.price.hourly_cny:.2f}/h = {be.hours_vs_hourly:.0f} h vs hourly")
        if be.hours_vs_monthly_plan:
            parts.append(
                f"÷ ¥{rec.price.monthly_plan_cny_per_hour:.2f}/h = "
                f"{be.hours_vs_monthly_plan:.0f} h vs the monthly-plan rate"
            )
        lines.append(
            f"Breakeven (seed 003 §六): bare metal ¥{be.bare_metal_cny_per_card_month:,.0f} per "
            f"card-month " + ", ".join(parts) + f" ({rec.price.date}); it only holds when all "
            f"{rec.price.cards_per_server} cards of the server are used."
        )
    if rec.speed is not None:
        s = rec.speed
        lines.append(
            f"Decode upper bound ≤ {s.per_sequence_tps:.1f} tokens/s per sequence, ≤ "
            f"{s.total_tps:.0f} tokens/s total ({s.bound}: {s.formula}; latency floor "
            f"{s.floor_formula}); ¥{rec.cny_per_million_tokens:,.2f} per million output tokens "
            f"at that bound and the {rec.chosen.label} price ({rec.price.date})."
        )
    return "\n".join(lines)


def _budget(plan: Plan, levers: list[Lever]) -> str:
    rec, budget = plan.recommended, plan.workload.budget_cny
    lines = []
    if rec is None:
        lines.append("Nothing fits, so no cost; the levers below show what would.")
    elif budget is None:
        lines.append(
            f"No budget given; {rec.count} x {rec.gpu} costs ¥{rec.monthly_cny:,.2f}/month "
            f"({rec.price.date})."
        )
    elif rec.monthly_cny <= budget:
        lines.append(
            f"¥{rec.monthly_cny:,.2f}/month <= budget ¥{budget:,.2f}/month: within budget, "
            f"¥{budget - rec.monthly_cny:,.2f} to spare ({rec.price.date})."
        )
    else:
        lines.append(
            f"¥{rec.monthly_cny:,.2f}/month > budget ¥{budget:,.2f}/month by "
            f"¥{rec.monthly_cny - budget:,.2f} ({rec.price.date}). Levers (seed 000 §四 step 5, "
            "seed 003 §二), each recomputed:"
        )
        affordable = [o for o in plan.options if o.within_budget]
        if affordable:
            o = affordable[0]
            lines.append(
                f"Cheapest option within budget: {o.count} x {o.gpu}, {o.chosen.label}, "
                f"¥{o.monthly_cny:,.2f}/month" + (f" ({o.warnings[0]})" if o.warnings else "")
            )
    for lever in levers:
        lines.append("- " + _lever_line(lever))
    return "\n".join(lines)


def _lever_line(lever: Lever) -> str:
    if lever.gpu is None:
        return f"{lever.change}: {lever.note}."
    verdict = ""
    if lever.within_budget is not None:
        verdict = ", within budget" if lever.within_budget else ", still over budget"
    saving = f", saves ¥{lever.saving_cny:,.2f}" if lever.saving_cny is not None else ""
    return (
        f"{lever.change}: {lever.count} x {lever.gpu} ({lever.mode}) "
        f"¥{lever.monthly_cny or 0:,.2f}/month{saving}{verdict}; {lever.note}."
    )
