"""Issue 21: real config.json files, MLA / MoE / sliding-window memory, valid layouts, FP8.

Expected figures are summed by hand from the stored configs (recommender/configs/,
tests/fixtures/real/hf_configs/; their README cites each file), not read from the code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recommender import (
    DEFAULT_SPECS,
    PRESETS,
    Architecture,
    CardSpec,
    RecommenderInputError,
    Workload,
    architecture_from_config,
    decode_speed,
    estimate_memory,
    inference_layouts,
    kv_cache_bytes,
    recommend,
    seed_prices,
    tp_degrees,
)
from recommender.layout import Layout
from recommender.memory import kv_share_per_card

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "recommender" / "configs"
FIXTURES = ROOT / "tests" / "fixtures" / "real" / "hf_configs"


def real(name: str, folder: Path = CONFIGS) -> Architecture:
    data = json.loads((folder / name).read_text())
    return architecture_from_config(data, name=name, source=str(folder / name))


# --- GQA 70B: Llama-3.3-70B-Instruct ---------------------------------------------------


def test_llama33_70b_params_and_kv_by_hand() -> None:
    a = PRESETS["Llama-3.3-70B-Instruct"]
    # embed + lm_head 2 x 128256 x 8192 = 2,101,346,304; per layer q, o 8192^2 each,
    # k, v 8192 x 1024 each, MLP 3 x 8192 x 28672, 2 norms of 8192 = 855,654,400;
    # x 80 layers + final norm 8192 = 70,553,706,496 (Meta's published count).
    assert round(a.params_b * 1e9) == 2_101_346_304 + 80 * 855_654_400 + 8192
    assert round(a.params_b * 1e9) == 70_553_706_496
    assert (a.attention, a.query_heads, a.kv_heads, a.head_dim) == ("gqa", 64, 8, 128)
    mem = estimate_memory(Workload("inference", model="Llama-3.3-70B", precision="bf16"))
    assert mem.kv_bytes_per_token == 2 * 80 * 8 * 128 * 2 == 327_680
    assert mem.weights_gb == pytest.approx(141.107412992)


def test_llama33_70b_fp16_is_two_h20_or_two_h100_at_vllms_budget() -> None:
    rec = recommend(
        Workload("inference", model="Llama-3.3-70B-Instruct", precision="fp16"),
        DEFAULT_SPECS,
        seed_prices(),
    )
    h20 = next(o for o in rec.options if o.gpu == "h20-96g")
    h100 = next(o for o in rec.options if o.gpu == "h100-80g")
    # TP 2 on H100: 0.9 x 80 GiB = 77.31 GB usable; weights 141.107 / 2 = 70.55 GB, the
    # reserve 1 + 1 + 0.856 GB (runtime, CUDA graphs, 2,048 x 8,192 x 32 B of prefill +
    # 256 x 128,256 x 4 B of logits) leaves 3.90 GB: 24,948 tokens at 327,680 / 2 B each.
    assert (h20.count, h20.layout.label) == (2, "TP 2 × PP 1 × DP 1, 1 node")
    assert (h100.count, h100.layout.tp) == (2, 2)
    reserve = 1 + 1 + (2048 * 8192 * 32 + 256 * 128_256 * 4) / 1e9
    assert h100.per_card_gb == pytest.approx(141.107412992 / 2 + 1.34217728 / 2 + reserve)
    assert h100.budget.kv_room_gb == pytest.approx(
        0.9 * 80 * 2**30 / 1e9 - 141.107412992 / 2 - reserve
    )
    assert h100.budget.tokens_fit == int(h100.budget.kv_room_gb * 1e9 // (327_680 / 2)) == 24_948


def test_qwen25_72b_fp16_on_910b_is_four_cards_not_three() -> None:
    # The example: 64 heads / 8 KV heads allow TP 1, 2, 4, 8 only.
    rec = recommend(
        Workload("inference", model="Qwen2.5-72B", precision="fp16"), DEFAULT_SPECS, seed_prices()
    )
    counts = {o.gpu: o.count for o in rec.options}
    assert counts["910b-64g"] == 4
    assert all(o.count in (1, 2, 4, 8) or o.count % 8 == 0 for o in rec.options)


# --- MLA: DeepSeek-V3 -------------------------------------------------------------------


def test_deepseek_v3_mla_kv_and_fp8_weights_by_hand() -> None:
    a = PRESETS["DeepSeek-V3"]
    assert (a.attention, a.kv_lora_rank, a.qk_rope_head_dim) == ("mla", 512, 64)
    assert round(a.params_b * 1e9) == 671_026_419_200  # 671B, MTP layer not counted
    assert a.active_params_b == pytest.approx(37.55, abs=0.01)
    w = Workload("inference", model="DeepSeek-V3")
    assert w.precision == "fp8"  # from its quantization_config
    assert w.kv_bytes == 2.0  # KV in the BF16 compute dtype, not FP8
    mem = estimate_memory(w)
    # (512 latent + 64 RoPE) x 61 layers x 2 B, not 2 x 128 heads x 128 x 61 x 2.
    assert mem.kv_bytes_per_token == (512 + 64) * 61 * 2 == 70_272
    # FP8 + one FP32 scale per 128 x 128 block: 1 + 4/16384 bytes per parameter for the
    # quantised layers; embeddings, lm_head (2 x 129,280 x 7,168), norms and routers
    # (61 x 7,168 x 2 + 7,168 and 58 x (256 x 7,168 + 256)) stay BF16, as vLLM loads them.
    kept = 2 * 129_280 * 7_168 + (61 * 2 + 1) * 7_168 + 58 * (256 * 7_168 + 256)
    assert kept == 1_960_685_056
    assert mem.weights_gb == pytest.approx(
        ((671_026_419_200 - kept) * (1 + 4 / 16384) + kept * 2) / 1e9
    )
    assert a.head_dim == 128 + 64  # MLA: qk_nope_head_dim + qk_rope_head_dim, not 7168 / 128
    # MLA's latent is not split by tensor parallelism: each of 8 cards keeps all of it.
    assert kv_share_per_card(a, 8) == 1.0
    assert mem.per_card_layout_gb(8, 1) == pytest.approx(
        mem.weights_gb / 8 + mem.kv_cache_gb + mem.replicated_gb
    )


def test_fp8_weights_skip_cards_without_any_fp8_path() -> None:
    rec = recommend(Workload("inference", model="DeepSeek-V3"), DEFAULT_SPECS, seed_prices())
    assert dict(rec.unsupported)["910b-64g"].startswith("910b-64g cannot run FP8 weights: no FP8")
    assert "910b-64g" not in {o.gpu for o in rec.options}
    data = rec.to_dict()
    assert {u["gpu"] for u in data["unsupported"]} == {"910b-64g"}
    assert data["model"]["attention"] == "mla"
    assert data["model"]["kv_bytes_per_token"] == 70_272
    assert data["model"]["figure_sources"]["kv_bytes_per_token"].startswith("(kv_lora_rank")
    h20 = next(o for o in data["options"] if o["gpu"] == "h20-96g")
    # 8 x H20 (the deployment people run): 671.2 / 8 = 84.1 GB of weights per card leave
    # 6.0 GB of 92.8 GB for MLA's latent, replicated on every card: 85,743 tokens.
    assert (h20["layout"]["tp"], h20["layout"]["pp"], h20["layout"]["nodes"]) == (8, 1, 1)
    assert h20["kv_tokens_fit"] == 85_743
    assert h20["fp8_support"] == "native" and h20["format_support"]["path"] == "native"


def test_fp8_on_ampere_is_weight_only_with_its_speed_cost() -> None:
    qwen = PRESETS["Qwen3-8B"]
    mem = estimate_memory(Workload("inference", model=qwen, precision="fp8"))
    a100 = DEFAULT_SPECS["a100-80g"]
    same_with_fp8 = CardSpec("x-80g", 80, a100.bandwidth_gbs, 312, "NVLink 3.0", 600, False, True)
    assert a100.fp8_path == "weight-only" and same_with_fp8.fp8_path == "native"
    slow, fast = decode_speed(mem, a100, 1), decode_speed(mem, same_with_fp8, 1)
    assert slow.per_sequence_tps == pytest.approx(fast.per_sequence_tps * 0.85)
    rec = recommend(Workload("inference", model=qwen, precision="fp8"), [a100], [])
    assert rec.unsupported == ()
    no_fp8 = CardSpec("t4-16g", 16, 320, 65, "PCIe 3.0", 32, False, False)
    rec = recommend(Workload("inference", model=qwen, precision="fp8"), [no_fp8], [])
    assert [g for g, _ in rec.unsupported] == ["t4-16g"]


# --- sliding window + MoE: gpt-oss-120b ---------------------------------------------------


def test_gpt_oss_sliding_window_caps_half_the_layers() -> None:
    a = real("openai--gpt-oss-120b.json", FIXTURES)
    assert (a.sliding_layers, a.sliding_window, a.full_attention_layers) == (18, 128, 18)
    # per layer and token: 2 x 8 KV heads x 64 x 2 B = 2,048 B. At 8,192 tokens:
    # 18 full layers x 2048 x 8192 + 18 sliding layers x 2048 x 128 = 306,708,480 B.
    assert kv_cache_bytes(a, 2, 8192, 1) == 18 * 2048 * 8192 + 18 * 2048 * 128 == 306_708_480
    mem = estimate_memory(Workload("inference", model=a, context=8192))
    assert mem.kv_cache_gb == pytest.approx(0.30670848)
    assert any("Sliding window: 18 of 36 attention layers" in n for n in mem.notes)


def test_gpt_oss_mxfp4_counts_experts_at_4_bits_and_the_rest_at_16() -> None:
    a = real("openai--gpt-oss-120b.json", FIXTURES)
    assert round(a.params_b * 1e9) == 116_829_156_672  # OpenAI's published 116.83B
    # routed experts: 36 layers x 128 x (3 x 2880 x 2880 + 2 x 2880 + 2880 biases).
    experts = 36 * 128 * (3 * 2880 * 2880 + 3 * 2880)
    assert round(a.routed_expert_params_b * 1e9) == experts == 114_701_598_720
    w = Workload("inference", model=a)
    assert w.precision == "mxfp4"  # from the config, labelled as what it is (not int4)
    mem = estimate_memory(w)
    rest = 116_829_156_672 - experts
    assert mem.weights_gb == pytest.approx((experts * (0.5 + 1 / 32) + rest * 2) / 1e9)


# --- MoE: Qwen3-30B-A3B -------------------------------------------------------------------


def test_qwen3_30b_a3b_total_and_active_by_hand() -> None:
    a = PRESETS["Qwen3-30B-A3B"]
    attention = 2 * 2048 * 4096 + 2 * 2048 * 512 + 2 * 128  # q, o; k, v; q/k norms
    experts = 128 * 3 * 2048 * 768
    layer = attention + 2 * 2048 + experts + 2048 * 128  # + norms + router
    total = 2 * 151936 * 2048 + 48 * layer + 2048
    assert round(a.params_b * 1e9) == total == 30_532_122_624
    active = total - 48 * experts + 48 * 8 * 3 * 2048 * 768
    assert round(a.active_params_b * 1e9) == active == 3_353_032_704
    assert (a.routed_experts, a.experts_per_token, a.moe_layers) == (128, 8, 48)
    mem = estimate_memory(Workload("inference", model=a, precision="bf16"))
    assert mem.weights_gb == pytest.approx(total * 2 / 1e9)  # all experts resident
    one = decode_speed(mem, DEFAULT_SPECS["h20-96g"], 1)
    assert one.bytes_per_step_gb == pytest.approx(active * 2 / 1e9 + mem.kv_cache_gb)


def test_moe_batch_reads_more_experts_than_one_sequence() -> None:
    a = PRESETS["Qwen3-30B-A3B"]
    single = estimate_memory(Workload("inference", model=a, concurrency=1, context=1))
    batch = estimate_memory(Workload("inference", model=a, concurrency=64, context=1))
    spec = DEFAULT_SPECS["h20-96g"]
    read_1 = decode_speed(single, spec, 1).bytes_per_step_gb
    read_64 = decode_speed(batch, spec, 1).bytes_per_step_gb
    # 64 sequences touch 128 x (1 - (1 - 8/128)^64) = 126.4 of 128 experts per layer.
    assert read_64 > 5 * read_1 and read_64 < single.weights_gb + batch.kv_cache_gb


# --- layouts for several head counts -------------------------------------------------------


def _arch(heads: int, kv: int, attention: str = "gqa", layers: int = 32) -> Architecture:
    return Architecture("t", 1, 1, layers, heads * 128, kv, 128, 1000, False, "test",
                        heads=heads, attention=attention)  # fmt: skip


@pytest.mark.parametrize(
    ("heads", "kv", "attention", "degrees"),
    [
        (28, 4, "gqa", [1, 2, 4]),  # Qwen2.5-7B: 8 does not divide 28
        (40, 8, "gqa", [1, 2, 4, 8]),  # Qwen2.5-14B/32B
        (32, 2, "gqa", [1, 2, 4, 8]),  # GLM-4-9B: TP 4 and 8 replicate the 2 KV heads
        (64, 4, "gqa", [1, 2, 4, 8]),  # Qwen3-235B-A22B
        (20, 5, "gqa", [1]),  # 2 divides 20 but neither divides nor is a multiple of 5
        (128, 128, "mla", [1, 2, 4, 8]),  # DeepSeek-V3
        (96, 8, "gqa", [1, 2, 4, 8]),  # GLM-4.5-Air
    ],
)
def test_tp_degrees_follow_the_heads(heads: int, kv: int, attention: str, degrees: list) -> None:
    assert tp_degrees(_arch(heads, kv, attention))[0] == degrees


def test_layouts_beyond_the_widest_tp_pipeline_over_whole_servers() -> None:
    spec = DEFAULT_SPECS["h20-96g"]
    labels = [lay.label for lay in inference_layouts(_arch(28, 4), spec)][:5]
    assert labels == [
        "TP 1 × PP 1 × DP 1, 1 node",
        "TP 2 × PP 1 × DP 1, 1 node",
        "TP 4 × PP 1 × DP 1, 1 node",
        "TP 4 × PP 2 × DP 1, 1 node",
        "TP 4 × PP 4 × DP 1, 2 nodes",
    ]
    cards = [lay.cards for lay in inference_layouts(_arch(64, 8), spec)]
    assert cards == [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64]
    # GQA past the KV heads: each card keeps one replicated head.
    assert kv_share_per_card(_arch(64, 4), 8) == pytest.approx(1 / 4)
    assert kv_share_per_card(_arch(64, 8), 4) == pytest.approx(1 / 4)


def test_pcie_cards_carry_a_stated_tp_penalty() -> None:
    mem = estimate_memory(Workload("inference", model="Qwen3-8B", precision="bf16"))
    rtx = DEFAULT_SPECS["rtx4090-24g"]
    pcie = decode_speed(mem, rtx, Layout(tp=2, pcie=True))
    ideal = decode_speed(mem, rtx, Layout(tp=2, pcie=False))
    assert pcie.per_sequence_tps == pytest.approx(ideal.per_sequence_tps * 0.85)
    assert any("over PCIe keeps 85%" in a for a in pcie.assumptions)
    assert rtx.fast_domain == 1 and DEFAULT_SPECS["h100-80g"].fast_domain == 8
    bridge = CardSpec("a40-48g", 48, 696, 150, "NVLink bridge (2 GPUs); PCIe 4.0 x16", 112.5, False)
    assert bridge.fast_domain == 2


# --- weights formats and training ZeRO stages ---------------------------------------------


def test_int4_counts_awq_group_scales_and_a_config_awq_is_the_default() -> None:
    mem = estimate_memory(Workload("inference", model="Qwen3-8B", precision="int4"))
    # Linear layers at 4 bits + scales; embeddings and lm_head (2 x 151,936 x 4,096) and the
    # 73 RMSNorms of 4,096 stay 16-bit.
    kept = 2 * 151_936 * 4_096 + 73 * 4_096
    linear = 8_190_735_360 - kept
    assert mem.weights_gb == pytest.approx((linear * (0.5 + 2.5 / 128) + kept * 2) / 1e9)
    config = json.loads((CONFIGS / "Qwen--Qwen3-8B.json").read_text())
    config["quantization_config"] = {"quant_method": "awq", "bits": 4, "group_size": 64}
    awq = architecture_from_config(config, name="q-awq", source="test")
    w = Workload("inference", model=awq)
    assert w.precision == "int4"
    assert estimate_memory(w).weights_gb == pytest.approx(
        (linear * (0.5 + 2.5 / 64) + kept * 2) / 1e9
    )


def test_zero_stages_shard_what_they_say() -> None:
    params = 8.19073536  # Qwen3-8B, billions
    per_card = {}
    for stage in (0, 1, 2, 3):
        mem = estimate_memory(
            Workload("training", method="full", model="Qwen3-8B", zero_stage=stage)
        )
        per_card[stage] = mem.per_card_layout_gb(1, 1, 8) - mem.replicated_gb
    assert per_card[0] == pytest.approx(params * 16)
    assert per_card[1] == pytest.approx(params * (2 + 2 + 12 / 8))
    assert per_card[2] == pytest.approx(params * (2 + 2 / 8 + 12 / 8))
    assert per_card[3] == pytest.approx(params * 16 / 8)
    with pytest.raises(RecommenderInputError, match="zero_stage"):
        Workload("training", method="full", model="Qwen3-8B", zero_stage=4)


# --- broken and partial configs ------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "hint"),
    [
        (lambda c: c.pop("num_hidden_layers"), "no num_hidden_layers"),
        (lambda c: c.update(num_key_value_heads=3), "must divide the 32 attention heads"),
        (lambda c: c.update(hidden_size="4096"), "hidden_size must be a positive whole number"),
        (lambda c: c.pop("intermediate_size"), "no intermediate_size"),
        (lambda c: c.update(kv_lora_rank=512), "has no qk_rope_head_dim"),
        (lambda c: c.update(num_experts=8), r"needs experts per token \(num_experts_per_tok"),
        (lambda c: c.update(quantization_config={"quant_method": "hqq"}), "remove"),
    ],
)
def test_partial_configs_raise_one_clear_message(change, hint: str) -> None:
    config = json.loads((CONFIGS / "Qwen--Qwen3-8B.json").read_text())
    change(config)
    with pytest.raises(RecommenderInputError, match=hint) as err:
        architecture_from_config(config, name="x", source="x/config.json")
    assert "x/config.json" in str(err.value)
