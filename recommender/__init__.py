"""Decision-tree GPU recommender (seed 000 §四, seed 003 §五): pure, no I/O.

Give it a Workload, card specs and prices; get a Recommendation with the memory
breakdown, one reasoning entry per tree step and priced options, cheapest first.
"""

from recommender.architecture import Architecture, ParamCounts, WeightFormat
from recommender.budget import CardBudget, capacity_gb, card_budget
from recommender.cards import (
    DEFAULT_SPECS,
    FP8_NATIVE,
    FP8_NONE,
    FP8_WEIGHT_ONLY,
    SEED_DATE,
    CardPrice,
    CardSpec,
    seed_prices,
)
from recommender.errors import RecommenderInputError
from recommender.hf_config import architecture_from_config
from recommender.hf_quant import weight_format
from recommender.layout import Layout, inference_layouts, tp_choices, tp_degrees, training_layouts
from recommender.memory import (
    GB,
    MARGIN,
    RUNTIME_OVERHEAD_GB,
    MemoryEstimate,
    architecture_for,
    estimate_memory,
    kv_bytes_per_token,
    kv_cache_bytes,
    rule_of_thumb,
)
from recommender.presets import PRESETS, ModelPreset, find_preset, get_preset
from recommender.pricing import (
    BARE_METAL,
    HOURLY,
    MONTH_HOURS,
    MONTHLY_PLAN,
    Breakeven,
    ModeCost,
    breakeven,
    rent_modes,
)
from recommender.render import render_short, render_text
from recommender.result import Lever, Option, Recommendation, SourceQuote, Step
from recommender.serve import ENGINES, ServeLine, serve_line
from recommender.speed import DECODE_BANDWIDTH_EFFICIENCY, DecodeSpeed, decode_speed
from recommender.support import Support, matrix_rows, support
from recommender.tokens import ApiComparison, TokenCost, TokenRate, compare_api, token_cost
from recommender.tree import recommend
from recommender.workload import (
    GPU_MEMORY_UTILIZATION,
    INFERENCE_METHODS,
    KV_PRECISIONS,
    OBJECTIVES,
    PRECISION_BYTES,
    TASKS,
    TRAINING_METHODS,
    Workload,
)

__all__ = [
    "OBJECTIVES",
    "ApiComparison",
    "TokenCost",
    "TokenRate",
    "compare_api",
    "token_cost",
    "BARE_METAL",
    "ENGINES",
    "GPU_MEMORY_UTILIZATION",
    "CardBudget",
    "ParamCounts",
    "ServeLine",
    "Support",
    "capacity_gb",
    "card_budget",
    "matrix_rows",
    "render_short",
    "serve_line",
    "support",
    "tp_choices",
    "DECODE_BANDWIDTH_EFFICIENCY",
    "DEFAULT_SPECS",
    "FP8_NATIVE",
    "FP8_NONE",
    "FP8_WEIGHT_ONLY",
    "GB",
    "HOURLY",
    "INFERENCE_METHODS",
    "KV_PRECISIONS",
    "MARGIN",
    "MONTHLY_PLAN",
    "MONTH_HOURS",
    "PRECISION_BYTES",
    "PRESETS",
    "RUNTIME_OVERHEAD_GB",
    "SEED_DATE",
    "TASKS",
    "TRAINING_METHODS",
    "Architecture",
    "Breakeven",
    "CardPrice",
    "CardSpec",
    "DecodeSpeed",
    "Layout",
    "Lever",
    "MemoryEstimate",
    "ModeCost",
    "ModelPreset",
    "Option",
    "Recommendation",
    "RecommenderInputError",
    "SourceQuote",
    "Step",
    "WeightFormat",
    "Workload",
    "architecture_for",
    "architecture_from_config",
    "breakeven",
    "decode_speed",
    "estimate_memory",
    "find_preset",
    "get_preset",
    "inference_layouts",
    "kv_bytes_per_token",
    "kv_cache_bytes",
    "recommend",
    "render_text",
    "rent_modes",
    "rule_of_thumb",
    "seed_prices",
    "tp_degrees",
    "training_layouts",
    "weight_format",
]
