"""Plain-text answers, for the CLI and for pasting into tickets.

`render_short` is the default: about ten lines (never more than 25) with the pick, the KV
tokens it leaves, the serve command and the two runners-up. `render_text(verbose=True)`
adds the five steps' full reasoning and every option.
"""

from __future__ import annotations

from recommender.budget import CardBudget
from recommender.memory import MARGIN
from recommender.result import Option, Recommendation

MAX_SHORT_LINES = 25
_SHOWN_WARNINGS = 3


def render_text(rec: Recommendation, *, verbose: bool = False, engine: str = "vllm") -> str:
    short = render_short(rec, engine=engine)
    if not verbose:
        return short
    out = [short.rstrip(), "", "Reasoning:", ""]
    for step in rec.steps:
        out.append(f"Step {step.step}: {step.title}")
        out.extend(f"  {line}" for line in step.reasoning.splitlines())
        out.append("")
    hours = rec.workload.hours_per_month
    if rec.options:
        out.append(f"Options that fit, cheapest first (at {hours:g} h/month):")
        for i, option in enumerate(rec.options, 1):
            out.append(_option_line(i, option, option is rec.recommended))
    else:
        out.append("Options: none of the priced cards fits.")
    return "\n".join(out).rstrip() + "\n"


def render_short(rec: Recommendation, *, engine: str = "vllm") -> str:
    """The answer in about ten lines."""
    lines = [_workload_line(rec)]
    pick = rec.recommended
    if pick is None:
        lines += _nothing_fits(rec)
    else:
        lines += _pick_lines(rec, pick, engine)
    lines += _runners_up(rec)
    lines += _warning_lines(rec, pick)
    lines.append(
        "GB = 10^9 bytes, money in CNY; --verbose for the reasoning, --json for every field."
    )
    return "\n".join(lines[:MAX_SHORT_LINES]) + "\n"


def _workload_line(rec: Recommendation) -> str:
    w, a = rec.workload, rec.memory.arch
    moe = f", {a.active_params_b:.3g}B active" if a.is_moe else ""
    vision = f" + {a.vision_params_b:.2g}B vision" if a.vision_params_b else ""
    task = f"{w.task} ({w.method}), weights {(w.precision or 'bf16').upper()}" + (
        f", KV {w.kv_label.split(' (')[0]}" if not w.is_training else ""
    )
    return (
        f"{a.name}: {a.params_b:.4g}B params{moe}{vision}; {task}; {w.context_tokens:,} tokens x "
        f"{w.concurrency} sequence(s), {w.hours_per_month:g} h/month"
    )


def _pick_lines(rec: Recommendation, o: Option, engine: str) -> list[str]:
    mem = rec.memory
    layout = o.layout.label if o.layout is not None else f"{o.count} card(s)"
    lines = [
        f"Pick: {o.count} x {o.gpu} ({o.spec.vram_gb:g} GB), {layout}, {o.chosen.label}: "
        f"¥{o.monthly_cny:,.2f}/month ({o.price.label})"
    ]
    if o.budget is not None:
        lines.append(_budget_line(rec, o.budget))
    else:
        lines.append(
            f"Memory: {o.per_card_gb:.1f} GB per card + {MARGIN:.0%} margin <= "
            f"{o.spec.vram_gb:g} GB (training)"
        )
    lines.append(
        f"Seeds' rule of thumb: {mem.rule_low_gb:.1f}-{mem.rule_high_gb:.1f} GB -> "
        f"{o.rule_of_thumb_count} card(s), no margin; exact: {o.count} card(s)"
    )
    if o.speed is not None:
        s = o.speed
        lines.append(
            f"Decode: {s.label}; {s.total_tps:,.0f} tokens/s total; latency floor "
            f"{s.floor_ms:.2f} ms/step"
        )
    if o.tokens is not None:
        lines.append(_token_line(rec, o))
        if (api := o.api_comparison(rec.workload.api_cny_per_million)) is not None:
            lines.append("API: " + api.sentence(o.monthly_cny))
    if (line := o.serve.get(engine)) is not None:
        lines.append(f"Serve: {line.command}")
        if line.note:
            lines.append(f"  # {line.note}")
    return lines


