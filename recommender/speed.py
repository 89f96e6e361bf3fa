"""Decode speed from memory bandwidth, and what an output token costs.

Decoding one step reads every active weight once and every sequence's KV cache once,
and yields one token per sequence, so at small batch it is bandwidth-bound (seed 000
§6.2). At large batch the matmuls catch up, so a compute ceiling caps the result.
"""

from __future__ import annotations

from dataclasses import dataclass

from recommender.cards import CardSpec
from recommender.memory import GB, MemoryEstimate

# Share of peak HBM/GDDR bandwidth real decode kernels sustain (vLLM / TensorRT-LLM
# measure ~0.5-0.8; 0.6 is a planning figure, not a benchmark).
DECODE_BANDWIDTH_EFFICIENCY = 0.6
# Share of dense FP16 tensor throughput reached when decode turns compute-bound.
DECODE_COMPUTE_EFFICIENCY = 0.5


@dataclass(frozen=True)
class DecodeSpeed:
    per_sequence_tps: float
    total_tps: float
    bound: str  # "bandwidth" or "compute"
    bytes_per_step_gb: float
    formula: str


def decode_speed(mem: MemoryEstimate, spec: CardSpec, cards: int) -> DecodeSpeed:
    """Upper-bound estimate for `cards` cards in tensor parallel (each reads its shard).

    KV read is taken at the full context, i.e. the slowest step of a long generation.
    """
    workload = mem.workload
    active_weight_bytes = mem.arch.active_params_b * 1e9 * workload.weight_bytes
    step_bytes = active_weight_bytes + mem.kv_cache_gb * GB
    bandwidth = cards * spec.bandwidth_gbs * GB * DECODE_BANDWIDTH_EFFICIENCY
    bandwidth_total = bandwidth / step_bytes * workload.concurrency
    flops_per_token = 2 * mem.arch.active_params_b * 1e9
    compute_total = cards * spec.fp16_tflops_dense * 1e12 * DECODE_COMPUTE_EFFICIENCY
    compute_total /= flops_per_token
    if bandwidth_total <= compute_total:
        total, bound = bandwidth_total, "bandwidth"
        formula = (
            f"{cards} x {spec.bandwidth_gbs:g} GB/s x {DECODE_BANDWIDTH_EFFICIENCY} "
            f"÷ {step_bytes / GB:.2f} GB read per step x {workload.concurrency} sequence(s)"
        )
    else:
        total, bound = compute_total, "compute"
        formula = (
            f"{cards} x {spec.fp16_tflops_dense:g} TFLOPS x {DECODE_COMPUTE_EFFICIENCY} "
            f"÷ {flops_per_token / 1e9:.1f} GFLOP per token (compute-bound at this batch)"
        )
    return DecodeSpeed(total / workload.concurrency, total, bound, step_bytes / GB, formula)


def cny_per_million_tokens(monthly_cny: float, total_tps: float, hours: float) -> float:
    """Monthly bill ÷ tokens produced in the hours used, per million output tokens."""
    tokens = total_tps * 3600 * hours
    return monthly_cny / tokens * 1e6
