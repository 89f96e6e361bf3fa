"""A Hugging Face config.json (already parsed) -> Architecture. Pure: the caller reads files.

Parameters are counted from the architecture, matrix by matrix, the way transformers
builds the model: embeddings (and the LM head unless tied), per layer its mixer
(attention: GQA, or MLA's low-rank q/kv with the RoPE key; or a recurrent Mamba / Gated
DeltaNet mixer, recommender.hf_layers), its MLP (dense, or the MoE block with routed and
shared experts and the router) and its norms, and the biases the config turns on; a
counted vision tower beside it (recommender.hf_vision). Multi-token-prediction layers
(num_nextn_predict_layers, mtp_num_hidden_layers) are not counted: engines load them only
for speculative decoding. Llama-3.3-70B counts to 70,553,706,496, its published figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from recommender.architecture import Architecture, ParamCounts, WeightFormat
from recommender.errors import RecommenderInputError
from recommender.hf_layers import (
    ATTENTION,
    NO_MIXER,
    PARALLEL,
    LayerPlan,
    layer_plan,
    recurrent_mixer,
    refuse_unread,
)
from recommender.hf_nas import NasLayers, nas_layers
from recommender.hf_quant import weight_format
from recommender.hf_vision import vision_tower

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

# Model types whose transformers config defaults tie_word_embeddings to True, so a
# config.json that does not say is tied (transformers 5.24.0, models/*/configuration_*.py;
# the decoder LLM families of its 189 such types). Every other family here defaults to
# untied (Llama, Qwen, Mistral, DeepSeek, Nemotron-H, Jamba, Falcon-H1, Llama 4: False).
TIED_BY_DEFAULT = frozenset({
    "gemma", "gemma2", "gemma3", "gemma3_text", "gemma3n", "gemma3n_text", "gemma4",
    "gemma4_text", "vaultgemma", "recurrent_gemma", "paligemma", "cohere", "cohere2",
    "cohere2_moe", "ernie4_5", "ernie4_5_moe", "falcon", "falcon_mamba", "gpt2", "gpt_bigcode",
    "gpt_neo", "mpt", "bloom", "opt", "smollm3", "starcoder2", "jetmoe", "minicpm3",
    "mistral3", "lfm2", "lfm2_moe", "internvl", "zamba", "zamba2", "kimi_k25",
    "qwen3_vl_moe_text", "mamba",
})  # fmt: skip

# Gemma 2 and 3 wrap attention and MLP each in a pre- and a post-norm (four RMSNorms per
# layer); Nemotron-H's blocks have one norm each; everyone else two.
_NORMS_PER_LAYER = {"gemma2": 4, "gemma3": 4, "gemma3_text": 4, "nemotron_h": 1}


# DeepSeek sparse attention (DSA: DeepSeek-V3.2, GLM-5): each layer's "lightning indexer"
# picks the index_topk tokens a query attends to. Its weights, as vLLM builds them
# (deepseek_v2.py, Indexer): wq_b q_lora_rank -> index_n_heads x index_head_dim, wk
# hidden -> index_head_dim, k_norm (a LayerNorm: weight and bias), weights_proj hidden ->
# index_n_heads. Its key cache (DeepseekV32IndexerCache) is index_head_dim FP8 bytes plus
# one 4-byte scale per 128 values, per token and layer, beside the MLA latent and whatever
# --kv-cache-dtype says (recommender/README.md cites the code).
INDEXER_QUANT_BLOCK = 128
INDEXER_SCALE_BYTES = 4


@dataclass(frozen=True)
class _Dims:
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    mla: bool
    model_type: str


def architecture_from_config(
    config: Mapping[str, Any],
    *,
    name: str,
    source: str,
    index: Mapping[str, Any] | None = None,
    repo_id: str | None = None,
    quant_file: Mapping[str, Any] | None = None,
) -> Architecture:
    """Read the figures the recommender needs; a missing or malformed one raises
    RecommenderInputError naming the key and where it came from (one line).

    quant_file: hf_quant_config.json beside the config (ModelOpt), read as vLLM reads it:
    only when config.json has no quantization_config."""
    c = _language_model(config, source)
    sources: dict[str, str] = {}  # figure -> the key (or rule) it came from, in reading order
    layers, hidden, heads, vocab = (
        _need(c, figure, source, sources) for figure in ("layers", "hidden", "heads", "vocab")
    )
    refuse_unread(c, source)
    nas = None
    if "block_configs" in c:  # NAS: every layer its own attention and MLP
        nas = nas_layers(c, layers, hidden, heads, _head_dim(c, hidden, heads, "gqa", {}, source),
                         source)  # fmt: skip
        sources["kv_heads"] = "block_configs attention.n_heads_in_group"
    kv_heads = nas.kv_heads if nas else _kv_heads(c, heads, source, sources)
    attention, kv_lora, rope = _attention_kind(c, heads, kv_heads, source, sources)
    d = _Dims(layers, hidden, heads, kv_heads, _head_dim(c, hidden, heads, attention, sources, source),
              vocab, attention == "mla", str(c.get("model_type", "")))  # fmt: skip
    moe = _moe(c, layers, source)
    tied = _tied(config, c, sources)
    if nas is not None:
        plan, counted = _nas_counted(c, d, nas, tied)
    else:
        plan = layer_plan(c, layers, moe["layer_is_moe"], source)
        counted = _count(c, d, plan, moe, tied, source)
    window, sliding, window_kind = _window(c, layers, source)
    quant = weight_format(
        c.get("quantization_config") or config.get("quantization_config") or quant_file, source
    )
    indexer_params, indexer_cache = _indexer(c, hidden, source)
    if indexer_params:
        sources["indexer"] = (
            f"index_n_heads x index_head_dim: DSA indexer, {indexer_cache} B of FP8 key per "
            "token and attention layer (vLLM DeepseekV32IndexerCache)"
        )
    vision, vision_note = vision_tower(config)
    _note_sources(sources, moe, plan, quant, d.mla, index is not None, vision_note)
    dtype = c.get("torch_dtype") or c.get("dtype") or config.get("torch_dtype")
    return Architecture(
        name=name,
        params_b=counted.params.total / 1e9,
        active_params_b=(counted.params.total - counted.params.routed_experts
                         + counted.routed_active) / 1e9,
        layers=layers, hidden=hidden, kv_heads=kv_heads, head_dim=d.head_dim, vocab=vocab,
        estimated=False, source=source, heads=heads, attention=attention,
        kv_lora_rank=kv_lora, qk_rope_head_dim=rope,
        sliding_window=window, sliding_layers=sliding, window_kind=window_kind,
        routed_experts=moe["routed"], shared_experts=moe["shared"],
        experts_per_token=moe["per_token"], moe_layers=plan.mlps.count("moe"),
        first_dense_layers=moe["first_dense"],
        routed_expert_params_b=counted.params.routed_experts / 1e9,
        moe_intermediate=counted.expert_inter,
        tied_embeddings=tied, quantization=quant,
        checkpoint_gb=None if index is None else _total_size(index, source) / GB,
        torch_dtype=dtype if isinstance(dtype, str) else None,
        figure_sources=tuple(sources.items()), params=counted.params,
        kv_layers=plan.attention_layers, recurrent_layers=plan.recurrent_layers,
        recurrent_state_bytes=counted.state_bytes, recurrent_basis=counted.state_basis,
        layer_mix=plan.mix(), vision_params_b=vision / 1e9, vision_note=vision_note,
        max_position_embeddings=_max_positions(c, source),
        tp_dims=counted.tp_dims, model_type=d.model_type, repo_id=repo_id,
        indexer_bytes_per_token=indexer_cache,
    )  # fmt: skip


def _note_sources(sources: dict[str, str], moe: dict[str, Any], plan: LayerPlan,
                  quant: WeightFormat | None, mla: bool, indexed: bool, vision: str) -> None:  # fmt: skip
    sources["params_b"] = "counted from the architecture (hf_config.py)"
    sources["active_params_b"] = (
        f"{moe['per_token']} of {moe['routed']} routed experts + shared + dense parts"
        if moe["routed"]
        else "dense: all parameters"
    )
    if plan.basis:
        sources["layer_mix"] = f"{plan.basis}: {plan.mix()}"
    if indexed:
        sources["checkpoint_gb"] = "model.safetensors.index.json metadata.total_size"
    if quant is not None:
        sources["quantization"] = f"quantization_config.quant_method {quant.method}"
    if vision:
        sources["vision"] = vision
    sources["kv_bytes_per_token"] = (
        "(kv_lora_rank + qk_rope_head_dim) x attention layers"
        if mla
        else "2 x num_key_value_heads x head_dim x attention layers"
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
    types = c.get("layers_block_type")
    if not _has(c, "layers") and isinstance(types, list) and types:
        c = {**c, "num_hidden_layers": len(types)}  # Nemotron 3: one entry per layer
    return c


def _tied(config: Mapping[str, Any], c: Mapping[str, Any], sources: dict[str, str]) -> bool:
    """tie_word_embeddings as the config says, else transformers' default for its type."""
    for cfg in (c, config):
        if isinstance(cfg.get("tie_word_embeddings"), bool):
            sources["tied_embeddings"] = "tie_word_embeddings"
            return bool(cfg["tie_word_embeddings"])
    types = {str(c.get("model_type", "")), str(config.get("model_type", ""))} - {""}
    tied = bool(types & TIED_BY_DEFAULT)
    sources["tied_embeddings"] = (
        f"not stated: transformers' default for model_type {'/'.join(sorted(types)) or '?'} "
        f"({'tied' if tied else 'untied'})"
    )
    return tied


