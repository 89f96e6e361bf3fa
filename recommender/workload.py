"""The workload an engineer describes, validated up front so the tree never guesses."""

from __future__ import annotations

import math
from dataclasses import dataclass

from recommender.architecture import Architecture
from recommender.errors import RecommenderInputError
from recommender.presets import get_preset

TASKS = ("inference", "training")
INFERENCE_METHODS = ("online", "offline")
TRAINING_METHODS = ("full", "lora", "qlora", "pretrain")

# Bytes per parameter for weights at each precision.
PRECISION_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "fp16": 2.0,
    "bf16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
    "mxfp4": 0.5 + 1 / 32,  # OCP MXFP4: 4-bit values + one E8M0 scale per 32
}
# KV cache element types inference engines actually offer (vLLM --kv-cache-dtype: auto,
# fp8; int8 in LMDeploy/TensorRT-LLM). "auto" is vLLM's default: the model's 16-bit dtype,
# or the KV dtype the checkpoint declares (a compressed-tensors kv_cache_scheme, ModelOpt's
# kv_cache_quant_algo). No 4-bit KV: quality falls off and few engines ship it.
KV_AUTO = "auto"
KV_PRECISIONS = (KV_AUTO, "bf16", "fp16", "fp8", "int8")
KV_BYTES = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0}
# vLLM's default share of each card's memory the engine may use (CacheConfig
# gpu_memory_utilization = 0.9; recommender/README.md cites it).
GPU_MEMORY_UTILIZATION = 0.9

# Which weight precisions each method can train or serve with. Full fine-tune and
# pretraining are mixed-precision Adam (16-bit weights); a 4-bit LoRA base is QLoRA.
_SERVING_PRECISIONS = ("bf16", "fp16", "fp8", "int8", "int4", "mxfp4", "fp32")
_METHOD_PRECISIONS: dict[str, tuple[str, ...]] = {
    "online": _SERVING_PRECISIONS,
    "offline": _SERVING_PRECISIONS,
    "full": ("bf16", "fp16"),
    "pretrain": ("bf16", "fp16"),
    "lora": ("bf16", "fp16", "fp8", "int8"),
    "qlora": ("int4",),
}

# Sanity ceilings: far above any real job, low enough to catch unit mistakes
# (tokens typed as thousands, parameters typed as raw counts).
MAX_PARAMS_B = 10_000.0
MAX_CONTEXT = 10_000_000
MAX_CONCURRENCY = 100_000
MAX_HOURS_PER_MONTH = 744.0  # a 31-day month
MAX_LORA_RANK = 1024
ZERO_STAGES = (0, 1, 2, 3)

# What the pick minimises: the monthly bill (default) or ¥ per million output tokens at
# the batch each layout serves (recommender.tokens).
OBJECTIVES = ("monthly", "tokens")

# Default context when none is given: 4,096 tokens for serving (a common max_model_len
# for chat), 2,048 for fine-tuning (LLaMA-Factory's default cutoff_len; SFT samples are
# mostly shorter, and activations grow linearly with it).
DEFAULT_CONTEXT = {"inference": 4096, "training": 2048}


