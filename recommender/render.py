"""Plain-text walk through a recommendation, for the CLI and for pasting into tickets."""

from __future__ import annotations

from recommender.memory import MARGIN
from recommender.result import Option, Recommendation


def render_text(rec: Recommendation) -> str:
    dates = sorted({o.price.date for o in rec.options})
    as_of = ", ".join(dates) if dates else "no prices"
    simulated = any(o.price.simulated for o in rec.options)
    out = [
        f"GPU rental recommendation (prices as of {as_of}"
        + ("; SIMULATED demo prices" if simulated else "")
        + "; GB = 10^9 bytes; money in CNY)",
        "",
    ]
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


def _option_line(i: int, o: Option, recommended: bool) -> str:
    speed = ""
    if o.speed is not None and o.cny_per_million_tokens is not None:
        speed = (
            f", ~{o.speed.per_sequence_tps:.1f} tokens/s per sequence "
            f"({o.speed.total_tps:.0f} tokens/s total), "
            f"¥{o.cny_per_million_tokens:,.2f} per million output tokens"
        )
    flags = "  [RECOMMENDED]" if recommended else ""
    seeds = (
        f" (seeds' rule of thumb: {o.rule_of_thumb_count}, no margin)"
        if o.rule_of_thumb_count != o.count
        else ""
    )
    lines = [
        f"  {i}. {o.count} x {o.gpu}{seeds}, {o.chosen.label}: ¥{o.monthly_cny:,.2f}/month "
        f"({o.chosen.formula}); {o.per_card_gb:.1f} GB per card + {MARGIN:.0%} of "
        f"{o.spec.vram_gb:g} GB, headroom {o.headroom_gb:.1f} GB{speed}; "
        f"price {o.price.label}{flags}"
    ]
    lines.extend(f"       ! {w}" for w in o.warnings)
    return "\n".join(lines)