def _need(c: Mapping[str, Any], figure: str, source: str, sources: dict[str, str]) -> int:
    """A figure the count cannot do without, under whichever of its names the config uses."""
    for key in _ALIASES[figure]:
        if key in c:
            sources[figure] = key
            return _positive_int(c[key], key, source)
    raise RecommenderInputError(
        f"{source}: config.json has no {' / '.join(_ALIASES[figure])} (the names this "
        "recommender reads); give the model's complete config.json, or, if it is complete, the "
        "model names this figure in a way this recommender does not read"
    )


def _head_dim(c: Mapping[str, Any], hidden: int, heads: int, attention: str,
              sources: dict[str, str], source: str) -> int:  # fmt: skip
    """Attention head width. MLA's query/key head is qk_nope_head_dim + qk_rope_head_dim
    (DeepSeek-V3: 128 + 64 = 192), not hidden / heads."""
    if attention == "mla":
        sources["head_dim"] = "qk_nope_head_dim + qk_rope_head_dim (MLA)"
        return _opt_int(c, "qk_nope_head_dim", source) + _opt_int(c, "qk_rope_head_dim", source)
    for key in ("head_dim", "attention_head_dim", "kv_channels"):
        if value := _opt_int(c, key, source):
            sources["head_dim"] = key
            return value
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


