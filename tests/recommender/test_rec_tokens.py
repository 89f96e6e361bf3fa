"""Issue 39: ¥ per million tokens at the batch the layout serves (recommender.tokens), and
issue 38 item 7: the short answer says why a cheaper runner-up is not the pick.

The figures are worked by hand from the card's spec, the model's shape and the seed price
(recommender/README.md states the method): a decode step reads the weights once and every
running sequence's KV, at 60% of the bandwidth, never faster than its latency floor.
"""

from __future__ import annotations

import json
import math

import pytest

from recommender import (
    DEFAULT_SPECS,
    RecommenderInputError,
    Workload,
    recommend,
    render_text,
    seed_prices,
)

H20 = DEFAULT_SPECS["h20-96g"]  # 4,000 GB/s, 148 dense FP16 TFLOPS, 96 GB
QWEN3_32B_PARAMS = 32_762_123_264  # counted from its config (test_rec_real_configs.py)
KV_PER_TOKEN = 64 * 2 * 8 * 128 * 2  # 64 layers x K and V x 8 KV heads x 128 x BF16
MONTH = 6.20 * 720  # seed 003: H20 monthly plan ¥6.20/card-h


def qwen32(**more: object):
    w = Workload("inference", model="Qwen3-32B", context=8192, **more)  # type: ignore[arg-type]
    return recommend(w, DEFAULT_SPECS, seed_prices())


def hand_cost(sequences: int) -> tuple[float, float]:
    """(tokens/s, ¥ per million output tokens) of one H20 running `sequences` at 8,192."""
    step_bytes = QWEN3_32B_PARAMS * 2 + sequences * KV_PER_TOKEN * 8192
    bandwidth_ms = step_bytes / (4000e9 * 0.6) * 1000
    floor_ms = 64 * 20 / 1000  # 20 µs per layer
    tps = sequences * 1000 / max(bandwidth_ms, floor_ms)
    tps = min(tps, 148e12 * 0.5 / (2 * QWEN3_32B_PARAMS))  # the compute ceiling
    return tps, MONTH / (tps * 3600 * 720) * 1e6


def test_cost_per_million_tokens_at_one_sequence_and_at_the_largest_batch_by_hand() -> None:
    rec = qwen32()
    pick = rec.recommended
    assert pick is not None and (pick.gpu, pick.count) == ("h20-96g", 1)
    t = pick.tokens
    assert t is not None and t.label == "best-case estimate"
    # The KV left on the card: 0.9 x 96 GiB - weights - runtime 1 GB - CUDA graphs 1 GB -
    # a 2,048-token prefill chunk (x 5120 x 32 B) - FP32 logits of 256 sequences.
    reserve = 2e9 + 2048 * 5120 * 32 + 256 * 151936 * 4
    room = 0.9 * 96 * 2**30 - QWEN3_32B_PARAMS * 2 - reserve
    batch = math.floor(room / (KV_PER_TOKEN * 8192))
    assert batch == 11 == t.full.sequences
    one_tps, one_cost = hand_cost(1)
    full_tps, full_cost = hand_cost(batch)
    assert t.one.total_tps == pytest.approx(one_tps)
    assert t.one.cny_per_million == pytest.approx(one_cost)  # ¥48.56
    assert t.full.total_tps == pytest.approx(full_tps)
    assert t.full.cny_per_million == pytest.approx(full_cost)  # ¥5.82
    assert full_cost < one_cost / 8  # several times lower at the batch the layout serves
    # Prefill: compute-bound, 2 x params + attention over the context per token.
    attention = 2 * 2 * 64 * 64 * 128 * 8192 / 2
    prefill = 148e12 * 0.5 / (2 * QWEN3_32B_PARAMS + attention)
    assert t.prefill_tps == pytest.approx(prefill)
    assert t.prefill_cny_per_million == pytest.approx(MONTH / (prefill * 3600 * 720) * 1e6)
    assert (t.price_date, t.simulated) == ("2026-09-04", False)


