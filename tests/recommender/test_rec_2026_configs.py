"""Issue 39: 2026's architectures from real config.json files (cited in
tests/fixtures/real/hf_configs/README.md), each total summed by hand from the config and
held against the model card's figure; and a refusal that names the field for each kind the
product does not count.

- DSA (DeepSeek-V3.2): the lightning indexer's weights and its FP8 key cache per layer;
- per-layer MoE lists (Hunyuan-A13B: moe_topk, num_shared_expert, moe_intermediate_size);
- NAS block_configs (Llama-3.3-Nemotron-Super-49B): layers that differ, counted one by one;
- ModelOpt's hf_quant_config.json beside config.json (Llama-3.1-70B-Instruct-FP8);
- lightning attention and other layouts not read: one line naming the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from configuration.recommender_feed import config_architecture
from recommender import (
    DEFAULT_SPECS,
    Architecture,
    RecommenderInputError,
    Workload,
    architecture_from_config,
    estimate_memory,
    recommend,
    seed_prices,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "hf_configs"
WITHIN = 0.02  # the tolerance against a published total


def config(stem: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{stem}.json").read_text())


def real(stem: str) -> Architecture:
    return architecture_from_config(config(stem), name=stem, source=f"{stem}.json")


# --- DSA: DeepSeek-V3.2 ------------------------------------------------------------------


def test_deepseek_v32_counts_the_indexer_weights_and_its_key_cache() -> None:
    a = real("deepseek-ai--DeepSeek-V3.2")
    # Per layer (vLLM's Indexer): wq_b 1536 x 64 heads x 128, wk 7168 x 128, k_norm weight and
    # bias 2 x 128, weights_proj 7168 x 64.
    indexer = 1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64
    assert indexer == 13_959_424
    # DeepSeek-V3's own count (671,026,419,200: its architecture, MTP layer left out) + 61
    # indexers. DeepSeek: "671B of the Main Model weights and 14B of the ... MTP Module".
    assert round(a.params_b * 1e9) == 671_026_419_200 + 61 * indexer == 671_877_944_064
    assert abs(a.params_b - 671) <= WITHIN * 671
    # KV per token and layer: the MLA latent (512 + 64) x 2 B, and the indexer's key: 128 FP8
    # bytes + one 4-byte scale per 128 (vLLM DeepseekV32IndexerCache, uint8).
    assert a.indexer_bytes_per_token == 128 + 4
    mem = estimate_memory(Workload("inference", model=a, context=8192))
    assert mem.kv_bytes_per_token == 61 * ((512 + 64) * 2 + 132) == 78_324
    # Without the indexer the cache would be 61 x 1152 = 70,272 B: 10.3 % low.
    assert mem.kv_bytes_per_token / 70_272 == pytest.approx(1.1146, abs=1e-4)


def test_the_indexer_key_stays_fp8_when_the_latent_is_fp8() -> None:
    a = real("deepseek-ai--DeepSeek-V3.2")
    mem = estimate_memory(Workload("inference", model=a, context=4096, kv_precision="fp8"))
    assert mem.kv_bytes_per_token == 61 * ((512 + 64) * 1 + 132)


def test_a_dsa_config_without_the_indexer_widths_names_them() -> None:
    broken = config("deepseek-ai--DeepSeek-V3.2")
    del broken["index_head_dim"]
    with pytest.raises(RecommenderInputError, match="index_n_heads / index_head_dim"):
        architecture_from_config(broken, name="x", source="x/config.json")


# --- per-layer MoE lists: Hunyuan-A13B --------------------------------------------------


def test_hunyuan_a13b_reads_moe_fields_given_per_layer() -> None:
    a = real("tencent--Hunyuan-A13B")
    assert (a.routed_experts, a.experts_per_token, a.shared_experts) == (64, 8, 1)
    # Per layer: q/o 4096 x 4096, k/v 4096 x 1024, q/k norms 2 x 128; 64 experts of 3 x 4096
    # x 3072, one shared of the same size, the router 4096 x 64; two norms. Embeddings tied.
    attention = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 2 * 128
    expert = 3 * 4096 * 3072
    layer = attention + 64 * expert + expert + 4096 * 64 + 2 * 4096
    total = 32 * layer + 128167 * 4096 + 4096
    active = 32 * (attention + 8 * expert + expert + 4096 * 64 + 2 * 4096) + 128167 * 4096 + 4096
    assert round(a.params_b * 1e9) == total == 80_393_183_232
    assert round(a.active_params_b * 1e9) == active == 12_747_448_320
    # Tencent: "a total of 80 billion parameters with 13 billion active parameters".
    assert abs(a.params_b - 80) <= WITHIN * 80 and abs(a.active_params_b - 13) <= WITHIN * 13


@pytest.mark.parametrize(
    ("change", "hint"),
    [
        (lambda c: c.update(moe_topk=[8] * 16 + [4] * 16), r"moe_topk differs between layers"),
        (lambda c: c.update(moe_topk=[8] * 10), "for each of the 32 layers"),
        (lambda c: c.update(moe_topk=[0] * 32), "experts per token"),
    ],
)
def test_broken_per_layer_lists_are_one_line(change, hint: str) -> None:
    broken = config("tencent--Hunyuan-A13B")
    change(broken)
    with pytest.raises(RecommenderInputError, match=hint):
        architecture_from_config(broken, name="x", source="x/config.json")


def test_top_k_experts_and_a_per_layer_moe_layer_freq_are_read() -> None:
    # Gemma 4 names experts per token top_k_experts; MiMo-V2 and MiniMax-M3 give
    # moe_layer_freq as one 0 / 1 per layer. Both on Qwen3-30B-A3B's real config.
    base = json.loads(
        (Path(__file__).resolve().parents[2] / "recommender" / "configs" / "Qwen--Qwen3-30B-A3B.json")
        .read_text()
    )  # fmt: skip
    renamed = dict(base)
    renamed["top_k_experts"] = renamed.pop("num_experts_per_tok")
    a = architecture_from_config(renamed, name="x", source="x")
    assert a.experts_per_token == 8
    assert a.params_b == architecture_from_config(base, name="y", source="y").params_b
    every_other = dict(base, moe_layer_freq=[i % 2 for i in range(48)])
    b = architecture_from_config(every_other, name="z", source="z")
    assert b.moe_layers == 24


# --- NAS: Llama-3.3-Nemotron-Super-49B ---------------------------------------------------


def test_nemotron_super_49b_block_configs_are_counted_layer_by_layer() -> None:
    a = real("nvidia--Llama-3_3-Nemotron-Super-49B-v1")
    # block_configs: 49 layers with attention (n_heads_in_group 8: 64 / 8 = 8 KV heads), 31
    # with none; MLP widths int(2 x ffn_mult x 8192 / 3) rounded up to 256 (DeciLM):
    # ffn_mult 5.25 -> 28672 (49 layers), 2.625 -> 14336 (6), 1.3125 -> 7168 (10),
    # 1.0 -> 5632 (8), 0.5 -> 2816 (6), 3.28125 -> 17920 (1). Every layer has its MLP.
    assert (a.attention_layers, a.kv_heads, a.layers) == (49, 8, 80)
    attention = 2 * 8192 * 8192 + 2 * 8192 * 8 * 128
    widths = 49 * 28672 + 6 * 14336 + 10 * 7168 + 8 * 5632 + 6 * 2816 + 1 * 17920
    norms = 8192 * (49 + 80 + 1)
    total = 2 * 128256 * 8192 + 49 * attention + 3 * 8192 * widths + norms
    assert round(a.params_b * 1e9) == total == 49_867_145_216
    assert abs(a.params_b - 49) <= WITHIN * 49  # NVIDIA's model card: "49B"
    # KV: only the 49 attention layers, 2 x 8 x 128 x 2 B each.
    mem = estimate_memory(Workload("inference", model=a, context=8192))
    assert mem.kv_bytes_per_token == 49 * 2 * 8 * 128 * 2
    assert "config.json has no intermediate_size" not in json.dumps(a.sources())


def test_nas_layers_with_different_kv_heads_are_refused_naming_block_configs() -> None:
    broken = config("nvidia--Llama-3_3-Nemotron-Super-49B-v1")
    broken["block_configs"][0]["attention"]["n_heads_in_group"] = 4
    with pytest.raises(RecommenderInputError, match=r"block_configs give attention layers"):
        architecture_from_config(broken, name="x", source="x/config.json")
    linear = config("nvidia--Llama-3_3-Nemotron-Super-49B-v1")
    linear["block_configs"][5]["attention"]["replace_with_linear"] = True
    with pytest.raises(RecommenderInputError, match=r"block_configs\[5\].attention.replace_with"):
        architecture_from_config(linear, name="x", source="x/config.json")


# --- ModelOpt hf_quant_config.json ------------------------------------------------------


def modelopt_dir(tmp_path: Path, quant: bool = True) -> Path:
    stem = "nvidia--Llama-3.1-70B-Instruct-FP8"
    (tmp_path / "config.json").write_text((FIXTURES / f"{stem}.json").read_text())
    if quant:
        quant_text = (FIXTURES / f"{stem}.hf_quant_config.json").read_text()
        (tmp_path / "hf_quant_config.json").write_text(quant_text)
    return tmp_path


def test_modelopt_fp8_is_read_from_hf_quant_config_beside_the_config(tmp_path: Path) -> None:
    a = config_architecture(modelopt_dir(tmp_path) / "config.json")
    assert a.quantization is not None
    assert (a.quantization.precision, a.quantization.kv_cache_dtype) == ("fp8", "fp8")
    w = Workload("inference", model=a, context=8192)
    assert (w.precision, w.kv_dtype) == ("fp8", "fp8")
    # Llama-3.1-70B: 70,553,706,496 params; FP8 for all but embeddings, lm_head (excluded)
    # and norms: 2 x 128256 x 8192 + 161 x 8192 kept at 2 B.
    kept = 2 * 128256 * 8192 + 161 * 8192
    mem = estimate_memory(w)
    assert mem.weights_gb * 1e9 == pytest.approx((70_553_706_496 - kept) * 1 + kept * 2)
    rec = recommend(w, DEFAULT_SPECS, seed_prices())
    h20 = next(o for o in rec.options if o.gpu == "h20-96g")
    assert h20.count == 1  # 72.7 GB of FP8 weights fit one H20, not the BF16 count of two


def test_without_hf_quant_config_the_same_checkpoint_is_sized_bf16(tmp_path: Path) -> None:
    a = config_architecture(modelopt_dir(tmp_path, quant=False) / "config.json")
    rec = recommend(Workload("inference", model=a, context=8192), DEFAULT_SPECS, seed_prices())
    assert a.quantization is None
    assert next(o for o in rec.options if o.gpu == "h20-96g").count == 2


def test_config_quantization_wins_over_hf_quant_config_as_in_vllm(tmp_path: Path) -> None:
    folder = modelopt_dir(tmp_path)
    data = json.loads((folder / "config.json").read_text())
    data["quantization_config"] = {"quant_method": "awq", "bits": 4, "group_size": 128}
    (folder / "config.json").write_text(json.dumps(data))
    a = config_architecture(folder / "config.json")
    assert a.quantization is not None and a.quantization.precision == "int4"


def test_a_modelopt_format_not_sized_is_named(tmp_path: Path) -> None:
    folder = modelopt_dir(tmp_path)
    quant = json.loads((folder / "hf_quant_config.json").read_text())
    quant["quantization"]["quant_algo"] = "NVFP4"
    (folder / "hf_quant_config.json").write_text(json.dumps(quant))
    with pytest.raises(RecommenderInputError, match="ModelOpt quant_algo 'NVFP4'"):
        config_architecture(folder / "config.json")


# --- kinds refused, each naming the field -----------------------------------------------


def test_minimax_m27_all_softmax_attention_is_counted() -> None:
    a = real("MiniMaxAI--MiniMax-M2.7")  # attn_type_list: 62 x 1
    assert (a.attention_layers, a.recurrent_layers) == (62, 0)
    assert a.params_b == real("MiniMaxAI--MiniMax-M2.5").params_b


def test_lightning_attention_is_refused_naming_attn_type_list() -> None:
    # MiniMax-Text-01's pattern (7 lightning layers, then one softmax, repeated), on M2.7's
    # real config: the lightning layers' state is not counted, so the model is refused.
    lightning = config("MiniMaxAI--MiniMax-M2.7")
    lightning["attn_type_list"] = ([0] * 7 + [1]) * 7 + [0] * 6
    with pytest.raises(RecommenderInputError) as err:
        architecture_from_config(lightning, name="x", source="x/config.json")
    message = str(err.value)
    assert "attn_type_list marks 55 of 62 layers 0 (MiniMax lightning attention" in message
    assert "complete config.json" not in message and "\n" not in message
    # transformers' newer MiniMax config says it with layer_types "linear_attention".
    typed = config("MiniMaxAI--MiniMax-M2.7")
    del typed["attn_type_list"]
    typed["layer_types"] = (["linear_attention"] * 7 + ["full_attention"]) * 7 + [
        "full_attention"
    ] * 6
    with pytest.raises(RecommenderInputError, match="no Gated DeltaNet widths"):
        architecture_from_config(typed, name="x", source="x/config.json")


@pytest.mark.parametrize(
    ("stem", "field"),
    [
        ("XiaomiMiMo--MiMo-V2-Flash", "hybrid_layer_pattern"),
        ("google--gemma-4-26B-A4B", "num_global_key_value_heads"),
        ("nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-FP8", "moe_latent_size"),
        ("deepseek-ai--DeepSeek-V4-Flash", "compress_ratios"),
    ],
)
def test_layouts_not_read_are_refused_naming_the_field(stem: str, field: str) -> None:
    with pytest.raises(RecommenderInputError) as err:
        real(stem)
    message = str(err.value)
    assert f"config.json sets {field}" in message and "does not read" in message
    assert "complete config.json" not in message  # the config is complete: never blamed


def test_glm5_dsa_is_counted_with_its_indexer() -> None:
    a = real("zai-org--GLM-5")
    # 78 MLA layers with an indexer each: wq_b 2048 x 32 x 128, wk 6144 x 128, k_norm 2 x 128,
    # weights_proj 6144 x 32. (No published total was found to hold the sum against.)
    indexer = 2048 * 32 * 128 + 6144 * 128 + 2 * 128 + 6144 * 32
    plain = config("zai-org--GLM-5")
    for key in ("index_topk", "index_n_heads", "index_head_dim"):
        del plain[key]
    b = architecture_from_config(plain, name="x", source="x")
    assert round((a.params_b - b.params_b) * 1e9) == 78 * indexer
    assert (a.indexer_bytes_per_token, b.indexer_bytes_per_token) == (132, 0)
    assert (a.attention_layers, a.routed_experts, a.experts_per_token) == (78, 256, 8)


# --- block-FP8 experts under data parallel -----------------------------------------------


@pytest.mark.parametrize("concurrency", [1, 16, 64, 100, 200])
def test_no_block_fp8_layout_vllm_refuses_is_offered(concurrency: int) -> None:
    """Without expert parallel vLLM splits each expert over TP x DP cards
    (FusedMoEParallelConfig.flatten_tp_across_dp_and_pcp), so Qwen3-235B-A22B-FP8's
    1536-wide experts at TP 4 x DP 2 are 192 columns a card: not whole 128-blocks."""
    a = real("Qwen--Qwen3-235B-A22B-FP8")
    rec = recommend(
        Workload("inference", model=a, context=8192, concurrency=concurrency),
        DEFAULT_SPECS,
        seed_prices(),
    )
    assert rec.options
    for o in rec.options:
        layout = o.layout
        assert layout is not None
        devices = layout.tp * layout.dp
        if layout.ep:
            assert 128 % devices == 0, o.gpu  # 128 experts, each whole on one card
        else:
            assert (1536 // devices) % 128 == 0 and 1536 % devices == 0, (o.gpu, layout.label)
        assert ("--enable-expert-parallel" in o.serve["vllm"].command) == layout.ep


def test_tp4_dp2_of_the_fp8_checkpoint_runs_with_expert_parallel() -> None:
    a = real("Qwen--Qwen3-235B-A22B-FP8")
    rec = recommend(
        Workload("inference", model=a, context=8192, concurrency=64), DEFAULT_SPECS, seed_prices()
    )
    h100 = next(o for o in rec.options if o.gpu == "h100-80g")
    assert h100.layout is not None and (h100.layout.tp, h100.layout.dp) == (4, 2)
    assert h100.layout.ep and any("each card holds 16 whole experts" in w for w in h100.warnings)


def test_modelopt_fields_written_into_config_json_are_read_the_same_way() -> None:
    # ModelOpt 0.31+: producer, quant_algo FP8 and kv_cache_scheme FP8 flat in config.json's
    # quantization_config (no quant_method); hf_quant_config.json beside it says the same.
    a = real("Qwen--Qwen3-32B-FP8-Static-PerTensor")
    assert a.quantization is not None
    assert (a.quantization.method, a.quantization.precision) == ("modelopt", "fp8")
    w = Workload("inference", model=a, context=8192)
    assert (w.precision, w.kv_dtype) == ("fp8", "fp8")
    # Qwen3-32B: 64 layers x (2 x 8 KV heads x 128) x 1 byte of FP8 KV per token.
    assert estimate_memory(w).kv_bytes_per_token == 64 * 2 * 8 * 128


def test_nemotron_layers_named_in_layers_block_type_are_read() -> None:
    # Nemotron 3.5 names each layer in layers_block_type instead of hybrid_override_pattern:
    # the same count as the pattern written by hand from it (mamba M, attention *, moe E).
    named = config("nvidia--NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4")
    letters = {"mamba": "M", "attention": "*", "moe": "E", "mlp": "-"}
    as_pattern = dict(
        named, hybrid_override_pattern="".join(letters[t] for t in named["layers_block_type"])
    )
    a = architecture_from_config(named, name="x", source="x")
    b = architecture_from_config(as_pattern, name="y", source="y")
    assert (a.params_b, a.attention_layers, a.recurrent_layers) == (b.params_b, 6, 23)
    assert a.layer_mix == "6 attention + 23 Mamba-2 + 23 MLP-only layers"
    # Without num_hidden_layers the list's length is the layer count, not "incomplete".
    del named["num_hidden_layers"]
    assert architecture_from_config(named, name="z", source="z").layers == 52
