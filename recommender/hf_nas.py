"""NAS models whose layers differ (DeciLM / Llama-Nemotron "nemotron-nas"): `block_configs`
gives each layer its own attention and MLP. Pure.

As vLLM builds them (vllm/model_executor/models/nemotron_nas.py, DeciLMDecoderLayer): a
layer's attention is skipped when `attention.no_op`, else it has num_attention_heads query
heads and num_attention_heads // `n_heads_in_group` KV heads; its MLP is skipped when
`ffn.no_op`, else a gated MLP of `ffn.intermediate_size`, or of `ffn_mult` turned into a
width by DeciLM's rule int(2 x ffn_mult x hidden / 3) rounded up to a multiple of 256.
Each present half has its RMSNorm. A layer `replace_with_linear` (a plain hidden x hidden
matrix in DeciLM's own code) is refused: vLLM's DeciLM builds no such layer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from recommender.errors import RecommenderInputError

_FFN_ROUND = 256  # DeciLM's _find_multiple(intermediate_size, 256)


@dataclass(frozen=True)
class NasLayers:
    """What block_configs says, summed: the layers that keep KV, their KV heads, the
    parameters of attention, MLPs and norms, and the MLP widths tensor parallel splits."""

    attention_layers: int
    kv_heads: int
    attention_params: int
    mlp_params: int
    norm_params: int
    widths: tuple[int, ...]
    mix: str


def ffn_width(ffn_mult: float, hidden: int) -> int:
    """DeciLM's _ffn_mult_to_intermediate_size."""
    width = int(2 * ffn_mult * hidden / 3)
    return width if width % _FFN_ROUND == 0 else width + _FFN_ROUND - width % _FFN_ROUND


def nas_layers(c: Mapping[str, Any], layers: int, hidden: int, heads: int, head_dim: int,
               source: str) -> NasLayers:  # fmt: skip
    blocks = c.get("block_configs")
    if not isinstance(blocks, list) or len(blocks) != layers:
        raise RecommenderInputError(
            f"{source}: block_configs must hold one block for each of the {layers} layers, got "
            f"{len(blocks) if isinstance(blocks, list) else type(blocks).__name__}"
        )
    kv_heads: set[int] = set()
    attention = mlp = norms = 0
    widths: list[int] = []
    for i, block in enumerate(blocks):
        attn, ffn = _half(block, "attention", i, source), _half(block, "ffn", i, source)
        if not attn.get("no_op"):
            group = attn.get("n_heads_in_group")
            if not isinstance(group, int) or group < 1 or heads % group:
                raise RecommenderInputError(
                    f"{source}: block_configs[{i}].attention.n_heads_in_group must divide the "
                    f"{heads} attention heads, got {group!r}"
                )
            kv_heads.add(heads // group)
            attention += 2 * hidden * heads * head_dim + 2 * hidden * (heads // group) * head_dim
            norms += hidden
        if not ffn.get("no_op"):
            width = _ffn_width(ffn, hidden, i, source)
            widths.append(width)
            mlp += 3 * hidden * width
            norms += hidden
    if len(kv_heads) > 1:
        raise RecommenderInputError(
            f"{source}: block_configs give attention layers different KV heads "
            f"({sorted(kv_heads)}); this recommender sizes one KV layout per model, refusing "
            "rather than counting some layers' cache wrongly"
        )
    count = sum(1 for b in blocks if not b["attention"].get("no_op"))
    mix = f"{count} attention + {layers - count} MLP-only layers (block_configs)"
    return NasLayers(count, kv_heads.pop() if kv_heads else 1, attention, mlp, norms,
                     tuple(sorted(set(widths))), mix)  # fmt: skip


def _half(block: object, key: str, i: int, source: str) -> Mapping[str, Any]:
    half = block.get(key) if isinstance(block, Mapping) else None
    if not isinstance(half, Mapping):
        raise RecommenderInputError(f"{source}: block_configs[{i}] has no {key} object")
    if half.get("replace_with_linear"):
        raise RecommenderInputError(
            f"{source}: block_configs[{i}].{key}.replace_with_linear is set; vLLM's DeciLM "
            "builds no such layer, so this recommender does not size it"
        )
    return half


def _ffn_width(ffn: Mapping[str, Any], hidden: int, i: int, source: str) -> int:
    width = ffn.get("intermediate_size")
    if isinstance(width, int) and not isinstance(width, bool) and width > 0:
        return width
    mult = ffn.get("ffn_mult")
    if isinstance(mult, int | float) and not isinstance(mult, bool) and mult > 0:
        return ffn_width(float(mult), hidden)
    raise RecommenderInputError(
        f"{source}: block_configs[{i}].ffn has neither ffn_mult nor intermediate_size"
    )
