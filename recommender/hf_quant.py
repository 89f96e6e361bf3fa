"""A config.json's quantization_config -> the WeightFormat its weights ship in. Pure.

Each reader takes (quantization_config, quant_method, source) and returns the format, or
None when the config does not name a format this recommender knows. What stays 16-bit is
read from the config's own list (modules_to_not_convert, ignore): embeddings, norms and
routers are never quantised by the engines, lm_head only when the format says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from recommender.architecture import WeightFormat
from recommender.errors import RecommenderInputError

# AWQ / GPTQ store one FP16 scale (2 B) and, when asymmetric, one 4-bit zero (0.5 B) per
# group of weights; 128 is both libraries' default group size.
DEFAULT_GROUP_SIZE = 128
_SCALE_BYTES = 2.0
_ZERO_BYTES = 0.5
# MXFP4 (OCP microscaling): 4-bit values with one 8-bit E8M0 exponent per 32.
MXFP4_BYTES = 0.5 + 1 / 32

# A module name in a not-converted list -> the parameter group it keeps at 16 bits. Norm
# entries ("post_attention_layernorm") and router entries ("mlp.gate") are 16-bit anyway.
_GROUP_WORDS = (
    ("shared_expert", "shared_experts"),
    ("experts", "routed_experts"),
    ("self_attn", "attention"),
    ("linear_attn", "recurrent"),
    ("mamba", "recurrent"),
    ("mixer", "recurrent"),
)


def not_converted_groups(names: object) -> frozenset[str]:
    """The parameter groups a modules_to_not_convert / ignore list keeps unquantised.

    A per-layer entry ("model.layers.0.self_attn") counts for the whole group: the
    recommender does not track groups layer by layer, and 16 bits is the safe side."""
    groups: set[str] = set()
    for name in names if isinstance(names, list) else []:
        text = str(name).lower()
        if "norm" in text or text.endswith(("gate", "router", "gate$")):
            continue
        for word, group in _GROUP_WORDS:
            if word in text:
                groups.add(group)
                break
    return frozenset(groups)


def weight_format(quant: object, source: str = "config.json") -> WeightFormat | None:
    """The precision a checkpoint ships in, with its scale overhead, or None for 16-bit."""
    if quant is None:
        return None
    if not isinstance(quant, Mapping):
        raise RecommenderInputError(f"{source}: quantization_config must be a JSON object")
    quant = _flat_modelopt(quant)
    method = str(quant.get("quant_method", "")).lower()
    read = _QUANT_METHODS.get(method)
    found = read(quant, method, source) if read is not None else None
    if found is not None:
        return found
    raise RecommenderInputError(
        f"{source}: quantization_config.quant_method {method or '(missing)'!r} is not one this "
        "recommender knows (fp8, awq, gptq, mxfp4, bitsandbytes, compressed-tensors, modelopt "
        "FP8); remove quantization_config and pass --precision"
    )


def _flat_modelopt(quant: Mapping[str, Any]) -> Mapping[str, Any]:
    """hf_quant_config.json as ModelOpt writes it ({"producer": {"name": "modelopt"},
    "quantization": {"quant_algo": ..., "kv_cache_quant_algo": ..., "exclude_modules": ...}})
    read as vLLM reads it: producer modelopt with quant_algo FP8 is quant_method "modelopt"
    (ModelConfig._normalize_quantization_config, vllm/config/model.py), with the inner
    figures. ModelOpt 0.31+ writes the same keys flat into config.json's
    quantization_config; they are read the same way."""
    producer = quant.get("producer")
    if not (isinstance(producer, Mapping) and producer.get("name") == "modelopt"):
        return quant
    inner = quant.get("quantization")
    # ModelOpt 0.31 and after write the same figures into config.json's quantization_config
    # without the "quantization" level (and without quant_method, which vLLM then sets).
    return {"quant_method": "modelopt", **(inner if isinstance(inner, Mapping) else quant)}


def _skipped(quant: Mapping[str, Any]) -> frozenset[str]:
    return not_converted_groups(
        quant.get("modules_to_not_convert") or quant.get("ignore") or quant.get("exclude_modules")
    )


def _fp8(quant: Mapping[str, Any], method: str, source: str) -> WeightFormat | None:
    block = quant.get("weight_block_size")
    if isinstance(block, list) and len(block) == 2 and all(isinstance(b, int) for b in block):
        extra = 4 / (block[0] * block[1])
        detail = f"FP8 e4m3 + one FP32 scale per {block[0]}x{block[1]} block"
        shape: tuple[int, int] | None = (block[0], block[1])
    else:
        extra, detail, shape = 0.0, "FP8 with per-tensor / per-channel scales", None
    return WeightFormat("fp8", 1 + extra, method, detail, _skipped(quant), shape)


def _awq_gptq(quant: Mapping[str, Any], method: str, source: str) -> WeightFormat | None:
    bits = quant.get("bits", quant.get("w_bit"))
    group = quant.get("group_size", quant.get("q_group_size")) or DEFAULT_GROUP_SIZE
    if bits not in (4, 8) or not isinstance(group, int):
        raise RecommenderInputError(
            f"{source}: {method} quantization_config needs bits 4 or 8 and an integer "
            f"group_size, got bits {bits!r}, group_size {group!r}"
        )
    if group <= 0:  # -1: one scale per output channel
        group = 1_000_000
    symmetric = method == "gptq" and quant.get("sym", True)
    overhead = (_SCALE_BYTES + (0 if symmetric else _ZERO_BYTES)) / group
    zeros = "" if symmetric else " and a 4-bit zero"
    detail = f"{bits}-bit {method.upper()}, an FP16 scale{zeros} per group of {group}"
    return WeightFormat(
        "int4" if bits == 4 else "int8",
        bits / 8 + overhead,
        method,
        detail,
        _skipped(quant),
        lm_head_quantised=bool(quant.get("lm_head")),
    )


def _mxfp4(quant: Mapping[str, Any], method: str, source: str) -> WeightFormat | None:
    return WeightFormat(
        "mxfp4", MXFP4_BYTES, method, "MXFP4: 4-bit values with one E8M0 scale per 32",
        _skipped(quant),
    )  # fmt: skip


def _bitsandbytes(quant: Mapping[str, Any], method: str, source: str) -> WeightFormat | None:
    skipped = not_converted_groups(quant.get("llm_int8_skip_modules"))
    if quant.get("load_in_4bit"):
        return WeightFormat("int4", 0.5 + 1 / 64, method, "NF4, one 8-bit absmax per 64", skipped)
    if quant.get("load_in_8bit"):
        return WeightFormat("int8", 1.0, method, "LLM.int8()", skipped)
    return None


def _kv_scheme(quant: Mapping[str, Any]) -> str | None:
    scheme = quant.get("kv_cache_scheme")
    if isinstance(scheme, Mapping) and scheme.get("num_bits") == 8:
        return "fp8" if scheme.get("type") == "float" else "int8"
    return None


def _compressed_tensors(quant: Mapping[str, Any], method: str, source: str) -> WeightFormat | None:
    kv = _kv_scheme(quant)
    for group in (quant.get("config_groups") or {}).values():
        weights = group.get("weights") if isinstance(group, Mapping) else None
        if isinstance(weights, Mapping) and weights.get("num_bits") in (4, 8):
            bits = weights["num_bits"]
            if weights.get("type") == "float" and bits == 8:
                return WeightFormat(
                    "fp8", 1.0, method, "FP8 (compressed-tensors)", _skipped(quant),
                    kv_cache_dtype=kv,
                )  # fmt: skip
            size = weights.get("group_size") or DEFAULT_GROUP_SIZE
            precision = "int4" if bits == 4 else "int8"
            detail = f"{bits}-bit integer (compressed-tensors), scale per {size}"
            return WeightFormat(
                precision, bits / 8 + _SCALE_BYTES / size, method, detail, _skipped(quant),
                kv_cache_dtype=kv,
            )  # fmt: skip
    return None


def _modelopt(quant: Mapping[str, Any], method: str, source: str) -> WeightFormat | None:
    algo = str(quant.get("quant_algo", "")).upper()
    if algo not in ("FP8", "FP8_PER_CHANNEL_PER_TOKEN"):
        raise RecommenderInputError(
            f"{source}: ModelOpt quant_algo {algo or '(missing)'!r} is not one this recommender "
            "sizes (it reads ModelOpt FP8; NVFP4 runs on Blackwell cards only, none of which it "
            "prices); pass --precision to size another format"
        )
    # vLLM's get_kv_cache_quant_algo_string: kv_cache_scheme, else kv_cache_quant_algo; a
    # string ("FP8") or a compressed-tensors-like {"num_bits": 8, "type": "float"}.
    kv_algo = quant.get("kv_cache_scheme") or quant.get("kv_cache_quant_algo")
    if isinstance(kv_algo, Mapping):
        kv = _kv_scheme({"kv_cache_scheme": kv_algo})
    else:
        kv = "fp8" if str(kv_algo or "").upper() == "FP8" else None
    return WeightFormat(
        "fp8", 1.0, method, "FP8 per-tensor (NVIDIA ModelOpt)", _skipped(quant),
        kv_cache_dtype=kv,
    )  # fmt: skip


_QUANT_METHODS: dict[str, Callable[[Mapping[str, Any], str, str], WeightFormat | None]] = {
    "fp8": _fp8,
    "awq": _awq_gptq,
    "gptq": _awq_gptq,
    "mxfp4": _mxfp4,
    "bitsandbytes": _bitsandbytes,
    "compressed-tensors": _compressed_tensors,
    "modelopt": _modelopt,
}
