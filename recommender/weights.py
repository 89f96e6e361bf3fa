"""Bytes of a model's weights at a precision, group by group.

A quantised checkpoint is not all quantised: engines keep embeddings, norms and routers
at 16 bits, lm_head too unless the format quantises it, and a config's own
modules_to_not_convert / ignore list keeps more (gpt-oss: attention). So the weights are
the quantised groups at the format's bytes per parameter (scales included) plus the rest,
and a counted vision tower, at 2 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from recommender.architecture import QUANTISABLE_GROUPS, Architecture, ParamCounts, WeightFormat
from recommender.workload import PRECISION_BYTES

# Quantised weights carry scales. INT4 chosen by --precision is AWQ / GPTQ at group
# size 128: an FP16 scale and a 4-bit zero per 128 weights (+0.0195 B/param). INT8 and
# FP8 scales are per channel / per tensor (negligible). A checkpoint's own
# quantization_config states its format exactly (hf_quant.weight_format).
INT4_GROUP_OVERHEAD = (2.0 + 0.5) / 128
# QLoRA's NF4 base: 4 bits + an 8-bit absmax per 64 weights + (double quantisation) one
# FP32 per 256 absmax blocks.
QLORA_BYTES = 0.5 + 1 / 64 + 4 / (64 * 256)
HALF = 2.0  # what stays unquantised is BF16 / FP16
_SIXTEEN_BIT = ("bf16", "fp16", "fp32")


@dataclass(frozen=True)
class Weights:
    total_bytes: float
    routed_bytes: float  # the routed experts' share (decode reads only the touched ones)
    vision_bytes: float  # never read while decoding
    basis: str


def param_groups(arch: Architecture) -> ParamCounts:
    """The counted groups, or for a hand-copied preset or a custom size: embeddings (and
    an untied head) apart, everything else as linear layers."""
    if arch.params is not None:
        return arch.params
    embed = arch.vocab * arch.hidden
    head = 0 if arch.tied_embeddings else embed
    rest = max(0, round(arch.params_b * 1e9) - embed - head)
    routed = round(arch.routed_expert_params_b * 1e9)
    return ParamCounts(embed=embed, lm_head=head, attention=max(0, rest - routed),
                       routed_experts=routed)  # fmt: skip


def weight_bytes(arch: Architecture, precision: str, method: str | None) -> Weights:
    """Bytes of all weights at `precision`, and how they were counted."""
    groups = param_groups(arch)
    vision = arch.vision_params_b * 1e9 * HALF
    fmt = (
        arch.quantization
        if arch.quantization and arch.quantization.precision == precision
        else None
    )
    if method == "qlora":
        per, what, fmt = QLORA_BYTES, "NF4 4-bit + absmax per 64, double quantised", None
    elif fmt is not None:
        per, what = fmt.bytes_per_param, f"{fmt.detail}, the checkpoint's own quantization_config"
    elif precision in _SIXTEEN_BIT:
        per = PRECISION_BYTES[precision]
        total = groups.total * per + vision
        return Weights(total, groups.routed_experts * per, vision,
                       f"{groups.total / 1e9:.4g}B x {per:g} B ({precision})" + _vision(arch))  # fmt: skip
    else:
        per = PRECISION_BYTES[precision] + (INT4_GROUP_OVERHEAD if precision == "int4" else 0.0)
        what = _REQUANTISED.get(precision, precision)
    quantised = _quantised(groups, fmt)
    rest = groups.total - quantised
    routed_per = per if "routed_experts" not in _kept(fmt) else HALF
    basis = (
        f"{quantised / 1e9:.4g}B quantised x {per:.4g} B ({what}) + {rest / 1e9:.4g}B kept at "
        f"16 bits x 2 B ({_kept_text(fmt)})" + _vision(arch)
    )
    return Weights(quantised * per + rest * HALF + vision, groups.routed_experts * routed_per,
                   vision, basis)  # fmt: skip


_REQUANTISED = {
    "int4": "INT4 AWQ/GPTQ, group 128: FP16 scale + 4-bit zero per group",
    "int8": "INT8 W8A8, per-channel scales",
    "fp8": "FP8, per-channel scales",
    "mxfp4": "MXFP4: 4-bit + one E8M0 scale per 32",
}


def _kept(fmt: WeightFormat | None) -> frozenset[str]:
    return fmt.not_converted if fmt is not None else frozenset()


def _quantised(groups: ParamCounts, fmt: WeightFormat | None) -> int:
    kept = _kept(fmt)
    quantised = sum(groups.group(g) for g in QUANTISABLE_GROUPS if g not in kept)
    if fmt is not None and fmt.lm_head_quantised:
        quantised += groups.lm_head
    return quantised


def _kept_text(fmt: WeightFormat | None) -> str:
    kept = ["embeddings", "norms", "router"]
    if fmt is None or not fmt.lm_head_quantised:
        kept.insert(1, "lm_head")
    kept += sorted(_kept(fmt))
    listed = " (modules_to_not_convert / ignore)" if _kept(fmt) else ""
    return ", ".join(kept) + listed


def _vision(arch: Architecture) -> str:
    if arch.vision_params_b:
        return f" + vision tower {arch.vision_params_b:.3g}B x 2 B"
    return ""
