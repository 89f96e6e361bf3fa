"""A Hugging Face config.json (already parsed) -> Architecture. Pure: the caller reads files.

Parameters are counted from the architecture, matrix by matrix, the way transformers
builds the model: embeddings (and the LM head unless tied), per layer the attention
projections (GQA, or MLA's low-rank q/kv with the RoPE key), the gated MLP or the MoE
block (routed and shared experts, router), RMSNorm weights, and the biases the config
turns on. Multi-token-prediction layers (num_nextn_predict_layers) are not counted:
engines load them only for speculative decoding. Llama-3.3-70B counts to
70,553,706,496, its published figure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from recommender.architecture import Architecture, WeightFormat
from recommender.errors import RecommenderInputError

GB = 1e9

# Names for the same figure across families (Llama/Qwen/DeepSeek spell the first one;
# ChatGLM, GPT-2 style and Mixtral-era configs the others).
_ALIASES: dict[str, tuple[str, ...]] = {
    "layers": ("num_hidden_layers", "num_layers", "n_layer"),
    "hidden": ("hidden_size", "n_embd", "d_model"),
    "heads": ("num_attention_heads", "n_head"),
    "vocab": ("vocab_size", "padded_vocab_size"),
    "intermediate": ("intermediate_size", "ffn_hidden_size", "n_inner"),
}

# AWQ / GPTQ store one FP16 scale (2 B) and, when asymmetric, one 4-bit zero (0.5 B) per
# group of weights; 128 is both libraries' default group size.
DEFAULT_GROUP_SIZE = 128
_SCALE_BYTES = 2.0
_ZERO_BYTES = 0.5


def architecture_from_config(
    config: Mapping[str, Any],
    *,
    name: str,
    source: str,
    index: Mapping[str, Any] | None = None,
) -> Architecture:
    """Read the figures the recommender needs; a missing or malformed one raises
    RecommenderInputError naming the key and where it came from."""
    c = _language_model(config, source)
    sources: dict[str, str] = {}  # figure -> the key (or rule) it came from, in reading order
    layers, hidden, heads, vocab = (
        _need(c, figure, source, sources) for figure in ("layers", "hidden", "heads", "vocab")
    )
    kv_heads = _kv_heads(c, heads, source, sources)
    head_dim = _head_dim(c, hidden, heads, source, sources)
    attention, kv_lora, rope = _attention_kind(c, heads, kv_heads, source, sources)
    mla = attention == "mla"

    moe = _moe(c, layers, source)
    tied = bool(c.get("tie_word_embeddings", False))
    window, sliding = _sliding(c, layers, source)
    counts = _count_params(
        c, layers, hidden, heads, kv_heads, head_dim, vocab, tied, moe, mla, source
    )
    total, routed_total, routed_active = counts
    active = total - routed_total + routed_active
    sources["params_b"] = "counted from the architecture (hf_config.py)"
    sources["active_params_b"] = (
        f"{moe['per_token']} of {moe['routed']} routed experts + shared + dense parts"
        if moe["routed"]
        else "dense: all parameters"
    )
    checkpoint_gb = None
    if index is not None:
        checkpoint_gb = _total_size(index, source) / GB
        sources["checkpoint_gb"] = "model.safetensors.index.json metadata.total_size"
    quant = weight_format(c.get("quantization_config"), source)
    if quant is not None:
        sources["quantization"] = f"quantization_config.quant_method {quant.method}"
    sources["kv_bytes_per_token"] = (
        "(kv_lora_rank + qk_rope_head_dim) x layers"
        if mla
        else "2 x num_key_value_heads x head_dim x layers"
    )
    dtype = c.get("torch_dtype") or c.get("dtype")
    return Architecture(
        name=name,
        params_b=total / 1e9,
        active_params_b=active / 1e9,
        layers=layers,
        hidden=hidden,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab=vocab,
        estimated=False,
        source=source,
        heads=heads,
        attention=attention,
        kv_lora_rank=kv_lora,
        qk_rope_head_dim=rope,
        sliding_window=window,
        sliding_layers=sliding,
        routed_experts=moe["routed"],
        shared_experts=moe["shared"],
        experts_per_token=moe["per_token"],
        moe_layers=moe["moe_layers"],
        first_dense_layers=moe["first_dense"],
        routed_expert_params_b=routed_total / 1e9,
        tied_embeddings=tied,
        quantization=quant,
        checkpoint_gb=checkpoint_gb,
        torch_dtype=dtype if isinstance(dtype, str) else None,
        figure_sources=tuple(sources.items()),
    )


def _language_model(config: object, source: str) -> Mapping[str, Any]:
    """The language model's config: the file itself, or a multimodal wrapper's text_config."""
    if not isinstance(config, Mapping):
        raise RecommenderInputError(
            f"{source}: config.json must be a JSON object, got {type(config).__name__}"
        )
    c: Mapping[str, Any] = config
    if "text_config" in c and not _has(c, "layers"):
        c = c["text_config"]  # multimodal wrappers keep the language model here
        if not isinstance(c, Mapping):
            raise RecommenderInputError(f"{source}: text_config must be a JSON object")
    return c


def _need(c: Mapping[str, Any], figure: str, source: str, sources: dict[str, str]) -> int:
    """A figure the count cannot do without, under whichever of its names the config uses."""
    for key in _ALIASES[figure]:
        if key in c:
            sources[figure] = key
            return _positive_int(c[key], key, source)
    raise RecommenderInputError(
        f"{source}: config.json has no {' / '.join(_ALIASES[figure])}; give the model's "
        "complete config.json (as in its Hugging Face repository)"
    )


def _head_dim(
    c: Mapping[str, Any], hidden: int, heads: int, source: str, sources: dict[str, str]
) -> int:
    head_dim = _opt_int(c, "head_dim", source) or _opt_int(c, "kv_channels", source)
    if head_dim:
        sources["head_dim"] = "head_dim" if "head_dim" in c else "kv_channels"
        return head_dim
    if hidden % heads:
        raise RecommenderInputError(
            f"{source}: hidden_size {hidden} is not a multiple of num_attention_heads "
            f"{heads} and there is no head_dim; give a config.json with head_dim"
        )
    sources["head_dim"] = "hidden_size / num_attention_heads"
    return hidden // heads


def _attention_kind(
    c: Mapping[str, Any], heads: int, kv_heads: int, source: str, sources: dict[str, str]
) -> tuple[str, int, int]:
    """(mha / gqa / mla, kv_lora_rank, qk_rope_head_dim): MLA when kv_lora_rank is set."""
    kv_lora = _opt_int(c, "kv_lora_rank", source)
    if not kv_lora:
        sources["attention"] = f"num_key_value_heads {kv_heads} vs {heads} heads"
        return ("mha" if kv_heads == heads else "gqa"), 0, 0
    for key in ("qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"):
        if not _opt_int(c, key, source):
            raise RecommenderInputError(
                f"{source}: MLA config (kv_lora_rank {kv_lora}) has no {key}; give the "
                "model's complete config.json"
            )
    sources["attention"] = "kv_lora_rank present: MLA"
    return "mla", kv_lora, _opt_int(c, "qk_rope_head_dim", source)


def _has(c: Mapping[str, Any], figure: str) -> bool:
    return any(key in c for key in _ALIASES[figure])


def _positive_int(value: object, key: str, source: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    raise RecommenderInputError(f"{source}: {key} must be a positive whole number, got {value!r}")


def _opt_int(c: Mapping[str, Any], key: str, source: str) -> int:
    value = c.get(key)
    return 0 if value is None else _positive_int(value, key, source)


def _kv_heads(c: Mapping[str, Any], heads: int, source: str, sources: dict[str, str]) -> int:
    for key in ("num_key_value_heads", "multi_query_group_num", "n_head_kv"):
        if c.get(key) is not None:
            kv = _positive_int(c[key], key, source)
            sources["kv_heads"] = key
            break
    else:
        kv = heads
        sources["kv_heads"] = "no num_key_value_heads: MHA, one per head"
    if kv > heads or heads % kv:
        raise RecommenderInputError(
            f"{source}: {kv} KV heads must divide the {heads} attention heads"
        )
    return kv


def _moe(c: Mapping[str, Any], layers: int, source: str) -> dict[str, Any]:
    routed = 0
    for key in ("n_routed_experts", "num_experts", "num_local_experts"):
        if c.get(key):
            routed = _positive_int(c[key], key, source)
            break
    if not routed:
        return {"routed": 0, "shared": 0, "per_token": 0, "moe_layers": 0, "first_dense": 0,
                "layer_is_moe": [False] * layers}  # fmt: skip
    per_token = 0
    for key in ("num_experts_per_tok", "experts_per_token", "moe_topk"):
        if c.get(key):
            per_token = _positive_int(c[key], key, source)
            break
    if not per_token or per_token > routed:
        raise RecommenderInputError(
            f"{source}: MoE config ({routed} experts) needs num_experts_per_tok between 1 and "
            f"{routed}; give the model's complete config.json"
        )
    first_dense = _opt_int(c, "first_k_dense_replace", source)
    freq = _opt_int(c, "moe_layer_freq", source) or 1
    step = _opt_int(c, "decoder_sparse_step", source) or 1
    mlp_only = set(c.get("mlp_only_layers") or [])
    is_moe = [
        i >= first_dense and (i - first_dense) % freq == 0 and (i + 1) % step == 0
        and i not in mlp_only
        for i in range(layers)
    ]  # fmt: skip
    shared = int(c.get("n_shared_experts") or c.get("num_shared_experts") or 0)
    if not shared and c.get("shared_expert_intermediate_size"):
        shared = 1
    return {"routed": routed, "shared": shared, "per_token": per_token,
            "moe_layers": sum(is_moe), "first_dense": first_dense, "layer_is_moe": is_moe}  # fmt: skip


def _sliding(c: Mapping[str, Any], layers: int, source: str) -> tuple[int | None, int]:
    """(window, layers that use it). layer_types says it per layer (gpt-oss, Qwen3 new
    configs); Qwen2-style use_sliding_window applies from max_window_layers up; Gemma 2
    alternates; Gemma 3 has one full layer per sliding_window_pattern; Mistral slides
    every layer."""
    window = c.get("sliding_window")
    types = c.get("layer_types")
    if isinstance(types, list) and types:
        sliding = sum(1 for t in types[:layers] if t == "sliding_attention")
        if sliding:
            return _positive_int(window, "sliding_window", source), sliding
        return None, 0
    if not window:
        return None, 0
    window = _positive_int(window, "sliding_window", source)
    model_type = str(c.get("model_type", ""))
    if "use_sliding_window" in c:
        if not c["use_sliding_window"]:
            return None, 0
        start = int(c.get("max_window_layers") or 0)
        return window, max(0, layers - start)
    if model_type == "gemma2":
        return window, layers // 2
    if c.get("sliding_window_pattern"):
        pattern = _positive_int(c["sliding_window_pattern"], "sliding_window_pattern", source)
        return window, sum(1 for i in range(layers) if (i + 1) % pattern)
    if model_type in ("mistral", "mixtral", "ministral"):
        return window, layers
    return None, 0


def _count_params(
    c: Mapping[str, Any],
    layers: int,
    hidden: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    vocab: int,
    tied: bool,
    moe: dict[str, Any],
    mla: bool,
    source: str,
) -> tuple[int, int, int]:
    """(total, all routed-expert params, routed-expert params active per token).

    A decoder layer is its attention, its two norms and its MLP: the dense one, or on the
    layers ``moe["layer_is_moe"]`` marks, the MoE block. Each part is counted by a function
    of its own, so a new kind of layer is one more function."""
    model_type = str(c.get("model_type", ""))
    embed = vocab * hidden * (1 if tied else 2)
    attention = _attention_params(c, model_type, hidden, heads, kv_heads, head_dim, mla)
    norms = 2 * hidden
    intermediate = next((c[k] for k in _ALIASES["intermediate"] if c.get(k)), None)
    dense_mlp = 3 * hidden * int(intermediate) if intermediate else 0
    total = embed + hidden  # + final norm
    if not moe["routed"]:
        if not dense_mlp:
            raise RecommenderInputError(
                f"{source}: config.json has no intermediate_size; give the model's complete "
                "config.json"
            )
        return total + layers * (attention + norms + dense_mlp), 0, 0
    block, routed, active = _moe_block(c, model_type, hidden, intermediate, moe, source)
    routed_total = routed_active = 0
    for is_moe in moe["layer_is_moe"]:
        if is_moe:
            total += attention + norms + block
            routed_total += routed
            routed_active += active
        else:
            total += attention + norms + dense_mlp
    return total, routed_total, routed_active


def _moe_block(
    c: Mapping[str, Any],
    model_type: str,
    hidden: int,
    intermediate: object,
    moe: dict[str, Any],
    source: str,
) -> tuple[int, int, int]:
    """One MoE layer's MLP: (all its params, its routed experts', those active per token).
    Routed experts, shared experts (or Qwen2-MoE's shared expert of its own size) and the
    router with its bias or gate."""
    expert_inter = int(c.get("moe_intermediate_size") or intermediate or 0)
    if not expert_inter:
        raise RecommenderInputError(
            f"{source}: MoE config has no moe_intermediate_size / intermediate_size; give "
            "the model's complete config.json"
        )
    expert = 3 * hidden * expert_inter
    if model_type == "gpt_oss":  # gate_up and down projections carry biases
        expert += 2 * expert_inter + hidden
    shared_inter = c.get("shared_expert_intermediate_size")
    shared = 3 * hidden * int(shared_inter) if shared_inter else moe["shared"] * expert
    router = hidden * moe["routed"]
    if model_type in ("gpt_oss", "glm4_moe") or c.get("topk_method") == "noaux_tc":
        router += moe["routed"]  # router bias / e_score_correction_bias
    if shared_inter:
        router += hidden  # Qwen2-MoE's shared_expert_gate
    routed = expert * moe["routed"]
    return routed + shared + router, routed, expert * moe["per_token"]


def _attention_params(
    c: Mapping[str, Any],
    model_type: str,
    hidden: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    mla: bool,
) -> int:
    if mla:
        q_lora = int(c.get("q_lora_rank") or 0)
        nope, rope = int(c["qk_nope_head_dim"]), int(c["qk_rope_head_dim"])
        v_dim, kv_lora = int(c["v_head_dim"]), int(c["kv_lora_rank"])
        qk = nope + rope
        q = hidden * q_lora + q_lora + q_lora * heads * qk if q_lora else hidden * heads * qk
        kv = hidden * (kv_lora + rope) + kv_lora + kv_lora * heads * (nope + v_dim)
        return q + kv + heads * v_dim * hidden
    q_out, kv_out = heads * head_dim, kv_heads * head_dim
    params = 2 * hidden * q_out + 2 * hidden * kv_out  # q, o; k, v
    if c.get("attention_bias") or model_type in ("qwen2", "qwen2_moe"):
        params += q_out + 2 * kv_out
    if model_type == "gpt_oss":
        params += hidden + heads  # o_proj bias and the attention sinks
    if model_type in ("qwen3", "qwen3_moe") or c.get("use_qk_norm"):
        params += 2 * head_dim  # q_norm and k_norm
    return params


def _total_size(index: Mapping[str, Any], source: str) -> int:
    meta = index.get("metadata") if isinstance(index, Mapping) else None
    size = meta.get("total_size") if isinstance(meta, Mapping) else None
    if isinstance(size, int | float) and not isinstance(size, bool) and size > 0:
        return int(size)
    raise RecommenderInputError(
        f"{source}: model.safetensors.index.json has no metadata.total_size; give the index "
        "as published with the weights, or leave it out"
    )


def weight_format(quant: object, source: str = "config.json") -> WeightFormat | None:
    """The precision a checkpoint ships in, with its scale overhead, or None for 16-bit."""
    if quant is None:
        return None
    if not isinstance(quant, Mapping):
        raise RecommenderInputError(f"{source}: quantization_config must be a JSON object")
    method = str(quant.get("quant_method", "")).lower()
    read = _QUANT_METHODS.get(method)
    found = read(quant, method, source) if read is not None else None
    if found is not None:
        return found
    raise RecommenderInputError(
        f"{source}: quantization_config.quant_method {method or '(missing)'!r} is not one this "
        "recommender knows (fp8, awq, gptq, mxfp4, bitsandbytes, compressed-tensors); remove "
        "quantization_config and pass --precision"
    )


# Each reader: (quantization_config, quant_method, source) -> the format, or None when the
# config does not say a format this recommender knows.


def _fp8(quant: Mapping[str, Any], method: str, source: str) -> WeightFormat | None:
    block = quant.get("weight_block_size")
    if isinstance(block, list) and len(block) == 2 and all(isinstance(b, int) for b in block):
        extra = 4 / (block[0] * block[1])
        detail = f"FP8 e4m3 + one FP32 scale per {block[0]}x{block[1]} block"
    else:
        extra, detail = 0.0, "FP8 with per-tensor / per-channel scales"
    return WeightFormat("fp8", 1 + extra, method, detail)


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
    return WeightFormat("int4" if bits == 4 else "int8", bits / 8 + overhead, method, detail)


def _mxfp4(quant: Mapping[str, Any], method: str, source: str) -> WeightFormat | None:
    not_converted = " ".join(str(m) for m in quant.get("modules_to_not_convert") or [])
    return WeightFormat(
        "int4",
        0.5 + 1 / 32,
        method,
        "MXFP4: 4-bit values with one E8M0 scale per 32",
        experts_only="self_attn" in not_converted,
    )


def _bitsandbytes(quant: Mapping[str, Any], method: str, source: str) -> WeightFormat | None:
    if quant.get("load_in_4bit"):
        return WeightFormat("int4", 0.5 + 1 / 64, method, "NF4, one 8-bit absmax per 64")
    if quant.get("load_in_8bit"):
        return WeightFormat("int8", 1.0, method, "LLM.int8()")
    return None


def _compressed_tensors(quant: Mapping[str, Any], method: str, source: str) -> WeightFormat | None:
    for group in (quant.get("config_groups") or {}).values():
        weights = group.get("weights") if isinstance(group, Mapping) else None
        if isinstance(weights, Mapping) and weights.get("num_bits") in (4, 8):
            bits = weights["num_bits"]
            if weights.get("type") == "float" and bits == 8:
                return WeightFormat("fp8", 1.0, method, "FP8 (compressed-tensors)")
            size = weights.get("group_size") or DEFAULT_GROUP_SIZE
            precision = "int4" if bits == 4 else "int8"
            detail = f"{bits}-bit integer (compressed-tensors), scale per {size}"
            return WeightFormat(precision, bits / 8 + _SCALE_BYTES / size, method, detail)
    return None


_QUANT_METHODS: dict[str, Callable[[Mapping[str, Any], str, str], WeightFormat | None]] = {
    "fp8": _fp8,
    "awq": _awq_gptq,
    "gptq": _awq_gptq,
    "mxfp4": _mxfp4,
    "bitsandbytes": _bitsandbytes,
    "compressed-tensors": _compressed_tensors,
}
