"""Decode speed: an upper bound from memory bandwidth, held back by a latency floor, and
what an output token costs.

Decoding one step reads every weight the step's tokens touch once and every sequence's KV
cache once, and yields one token per sequence, so at small batch it is bandwidth-bound
(seed 000 §6.2). That gives an upper bound, never a promise. A step also cannot be faster
than its fixed latencies: a kernel chain per layer, two all-reduces per layer under
tensor parallelism, a routing / grouped-GEMM / all-to-all round per MoE layer and a hop
per pipeline stage; at batch 1 on large MoE models that floor, not bandwidth, sets the
pace (tens of tokens/s, not hundreds). At large batch the matmuls catch up, so a compute
ceiling caps it too. All constants are modelled planning figures, not benchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass

from recommender.cards import CardSpec
from recommender.layout import Layout
from recommender.memory import GB, MemoryEstimate, kv_share_per_card
from recommender.support import WEIGHT_ONLY, support

# Share of peak HBM/GDDR bandwidth real decode kernels sustain (vLLM / TensorRT-LLM
# measure ~0.5-0.8; 0.6 is a planning figure, not a benchmark).
DECODE_BANDWIDTH_EFFICIENCY = 0.6
# Share of dense FP16 tensor throughput reached when decode turns compute-bound. FP8 and
# INT8 tensor rates are not used (the 16-bit rate is the conservative ceiling).
DECODE_COMPUTE_EFFICIENCY = 0.5
# Tensor parallel over PCIe: two all-reduces of the hidden state per layer and token
# cross PCIe instead of NVLink/HCCS. Share of the ideal TP speed-up kept (modelled).
PCIE_TP_EFFICIENCY = {1: 1.0, 2: 0.85, 4: 0.7, 8: 0.55}
# Weight-only formats (FP8 / MXFP4 on cards without the tensor cores, INT4 W4A16)
# dequantise to 16-bit per matmul: ~15% of decode speed (modelled).
FP8_WEIGHT_ONLY_EFFICIENCY = 0.85
# The latency floor of one decode step, in microseconds (modelled): a chain of small
# kernels per layer even with CUDA graphs; one all-reduce (x2 per layer under TP) over
# NVLink / HCCS or over PCIe; routing, top-k and the grouped expert GEMMs (or EP's
# all-to-all) per MoE layer; the hand-over between pipeline stages.
LAYER_FLOOR_US = 20.0
ALLREDUCE_US = {"fast": 8.0, "pcie": 30.0}
MOE_LAYER_FLOOR_US = 250.0
PP_HOP_US = 50.0


@dataclass(frozen=True)
class DecodeSpeed:
    per_sequence_tps: float
    total_tps: float
    bound: str  # "bandwidth", "latency floor" or "compute"
    bytes_per_step_gb: float
    formula: str  # evaluates to total_tps (with the numbers as printed)
    floor_ms: float = 0.0
    floor_formula: str = ""
    assumptions: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"≤ {self.per_sequence_tps:.1f} tokens/s per sequence (upper bound, {self.bound})"


def expected_experts_touched(routed: int, per_token: int, sequences: int) -> float:
    """Distinct routed experts one MoE layer reads for a batch, routing taken as uniform:
    E x (1 - (1 - k/E)^B). One sequence reads k; a large batch reads nearly all E."""
    if not routed:
        return 0.0
    return routed * (1 - (1 - per_token / routed) ** sequences)


def step_weight_bytes(mem: MemoryEstimate, sequences: int | None = None) -> tuple[float, str]:
    """Weight bytes one decode step reads: dense parts always, and for MoE the shared
    experts plus the routed experts the batch's tokens are expected to touch. The vision
    tower is not read while decoding."""
    arch = mem.arch
    batch = mem.workload.concurrency if sequences is None else sequences
    text = (mem.weights_gb - mem.vision_weights_gb) * GB
    if not arch.routed_experts:  # dense, or a preset that only states its active share
        return (
            text * arch.active_params_b / arch.params_b,
            f"{arch.active_params_b:.4g}B active params",
        )
    touched = expected_experts_touched(arch.routed_experts, arch.experts_per_token, batch)
    routed = mem.routed_weights_gb * GB
    read = text - routed + routed * touched / arch.routed_experts
    return read, (
        f"non-expert parts + ~{touched:.1f} of {arch.routed_experts} routed experts per layer "
        f"for {batch} sequence(s) ({arch.experts_per_token} per token)"
    )


def latency_floor(mem: MemoryEstimate, layout: Layout) -> tuple[float, str]:
    """(ms, the sum that gives it) for one decode step of one replica."""
    arch = mem.arch
    parts = [(arch.layers, "layers", LAYER_FLOOR_US)]
    if layout.tp > 1:
        link = "pcie" if layout.pcie else "fast"
        parts.append((2 * arch.layers, f"all-reduces ({'PCIe' if layout.pcie else 'NVLink/HCCS'})",
                      ALLREDUCE_US[link]))  # fmt: skip
    if arch.moe_layers:
        parts.append((arch.moe_layers, "MoE layers", MOE_LAYER_FLOOR_US))
    if layout.pp > 1:
        parts.append((layout.pp - 1, "pipeline hops", PP_HOP_US))
    total_us = sum(n * us for n, _, us in parts)
    text = " + ".join(f"{n} {what} x {us:g} µs" for n, what, us in parts)
    return total_us / 1000, f"{text} = {total_us / 1000:.4f} ms"


def decode_speed(
    mem: MemoryEstimate, spec: CardSpec, layout: Layout | int, sequences: int | None = None
) -> DecodeSpeed:
    """Upper bound for one replica on `layout` (an int means TP over that many), serving
    its share of the sequences, or `sequences` per replica when given. KV is read at the
    full context (the slowest step of a long generation). Pipeline stages run one after
    another for a token: PP adds memory, not speed; data-parallel replicas multiply the
    total."""
    if isinstance(layout, int):
        layout = Layout(tp=layout, pcie=layout > spec.fast_domain)
    workload = mem.workload
    if sequences is None:
        sequences = mem.sequences_per_replica(layout.dp)
    weights_step, weights_what = step_weight_bytes(mem, sequences)
    kv_step = (mem.kv_cache_gb + mem.state_gb) * GB * sequences / workload.concurrency
    per_card = weights_step / layout.tp + kv_step * kv_share_per_card(mem.arch, layout.tp)
    efficiency, assumptions = _efficiency(mem, spec, layout, weights_what)
    floor_ms, floor_text = latency_floor(mem, layout)
    read_gb = per_card / GB
    bandwidth_ms = read_gb / (spec.bandwidth_gbs * efficiency) * 1000
    replica_tps = sequences * 1000 / max(bandwidth_ms, floor_ms)
    bound = "bandwidth" if bandwidth_ms >= floor_ms else "latency floor"
    formula = (
        f"{sequences} sequence(s) x 1000 ÷ max({read_gb:.4f} GB per card ÷ "
        f"({spec.bandwidth_gbs:g} GB/s x {efficiency:.4g}) x 1000 ms, floor {floor_ms:.4f} ms) "
        f"= {replica_tps:.2f} tokens/s per replica"
    )
    flops = 2 * mem.arch.active_params_b * 1e9
    compute_tps = layout.tp * spec.fp16_tflops_dense * 1e12 * DECODE_COMPUTE_EFFICIENCY / flops
    if compute_tps < replica_tps:
        replica_tps, bound = compute_tps, "compute"
        formula = (
            f"{layout.tp} x {spec.fp16_tflops_dense:g} TFLOPS x 1e12 x "
            f"{DECODE_COMPUTE_EFFICIENCY} ÷ {flops:.6g} FLOP per token = {replica_tps:.2f} "
            "tokens/s per replica (compute-bound at this batch)"
        )
    if layout.dp > 1:
        formula += f"; x {layout.dp} replicas"
    return DecodeSpeed(
        replica_tps / sequences,
        replica_tps * layout.dp,
        bound,
        (weights_step + kv_step) / GB,
        formula,
        floor_ms,
        floor_text,
        tuple(assumptions),
    )


def _efficiency(
    mem: MemoryEstimate, spec: CardSpec, layout: Layout, weights_what: str
) -> tuple[float, list[str]]:
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
    precision = mem.workload.precision or "bf16"
    if precision in ("fp8", "mxfp4") and support(precision, spec).path == WEIGHT_ONLY:
        efficiency *= FP8_WEIGHT_ONLY_EFFICIENCY
        assumptions.append(
            f"{precision.upper()} weight-only on {spec.gpu}: x{FP8_WEIGHT_ONLY_EFFICIENCY} "
            "(dequantise per matmul)"
        )
    if layout.pp > 1:
        assumptions.append(f"PP {layout.pp}: stages in sequence, no decode speed-up")
    return efficiency, assumptions


def cny_per_million_tokens(monthly_cny: float, total_tps: float, hours: float) -> float:
    """Monthly bill ÷ tokens produced in the hours used, per million output tokens."""
    tokens = total_tps * 3600 * hours
    return monthly_cny / tokens * 1e6
