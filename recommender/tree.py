"""The 5-step decision tree (seed 000 §四, seed 003 §五), as one pure function.

1 task -> 2 memory -> 3 cards and count -> 4 rent mode -> 5 budget. Prices and specs
come in as arguments; nothing here touches the warehouse or the network.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from recommender.budget import card_budget
from recommender.cards import CardPrice, CardSpec, latest_prices, spec_map
from recommender.compliance import cann_porting_note, domestic_only
from recommender.memory import MARGIN, MemoryEstimate, estimate_memory
from recommender.plan import Fit, Plan
from recommender.pricing import HOURLY, breakeven, rent_modes
from recommender.result import Lever, Option, Recommendation, SourceQuote
from recommender.serve import serve_line
from recommender.sizing import (
    companion_check,
    count_comparison,
    headroom_gb,
    layout_need_gb,
    layout_needed,
    rule_of_thumb_cards,
)
from recommender.speed import (
    FP8_WEIGHT_ONLY_EFFICIENCY,
    DecodeSpeed,
    cny_per_million_tokens,
    decode_speed,
)
from recommender.steps import build_steps
from recommender.support import WEIGHT_ONLY, support
from recommender.tokens import token_cost
from recommender.workload import Workload

# Below this an online user watches text appear slower than they read (~5 words/s).
MIN_ONLINE_TOKENS_PER_S = 10.0


def recommend(
    workload: Workload,
    specs: Mapping[str, CardSpec] | Iterable[CardSpec],
    prices: Iterable[CardPrice],
    *,
    all_sources: bool = False,
) -> Recommendation:
    """Size and price `workload` on the given cards. Options are the priced cards that
    fit, cheapest first, one per card: when several sources price a card, the cheapest
    for this workload's count and hours wins (a real price before a simulated one at the
    same cost) and the others are kept in `Option.other_sources`; `all_sources=True`
    lists every (card, source) instead. `recommended` is the cheapest option that does
    not need multi-card parallelism over PCIe (else simply the cheapest)."""
    spec_by_gpu = spec_map(specs)
    price_list = latest_prices(prices)
    plan = make_plan(workload, spec_by_gpu, price_list, all_sources=all_sources)
    levers = _levers(plan, spec_by_gpu, price_list)
    alternatives = _alternatives(plan, spec_by_gpu, price_list)
    return Recommendation(
        workload=workload,
        memory=plan.memory,
        options=plan.options,
        recommended=plan.recommended,
        steps=build_steps(plan, levers, alternatives),
        levers=tuple(levers),
        alternatives=tuple(alternatives),
        unpriced=tuple((f.spec.gpu, f.count) for f in plan.unpriced),
        unfit=tuple(s.gpu for s in plan.unfit),
        excluded=plan.excluded,
        unsupported=plan.unsupported,
    )


def make_plan(
    workload: Workload,
    specs: dict[str, CardSpec],
    prices: list[CardPrice],
    *,
    all_sources: bool = False,
) -> Plan:
    memory = estimate_memory(workload)
    candidates = list(specs.values())
    excluded: tuple[str, ...] = ()
    if workload.domestic:
        kept = domestic_only(candidates)
        excluded = tuple(s.gpu for s in candidates if s not in kept)
        candidates = kept
    unsupported: list[tuple[str, str]] = []
    precision = workload.precision or "bf16"
    for spec in list(candidates):
        if not (found := support(precision, spec)).runs:
            unsupported.append(
                (spec.gpu, f"{spec.gpu} cannot run {precision.upper()} weights: {found.why}")
            )
            candidates.remove(spec)
    candidates.sort(key=lambda s: (s.vram_gb, s.gpu))

    fits: list[Fit] = []
    unfit: list[CardSpec] = []
    for spec in candidates:
        layout = layout_needed(memory, spec)
        if layout is None:
            unfit.append(spec)
        else:
            rule = rule_of_thumb_cards(memory, spec)
            comparison = count_comparison(memory, spec, layout, rule)
            fits.append(Fit(spec, layout.cards, rule, comparison, layout))

    options: list[Option] = []
    priced_gpus = {p.gpu for p in prices}
    for fit in fits:
        quoted = [
            option
            for price in prices
            if price.gpu == fit.spec.gpu and (option := _option(memory, fit, price))
        ]
        quoted.sort(key=_source_rank)
        if all_sources or len(quoted) < 2:
            options.extend(quoted)
        else:
            options.append(_with_other_sources(quoted[0], quoted[1:]))
    options.sort(key=lambda o: (o.monthly_cny, o.count, o.gpu, o.price.simulated, o.price.source))
    if workload.objective == "tokens":  # stable: at equal ¥/M the cheaper month first
        options.sort(key=lambda o: o.tokens.full.cny_per_million if o.tokens else float("inf"))
    return Plan(
        workload=workload,
        memory=memory,
        fits=tuple(fits),
        unfit=tuple(unfit),
        excluded=excluded,
        options=tuple(options),
        recommended=_pick(options, workload.objective),
        unpriced=tuple(f for f in fits if f.spec.gpu not in priced_gpus),
        unknown_priced_gpus=tuple(sorted(priced_gpus - set(specs))),
        unsupported=tuple(unsupported),
    )


def _source_rank(option: Option) -> tuple[float, bool, str]:
    """Cheapest for this workload first; at equal cost a real price before a simulated one."""
    return (round(option.monthly_cny, 2), option.price.simulated, option.price.source)


def _with_other_sources(best: Option, others: list[Option]) -> Option:
    quotes = tuple(
        SourceQuote(
            source=o.price.source,
            mode=o.mode,
            monthly_cny=o.monthly_cny,
            date=o.price.date,
            simulated=o.price.simulated,
        )
        for o in others
    )
    listed = "; ".join(
        f"{q.source} ¥{q.monthly_cny:,.2f} ({q.mode}, {q.date}{' SIMULATED' if q.simulated else ''})"
        for q in quotes
    )
    why = f"{best.why} Cheapest of {len(others) + 1} sources for this card (others: {listed})."
    return replace(best, other_sources=quotes, why=why)


def _pick(options: list[Option], objective: str = "monthly") -> Option | None:
    # Per token, the PCIe penalty is already in each layout's speed: the lowest ¥/M wins.
    if objective == "tokens":
        return options[0] if options else None
    # Seed 003 §五 step 3: multi-card prefers NVLink/HCCS; avoid tensor parallel on PCIe.
    preferred = [o for o in options if not o.pcie_multi_card]
    return (preferred or options or [None])[0]


def _option(memory: MemoryEstimate, fit: Fit, price: CardPrice) -> Option | None:
    workload, spec, count = memory.workload, fit.spec, fit.count
    modes = rent_modes(price, count, workload.hours_per_month)
    if not modes:
        return None
    chosen = modes[0]
    companion = companion_check(memory, spec, price, count, chosen.cards_rented)
    speed = None if workload.is_training else decode_speed(memory, spec, fit.layout)
    tokens = None if workload.is_training else token_cost(
        memory, spec, fit.layout, chosen.monthly_cny, price.date, price.simulated
    )  # fmt: skip
    per_million = (
        cny_per_million_tokens(chosen.monthly_cny, speed.total_tps, workload.hours_per_month)
        if speed
        else None
    )
    per_card = layout_need_gb(memory, fit.layout)
    room = headroom_gb(memory, spec, fit.layout)
    budget_cny = workload.budget_cny

    warnings = _warnings(memory, fit, price, speed) + list(companion.warnings)
    if price.simulated:
        warnings.append("SIMULATED price (demo market), not a live listing")

    unused = chosen.cards_rented - count
    rent_note = f"; pays for {unused} idle card(s) in the server" if unused > 0 else ""
    budget = None if workload.is_training else card_budget(memory, spec, fit.layout)
    fits = (
        f"{per_card:.1f} GB per card + {MARGIN:.0%} = {per_card * (1 + MARGIN):.1f} GB "
        f"<= {spec.vram_gb:g} GB"
        if budget is None
        else f"{per_card:.1f} GB per card <= {budget.usable_gb:.1f} GB the engine may use"
    )
    why = (
        f"{count} x {spec.gpu} ({spec.vram_gb:g} GB, {spec.interconnect}), layout "
        f"{fit.layout.label}: {fits}, headroom {room:.1f} GB across {count} card(s). "
        f"Card count: {fit.comparison} "
        f"{chosen.label} ¥{chosen.monthly_cny:,.2f}/month ({chosen.formula}){rent_note} is the "
        f"cheapest of {len(modes)} mode(s) at {workload.hours_per_month:g} h/month "
        f"({price.label})."
    )
    serve = {} if workload.is_training else {
        engine: serve_line(workload, spec, fit.layout, engine) for engine in ("vllm", "sglang")
    }  # fmt: skip
    return Option(
        spec=spec,
        price=price,
        count=count,
        chosen=chosen,
        modes=tuple(modes),
        per_card_gb=per_card,
        headroom_gb=room,
        rule_of_thumb_count=fit.rule_count,
        count_basis=fit.comparison,
        companion=companion,
        speed=speed,
        cny_per_million_tokens=per_million,
        breakeven=breakeven(price),
        warnings=tuple(warnings),
        why=why,
        within_budget=None if budget_cny is None else chosen.monthly_cny <= budget_cny,
        layout=fit.layout,
        budget=budget,
        serve=serve,
        support=support(workload.precision or "bf16", spec),
        tokens=tokens,
    )


def _warnings(
    memory: MemoryEstimate,
    fit: Fit,
    price: CardPrice,
    speed: DecodeSpeed | None,
) -> list[str]:
    workload, spec, count, layout = memory.workload, fit.spec, fit.count, fit.layout
    out: list[str] = []
    if layout.pcie:
        what = (
            f"ZeRO-{workload.zero_stage} / FSDP sharding"
            if workload.is_training
            else f"tensor parallelism (TP {layout.tp})"
        )
        link = f" (~{spec.link_gbs:g} GB/s)" if spec.link_gbs else ""
        penalty = (
            ""
            if workload.is_training or speed is None
            else "; the decode estimate keeps only part of the TP speed-up for it"
        )
        out.append(
            f"{what} over PCIe{link} is slow: NVLink 900 GB/s / HCCS 392 GB/s "
            "scale, PCIe does not past a few cards (seed 000 §6.3, seed 003 §三); prefer an "
            f"NVLink/HCCS card for multi-card{penalty}"
        )
    if layout.pp > 1:
        out.append(
            f"layout {layout.label}: pipeline parallel over {layout.pp} stages adds memory, "
            "not speed (each token passes the stages in turn)"
            + ("; for MoE, expert parallel over the same cards is the alternative"
               if memory.arch.is_moe and not layout.ep else "")
        )  # fmt: skip
    if layout.ep:
        out.append(
            f"expert parallel over the TP {layout.tp} x DP {layout.dp} cards "
            f"(--enable-expert-parallel): each card holds "
            f"{memory.arch.routed_experts // (layout.tp * layout.dp)} whole experts"
        )
    if count > price.cards_per_server:
        out.append(
            f"{count} cards span {-(-count // price.cards_per_server)} servers: needs "
            "InfiniBand/RoCE between them (bare metal; containers usually don't offer it)"
        )
    precision = workload.precision or "bf16"
    path = support(precision, spec)
    if precision in ("fp8", "mxfp4") and path.path == WEIGHT_ONLY:
        out.append(
            f"{spec.gpu} has no {precision.upper()} tensor cores: the weights run weight-only "
            f"({path.why}), dequantised to 16-bit per matmul; decode about "
            f"{1 - FP8_WEIGHT_ONLY_EFFICIENCY:.0%} slower than native (modelled), prefill "
            "at the 16-bit rate"
        )
    if spec.domestic:
        out.append(cann_porting_note(memory.arch))
    if speed and workload.method == "online" and speed.per_sequence_tps < MIN_ONLINE_TOKENS_PER_S:
        out.append(
            f"online decode ~{speed.per_sequence_tps:.1f} tokens/s per sequence is below "
            f"{MIN_ONLINE_TOKENS_PER_S:g} tokens/s reading speed"
        )
    return out


def _variant(
    plan: Plan,
    specs: dict[str, CardSpec],
    prices: list[CardPrice],
    name: str,
    change: str,
    changed: Workload,
) -> Lever:
    """Run the whole tree again on a changed workload and report what it buys."""
    rec, budget = plan.recommended, plan.workload.budget_cny
    base = rec.monthly_cny if rec else None
    other = make_plan(changed, specs, prices)
    r = other.recommended
    return Lever(
        name=name,
        change=change,
        total_gb=other.memory.total_gb,
        gpu=r.gpu if r else None,
        count=r.count if r else None,
        mode=r.mode if r else None,
        monthly_cny=r.monthly_cny if r else None,
        saving_cny=(base - r.monthly_cny) if (r and base is not None) else None,
        within_budget=(r.monthly_cny <= budget) if (r and budget is not None) else None,
        note=(
            f"memory {plan.memory.total_gb:.1f} -> {other.memory.total_gb:.1f} GB"
            + ("" if r else "; still no priced card fits")
        ),
    )


def _memory_variants(plan: Plan) -> list[tuple[str, str, Workload]]:
    """Changes that shrink memory: the seeds' FP16->INT8 and LoRA-instead-of-full."""
    w = plan.workload
    out: list[tuple[str, str, Workload]] = []
    if w.precision in ("fp16", "bf16") and (not w.is_training or w.method == "lora"):
        out.append(("int8", f"{w.precision.upper()} -> INT8 weights", replace(w, precision="int8")))
    if w.method in ("full", "pretrain"):
        out.append(("lora", f"LoRA (rank {w.lora_rank}) instead of {w.method}", _as_lora(w)))
    if w.method in ("full", "pretrain", "lora"):
        out.append(("qlora", "QLoRA: 4-bit base + adapters", _as_lora(w, "qlora", "int4")))
    return out


