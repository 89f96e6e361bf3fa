"""Which kind of layer sits where, and what a recurrent (Mamba / linear-attention) layer
holds: its parameters and the fixed state it keeps per sequence. Pure.

A decoder layer is a mixer (attention, Mamba, Mamba-2, Gated DeltaNet, or attention and
Mamba-2 side by side) followed by an MLP (dense, MoE or none). Dense and MoE models are
attention everywhere; hybrids say per layer, each family in its own key:

- Nemotron-H: `hybrid_override_pattern`, one character per block: M Mamba-2, * attention,
  - MLP, E MoE (transformers NemotronHConfig);
- Jamba: attention where layer % attn_layer_period == attn_layer_offset, Mamba elsewhere;
  MoE where layer % expert_layer_period == expert_layer_offset (JambaConfig);
- Qwen3-Next / Qwen3.5: `layer_types` "linear_attention" (Gated DeltaNet) or
  "full_attention", else one full-attention layer every `full_attention_interval`;
- Falcon-H1: attention and Mamba-2 in parallel in every layer (FalconH1Config).

Only attention layers keep a KV cache; a recurrent layer keeps a conv state and an SSM
state per sequence, whatever the context. A config that mixes in layers of a kind not
listed here is refused in one line (never counted as attention).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from recommender.errors import RecommenderInputError

# The conv state is cached in the model dtype (2 bytes); the SSM state in the dtype the
# config names (Qwen3.5: mamba_ssm_dtype float32), else the model dtype too (vLLM's
# mamba_ssm_cache_dtype "auto").
CONV_STATE_BYTES = 2
_DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}

ATTENTION = "attention"
MAMBA = "mamba"
MAMBA2 = "mamba2"
GDN = "gated_deltanet"
PARALLEL = "attention+mamba2"
NO_MIXER = "none"
_MIXER_NAMES = {ATTENTION: "attention", MAMBA: "Mamba", MAMBA2: "Mamba-2",
                GDN: "Gated DeltaNet", PARALLEL: "attention ∥ Mamba-2"}  # fmt: skip

# Keys that betray recurrent layers; a model type with them that is not read below is
# refused rather than counted as all-attention.
_RECURRENT_KEYS = ("hybrid_override_pattern", "layers_block_type", "attn_layer_period",
                   "ssm_state_size", "mamba_d_state", "linear_num_value_heads", "state_size",
                   "conv_L_cache", "block_types")  # fmt: skip
_KNOWN_LAYER_TYPES = {"full_attention", "sliding_attention", "chunked_attention"}


# Fields that change what a layer holds and that this recommender does not read: a config
# that sets one is refused naming it, never counted as plain attention.
_UNREAD = (
    ("hybrid_layer_pattern", "sliding-window layers with their own heads, MiMo-V2"),
    ("swa_num_key_value_heads", "sliding-window layers with their own KV heads"),
    ("num_global_key_value_heads", "global-attention layers with their own KV heads, Gemma 4"),
    ("attention_k_eq_v", "layers whose K and V share one projection, Gemma 4"),
    ("sparse_attention_config", "a block-sparse attention index, MiniMax-M3"),
    ("num_kv_shared_layers", "layers that reuse another layer's KV cache, Gemma 3n"),
    ("moe_latent_size", "experts working in a smaller latent space, Nemotron 3"),
    ("routed_expert_hidden_size", "experts working in a smaller latent space, Kimi"),
    ("linear_attn_config", "Kimi Delta Attention: linear-attention layers with a recurrent state"),
    ("compress_ratios", "compressed sparse attention, DeepSeek-V4"),
    ("hc_mult", "hyper-connections widening the residual stream, DeepSeek-V4"),
)


def refuse_unread(c: Mapping[str, Any], source: str) -> None:
    """One line naming the field when the config sets one this recommender cannot count:
    MiniMax's lightning (linear) attention layers (attn_type_list 0) and the _UNREAD
    fields. attn_type_list of all 1 (MiniMax-M2: every layer softmax attention) is read."""
    types = c.get("attn_type_list")
    if isinstance(types, list) and any(t == 0 for t in types):
        raise RecommenderInputError(
            f"{source}: attn_type_list marks {sum(1 for t in types if t == 0)} of {len(types)} "
            "layers 0 (MiniMax lightning attention: linear attention with a recurrent state), "
            "which this recommender does not count; refusing rather than counting them as "
            "softmax attention"
        )
    for key, what in _UNREAD:
        value = c.get(key)
        if isinstance(value, Mapping):
            value = any(v for k, v in value.items() if k.startswith("use_"))
        if value:
            raise RecommenderInputError(
                f"{source}: config.json sets {key} ({what}), which this recommender does not "
                "read; refusing rather than counting the model wrongly"
            )


@dataclass(frozen=True)
class LayerPlan:
    mixers: tuple[str, ...]
    mlps: tuple[str, ...]  # "dense", "moe" or "none"
    basis: str  # which key said so

    @property
    def attention_layers(self) -> int:
        return sum(1 for m in self.mixers if m in (ATTENTION, PARALLEL))

    @property
    def recurrent_layers(self) -> int:
        return sum(1 for m in self.mixers if m not in (ATTENTION, NO_MIXER))

    def mix(self) -> str:
        """e.g. "10 attention + 54 Mamba-2 + 54 MLP-only layers"; "" when all attention."""
        if self.recurrent_layers == 0 and NO_MIXER not in self.mixers:
            return ""
        parts = [f"{self.mixers.count(kind)} {_MIXER_NAMES[kind]}"
                 for kind in (ATTENTION, PARALLEL, MAMBA, MAMBA2, GDN) if kind in self.mixers]  # fmt: skip
        if NO_MIXER in self.mixers:
            parts.append(f"{self.mixers.count(NO_MIXER)} MLP-only")
        return " + ".join(parts) + " layers"


def layer_plan(c: Mapping[str, Any], layers: int, is_moe: list[bool], source: str) -> LayerPlan:
    """The mixer and MLP of every layer, from whichever key the family uses."""
    model_type = str(c.get("model_type", ""))
    moe_or_dense = tuple("moe" if m else "dense" for m in is_moe)
    if model_type == "nemotron_h" or "hybrid_override_pattern" in c:
        return _nemotron_h(c, layers, source)
    if model_type == "jamba":
        return _jamba(c, layers, source)
    if model_type.startswith("falcon_h1"):
        return LayerPlan((PARALLEL,) * layers, ("dense",) * layers, "Falcon-H1: parallel hybrid")
    types = c.get("layer_types")
    if isinstance(types, list) and "linear_attention" in types:
        if "linear_num_value_heads" not in c:  # not Gated DeltaNet: MiniMax's lightning, ...
            raise RecommenderInputError(
                f"{source}: layer_types marks {types.count('linear_attention')} of {len(types)} "
                f"layers linear_attention, but model_type {model_type or '(none)'} has no Gated "
                "DeltaNet widths (linear_num_value_heads): a linear attention this recommender "
                "does not count; refusing rather than counting it as softmax attention"
            )
        if len(types) < layers:
            raise RecommenderInputError(
                f"{source}: layer_types lists {len(types)} of {layers} layers"
            )
        mixers = tuple(GDN if t == "linear_attention" else ATTENTION for t in types[:layers])
        return LayerPlan(mixers, moe_or_dense, "layer_types")
    if model_type.startswith(("qwen3_next", "qwen3_5")) and c.get("full_attention_interval"):
        step = int(c["full_attention_interval"])
        mixers = tuple(ATTENTION if (i + 1) % step == 0 else GDN for i in range(layers))
        return LayerPlan(mixers, moe_or_dense, f"full_attention_interval {step}")
    _refuse_unknown(c, model_type, source)
    return LayerPlan((ATTENTION,) * layers, moe_or_dense, "")


def _refuse_unknown(c: Mapping[str, Any], model_type: str, source: str) -> None:
    types = c.get("layer_types")
    odd = (
        sorted({str(t) for t in types if t not in _KNOWN_LAYER_TYPES})
        if isinstance(types, list)
        else []
    )
    keys = [k for k in _RECURRENT_KEYS if k in c]
    if odd or keys or model_type in ("mamba", "mamba2", "falcon_mamba", "rwkv", "rwkv7"):
        what = (
            f"layer types {', '.join(odd)}"
            if odd
            else f"recurrent layers ({', '.join(keys) or model_type})"
        )
        raise RecommenderInputError(
            f"{source}: model_type {model_type or '(none)'} has {what}, which this recommender "
            "cannot count (it reads Nemotron-H, Jamba, Qwen3-Next/Qwen3.5 and Falcon-H1 hybrids); "
            "refusing rather than counting them as attention"
        )


# Newer Nemotron-H configs (Nemotron 3.5) name each layer in layers_block_type instead.
_BLOCK_TYPES = {"mamba": "M", "attention": "*", "mlp": "-", "moe": "E"}


def _nemotron_h(c: Mapping[str, Any], layers: int, source: str) -> LayerPlan:
    pattern = c.get("hybrid_override_pattern")
    types = c.get("layers_block_type")
    if pattern is None and isinstance(types, list):
        if not all(t in _BLOCK_TYPES for t in types):
            raise RecommenderInputError(
                f"{source}: layers_block_type holds {sorted({str(t) for t in types} - set(_BLOCK_TYPES))}; "
                f"this recommender reads {', '.join(_BLOCK_TYPES)}"
            )
        pattern = "".join(_BLOCK_TYPES[t] for t in types)
    table = {"M": (MAMBA2, "none"), "*": (ATTENTION, "none"), "-": (NO_MIXER, "dense"),
             "E": (NO_MIXER, "moe")}  # fmt: skip
    if not isinstance(pattern, str) or len(pattern) != layers or set(pattern) - set(table):
        raise RecommenderInputError(
            f"{source}: hybrid_override_pattern must hold one of M * - E for each of the "
            f"{layers} layers, got {str(pattern)[:40]!r}"
        )
    kinds = [table[ch] for ch in pattern]
    return LayerPlan(tuple(k[0] for k in kinds), tuple(k[1] for k in kinds),
                     "hybrid_override_pattern")  # fmt: skip


def _jamba(c: Mapping[str, Any], layers: int, source: str) -> LayerPlan:
    a_period, a_offset = int(c.get("attn_layer_period", 8)), int(c.get("attn_layer_offset", 4))
    e_period, e_offset = int(c.get("expert_layer_period", 2)), int(c.get("expert_layer_offset", 1))
    if min(a_period, e_period) < 1:
        raise RecommenderInputError(
            f"{source}: attn_layer_period / expert_layer_period must be >= 1"
        )
    experts = int(c.get("num_experts") or 1)
    mixers = tuple(ATTENTION if i % a_period == a_offset else MAMBA for i in range(layers))
    mlps = tuple("moe" if experts > 1 and i % e_period == e_offset else "dense"
                 for i in range(layers))  # fmt: skip
    return LayerPlan(mixers, mlps, "attn_layer_period / attn_layer_offset")


@dataclass(frozen=True)
class Recurrent:
    """One recurrent mixer: its parameters and the state it keeps per sequence (bytes)."""

    params: int
    state_bytes: float
    basis: str


def recurrent_mixer(kind: str, c: Mapping[str, Any], hidden: int, source: str) -> Recurrent:
    if kind == MAMBA:
        return _mamba1(c, hidden, source)
    if kind in (MAMBA2, PARALLEL):
        return _mamba2(c, hidden, source)
    return _gated_deltanet(c, hidden, source)


def _int(c: Mapping[str, Any], source: str, *keys: str, default: int | None = None) -> int:
    for key in keys:
        value = c.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    if default is not None:
        return default
    raise RecommenderInputError(f"{source}: hybrid config has no {' / '.join(keys)}")


def _ssm_bytes(c: Mapping[str, Any]) -> int:
    return _DTYPE_BYTES.get(str(c.get("mamba_ssm_dtype", "")), 2)


def _mamba1(c: Mapping[str, Any], hidden: int, source: str) -> Recurrent:
    """JambaMambaMixer: in_proj, depthwise conv1d, x_proj, dt_proj, A_log, D, out_proj
    and the dt / B / C RMSNorms."""
    inner = _int(c, source, "mamba_expand", default=2) * hidden
    state = _int(c, source, "mamba_d_state")
    kernel = _int(c, source, "mamba_d_conv", default=4)
    rank = _int(c, source, "mamba_dt_rank", default=-(-hidden // 16))
    conv_bias = inner if c.get("mamba_conv_bias", True) else 0
    proj_bias = 3 * inner if c.get("mamba_proj_bias") else 0
    params = (hidden * 2 * inner + inner * kernel + conv_bias + inner * (rank + 2 * state)
              + rank * inner + inner + inner * state + inner + inner * hidden
              + rank + 2 * state + proj_bias)  # fmt: skip
    conv, ssm = inner * (kernel - 1), inner * state
    return Recurrent(params, conv * CONV_STATE_BYTES + ssm * _ssm_bytes(c),
                     f"Mamba: conv {inner} x {kernel - 1} + SSM {inner} x {state}")  # fmt: skip


def _mamba2(c: Mapping[str, Any], hidden: int, source: str) -> Recurrent:
    """Mamba-2 (NemotronHMamba2Mixer, FalconH1Mixer): in_proj to z, xBC and dt, a
    depthwise conv over xBC, dt_bias / A_log / D per head, a gated RMSNorm, out_proj."""
    heads = _int(c, source, "mamba_num_heads", "mamba_n_heads")
    groups = _int(c, source, "n_groups", "mamba_n_groups", default=1)
    state = _int(c, source, "ssm_state_size", "mamba_d_state")
    kernel = _int(c, source, "conv_kernel", "mamba_d_conv", default=4)
    if c.get("model_type") == "falcon_h1":  # mamba_d_ssm wide, mamba_d_head "auto" = d_ssm / heads
        inner = _int(
            c, source, "mamba_d_ssm", default=_int(c, source, "mamba_expand", default=2) * hidden
        )
        head_dim = _int(c, source, "mamba_d_head", default=inner // heads)
    else:
        head_dim = _int(c, source, "mamba_head_dim", "mamba_d_head")
        inner = heads * head_dim
    conv_dim = inner + 2 * groups * state
    conv_bias = conv_dim if c.get("use_conv_bias", c.get("mamba_conv_bias", True)) else 0
    gated_norm = inner if c.get("model_type") != "falcon_h1" or c.get("mamba_rms_norm") else 0
    params = (hidden * (inner + conv_dim + heads) + conv_dim * kernel + conv_bias + 3 * heads
              + gated_norm + inner * hidden)  # fmt: skip
    conv, ssm = conv_dim * (kernel - 1), heads * head_dim * state
    return Recurrent(params, conv * CONV_STATE_BYTES + ssm * _ssm_bytes(c),
                     f"Mamba-2: conv {conv_dim} x {kernel - 1} + SSM {heads} heads x "
                     f"{head_dim} x {state}")  # fmt: skip


def _gated_deltanet(c: Mapping[str, Any], hidden: int, source: str) -> Recurrent:
    """Qwen3-Next / Qwen3.5 Gated DeltaNet: q/k/v/z and b/a projections, a depthwise conv
    over q, k, v, dt_bias and A_log per value head, a gated RMSNorm, out_proj."""
    k_heads = _int(c, source, "linear_num_key_heads")
    v_heads = _int(c, source, "linear_num_value_heads")
    k_dim = _int(c, source, "linear_key_head_dim")
    v_dim = _int(c, source, "linear_value_head_dim")
    kernel = _int(c, source, "linear_conv_kernel_dim", default=4)
    key, value = k_heads * k_dim, v_heads * v_dim
    conv_dim = 2 * key + value
    params = (hidden * (conv_dim + value + 2 * v_heads) + conv_dim * kernel + 2 * v_heads
              + v_dim + value * hidden)  # fmt: skip
    conv, ssm = conv_dim * (kernel - 1), v_heads * k_dim * v_dim
    return Recurrent(params, conv * CONV_STATE_BYTES + ssm * _ssm_bytes(c),
                     f"Gated DeltaNet: conv {conv_dim} x {kernel - 1} + state {v_heads} heads "
                     f"x {k_dim} x {v_dim}")  # fmt: skip
