"""Issue 29: architectures counted from real config.json files, checked against published
parameter totals (tests/fixtures/real/hf_configs/README.md cites every file and figure).

Hybrids keep KV only in their attention layers plus a fixed recurrent state per sequence;
Llama 4 counts its shared expert, dense layers and chunked attention; Gemma's embeddings
are tied by transformers' default; quantised checkpoints keep embeddings and lm_head at
16 bits; a vision tower is counted or said to be left out. Every figure below is summed by
hand from the config, not read from the code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recommender import (
    PRESETS,
    Architecture,
    RecommenderInputError,
    Workload,
    architecture_from_config,
    estimate_memory,
    kv_cache_bytes,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "hf_configs"
WITHIN = 0.02  # the tolerance against a published total


def real(stem: str) -> Architecture:
    config = json.loads((FIXTURES / f"{stem}.json").read_text())
    return architecture_from_config(config, name=stem, source=f"{stem}.json")


def within(counted: float, published: float) -> bool:
    return abs(counted - published) <= WITHIN * published


# --- hybrids ---------------------------------------------------------------------------


def test_nemotron_h_56b_counts_attention_kv_only_and_mamba_state() -> None:
    a = real("nvidia--Nemotron-H-56B-Base-8K")
    # hybrid_override_pattern: 54 M (Mamba-2), 10 * (attention), 54 - (MLP), as NVIDIA says.
    assert a.layer_mix == "10 attention + 54 Mamba-2 + 54 MLP-only layers"
    assert (a.attention_layers, a.recurrent_layers) == (10, 54)
    # Mamba-2 layer: in_proj 8192 x (16384 + 20480 + 256), conv 20480 x 4 + bias, dt/A/D 3 x
    # 256, gated norm 16384, out_proj 16384 x 8192; attention q/o 8192 x 8192, k/v 8192 x
    # 1024; MLP up/down 2 x 8192 x 32768 (relu², no gate); one norm per block.
    mamba = 8192 * 37120 + 20480 * 5 + 768 + 16384 + 16384 * 8192
    attention = 2 * 8192 * 8192 + 2 * 8192 * 1024
    mlp = 2 * 8192 * 32768
    total = 2 * 131072 * 8192 + 8192 + 54 * mamba + 10 * attention + 54 * mlp + 118 * 8192
    assert round(a.params_b * 1e9) == total == 56_324_350_464
    assert within(a.total_params_b, 56e9 / 1e9)  # the model card: "56B model parameters"
    # KV: 2 x 10 layers x 8 KV heads x 128 x 2 B = 40,960 B/token (not 118 layers' 483,328).
    mem = estimate_memory(Workload("inference", model=a, context=8192))
    assert mem.kv_bytes_per_token == 40_960
    # State per sequence: conv (16384 + 2 x 8 x 256) x 3 x 2 B + SSM 256 x 64 x 256 x 2 B
    # per Mamba layer, x 54 layers.
    per_layer = 20480 * 3 * 2 + 256 * 64 * 256 * 2
    assert a.recurrent_state_bytes == 54 * per_layer == 459_620_352
    assert mem.state_gb == pytest.approx(0.459620352)
    assert mem.kv_cache_gb == pytest.approx(40_960 * 8192 / 1e9)


def test_qwen35_27b_kv_is_a_quarter_and_matches_the_published_total_exactly() -> None:
    a = real("Qwen--Qwen3.5-27B")
    assert (a.attention_layers, a.recurrent_layers) == (16, 48)  # layer_types: 3 linear : 1 full
    # 2 x 16 full-attention layers x 4 KV heads x 256 x 2 B = 65,536 B/token, a quarter of
    # the 64 layers' 262,144.
    mem = estimate_memory(Workload("inference", model=a))
    assert mem.kv_bytes_per_token == 65_536
    # Gated DeltaNet state: conv (2 x 16 x 128 + 48 x 128) x 3 x 2 B + 48 heads x 128 x 128
    # x 4 B (mamba_ssm_dtype float32), per linear-attention layer.
    assert a.recurrent_state_bytes == 48 * (10240 * 3 * 2 + 48 * 128 * 128 * 4)
    # Language model + the counted vision tower = KerasHub's published 27,356,728,560.
    assert round(a.total_params_b * 1e9) == 27_356_728_560
    assert round(a.vision_params_b * 1e9) == 460_730_096
    assert "vision tower counted" in a.vision_note


def test_qwen35_35b_a3b_hybrid_moe_matches_the_published_total_exactly() -> None:
    a = real("Qwen--Qwen3.5-35B-A3B")
    assert round(a.total_params_b * 1e9) == 35_107_181_936
    assert (a.attention_layers, a.recurrent_layers, a.moe_layers) == (10, 30, 40)
    assert a.active_params_b < 4


def test_jamba_counts_from_transformers_defaults_within_2_percent() -> None:
    # transformers' JambaConfig defaults are Jamba-v0.1 (its auto_docstring checkpoint).
    config = {
        "model_type": "jamba", "vocab_size": 65536, "tie_word_embeddings": False,
        "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8,
        "max_position_embeddings": 262144, "num_experts_per_tok": 2, "num_experts": 16,
        "expert_layer_period": 2, "expert_layer_offset": 1, "attn_layer_period": 8,
        "attn_layer_offset": 4, "mamba_d_state": 16, "mamba_d_conv": 4, "mamba_expand": 2,
        "mamba_dt_rank": "auto", "mamba_conv_bias": True, "mamba_proj_bias": False,
    }  # fmt: skip
    a = architecture_from_config(config, name="jamba", source="JambaConfig defaults")
    assert (a.attention_layers, a.recurrent_layers, a.moe_layers) == (4, 28, 16)
    assert within(a.params_b, 52) and within(a.active_params_b, 12)  # "12B active ... 52B"
    # Mamba state per layer: conv 8192 x 3 + SSM 8192 x 16, in BF16.
    assert a.recurrent_state_bytes == 28 * (8192 * 3 * 2 + 8192 * 16 * 2)


def test_falcon_h1_runs_attention_and_mamba2_side_by_side() -> None:
    # transformers' FalconH1Config defaults (no published total to compare the sum with).
    config = {
        "model_type": "falcon_h1", "vocab_size": 128000, "hidden_size": 4096,
        "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "mamba_d_ssm": 1024, "mamba_n_heads": 128,
        "mamba_d_head": "auto", "mamba_n_groups": 1, "mamba_d_state": 256, "mamba_d_conv": 4,
    }  # fmt: skip
    a = architecture_from_config(config, name="falcon-h1", source="FalconH1Config defaults")
    assert (a.attention_layers, a.recurrent_layers) == (32, 32)  # every layer has both
    # head dim "auto" = 1024 / 128 = 8; conv (1024 + 2 x 256) x 3 + SSM 128 x 8 x 256.
    assert a.recurrent_state_bytes == 32 * ((1536 * 3 + 128 * 8 * 256) * 2)


def test_unknown_recurrent_layers_are_refused_in_one_line() -> None:
    config = json.loads((FIXTURES / "Qwen--Qwen3.5-27B.json").read_text())["text_config"]
    config = dict(config, model_type="some_new_hybrid", layer_types=["conv", "full_attention"] * 32)
    with pytest.raises(RecommenderInputError) as err:
        architecture_from_config(config, name="x", source="x/config.json")
    message = str(err.value)
    assert "\n" not in message and "layer types conv" in message
    assert "refusing rather than counting them as attention" in message
    mamba = {"model_type": "mamba2", "hidden_size": 2048, "num_hidden_layers": 48,
             "num_attention_heads": 32, "vocab_size": 50288, "intermediate_size": 1,
             "state_size": 128}  # fmt: skip
    with pytest.raises(RecommenderInputError, match="cannot count"):
        architecture_from_config(mamba, name="m", source="m")


# --- Llama 4 ----------------------------------------------------------------------------


def test_llama4_scout_counts_the_shared_expert_and_chunked_attention() -> None:
    a = real("meta-llama--Llama-4-Scout-17B-16E-Instruct")
    # Every layer MoE: attention (2 x 5120 x 5120 + 2 x 5120 x 1024), 16 experts + 1 shared
    # of 3 x 5120 x 8192, router 5120 x 16, 2 norms; embeddings untied.
    expert = 3 * 5120 * 8192
    layer = 2 * 5120 * 5120 + 2 * 5120 * 1024 + 17 * expert + 5120 * 16 + 2 * 5120
    total = 2 * 202048 * 5120 + 5120 + 48 * layer
    assert round(a.params_b * 1e9) == total == 107_769_861_120
    active = total - 48 * 15 * expert
    assert round(a.active_params_b * 1e9) == active == 17_172_894_720
    assert within(a.params_b, 109) and within(a.active_params_b, 17)  # "17B activated, 109B"
    assert a.vision_params_b == 0  # this copy has no vision_config: said, not counted
    # Chunked attention: 3 of every 4 layers (RoPE) keep at most 8,192 tokens.
    assert (a.sliding_layers, a.sliding_window, a.window_kind) == (36, 8192, "chunked attention")
    per_layer = 2 * 8 * 128 * 2
    assert kv_cache_bytes(a, 2, 131072, 1) == per_layer * (12 * 131072 + 36 * 8192)


def test_llama4_maverick_interleaves_moe_and_dense_layers() -> None:
    a = real("meta-llama--Llama-4-Maverick-17B-128E-Instruct")
    # interleave_moe_layer_step 2: layers 1, 3, ... are MoE (128 experts + shared), the
    # other 24 dense with intermediate_size_mlp 16384.
    assert a.moe_layers == 24
    expert = 3 * 5120 * 8192
    attention = 2 * 5120 * 5120 + 2 * 5120 * 1024
    moe = attention + 129 * expert + 5120 * 128 + 2 * 5120
    dense = attention + 3 * 5120 * 16384 + 2 * 5120
    total = 2 * 202048 * 5120 + 5120 + 24 * moe + 24 * dense
    assert round(a.params_b * 1e9) == total == 400_711_848_960
    assert within(a.params_b, 400) and within(a.active_params_b, 17)  # "17B activated, 400B"


# --- Gemma: tied by default ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("stem", "published"),
    [("google--gemma-2-9b", 9_241_705_984), ("google--gemma-3-1b-it", 999_885_952)],
)
def test_gemma_ties_embeddings_by_transformers_default(stem: str, published: int) -> None:
    a = real(stem)
    assert "tie_word_embeddings" not in json.loads((FIXTURES / f"{stem}.json").read_text())
    assert a.tied_embeddings
    assert a.sources()["tied_embeddings"].startswith("not stated: transformers' default")
    assert round(a.params_b * 1e9) == published  # KerasHub's published count, exactly


def test_a_stated_tie_wins_over_the_default() -> None:
    config = json.loads((FIXTURES / "google--gemma-2-9b.json").read_text())
    untied = architecture_from_config(dict(config, tie_word_embeddings=False), name="g", source="g")
    assert round(untied.params_b * 1e9) == 9_241_705_984 + 256_000 * 3584


# --- quantised checkpoints and the vision tower ------------------------------------------


def test_fp8_checkpoint_keeps_embeddings_lm_head_norms_and_router_at_16_bits() -> None:
    a = real("Qwen--Qwen3-235B-A22B-FP8")
    assert within(a.params_b, 235.093634560)  # KerasHub's Qwen3-235B-A22B count
    mem = estimate_memory(Workload("inference", model=a))
    g = a.params
    assert g is not None
    kept = g.embed + g.lm_head + g.norms + g.router
    assert kept == 2 * 151936 * 4096 + 94 * 2 * 4096 + 4096 + 94 * 4096 * 128
    block = 1 + 4 / (128 * 128)
    assert mem.weights_gb == pytest.approx(((g.total - kept) * block + kept * 2) / 1e9)
    assert a.quantization is not None and a.quantization.block == (128, 128)


def test_gpt_oss_modules_to_not_convert_keep_attention_at_16_bits() -> None:
    a = real("openai--gpt-oss-120b")
    assert a.quantization is not None
    assert a.quantization.not_converted == frozenset({"attention"})
    assert a.quantization.precision == "mxfp4"


def test_vision_tower_of_qwen3_vl_is_counted_and_an_unknown_one_is_named() -> None:
    a = real("Qwen--Qwen3-VL-8B-Instruct")
    # depth 27 ViT blocks of hidden 1152, 3 deepstack mergers: counted, BF16, in the weights.
    assert 0.5 < a.vision_params_b < 0.7
    mem = estimate_memory(Workload("inference", model=a))
    assert mem.vision_weights_gb == pytest.approx(a.vision_params_b * 2)
    assert mem.weights_gb == pytest.approx((a.params_b + a.vision_params_b) * 2)
    config = json.loads((FIXTURES / "Qwen--Qwen3-VL-8B-Instruct.json").read_text())
    config["vision_config"] = {"model_type": "siglip_vision_model", "hidden_size": 1152}
    other = architecture_from_config(config, name="x", source="x")
    assert other.vision_params_b == 0
    assert other.vision_note.startswith(
        "vision tower (siglip_vision_model) present but not counted"
    )
    assert any(
        "not counted" in n for n in estimate_memory(Workload("inference", model=other)).notes
    )


def test_presets_still_count_exactly() -> None:
    assert round(PRESETS["Qwen3-235B-A22B"].params_b * 1e9) == 235_093_634_560
    assert round(PRESETS["Qwen3-30B-A3B"].params_b * 1e9) == 30_532_122_624


def test_qwen3_next_reads_full_attention_interval_when_layer_types_are_absent() -> None:
    # Qwen3-Next states the mix as full_attention_interval (transformers Qwen3NextConfig
    # derives layer_types from it) and always gates its attention output; the same
    # architecture written that way counts the same as Qwen3.5-35B-A3B's language model.
    text = json.loads((FIXTURES / "Qwen--Qwen3.5-35B-A3B.json").read_text())["text_config"]
    assert text["full_attention_interval"] == 4 and text["attn_output_gate"] is True
    spelled = {k: v for k, v in text.items() if k not in ("layer_types", "attn_output_gate")}
    spelled["model_type"] = "qwen3_next"
    a = architecture_from_config(spelled, name="next", source="next")
    b = real("Qwen--Qwen3.5-35B-A3B")
    assert (a.attention_layers, a.recurrent_layers) == (10, 30)
    assert a.params_b == pytest.approx(b.params_b)
    assert a.recurrent_state_bytes == b.recurrent_state_bytes