def _alternatives(plan: Plan, specs: dict[str, CardSpec], prices: list[CardPrice]) -> list[Lever]:
    """When the workload needs several cards (or none fits), show what a smaller memory
    footprint would need, budget or not (seed 003 §二: "得上多卡或者改用 LoRA")."""
    rec = plan.recommended
    if rec is not None and rec.count == 1:
        return []
    return [_variant(plan, specs, prices, *v) for v in _memory_variants(plan)]


def _levers(plan: Plan, specs: dict[str, CardSpec], prices: list[CardPrice]) -> list[Lever]:
    """Seed 000 §四 step 5 levers (FP16->INT8, fewer cards, cheaper card) plus seed 003's
    LoRA-instead-of-full, each recomputed through the tree. Only when over budget or
    when nothing fits."""
    w, rec = plan.workload, plan.recommended
    budget = w.budget_cny
    over = rec is not None and budget is not None and rec.monthly_cny > budget
    if rec is not None and not over:
        return []
    base = rec.monthly_cny if rec else None
    levers = [_variant(plan, specs, prices, *v) for v in _memory_variants(plan)]
    if w.concurrency > 1:
        half = w.concurrency // 2
        what = "micro-batch" if w.is_training else "concurrent sequences"
        change = f"halve {what} {w.concurrency} -> {half} to need fewer cards"
        levers.append(
            _variant(plan, specs, prices, "fewer_cards", change, replace(w, concurrency=half))
        )
    elif w.context_tokens > 2048:
        half = w.context_tokens // 2
        change = f"halve context {w.context_tokens:,} -> {half:,} tokens to need fewer cards"
        levers.append(
            _variant(plan, specs, prices, "fewer_cards", change, replace(w, context=half))
        )
    if rec is not None and plan.options and plan.options[0] is not rec:
        levers.append(_same_memory_lever(plan, plan.options[0], base, budget))
    if rec is not None and budget is not None and (hours := _hours_lever(plan, rec, budget)):
        levers.append(hours)
    return levers


