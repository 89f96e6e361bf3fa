"""Property tests: monotone memory, budget never removes options, bad input always raises."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recommender import (
    DEFAULT_SPECS,
    PRESETS,
    RecommenderInputError,
    Workload,
    estimate_memory,
    get_preset,
    recommend,
    seed_prices,
)

PRICES = seed_prices()
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_METHOD_PRECISIONS = {
    ("inference", "online"): ["fp16", "bf16", "fp8", "int8", "int4"],
    ("inference", "offline"): ["fp16", "bf16", "fp8", "int8", "int4"],
    ("training", "full"): ["bf16", "fp16"],
    ("training", "pretrain"): ["bf16", "fp16"],
    ("training", "lora"): ["bf16", "fp16", "fp8", "int8"],
    ("training", "qlora"): ["int4"],
}


@st.composite
def workloads(draw: st.DrawFn, **overrides: object) -> dict[str, object]:
    task, method = draw(st.sampled_from(sorted(_METHOD_PRECISIONS)))
    kwargs: dict[str, object] = {
        "task": task,
        "method": method,
        "precision": draw(st.sampled_from(_METHOD_PRECISIONS[(task, method)])),
        "context": draw(st.integers(1, 131_072)),
        "concurrency": draw(st.integers(1, 64)),
        "hours_per_month": draw(st.floats(1, 744)),
        "domestic": draw(st.booleans()),
    }
    if draw(st.booleans()):
        kwargs["model"] = draw(st.sampled_from(sorted(PRESETS)))
    else:
        kwargs["params_b"] = draw(st.floats(0.1, 200))
    kwargs.update(overrides)
    return kwargs


@FAST
@given(workloads(), st.integers(0, 100_000), st.integers(0, 64))
def test_more_context_or_concurrency_never_lowers_memory(
    kwargs: dict[str, object], more_context: int, more_concurrency: int
) -> None:
    base = Workload(**kwargs)  # type: ignore[arg-type]
    bigger = Workload(
        **kwargs  # type: ignore[arg-type]
        | {
            "context": base.context_tokens + more_context,
            "concurrency": base.concurrency + more_concurrency,
        }
    )
    small, large = estimate_memory(base), estimate_memory(bigger)
    assert large.total_gb >= small.total_gb
    assert large.kv_cache_gb >= small.kv_cache_gb
    for cards in (1, 2, 8):
        assert large.per_card_gb(cards) >= small.per_card_gb(cards)


def _option_keys(budget: float | None, kwargs: dict[str, object]) -> set[tuple]:
    rec = recommend(Workload(**kwargs | {"budget_cny": budget}), DEFAULT_SPECS, PRICES)  # type: ignore[arg-type]
    return {(o.gpu, o.price.source, o.count, o.mode, round(o.monthly_cny, 6)) for o in rec.options}


@FAST
@given(
    workloads(context=4096),
    st.floats(1, 200_000),
    st.floats(0, 200_000),
)
def test_a_larger_budget_never_removes_an_option(
    kwargs: dict[str, object], budget: float, extra: float
) -> None:
    small = _option_keys(budget, kwargs)
    assert small <= _option_keys(budget + extra, kwargs)
    assert small <= _option_keys(None, kwargs)


_ALL_PRECISIONS = {"fp16", "bf16", "fp8", "int8", "int4"}


def _is_preset(name: str) -> bool:
    try:
        get_preset(name)
    except RecommenderInputError:
        return False
    return True


_BAD_FIELDS = st.one_of(
    st.fixed_dictionaries({"params_b": st.floats(max_value=0) | st.just(math.nan)}),
    st.fixed_dictionaries({"context": st.integers(max_value=0)}),
    st.fixed_dictionaries({"concurrency": st.integers(max_value=0)}),
    st.fixed_dictionaries({"hours_per_month": st.floats(max_value=0) | st.floats(745, 1e9)}),
    st.fixed_dictionaries({"budget_cny": st.floats(max_value=0)}),
    st.fixed_dictionaries({"dataset_gb": st.floats(max_value=-1e-9)}),
    st.fixed_dictionaries(
        {
            "precision": st.text(max_size=8).filter(
                lambda s: s.strip().lower() not in _ALL_PRECISIONS
            )
        }
    ),
    st.fixed_dictionaries({"model": st.text(max_size=20).filter(lambda s: not _is_preset(s))}),
    st.fixed_dictionaries(
        {"task": st.text(max_size=12).filter(lambda s: s.strip().lower() not in _TASKS)}
    ),
    # A real precision the method cannot use (lora + int4 is QLoRA, full + int8, ...).
    st.sampled_from(
        [
            {"task": "training", "method": method, "precision": precision}
            for (task, method), allowed in _METHOD_PRECISIONS.items()
            if task == "training"
            for precision in sorted(_ALL_PRECISIONS - set(allowed))
        ]
    ),
    st.fixed_dictionaries(
        {"task": st.just("training"), "method": st.sampled_from(["full", "lora"])}
    ).map(lambda d: d | {"kv_precision": "fp8"}),
)
_TASKS = {"inference", "training"}


@FAST
@given(workloads(), _BAD_FIELDS)
def test_invalid_inputs_always_raise(kwargs: dict[str, object], bad: dict[str, object]) -> None:
    merged = kwargs | bad
    if "model" in bad:
        merged.pop("params_b", None)
    try:
        Workload(**merged)  # type: ignore[arg-type]
    except RecommenderInputError as err:
        message = str(err)
        assert any(word in message for word in ("allowed", "must", "give exactly one")), message
    else:
        raise AssertionError(f"accepted invalid workload {merged!r}")