def test_the_short_answer_json_and_runners_up_carry_the_figure() -> None:
    rec = qwen32()
    text = render_text(rec)
    _, full = hand_cost(11)
    line = next(x for x in text.splitlines() if x.startswith("Per token"))
    assert "best-case estimate, price of 2026-09-04" in line
    assert f"¥{full:,.2f}/M at 11 sequences" in line and "input ¥" in line
    for runner in rec.runners_up:
        assert runner.tokens is not None
        assert f"¥{runner.tokens.full.cny_per_million:,.2f}/M output tokens at" in text
    data = json.loads(json.dumps(rec.to_dict()))
    cost = data["recommended"]["token_cost"]
    assert cost["label"] == "best-case estimate"
    assert cost["largest_batch"]["sequences"] == 11
    assert cost["largest_batch"]["cny_per_million_output_tokens"] == pytest.approx(full, abs=1e-4)
    assert all(o["token_cost"] is not None for o in data["options"])
    assert len(text.splitlines()) <= 25


def test_objective_tokens_picks_the_lowest_cost_per_token() -> None:
    w = dict(model="Llama-3.1-70B-Instruct", context=8192, concurrency=4)
    by_month = recommend(Workload("inference", **w), DEFAULT_SPECS, seed_prices())  # type: ignore[arg-type]
    by_token = recommend(
        Workload("inference", objective="tokens", **w),  # type: ignore[arg-type]
        DEFAULT_SPECS,
        seed_prices(),
    )
    costs = [o.tokens.full.cny_per_million for o in by_token.options if o.tokens]
    pick = by_token.recommended
    assert pick is not None and pick.tokens is not None
    assert pick.tokens.full.cny_per_million == min(costs) and costs == sorted(costs)
    assert by_month.recommended is not None and by_month.recommended.gpu != pick.gpu
    with pytest.raises(RecommenderInputError, match="objective"):
        Workload("inference", model="Qwen3-8B", objective="cheapest")
    with pytest.raises(RecommenderInputError, match="for inference"):
        Workload("training", method="lora", model="Qwen3-8B", objective="tokens")


def test_compare_api_says_from_what_daily_volume_self_hosting_is_cheaper() -> None:
    cheap_api = qwen32(api_cny_per_million=2.0)
    pick = cheap_api.recommended
    assert pick is not None and pick.tokens is not None
    api = pick.api_comparison(2.0)
    assert api is not None
    # ¥4,464 a month ÷ 30 days ÷ ¥2 per million = 74.4 M tokens a day to break even; the H20
    # makes at most tokens/s x 3600 x 720 h ÷ 30 days.
    assert api.breakeven_m_per_day == pytest.approx(MONTH / 30 / 2.0)
    full_tps, _ = hand_cost(11)
    assert api.capacity_m_per_day == pytest.approx(full_tps * 3600 * 24 / 1e6)
    assert not api.beats_api and "API is cheaper at any volume" in render_text(cheap_api)
    dear = qwen32(api_cny_per_million=60.0).recommended
    assert dear is not None
    found = dear.api_comparison(60.0)
    assert found is not None and found.beats_api
    assert found.breakeven_m_per_day == pytest.approx(MONTH / 30 / 60.0)
    with pytest.raises(RecommenderInputError, match="api_cny_per_million"):
        Workload("inference", model="Qwen3-8B", api_cny_per_million=0)


def test_the_short_answer_says_why_a_cheaper_runner_up_is_not_the_pick() -> None:
    # Llama-3.1-70B at 4 x 8k: 8 x RTX 4090 (¥7,920) is cheaper a month than 2 x H20 (¥8,928)
    # but runs TP 8 over PCIe; seed 003 §五 step 3 prefers a fast link.
    w = Workload("inference", model="Llama-3.1-70B-Instruct", context=8192, concurrency=4)
    rec = recommend(w, DEFAULT_SPECS, seed_prices())
    assert rec.recommended is not None and rec.recommended.gpu == "h20-96g"
    why = rec.why_not_cheaper
    assert why is not None and why.startswith("Not the cheaper 8 x rtx4090-24g at ¥7,920.00")
    assert "over PCIe" in why and why in render_text(rec)
    assert rec.to_dict()["why_not_cheaper"] == why
    # No cheaper option, no line.
    assert qwen32().why_not_cheaper is None
