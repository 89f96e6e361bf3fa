"""A vision-language config's vision tower: counted, or said to be left out. Pure.

The Qwen3-VL family's vision transformer (qwen3_vl, qwen3_5: Conv3d patch
embedding, learned positions, `depth` blocks of LayerNorm + attention with a fused qkv +
a GELU MLP, a patch merger per `spatial_merge_size`², and one more merger per
`deepstack_visual_indexes` entry) is counted matrix by matrix, as transformers builds it
(Qwen3_5VisionModel: Qwen3.5-27B's tower is 460,730,096 parameters, which with the
language model makes KerasHub's published 27,356,728,560). Any other vision_config is
named as present and not counted, so the weights figure says it leaves it out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_QWEN_VISION = ("qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe")


def vision_tower(config: Mapping[str, Any]) -> tuple[int, str]:
    """(parameters counted, what the output says about the tower)."""
    vision = config.get("vision_config")
    if not isinstance(vision, Mapping):
        return 0, ""
    kind = str(vision.get("model_type") or config.get("model_type") or "")
    if kind in _QWEN_VISION and _has_qwen_keys(vision):
        params = _qwen_vit(vision)
        return params, f"vision tower counted: {params / 1e9:.3f}B ({kind} ViT, BF16)"
    return 0, (
        f"vision tower ({kind or 'vision_config'}) present but not counted: add its weights "
        "(usually 0.4-2 GB) to the figure"
    )


def _has_qwen_keys(v: Mapping[str, Any]) -> bool:
    keys = ("depth", "hidden_size", "intermediate_size", "out_hidden_size", "patch_size")
    return all(isinstance(v.get(k), int) and v.get(k) > 0 for k in keys)


def _qwen_vit(v: Mapping[str, Any]) -> int:
    hidden, inner = int(v["hidden_size"]), int(v["intermediate_size"])
    patch, temporal = int(v["patch_size"]), int(v.get("temporal_patch_size") or 2)
    channels = int(v.get("in_channels") or 3)
    merge = int(v.get("spatial_merge_size") or 2)
    merged = hidden * merge * merge
    out = int(v["out_hidden_size"])
    patch_embed = channels * temporal * patch * patch * hidden + hidden
    positions = int(v.get("num_position_embeddings") or 0) * hidden
    block = (4 * hidden  # two LayerNorms, weight and bias
             + hidden * 3 * hidden + 3 * hidden + hidden * hidden + hidden  # qkv, proj
             + hidden * inner + inner + inner * hidden + hidden)  # fmt: skip
    merger = merged * merged + merged + merged * out + out
    deepstack = len(v.get("deepstack_visual_indexes") or [])
    return (patch_embed + positions + int(v["depth"]) * block
            + 2 * hidden + merger  # the final merger normalises before the shuffle
            + deepstack * (2 * merged + merger))  # fmt: skip