def _token_line(rec: Recommendation, o: Option) -> str:
    t = o.tokens
    assert t is not None
    sim = ", SIMULATED price" if t.simulated else ""
    return (
        f"Per token ({t.label}, price of {t.price_date}{sim}): "
        f"¥{t.one.cny_per_million:,.2f}/M output tokens at 1 sequence, "
        f"¥{t.full.cny_per_million:,.2f}/M at {t.full.sequences:,} sequences "
        f"({t.full.total_tps:,.0f} tokens/s, {t.batch_limit}); "
        f"input ¥{t.prefill_cny_per_million:,.2f}/M (prefill)"
    )


def _budget_line(rec: Recommendation, b: CardBudget) -> str:
    w = rec.workload
    return (
        f"KV: {b.tokens_fit:,} tokens fit per replica ({b.sequences_fit:,} sequence(s) of "
        f"{w.context_tokens:,}), KV {w.kv_label.split(' (')[0]}: {w.gpu_memory_utilization:g} x "
        f"{b.capacity_gb:.1f} GB - weights {b.weights_gb:.1f} GB - reserve {b.reserve_gb:.1f} GB "
        f"= {b.kv_room_gb:.1f} GB per card"
    )


def _runners_up(rec: Recommendation) -> list[str]:
    others = rec.runners_up
    if not others:
        return []
    lines = ["Runners-up:"]
    for o in others:
        layout = o.layout.label if o.layout is not None else f"{o.count} card(s)"
        kv = f", KV {o.budget.tokens_fit:,} tokens" if o.budget is not None else ""
        per_token = (
            f", ¥{o.tokens.full.cny_per_million:,.2f}/M output tokens at "
            f"{o.tokens.full.sequences:,} sequences"
            if o.tokens is not None
            else ""
        )
        lines.append(
            f"  {o.count} x {o.gpu}, {layout}, {o.chosen.label}: ¥{o.monthly_cny:,.2f}/month"
            f"{kv}{per_token} ({o.price.label})"
        )
    if (why := rec.why_not_cheaper) is not None:
        lines.append(why)
    return lines


def _nothing_fits(rec: Recommendation) -> list[str]:
    lines = ["Pick: none of the priced cards fits this workload."]
    if rec.unpriced:
        lines.append("Fit but unpriced: " + ", ".join(f"{n} x {g}" for g, n in rec.unpriced))
    levers = [lv for lv in (*rec.levers, *rec.alternatives) if lv.gpu is not None][:2]
    for lever in levers:
        lines.append(
            f"Would fit: {lever.change}: {lever.count} x {lever.gpu} "
            f"¥{lever.monthly_cny or 0:,.2f}/month"
        )
    return lines


def _warning_lines(rec: Recommendation, pick: Option | None) -> list[str]:
    warnings = [w for w in (rec.workload.context_warning,) if w]
    warnings += list(pick.warnings) if pick is not None else []
    if rec.unsupported:
        warnings.append("not offered: " + "; ".join(why for _, why in rec.unsupported))
    shown = [f"! {w}" for w in warnings[:_SHOWN_WARNINGS]]
    if len(warnings) > _SHOWN_WARNINGS:
        shown.append(f"! ... {len(warnings) - _SHOWN_WARNINGS} more (--verbose)")
    return shown


def _option_line(i: int, o: Option, recommended: bool) -> str:
    speed = ""
    if o.speed is not None and o.cny_per_million_tokens is not None:
        speed = (
            f", ≤ {o.speed.per_sequence_tps:.1f} tokens/s per sequence "
            f"(≤ {o.speed.total_tps:.0f} tokens/s total, upper bound), "
            f"¥{o.cny_per_million_tokens:,.2f} per million output tokens"
        )
    flags = "  [RECOMMENDED]" if recommended else ""
    seeds = (
        f" (seeds' rule of thumb: {o.rule_of_thumb_count}, no margin)"
        if o.rule_of_thumb_count != o.count
        else ""
    )
    room = (
        f"{o.per_card_gb:.1f} GB per card of {o.budget.usable_gb:.1f} GB usable, "
        f"KV {o.budget.tokens_fit:,} tokens"
        if o.budget is not None
        else f"{o.per_card_gb:.1f} GB per card + {MARGIN:.0%} of {o.spec.vram_gb:g} GB"
    )
    lines = [
        f"  {i}. {o.count} x {o.gpu}{seeds}, {o.chosen.label}: ¥{o.monthly_cny:,.2f}/month "
        f"({o.chosen.formula}); {room}, headroom {o.headroom_gb:.1f} GB{speed}; "
        f"price {o.price.label}{flags}"
    ]
    lines.extend(f"       ! {w}" for w in o.warnings)
    return "\n".join(lines)