def _as_lora(w: Workload, method: str = "lora", precision: str | None = None) -> Workload:
    return replace(w, method=method, precision=precision or w.precision, kv_precision=None)


def _same_memory_lever(
    plan: Plan, cheapest: Option, base: float | None, budget: float | None
) -> Lever:
    return Lever(
        name="cheaper_card",
        change=f"switch to {cheapest.count} x {cheapest.gpu} ({cheapest.chosen.label})",
        total_gb=plan.memory.total_gb,
        gpu=cheapest.gpu,
        count=cheapest.count,
        mode=cheapest.mode,
        monthly_cny=cheapest.monthly_cny,
        saving_cny=None if base is None else base - cheapest.monthly_cny,
        within_budget=None if budget is None else cheapest.monthly_cny <= budget,
        note="memory unchanged; " + ("; ".join(cheapest.warnings[:1]) or "no warnings"),
    )


def _hours_lever(plan: Plan, rec: Option, budget: float) -> Lever | None:
    hourly = rec.price.hourly_cny
    if hourly is None or not any(m.mode == HOURLY for m in rec.modes):
        return None
    hours = budget / (hourly * rec.count)
    if hours >= plan.workload.hours_per_month:
        return None
    return Lever(
        name="fewer_hours",
        change=f"cut usage to {hours:.0f} h/month on hourly containers",
        total_gb=plan.memory.total_gb,
        gpu=rec.gpu,
        count=rec.count,
        mode=HOURLY,
        monthly_cny=hourly * rec.count * hours,
        saving_cny=rec.monthly_cny - hourly * rec.count * hours,
        within_budget=True,
        note=f"¥{budget:,.2f} ÷ (¥{hourly:.2f}/card-h x {rec.count} card(s)) = {hours:.0f} h",
    )