def _max_positions(c: Mapping[str, Any], source: str) -> int | None:
    value = c.get("max_position_embeddings")
    return None if value is None else _positive_int(value, "max_position_embeddings", source)


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


# Names for the same MoE figure across families, as transformers' config classes read
# them: Hunyuan's moe_topk / num_shared_expert / moe_layer_num_skipped (often per-layer
# lists), Gemma 4's top_k_experts, Kimi Linear's num_experts_per_token, ERNIE 4.5's moe_k /
# moe_num_experts.
_ROUTED = ("n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts")
_PER_TOKEN = ("num_experts_per_tok", "experts_per_token", "num_experts_per_token", "moe_topk",
              "top_k_experts", "moe_k")  # fmt: skip
_SHARED = ("n_shared_experts", "num_shared_experts", "num_shared_expert", "moe_num_shared_experts")
_FIRST_DENSE = ("first_k_dense_replace", "moe_layer_num_skipped")


def _moe(c: Mapping[str, Any], layers: int, source: str) -> dict[str, Any]:
    routed = _moe_figure(c, _ROUTED, layers, source)
    if routed < 2:  # Jamba-style "num_experts": 1 is a dense model
        return {"routed": 0, "shared": 0, "per_token": 0, "first_dense": 0,
                "layer_is_moe": [False] * layers}  # fmt: skip
    per_token = _moe_figure(c, _PER_TOKEN, layers, source)
    if not per_token or per_token > routed:
        raise RecommenderInputError(
            f"{source}: MoE config ({routed} experts) needs experts per token "
            f"({' / '.join(_PER_TOKEN)}) between 1 and {routed}, got {per_token or 'none'}"
        )
    first_dense = _moe_figure(c, _FIRST_DENSE, layers, source)
    shared = _moe_figure(c, _SHARED, layers, source)
    if not shared and (
        c.get("shared_expert_intermediate_size")
        or str(c.get("model_type", "")).startswith("llama4")
    ):
        shared = 1
    return {"routed": routed, "shared": shared,
            "per_token": per_token, "first_dense": first_dense,
            "layer_is_moe": _moe_layers(c, layers, first_dense, source)}  # fmt: skip


