"""Workload validation: every bad input raises RecommenderInputError saying what's allowed."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from recommender import CardPrice, CardSpec, RecommenderInputError, Workload


def test_error_is_a_value_error() -> None:
    assert issubclass(RecommenderInputError, ValueError)


@pytest.mark.parametrize(
    ("kwargs", "hint"),
    [
        ({"task": "serving", "params_b": 7}, "inference, training"),
        ({"task": "inference", "params_b": 0}, "params_b"),
        ({"task": "inference", "params_b": -7}, "params_b"),
        ({"task": "inference", "params_b": math.nan}, "params_b"),
        ({"task": "inference", "params_b": math.inf}, "params_b"),
        ({"task": "inference", "params_b": "7"}, "params_b"),
        ({"task": "inference"}, "exactly one"),
        ({"task": "inference", "model": "Qwen2.5-7B", "params_b": 7}, "exactly one"),
        ({"task": "inference", "model": "GPT-5"}, "Qwen2.5-7B-Instruct"),
        ({"task": "inference", "params_b": 7, "context": 0}, "context"),
        ({"task": "inference", "params_b": 7, "context": -1}, "context"),
        ({"task": "inference", "params_b": 7, "context": 4096.5}, "context"),
        ({"task": "inference", "params_b": 7, "concurrency": 0}, "concurrency"),
        ({"task": "inference", "params_b": 7, "precision": "fp64"}, "bf16, fp16"),
        ({"task": "inference", "params_b": 7, "kv_precision": "int4"}, "fp8"),
        ({"task": "inference", "params_b": 7, "method": "full"}, "online, offline"),
        ({"task": "inference", "params_b": 7, "hours_per_month": 0}, "hours_per_month"),
        ({"task": "inference", "params_b": 7, "hours_per_month": 800}, "744"),
        ({"task": "inference", "params_b": 7, "budget_cny": 0}, "budget_cny"),
        ({"task": "inference", "params_b": 7, "dataset_gb": -1}, "dataset_gb"),
        ({"task": "inference", "params_b": 7, "domestic": "yes"}, "domestic"),
        ({"task": "inference", "params_b": 7, "active_params_b": 9}, "active_params_b"),
        ({"task": "inference", "model": "Qwen3-30B-A3B", "active_params_b": 3}, "custom"),
        ({"task": "training", "params_b": 7}, "full, lora, qlora, pretrain"),
        ({"task": "training", "params_b": 7, "method": "online"}, "full, lora"),
        ({"task": "training", "params_b": 7, "method": "full", "precision": "int8"}, "bf16"),
        ({"task": "training", "params_b": 7, "method": "lora", "precision": "int4"}, "qlora"),
        ({"task": "training", "params_b": 7, "method": "qlora", "precision": "bf16"}, "int4"),
        ({"task": "training", "params_b": 7, "method": "lora", "lora_rank": 0}, "lora_rank"),
        ({"task": "training", "params_b": 7, "method": "full", "kv_precision": "fp8"}, "kv"),
    ],
)
def test_invalid_workloads_raise_with_allowed_values(kwargs: dict, hint: str) -> None:
    with pytest.raises(RecommenderInputError) as err:
        Workload(**kwargs)
    assert hint in str(err.value)
    assert says_what_is_allowed(str(err.value)), str(err.value)


def says_what_is_allowed(message: str) -> bool:
    """Every input error names the allowed values or the rule the value broke."""
    return any(word in message for word in ("allowed", "must", "give exactly one"))


def test_valid_spellings_are_normalised() -> None:
    w = Workload(" Inference ", model="qwen2.5-7b", precision="BF16", method="Offline")
    assert (w.task, w.method, w.model, w.precision) == (
        "inference",
        "offline",
        "Qwen2.5-7B-Instruct",
        "bf16",
    )
    assert Workload("training", method="qlora", params_b=7).precision == "int4"
    assert Workload("training", method="full", params_b=7).context == 2048
    assert Workload("inference", params_b=7).context == 4096


def test_bad_specs_and_prices_raise() -> None:
    with pytest.raises(RecommenderInputError):
        CardSpec("x-1g", 0, 1, 1, "PCIe", None, False)
    with pytest.raises(RecommenderInputError):
        CardPrice("x-1g", "s", datetime.now(UTC), hourly_cny=-1)
    with pytest.raises(RecommenderInputError):
        CardPrice("x-1g", "s", datetime.now(UTC), cards_per_server=0)
