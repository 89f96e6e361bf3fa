"""Domestic-compliance (信创) filter and the CANN porting note for Ascend cards."""

from __future__ import annotations

from collections.abc import Iterable

from recommender.cards import CardSpec
from recommender.memory import Architecture

# Seed 002 §3.2 names the families already adapted to Ascend: Qwen / DeepSeek / ChatGLM.
_ADAPTED_FAMILIES = ("qwen", "deepseek", "glm")


def domestic_only(specs: Iterable[CardSpec]) -> list[CardSpec]:
    """信创 catalogue buyers may rent domestic cards only (seed 000 建议3)."""
    return [spec for spec in specs if spec.domestic]


def on_adapted_list(arch: Architecture) -> bool | None:
    """True / False for presets, None when a custom model's family is unknown."""
    if arch.estimated:
        return None
    return arch.name.lower().startswith(_ADAPTED_FAMILIES)


def cann_porting_note(arch: Architecture) -> str:
    base = (
        "Ascend runs the CANN stack, not CUDA: port PyTorch code with torch_npu, about "
        "2-5 person-days depending on operators (seed 003 Q4)"
    )
    adapted = on_adapted_list(arch)
    if adapted:
        return (
            f"{base}; {arch.name} is in a family on Ascend's adapted list (Qwen / DeepSeek / "
            "ChatGLM, seed 002 §3.2), so migration is typically 1-2 weeks (seed 002 §四)."
        )
    who = arch.name if adapted is False else "this custom model"
    return (
        f"{base}; check whether {who} is on Ascend's adapted list (~15-20 mainstream open "
        "models): 1-2 weeks if it is, 2-4 weeks of operator work if not (seed 002 §四)."
    )