def _moe_layers(c: Mapping[str, Any], layers: int, first_dense: int, source: str) -> list[bool]:
    """Which layers are MoE. moe_layer_freq is DeepSeek's every-n-th after the dense ones,
    or (MiMo, MiniMax-M3) a per-layer list of 0 / 1; Qwen-MoE's decoder_sparse_step and
    Llama 4's interleave_moe_layer_step: every n-th layer, counting from 1; Llama 4 may
    list them outright (moe_layers)."""
    freq_value = c.get("moe_layer_freq")
    if isinstance(freq_value, list):
        flags = _layer_list(freq_value, "moe_layer_freq", layers, source)
        return [bool(f) and i >= first_dense for i, f in enumerate(flags)]
    freq = _opt_int(c, "moe_layer_freq", source) or 1
    step = (
        _opt_int(c, "decoder_sparse_step", source)
        or _opt_int(c, "interleave_moe_layer_step", source)
        or 1
    )
    mlp_only = set(c.get("mlp_only_layers") or [])
    listed = c.get("moe_layers") if isinstance(c.get("moe_layers"), list) else None
    return [
        (i in listed) if listed is not None
        else (i >= first_dense and (i - first_dense) % freq == 0 and (i + 1) % step == 0
              and i not in mlp_only)
        for i in range(layers)
    ]  # fmt: skip


def _layer_list(value: list[Any], key: str, layers: int, source: str) -> list[int]:
    if len(value) < layers or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value
    ):
        raise RecommenderInputError(
            f"{source}: {key} must list a whole number >= 0 for each of the {layers} layers, "
            f"got {str(value)[:60]}"
        )
    return list(value[:layers])


def _moe_figure(c: Mapping[str, Any], keys: tuple[str, ...], layers: int, source: str) -> int:
    """One MoE figure under whichever name the config uses: a number, or a per-layer list
    (Hunyuan) whose layers agree. Layers with different values are refused in one line:
    the count keeps one MoE block shape for the whole model."""
    for key in keys:
        value = c.get(key)
        if isinstance(value, list):
            distinct = set(_layer_list(value, key, layers, source)) - {0}
            if len(distinct) > 1:
                raise RecommenderInputError(
                    f"{source}: {key} differs between layers ({sorted(distinct)}); this "
                    "recommender counts MoE layers of one shape only, refusing rather than "
                    "counting some layers wrongly"
                )
            return distinct.pop() if distinct else 0
        if value:
            return _positive_int(value, key, source)
    return 0


def _window(c: Mapping[str, Any], layers: int, source: str) -> tuple[int | None, int, str]:
    """(window, layers that use it, what kind). Llama 4 caps its RoPE layers at
    attention_chunk_size (chunked attention; the NoPE layer of every no_rope_layer_interval
    is global); the others are sliding windows."""
    chunk = c.get("attention_chunk_size")
    if chunk and str(c.get("model_type", "")).startswith("llama4"):
        flags = c.get("no_rope_layers")
        interval = _opt_int(c, "no_rope_layer_interval", source) or 4
        if not isinstance(flags, list) or not flags:
            flags = [int((i + 1) % interval != 0) for i in range(layers)]
        return (
            _positive_int(chunk, "attention_chunk_size", source),
            sum(1 for f in flags[:layers] if f),
            "chunked attention",
        )
    window, sliding = _sliding(c, layers, source)
    return window, sliding, "sliding window"


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


@dataclass(frozen=True)
class _Counted:
    params: ParamCounts
    routed_active: int  # routed-expert parameters one token uses
    expert_inter: int
    state_bytes: float  # recurrent state per sequence
    state_basis: str
    tp_dims: tuple[tuple[str, int, str], ...]


