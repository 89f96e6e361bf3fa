"""Decode speed from memory bandwidth, and what an output token costs.

Decoding one step reads every weight the step's tokens touch once and every sequence's KV
cache once, and yields one token per sequence, so at small batch it is bandwidth-bound
(seed 000 §6.2). At large batch the matmuls catch up, so a compute ceiling caps it.
All figures are planning estimates (modelled), not benchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass

from recommender.cards import FP8_WEIGHT_ONLY, CardSpec
from recommender.layout import Layout
from recommender.memory import GB, MemoryEstimate, kv_share_per_card

# Share of peak HBM/GDDR bandwidth real decode kernels sustain (vLLM / TensorRT-LLM
# measure ~0.5-0.8; 0.6 is a planning figure, not a benchmark).
DECODE_BANDWIDTH_EFFICIENCY = 0.6
# Share of dense FP16 tensor throughput reached when decode turns compute-bound. FP8 and
# INT8 tensor rates are not used (the 16-bit rate is the conservative ceiling).
DECODE_COMPUTE_EFFICIENCY = 0.5
# Tensor parallel over PCIe: two all-reduces of the hidden state per layer and token
# cross PCIe instead of NVLink/HCCS. Share of the ideal TP speed-up kept (modelled).
PCIE_TP_EFFICIENCY = {1: 1.0, 2: 0.85, 4: 0.7, 8: 0.55}
# FP8 weights on a card without FP8 tensor cores run weight-only (FP8 Marlin, W8A16):
# each matmul dequantises to 16-bit, costing ~15% of decode speed (modelled) and leaving
# prefill at the 16-bit compute rate.
FP8_WEIGHT_ONLY_EFFICIENCY = 0.85


@dataclass(frozen=True)
class DecodeSpeed:
    per_sequence_tps: float
    total_tps: float
    bound: str  # "bandwidth" or "compute"
    bytes_per_step_gb: float
    formula: str
    assumptions: tuple[str, ...] = ()


def expected_experts_touched(routed: int, per_token: int, sequences: int) -> float:
    """Distinct routed experts one MoE layer reads for a batch, routing taken as uniform:
    E x (1 - (1 - k/E)^B). One sequence reads k; a large batch reads nearly all E."""
    if not routed:
        return 0.0
    return routed * (1 - (1 - per_token / routed) ** sequences)


def step_weight_bytes(mem: MemoryEstimate) -> tuple[float, str]:
    """Weight bytes one decode step reads: dense parts always, and for MoE the shared
    experts plus the routed experts the batch's tokens are expected to touch."""
    arch, w = mem.arch, mem.workload
    per_param = mem.weights_gb * GB / (arch.params_b * 1e9)
    if not arch.routed_experts:
        active = arch.active_params_b * 1e9
        return active * per_param, f"{arch.active_params_b:.4g}B active params"
    touched = expected_experts_touched(arch.routed_experts, arch.experts_per_token, w.concurrency)
    share = touched / arch.routed_experts
    experts = arch.routed_expert_params_b * 1e9
    read = (arch.params_b * 1e9 - experts) + experts * share
    return read * per_param, (
        f"{(read / 1e9):.4g}B params: non-expert parts + ~{touched:.1f} of "
        f"{arch.routed_experts} routed experts per layer for {w.concurrency} sequence(s) "
        f"({arch.experts_per_token} per token)"
    )


def decode_speed(mem: MemoryEstimate, spec: CardSpec, layout: Layout | int) -> DecodeSpeed:
    """Upper-bound estimate for one replica on `layout` (an int means TP over that many).

    KV read is taken at the full context, i.e. the slowest step of a long generation.
    Pipeline stages run one after another for a token: PP adds memory, not speed.
    """
    if isinstance(layout, int):
        layout = Layout(tp=layout, pcie=layout > spec.fast_domain)
    workload = mem.workload
    weights_step, weights_what = step_weight_bytes(mem)
    kv_step = mem.kv_cache_gb * GB
    # Per tensor-parallel group: each card reads its weight shard and its KV share.
    per_card_read = weights_step / layout.tp + kv_step * kv_share_per_card(mem.arch, layout.tp)
    step_bytes = weights_step + kv_step
    efficiency = DECODE_BANDWIDTH_EFFICIENCY
    assumptions = [
        f"bandwidth efficiency {DECODE_BANDWIDTH_EFFICIENCY}",
        f"weights read per step: {weights_what}",
        "KV read at the full context of every sequence",
    ]
    if layout.pcie and layout.tp > 1:
        efficiency *= PCIE_TP_EFFICIENCY[layout.tp]
        assumptions.append(
            f"TP {layout.tp} over PCIe keeps {PCIE_TP_EFFICIENCY[layout.tp]:.0%} of the "
            "NVLink speed-up (modelled)"
        )
    if workload.precision == "fp8" and spec.fp8_path == FP8_WEIGHT_ONLY:
        efficiency *= FP8_WEIGHT_ONLY_EFFICIENCY
        assumptions.append(
            f"FP8 weight-only on {spec.gpu}: x{FP8_WEIGHT_ONLY_EFFICIENCY} (dequantise per matmul)"
        )
    if layout.pp > 1:
        assumptions.append(f"PP {layout.pp}: stages in sequence, no decode speed-up")
    step_time = per_card_read / (spec.bandwidth_gbs * GB * efficiency)
    bandwidth_total = workload.concurrency / step_time
    flops_per_token = 2 * mem.arch.active_params_b * 1e9
    compute_total = layout.tp * spec.fp16_tflops_dense * 1e12 * DECODE_COMPUTE_EFFICIENCY
    compute_total /= flops_per_token
    if bandwidth_total <= compute_total:
        total, bound = bandwidth_total, "bandwidth"
        formula = (
            f"TP {layout.tp} x {spec.bandwidth_gbs:g} GB/s x {efficiency:.3g} ÷ "
            f"{per_card_read / GB:.2f} GB read per card per step x {workload.concurrency} "
            "sequence(s)"
        )
    else:
        total, bound = compute_total, "compute"
        formula = (
            f"TP {layout.tp} x {spec.fp16_tflops_dense:g} TFLOPS x {DECODE_COMPUTE_EFFICIENCY} "
            f"÷ {flops_per_token / 1e9:.1f} GFLOP per token (compute-bound at this batch)"
        )
    return DecodeSpeed(
        total / workload.concurrency,
        total,
        bound,
        step_bytes / GB,
        formula,
        tuple(assumptions),
    )


def cny_per_million_tokens(monthly_cny: float, total_tps: float, hours: float) -> float:
    """Monthly bill ÷ tokens produced in the hours used, per million output tokens."""
    tokens = total_tps * 3600 * hours
    return monthly_cny / tokens * 1e6
