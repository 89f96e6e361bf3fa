"""A model's architecture: the figures the memory, layout and speed maths need.

Presets, a config.json read by recommender.hf_config and the custom-size estimate all
end up as one `Architecture`, so the rest of the tree never asks where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass

ATTENTION_KINDS = ("mha", "gqa", "mla")


@dataclass(frozen=True)
class WeightFormat:
    """A checkpoint's own quantised weight format (from its quantization_config).

    bytes_per_param includes the format's scales (AWQ/GPTQ group scales and zeros,
    FP8 block scales, MXFP4 shared exponents). experts_only: the config keeps attention,
    embeddings and router unquantised (gpt-oss lists them in modules_to_not_convert), so
    only the routed experts are at this precision and the rest stays 16-bit.
    """

    precision: str  # the Workload precision it serves as: fp8, int8 or int4
    bytes_per_param: float
    method: str  # quant_method as the config spells it
    detail: str  # what the bytes count, for the output
    experts_only: bool = False


@dataclass(frozen=True)
class Architecture:
    name: str
    params_b: float
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
    routed_experts: int = 0
    shared_experts: int = 0
    experts_per_token: int = 0
    moe_layers: int = 0
    first_dense_layers: int = 0
    routed_expert_params_b: float = 0.0  # all routed experts of all MoE layers
    tied_embeddings: bool = False
    quantization: WeightFormat | None = None
    checkpoint_gb: float | None = None  # safetensors index total_size, when given
    torch_dtype: str | None = None
    figure_sources: tuple[tuple[str, str], ...] = ()  # (figure, where it came from)

    @property
    def is_moe(self) -> bool:
        return self.active_params_b < self.params_b

    @property
    def query_heads(self) -> int:
        return self.heads or max(1, self.hidden // max(1, self.head_dim))

    @property
    def full_attention_layers(self) -> int:
        return self.layers - self.sliding_layers

    def kv_bytes_per_layer_token(self, kv_bytes: float) -> float:
        """One token's cache in one layer: MLA keeps the latent plus the RoPE key
        (kv_lora_rank + qk_rope_head_dim); MHA/GQA keep K and V for every KV head."""
        if self.attention == "mla":
            return (self.kv_lora_rank + self.qk_rope_head_dim) * kv_bytes
        return 2 * self.kv_heads * self.head_dim * kv_bytes

    def sources(self) -> dict[str, str]:
        return dict(self.figure_sources)
