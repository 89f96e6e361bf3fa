"""What a million tokens cost on an option: the engineer's unit. Pure; best-case estimates.

The monthly bill buys the tokens the layout produces in the hours it is used:
¥ per million output tokens = monthly ¥ ÷ (output tokens/s x 3600 x hours) x 10^6.

Output tokens/s comes from the decode upper bound (recommender.speed: each step reads the
weights once, plus every running sequence's KV at the full context, at 60% of the card's
bandwidth; never faster than the step's fixed latencies; capped by compute). It is given
twice, because a step's cost hardly grows with the batch until the KV traffic or the
compute ceiling catches up:

- at one sequence (one replica busy): the worst case, an idle service;
- at the largest batch the layout holds: the whole sequences at the asked context the
  engine's KV budget leaves per replica (recommender.budget), at most vLLM's default
  max_num_seqs (256), on every replica.

Input tokens (prefill) are compute-bound: 2 x active parameters FLOP per token plus the
attention over the context (2 x 2 x attention layers x heads x head dim x context / 2),
at 50% of the cards' dense 16-bit TFLOPS (the TP-over-PCIe share applies), every card of
a replica working (pipeline stages overlap across prompts).

Both are upper bounds on speed, so the ¥ figures are lower bounds on cost: best-case
estimates, labelled so wherever they are shown.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from recommender.budget import card_budget
from recommender.cards import CardSpec
from recommender.layout import Layout
from recommender.memory import MAX_NUM_SEQS, MemoryEstimate
from recommender.pricing import MONTH_HOURS
from recommender.speed import DECODE_COMPUTE_EFFICIENCY, PCIE_TP_EFFICIENCY, decode_speed

LABEL = "best-case estimate"
DAYS_PER_MONTH = MONTH_HOURS / 24  # 30: the monthly plan's month


@dataclass(frozen=True)
class TokenRate:
    """Output tokens at one batch size: speed and what a million of them cost."""

    sequences: int  # running sequences across the layout
    total_tps: float
    per_sequence_tps: float
    bound: str  # bandwidth, latency floor or compute
    cny_per_million: float


@dataclass(frozen=True)
class TokenCost:
    """¥ per million tokens of one option, at its price of `price_date`."""

    one: TokenRate  # one sequence
    full: TokenRate  # the largest batch the KV holds, on every replica
    batch_limit: str  # why `full` stops where it does
    prefill_tps: float
    prefill_cny_per_million: float
    monthly_cny: float
    hours_per_month: float
    price_date: str
    simulated: bool
    formula: str  # evaluates to full.cny_per_million with the numbers as printed

    @property
    def label(self) -> str:
        return LABEL


def per_million(monthly_cny: float, tokens_per_s: float, hours: float) -> float:
    """Monthly bill ÷ the tokens made in the hours used, per million."""
    return monthly_cny / (tokens_per_s * 3600 * hours) * 1e6


def token_cost(mem: MemoryEstimate, spec: CardSpec, layout: Layout, monthly_cny: float,
               price_date: str, simulated: bool) -> TokenCost:  # fmt: skip
    """Output-token cost at one sequence and at the largest batch, and the prefill cost."""
    hours = mem.workload.hours_per_month
    fit = card_budget(mem, spec, layout).sequences_fit
    batch = max(1, min(fit, MAX_NUM_SEQS))
    limit = (
        f"vLLM's default max_num_seqs, {MAX_NUM_SEQS} per replica"
        if fit > MAX_NUM_SEQS
        else f"the most the KV holds at {mem.workload.context_tokens:,} tokens"
    )
    one = _rate(mem, spec, replace(layout, dp=1), 1, monthly_cny, hours)
    full = _rate(mem, spec, layout, batch, monthly_cny, hours)
    prefill = prefill_tps(mem, spec, layout)
    formula = (
        f"¥{monthly_cny:,.2f} ÷ ({full.total_tps:,.1f} tokens/s x 3600 x {hours:g} h) x 10^6 "
        f"= ¥{full.cny_per_million:,.4f} per million output tokens"
    )
    return TokenCost(one, full, limit, prefill, per_million(monthly_cny, prefill, hours),
                     monthly_cny, hours, price_date, simulated, formula)  # fmt: skip


def _rate(mem: MemoryEstimate, spec: CardSpec, layout: Layout, batch: int, monthly_cny: float,
          hours: float) -> TokenRate:  # fmt: skip
    speed = decode_speed(mem, spec, layout, sequences=batch)
    return TokenRate(batch * layout.dp, speed.total_tps, speed.per_sequence_tps, speed.bound,
                     per_million(monthly_cny, speed.total_tps, hours))  # fmt: skip


def prefill_tps(mem: MemoryEstimate, spec: CardSpec, layout: Layout) -> float:
    """Input tokens per second of the whole layout, compute-bound (see the module doc)."""
    arch = mem.arch
    context = mem.workload.context_tokens
    attention = 2 * 2 * arch.attention_layers * arch.query_heads * arch.head_dim * context / 2
    flops = 2 * arch.active_params_b * 1e9 + attention
    share = PCIE_TP_EFFICIENCY.get(layout.tp, 0.55) if layout.pcie and layout.tp > 1 else 1.0
    replica = layout.replica_cards * spec.fp16_tflops_dense * 1e12 * DECODE_COMPUTE_EFFICIENCY
    return replica * share / flops * layout.dp


@dataclass(frozen=True)
class ApiComparison:
    """Self-hosting an option against an API price per million output tokens."""

    api_cny_per_million: float
    breakeven_m_per_day: float  # million output tokens a day from which self-hosting is cheaper
    capacity_m_per_day: float  # what the layout makes a day at its largest batch (best case)

    @property
    def beats_api(self) -> bool:
        return self.breakeven_m_per_day <= self.capacity_m_per_day

    def sentence(self, monthly_cny: float) -> str:
        base = (
            f"vs an API at ¥{self.api_cny_per_million:,.2f}/M output tokens: self-hosting is "
            f"cheaper from {self.breakeven_m_per_day:,.1f} M tokens a day (¥{monthly_cny:,.2f}"
            f"/month ÷ {DAYS_PER_MONTH:g} days ÷ ¥{self.api_cny_per_million:,.2f}/M)"
        )
        if self.beats_api:
            return f"{base}; it makes at most {self.capacity_m_per_day:,.1f} M a day (best case)"
        return (
            f"{base}, but it makes at most {self.capacity_m_per_day:,.1f} M a day (best case): "
            "at this price the API is cheaper at any volume it can serve"
        )


def compare_api(cost: TokenCost, api_cny_per_million: float) -> ApiComparison:
    daily_cny = cost.monthly_cny / DAYS_PER_MONTH
    capacity = cost.full.total_tps * 3600 * cost.hours_per_month / DAYS_PER_MONTH / 1e6
    return ApiComparison(api_cny_per_million, daily_cny / api_cny_per_million, capacity)