def _count(c: Mapping[str, Any], d: _Dims, plan: LayerPlan, moe: dict[str, Any], tied: bool,
           source: str) -> _Counted:  # fmt: skip
    """Every layer's mixer, MLP and norms, plus embeddings, LM head and the final norm."""
    attention = _attention_params(c, d) + _indexer(c, d.hidden, source)[0]
    dense_inter = int(c.get("intermediate_size_mlp") or next(
        (c[k] for k in _ALIASES["intermediate"] if c.get(k)), 0))  # fmt: skip
    gated = 2 if d.model_type == "nemotron_h" else 3  # Nemotron-H's MLPs are up/down, relu²
    if "dense" in plan.mlps and not dense_inter:
        raise RecommenderInputError(
            f"{source}: config.json has no intermediate_size for its dense layers (nor "
            "ffn_hidden_size / n_inner / intermediate_size_mlp); give the model's complete "
            "config.json, or, if it is complete, its MLP widths are given in a way this "
            "recommender does not read"
        )
    block = _moe_block(c, d, dense_inter, moe, gated, source) if "moe" in plan.mlps else None
    groups = dict(attention=0, dense_mlp=0, routed_experts=0, shared_experts=0, router=0,
                  recurrent=0)  # fmt: skip
    state, basis, active = 0.0, "", 0
    mixers: dict[str, Any] = {}
    for mixer, mlp in zip(plan.mixers, plan.mlps, strict=True):
        if mixer in (ATTENTION, PARALLEL):
            groups["attention"] += attention
        if mixer not in (ATTENTION, NO_MIXER):
            rec = mixers.setdefault(mixer, recurrent_mixer(mixer, c, d.hidden, source))
            groups["recurrent"] += rec.params
            state += rec.state_bytes
            basis = rec.basis
        if mlp == "dense":
            groups["dense_mlp"] += gated * d.hidden * dense_inter
        elif mlp == "moe" and block is not None:
            for key in ("routed_experts", "shared_experts", "router"):
                groups[key] += block[key]
            active += block["active"]
    norms = d.hidden * (_NORMS_PER_LAYER.get(d.model_type, 2) * d.layers + 1)
    counts = ParamCounts(embed=d.vocab * d.hidden, lm_head=0 if tied else d.vocab * d.hidden,
                         norms=norms, **groups)  # fmt: skip
    expert_inter = block["expert_inter"] if block else 0
    dims = _tp_dims(d, c, plan, dense_inter, expert_inter, block)
    return _Counted(counts, active, expert_inter, state, basis, dims)


def _nas_counted(c: Mapping[str, Any], d: _Dims, nas: NasLayers, tied: bool
                 ) -> tuple[LayerPlan, _Counted]:  # fmt: skip
    """A block_configs model counted layer by layer (recommender.hf_nas)."""
    blocks = c["block_configs"]
    plan = LayerPlan(
        tuple(NO_MIXER if b["attention"].get("no_op") else ATTENTION for b in blocks),
        tuple("none" if b["ffn"].get("no_op") else "dense" for b in blocks),
        "block_configs",
    )
    counts = ParamCounts(embed=d.vocab * d.hidden, lm_head=0 if tied else d.vocab * d.hidden,
                         attention=nas.attention_params, dense_mlp=nas.mlp_params,
                         norms=nas.norm_params + d.hidden)  # fmt: skip
    dims = [("num_attention_heads x head_dim", d.heads * d.head_dim, "attention"),
            ("num_key_value_heads x head_dim", d.kv_heads * d.head_dim, "attention_kv")]  # fmt: skip
    dims += [("block_configs ffn width", width, "dense_mlp") for width in nas.widths]
    return plan, _Counted(counts, 0, 0, 0.0, "", tuple(dims))


def _tp_dims(d: _Dims, c: Mapping[str, Any], plan: LayerPlan, dense_inter: int,
             expert_inter: int, block: dict[str, int] | None) -> tuple[tuple[str, int, str], ...]:  # fmt: skip
    """The widths tensor parallelism splits, which a block-quantised checkpoint's blocks
    must divide on every shard (vLLM checks each at load)."""
    if d.mla:
        out = [("num_attention_heads x v_head_dim", d.heads * int(c["v_head_dim"]), "attention")]
    else:
        out = [("num_attention_heads x head_dim", d.heads * d.head_dim, "attention"),
               ("num_key_value_heads x head_dim", d.kv_heads * d.head_dim, "attention_kv")]  # fmt: skip
    if "dense" in plan.mlps:
        out.append(("intermediate_size", dense_inter, "dense_mlp"))
    if expert_inter:
        out.append(("moe_intermediate_size", expert_inter, "routed_experts"))
    if block and block["shared_inter"]:
        out.append(("shared expert intermediate size", block["shared_inter"], "shared_experts"))
    return tuple(out)


