"""A model's architecture: the figures the memory, layout and speed maths need.

Presets, a config.json read by recommender.hf_config and the custom-size estimate all
end up as one `Architecture`, so the rest of the tree never asks where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

ATTENTION_KINDS = ("mha", "gqa", "mla")

# Parameter groups a checkpoint may keep at different precisions. Engines never quantise
# embeddings, norms or routers; lm_head stays 16-bit unless the format says otherwise;
# a quantization_config's modules_to_not_convert / ignore list can keep more groups at
# 16 bits (gpt-oss keeps attention).
QUANTISABLE_GROUPS = ("attention", "dense_mlp", "routed_experts", "shared_experts", "recurrent")


@dataclass(frozen=True)
class ParamCounts:
    """Parameters by what they are, counted matrix by matrix from the config."""

    embed: int = 0
    lm_head: int = 0
    attention: int = 0
    dense_mlp: int = 0
    routed_experts: int = 0
    shared_experts: int = 0
    router: int = 0
    recurrent: int = 0  # Mamba / Gated DeltaNet mixers
    norms: int = 0

    @property
    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self))

    def group(self, name: str) -> int:
        return int(getattr(self, name))

    def plus(self, **more: int) -> ParamCounts:
        return ParamCounts(**{f.name: getattr(self, f.name) + more.get(f.name, 0)
                              for f in fields(self)})  # fmt: skip


@dataclass(frozen=True)
class WeightFormat:
    """A checkpoint's own quantised weight format (from its quantization_config).

    bytes_per_param includes the format's scales (AWQ/GPTQ group scales and zeros,
    FP8 block scales, MXFP4 shared exponents). not_converted: parameter groups the config
    keeps at 16 bits (its modules_to_not_convert / ignore list); embeddings, norms and
    routers are never quantised, lm_head only when the format says so (lm_head_quantised).
    block: FP8 block size (block_n, block_k), which tensor-parallel shards must divide.
    """

    precision: str  # the Workload precision it serves as: fp8, int8, int4 or mxfp4
    bytes_per_param: float
    method: str  # quant_method as the config spells it
    detail: str  # what the bytes count, for the output
    not_converted: frozenset[str] = frozenset()
    block: tuple[int, int] | None = None
    lm_head_quantised: bool = False
    kv_cache_dtype: str | None = None  # a KV dtype the checkpoint declares (fp8)

    @property
    def experts_only(self) -> bool:
        return "attention" in self.not_converted


@dataclass(frozen=True)
class Architecture:
    name: str
    params_b: float  # the language model (text) parameters, every layer resident
    active_params_b: float
    layers: int
    hidden: int
    kv_heads: int
    head_dim: int
    vocab: int
    estimated: bool
    source: str
    heads: int = 0  # attention (query) heads; 0 only in hand-built test objects
    attention: str = "gqa"  # mha, gqa or mla
    kv_lora_rank: int = 0  # MLA: the compressed KV latent cached per token and layer
    qk_rope_head_dim: int = 0  # MLA: the decoupled RoPE key cached beside the latent
    sliding_window: int | None = None
    sliding_layers: int = 0  # layers whose KV is capped at sliding_window tokens
    window_kind: str = "sliding window"  # or "chunked attention" (Llama 4)
    routed_experts: int = 0
    shared_experts: int = 0
    experts_per_token: int = 0
    moe_layers: int = 0
    first_dense_layers: int = 0
    routed_expert_params_b: float = 0.0  # all routed experts of all MoE layers
    moe_intermediate: int = 0  # one routed expert's intermediate size
    tied_embeddings: bool = False
    quantization: WeightFormat | None = None
    checkpoint_gb: float | None = None  # safetensors index total_size, when given
    torch_dtype: str | None = None
    figure_sources: tuple[tuple[str, str], ...] = ()  # (figure, where it came from)
    params: ParamCounts | None = None  # by group; None for hand-copied presets
    kv_layers: int | None = None  # layers that keep a KV cache; None: all of them
    recurrent_layers: int = 0  # Mamba / linear-attention layers: a fixed state each
    recurrent_state_bytes: float = 0.0  # that state, per sequence, all such layers
    recurrent_basis: str = ""
    layer_mix: str = ""  # e.g. "10 attention + 54 Mamba-2 + 54 MLP layers"
    vision_params_b: float = 0.0  # the vision tower, counted (loaded beside the LM)
    vision_note: str = ""  # counted, or present and not counted
    max_position_embeddings: int | None = None
    tp_dims: tuple[tuple[str, int, str], ...] = ()  # (what, size, group) TP shards split
    model_type: str = ""
    repo_id: str | None = None  # Hugging Face id, for the serve command
    # DeepSeek sparse attention (DSA): each attention layer also caches one indexer key
    # per token, FP8 with one 4-byte scale per 128 values whatever the KV dtype
    # (recommender.hf_config.indexer_cache_bytes); 0 without an indexer.
    indexer_bytes_per_token: float = 0.0

    @property
    def is_moe(self) -> bool:
        return self.active_params_b < self.params_b

    @property
    def total_params_b(self) -> float:
        """Everything the checkpoint loads: language model plus a counted vision tower."""
        return self.params_b + self.vision_params_b

    @property
    def query_heads(self) -> int:
        return self.heads or max(1, self.hidden // max(1, self.head_dim))

    @property
    def attention_layers(self) -> int:
        return self.layers if self.kv_layers is None else self.kv_layers

    @property
    def full_attention_layers(self) -> int:
        return self.attention_layers - self.sliding_layers

    @property
    def is_hybrid(self) -> bool:
        return self.recurrent_layers > 0

    def kv_bytes_per_layer_token(self, kv_bytes: float) -> float:
        """One token's cache in one layer: MLA keeps the latent plus the RoPE key
        (kv_lora_rank + qk_rope_head_dim); MHA/GQA keep K and V for every KV head; a DSA
        indexer adds its FP8 key (indexer_bytes_per_token)."""
        if self.attention == "mla":
            latent = (self.kv_lora_rank + self.qk_rope_head_dim) * kv_bytes
            return latent + self.indexer_bytes_per_token
        return 2 * self.kv_heads * self.head_dim * kv_bytes + self.indexer_bytes_per_token

    def sources(self) -> dict[str, str]:
        return dict(self.figure_sources)