@dataclass(frozen=True)
class Workload:
    """What to run. Give a `model` (a preset name, or an Architecture read from a
    config.json by recommender.hf_config) or a custom `params_b` (billions), not both.

    For training, `context` is the sequence length and `concurrency` the micro-batch
    per card; context defaults to 4,096 tokens for inference and 2,048 for training.
    `precision` defaults to the precision of the model's own quantization_config (an FP8,
    AWQ or MXFP4 checkpoint), else bf16 (int4 for qlora); `kv_precision` (inference only)
    defaults to "auto" as vLLM does: BF16, or the KV dtype the checkpoint declares.
    `gpu_memory_utilization`: the share of each card the engine may use (vLLM's 0.9).
    `strict`: a context beyond max_position_embeddings is an error, not a warning.
    `zero_stage` (training on several cards): what data-parallel cards shard: 0 nothing,
    1 optimizer state, 2 + gradients, 3 + weights (default).
    `objective` (inference): "monthly" picks the cheapest month, "tokens" the lowest ¥ per
    million output tokens at the batch each layout serves. `api_cny_per_million`
    (inference): an API's ¥ per million output tokens, to say at what daily volume
    self-hosting is cheaper.
    """

    task: str
    method: str | None = None
    model: str | Architecture | None = None
    params_b: float | None = None
    active_params_b: float | None = None
    precision: str | None = None
    kv_precision: str | None = None
    context: int | None = None
    concurrency: int = 1
    hours_per_month: float = 720.0
    budget_cny: float | None = None
    domestic: bool = False
    dataset_gb: float = 0.0
    lora_rank: int = 32
    zero_stage: int = 3
    gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION
    strict: bool = False
    objective: str = "monthly"
    api_cny_per_million: float | None = None  # an API's price to compare self-hosting with

    def __post_init__(self) -> None:
        task = _choice("task", self.task, TASKS)
        methods = INFERENCE_METHODS if task == "inference" else TRAINING_METHODS
        if self.method is None and task == "inference":
            method = "online"
        elif self.method is None:
            raise RecommenderInputError(
                f"training needs a method; allowed: {', '.join(TRAINING_METHODS)}"
            )
        else:
            method = _choice(f"method for {task}", self.method, methods)

        self._check_model()

        allowed_precisions = _METHOD_PRECISIONS[method]
        if method == "lora" and _spelled(self.precision) == "int4":
            raise RecommenderInputError(
                "precision 'int4' not allowed for lora: a 4-bit LoRA base is QLoRA, so use "
                f"method='qlora'; allowed for lora: {', '.join(allowed_precisions)}"
            )
        precision = self.precision
        if precision is None:
            precision = self._checkpoint_precision(allowed_precisions) or allowed_precisions[0]
        precision = _choice(f"precision for {method}", precision, allowed_precisions)

        kv = KV_AUTO if self.kv_precision is None else self.kv_precision
        if kv != KV_AUTO and task != "inference":
            raise RecommenderInputError(
                "kv_precision is allowed for inference only (training keeps no KV cache); "
                "leave it unset for training"
            )
        kv = _choice("kv_precision", kv, KV_PRECISIONS)
        _number("gpu_memory_utilization", self.gpu_memory_utilization, low=0, high=1)
        if not isinstance(self.strict, bool):
            raise RecommenderInputError(f"strict must be True or False, got {self.strict!r}")

        context = DEFAULT_CONTEXT[task] if self.context is None else self.context
        _int_in("context", context, 1, MAX_CONTEXT)
        _int_in("concurrency", self.concurrency, 1, MAX_CONCURRENCY)
        _int_in("lora_rank", self.lora_rank, 1, MAX_LORA_RANK)
        _int_in("zero_stage", self.zero_stage, 0, 3)
        _number("hours_per_month", self.hours_per_month, low=0, high=MAX_HOURS_PER_MONTH)
        if self.budget_cny is not None:
            _number("budget_cny", self.budget_cny, low=0)
        _number("dataset_gb", self.dataset_gb, low=0, inclusive_low=True)
        if not isinstance(self.domestic, bool):
            raise RecommenderInputError(f"domestic must be True or False, got {self.domestic!r}")
        objective = _choice("objective", self.objective, OBJECTIVES)
        if task != "inference" and (objective != "monthly" or self.api_cny_per_million is not None):
            raise RecommenderInputError(
                "objective tokens and api_cny_per_million are for inference (training makes no "
                "output tokens); leave them unset for training"
            )
        if self.api_cny_per_million is not None:
            _number("api_cny_per_million", self.api_cny_per_million, low=0)
        object.__setattr__(self, "objective", objective)

        # Frozen dataclass: store the normalised spellings so replace() and to_dict()
        # see the same values the maths used.
        object.__setattr__(self, "task", task)
        object.__setattr__(self, "method", method)
        object.__setattr__(self, "precision", precision)
        object.__setattr__(self, "kv_precision", kv)
        object.__setattr__(self, "context", context)
        if self.strict and (warning := self.context_warning):
            raise RecommenderInputError(warning + " (--strict)")

    def _check_model(self) -> None:
        if (self.model is None) == (self.params_b is None):
            raise RecommenderInputError(
                "give exactly one of model (a preset name) or params_b (billions of parameters)"
            )
        if isinstance(self.model, Architecture):
            if self.active_params_b is not None:
                raise RecommenderInputError(
                    "active_params_b is allowed only with a custom params_b; a config.json "
                    "gives its own active parameter count"
                )
            return
        if self.model is not None:
            if self.active_params_b is not None:
                raise RecommenderInputError(
                    "active_params_b is allowed only with a custom params_b; presets carry "
                    "their own active parameter count"
                )
            canonical = get_preset(self.model).name
            object.__setattr__(self, "model", canonical)
            return
        _number("params_b", self.params_b, low=0, high=MAX_PARAMS_B)
        if self.active_params_b is not None:
            _number("active_params_b", self.active_params_b, low=0, high=self.params_b)

    def _checkpoint_precision(self, allowed: tuple[str, ...]) -> str | None:
        arch = self.architecture
        quant = arch.quantization if arch is not None else None
        return quant.precision if quant is not None and quant.precision in allowed else None

    @property
    def architecture(self) -> Architecture | None:
        """The model's architecture, None for a custom params_b (memory.py estimates it)."""
        if isinstance(self.model, Architecture):
            return self.model
        return None if self.model is None else get_preset(self.model)

    @property
    def model_name(self) -> str | None:
        return self.model.name if isinstance(self.model, Architecture) else self.model

    @property
    def is_training(self) -> bool:
        return self.task == "training"

    @property
    def context_tokens(self) -> int:
        """The context after defaults were applied (the field is Optional only on input)."""
        return self.context or DEFAULT_CONTEXT[self.task]

    @property
    def weight_bytes(self) -> float:
        return PRECISION_BYTES[self.precision or "bf16"]

    @property
    def kv_dtype(self) -> str:
        """The KV cache dtype the maths uses: the chosen one, or what "auto" resolves to."""
        if self.kv_precision not in (None, KV_AUTO):
            return str(self.kv_precision)
        arch = self.architecture
        declared = arch.quantization.kv_cache_dtype if arch and arch.quantization else None
        return declared or "bf16"

    @property
    def kv_label(self) -> str:
        if self.kv_precision not in (None, KV_AUTO):
            return self.kv_dtype.upper()
        if self.kv_dtype != "bf16":
            return f"{self.kv_dtype.upper()} (auto: the checkpoint declares it)"
        return "BF16 (auto: the model's 16-bit dtype, whatever the weights)"

    @property
    def kv_bytes(self) -> float:
        # A quantised checkpoint (FP8 DeepSeek, AWQ, MXFP4) still computes attention in its
        # 16-bit dtype, which is what vLLM caches KV in by default (kv_cache_dtype "auto").
        return KV_BYTES[self.kv_dtype]

    @property
    def context_warning(self) -> str | None:
        """Set when the context is longer than the model's max_position_embeddings."""
        arch = self.architecture
        limit = arch.max_position_embeddings if arch is not None else None
        if limit and self.context_tokens > limit:
            return (
                f"context {self.context_tokens:,} tokens is longer than {arch.name}'s "
                f"max_position_embeddings {limit:,}; vLLM refuses --max-model-len above it "
                "without VLLM_ALLOW_LONG_MAX_MODEL_LEN"
            )
        return None


def _spelled(value: object) -> object:
    """How a choice is compared: case and surrounding blanks don't matter."""
    return value.strip().lower() if isinstance(value, str) else value


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    if isinstance(value, str) and (spelled := value.strip().lower()) in allowed:
        return spelled
    raise RecommenderInputError(f"{name} {value!r} not allowed; allowed: {', '.join(allowed)}")


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _number(
    name: str,
    value: object,
    *,
    low: float,
    high: float | None = None,
    inclusive_low: bool = False,
) -> None:
    ok = _is_number(value) and (value >= low if inclusive_low else value > low)
    ok = ok and (high is None or value <= high)
    if not ok:
        bound = f">= {low}" if inclusive_low else f"> {low}"
        if high is not None:
            bound += f" and <= {high:g}"
        raise RecommenderInputError(f"{name} must be a finite number {bound}, got {value!r}")


def _int_in(name: str, value: object, low: int, high: int) -> None:
    if not (isinstance(value, int) and not isinstance(value, bool) and low <= value <= high):
        raise RecommenderInputError(f"{name} must be a whole number {low}..{high}, got {value!r}")
