"""What steps 1-4 of the decision tree decided for one workload (recommender.tree makes it;
recommender.steps explains it)."""

from __future__ import annotations

from dataclasses import dataclass

from recommender.cards import CardSpec
from recommender.layout import Layout
from recommender.memory import MemoryEstimate
from recommender.result import Option
from recommender.workload import Workload


@dataclass(frozen=True)
class Fit:
    spec: CardSpec
    count: int
    rule_count: int
    comparison: str  # how the seeds' count and the exact count were reached
    layout: Layout


@dataclass(frozen=True)
class Plan:
    """Steps 1-4 for one workload; levers re-run this on modified workloads."""

    workload: Workload
    memory: MemoryEstimate
    fits: tuple[Fit, ...]
    unfit: tuple[CardSpec, ...]
    excluded: tuple[str, ...]
    options: tuple[Option, ...]
    recommended: Option | None
    unpriced: tuple[Fit, ...]
    unknown_priced_gpus: tuple[str, ...]
    unsupported: tuple[tuple[str, str], ...] = ()  # (gpu, why), e.g. no FP8 path