def _moe_block(c: Mapping[str, Any], d: _Dims, dense_inter: int, moe: dict[str, Any],
               gated: int, source: str) -> dict[str, int]:  # fmt: skip
    """One MoE layer's MLP: its routed experts, shared experts (DeepSeek's n_shared_experts
    at the expert size, Qwen-MoE's shared expert of its own size, Llama 4's one) and the
    router with its bias or gate; and the routed parameters one token uses."""
    expert_inter = _moe_figure(c, ("moe_intermediate_size",), d.layers, source) or int(
        c.get("intermediate_size") or dense_inter or 0
    )
    if not expert_inter:
        raise RecommenderInputError(
            f"{source}: MoE config has no moe_intermediate_size / intermediate_size; give "
            "the model's complete config.json"
        )
    expert = gated * d.hidden * expert_inter
    if d.model_type == "gpt_oss":  # gate_up and down projections carry biases
        expert += 2 * expert_inter + d.hidden
    shared_inter = int(c.get("shared_expert_intermediate_size")
                       or c.get("moe_shared_expert_intermediate_size")
                       or moe["shared"] * expert_inter)  # fmt: skip
    shared = gated * d.hidden * shared_inter
    router = d.hidden * moe["routed"]
    if d.model_type in ("gpt_oss", "glm4_moe") or c.get("topk_method") == "noaux_tc":
        router += moe["routed"]  # router bias / e_score_correction_bias
    if c.get("shared_expert_intermediate_size"):
        router += d.hidden  # Qwen-MoE's shared_expert_gate
    return {"routed_experts": expert * moe["routed"], "shared_experts": shared,
            "router": router, "active": expert * moe["per_token"],
            "expert_inter": expert_inter, "shared_inter": shared_inter}  # fmt: skip


def _indexer(c: Mapping[str, Any], hidden: int, source: str) -> tuple[int, int]:
    """(indexer parameters per layer, indexer cache bytes per token and layer); (0, 0)
    without DSA."""
    if not any(key in c for key in ("index_topk", "index_n_heads", "index_head_dim")):
        return 0, 0
    heads, dim = _opt_int(c, "index_n_heads", source), _opt_int(c, "index_head_dim", source)
    if not heads or not dim:
        raise RecommenderInputError(
            f"{source}: DSA config (index_topk) has no index_n_heads / index_head_dim; give the "
            "model's complete config.json"
        )
    q_in = _opt_int(c, "q_lora_rank", source) or hidden
    params = q_in * heads * dim + hidden * dim + 2 * dim + hidden * heads
    return params, dim + dim // INDEXER_QUANT_BLOCK * INDEXER_SCALE_BYTES


def _attention_params(c: Mapping[str, Any], d: _Dims) -> int:
    if d.mla:
        q_lora = int(c.get("q_lora_rank") or 0)
        nope, rope = int(c["qk_nope_head_dim"]), int(c["qk_rope_head_dim"])
        v_dim, kv_lora = int(c["v_head_dim"]), int(c["kv_lora_rank"])
        qk = nope + rope
        q = (
            d.hidden * q_lora + q_lora + q_lora * d.heads * qk
            if q_lora
            else d.hidden * d.heads * qk
        )
        kv = d.hidden * (kv_lora + rope) + kv_lora + kv_lora * d.heads * (nope + v_dim)
        return q + kv + d.heads * v_dim * d.hidden
    q_out, kv_out = d.heads * d.head_dim, d.kv_heads * d.head_dim
    # Qwen3-Next / Qwen3.5 gate the attention output: q_proj also yields the gate.
    gate = q_out if c.get("attn_output_gate") or d.model_type.startswith("qwen3_next") else 0
    params = 2 * d.hidden * q_out + d.hidden * gate + 2 * d.hidden * kv_out  # q, o; k, v
    if c.get("attention_bias") or d.model_type in ("qwen2", "qwen2_moe"):
        params += q_out + gate + 2 * kv_out
    if d.model_type == "gpt_oss":
        params += d.hidden + d.heads  # o_proj bias and the attention sinks
    qk_norm = d.model_type.startswith(("qwen3", "gemma3")) or c.get("use_qk_norm")
    if qk_norm and not d.model_type.startswith("llama4"):  # Llama 4's L2 norm has no weights
        params += 2 * d.head_dim  # q_norm and k_norm
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
