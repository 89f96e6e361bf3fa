"""Memory model: the seeds' rules of thumb and the exact model, checked by hand."""

from __future__ import annotations

import pytest

from recommender import (
    GB,
    PRESETS,
    RUNTIME_OVERHEAD_GB,
    Workload,
    architecture_for,
    estimate_memory,
    get_preset,
    kv_bytes_per_token,
)


def test_seed_7b_fp16_inference_rule_of_thumb_is_16_8_gb() -> None:
    # Seed 002 §2.1 / seed 003 §二: 7B x 2 bytes x 1.2 ~= 16.8 GB (the reported figure);
    # seed 000 §三 counts the 14 GB of weights alone, kept as the range's low end.
    mem = estimate_memory(Workload("inference", params_b=7, precision="fp16"))
    assert mem.rule_high_gb == pytest.approx(16.8)
    assert mem.rule_low_gb == pytest.approx(14.0)
    assert "seed 000" in mem.rule_basis and "seed 003" in mem.rule_basis


def test_seed_7b_full_finetune_rule_of_thumb_is_112_to_140_gb() -> None:
    # Seed 003 §二: 16-20 bytes per parameter -> 112-140 GB for 7B.
    mem = estimate_memory(Workload("training", method="full", params_b=7))
    assert (mem.rule_low_gb, mem.rule_high_gb) == (pytest.approx(112), pytest.approx(140))


def test_seed_lora_rule_of_thumb_is_2_to_4_bytes_per_param() -> None:
    mem = estimate_memory(Workload("training", method="lora", params_b=7))
    assert (mem.rule_low_gb, mem.rule_high_gb) == (pytest.approx(14), pytest.approx(28))


def test_seed_70b_fp16_weights_are_140_gb_and_int8_halves_them() -> None:
    # Seed 000 §6.1: 70B FP16 ~140 GB, INT8 ~70 GB: the seeds' figure, weights only.
    fp16 = estimate_memory(Workload("inference", params_b=70, precision="fp16"))
    int8 = estimate_memory(Workload("inference", params_b=70, precision="int8"))
    assert fp16.weights_gb == pytest.approx(140)
    assert int8.rule_low_gb == pytest.approx(70)
    # The exact weights keep embeddings and lm_head at 16 bits, as engines do: the
    # estimated architecture has 71 layers x hidden 9,088 and a 150,000 vocabulary, so
    # 2 x 150,000 x 9,088 = 2.7264B parameters at 2 B and the other 67.2736B at 1 B.
    assert int8.weights_gb == pytest.approx(67.2736 + 2.7264 * 2)


def test_llama31_8b_kv_cache_is_131072_bytes_per_token_at_fp16() -> None:
    arch = architecture_for(Workload("inference", model="Llama-3.1-8B", precision="fp16"))
    assert kv_bytes_per_token(arch, 2) == 131_072  # 2 x 32 layers x 8 heads x 128 x 2 B
    mem = estimate_memory(Workload("inference", model="Llama-3.1-8B", context=1, concurrency=1))
    assert mem.kv_bytes_per_token == 131_072


def test_glm4_9b_kv_cache_uses_its_two_kv_groups() -> None:
    arch = architecture_for(Workload("inference", model="GLM-4-9B-Chat"))
    assert kv_bytes_per_token(arch, 2) == 2 * 40 * 2 * 128 * 2  # 40,960 B/token


def test_qwen25_7b_total_matches_a_hand_computation() -> None:
    # Qwen2.5-7B-Instruct, BF16, 8,192-token context, 4 concurrent sequences.
    mem = estimate_memory(
        Workload("inference", model="Qwen2.5-7B-Instruct", context=8192, concurrency=4)
    )
    weights = 7.62e9 * 2  # 15.24 GB
    kv = 2 * 28 * 4 * 128 * 2 * 8192 * 4  # 57,344 B/token x 32,768 tokens
    prefill = 2048 * 3584 * 32  # chunk capped at 2,048 tokens x hidden x 32 B
    logits = 256 * 152_064 * 4  # FP32 logits of vLLM's 256 profiled sequences
    graphs = 1.0  # CUDA graphs, GB
    expected = (weights + kv + prefill + logits) / GB + RUNTIME_OVERHEAD_GB + graphs
    assert mem.weights_gb == pytest.approx(15.24)
    assert mem.kv_cache_gb == pytest.approx(1.879048192)
    assert mem.overhead_gb == pytest.approx(1 + graphs + (prefill + logits) / GB)
    assert mem.total_gb == pytest.approx(expected)
    assert mem.total_gb == pytest.approx(19.509642752, abs=1e-9)


def test_kv_precision_is_auto_bf16_whatever_the_weights() -> None:
    # vLLM's --kv-cache-dtype auto caches KV in the model's 16-bit dtype: INT4 or FP8
    # weights do not shrink the cache.
    for precision in ("int4", "int8", "fp8", "bf16"):
        w = Workload("inference", params_b=7, precision=precision)
        assert (w.kv_precision, w.kv_dtype, w.kv_bytes) == ("auto", "bf16", 2.0)
        assert w.kv_label.startswith("BF16 (auto")
    fp8_kv = Workload("inference", params_b=7, precision="bf16", kv_precision="fp8")
    assert (fp8_kv.kv_bytes, fp8_kv.kv_label) == (1.0, "FP8")


def test_full_finetune_breakdown_is_16_bytes_per_param_plus_activations() -> None:
    mem = estimate_memory(Workload("training", method="full", model="Llama-3.1-8B"))
    params = 8.03e9
    assert mem.weights_gb == pytest.approx(params * 2 / GB)
    assert mem.gradients_gb == pytest.approx(params * 2 / GB)
    assert mem.optimizer_gb == pytest.approx(params * 12 / GB)  # Adam 8 + FP32 master 4
    assert mem.kv_cache_gb == 0
    assert mem.activations_gb > 0
    assert mem.total_gb == pytest.approx(
        params * 16 / GB + mem.activations_gb + RUNTIME_OVERHEAD_GB
    )
    assert mem.checkpoint_gb == pytest.approx(params * 14 / GB)


def test_lora_and_qlora_keep_the_base_frozen_and_train_small_adapters() -> None:
    lora = estimate_memory(Workload("training", method="lora", model="Qwen2.5-7B"))
    qlora = estimate_memory(Workload("training", method="qlora", model="Qwen2.5-7B"))
    assert lora.weights_gb == pytest.approx(7.62 * 2)
    # NF4: 0.5 B + an 8-bit absmax per 64 + an FP32 per 256 absmax blocks = 0.515869 B/param
    # for the linear layers; embeddings and lm_head (2 x 152,064 x 3,584) stay 16-bit.
    embeddings = 2 * 152_064 * 3_584 / 1e9
    nf4 = 0.5 + 1 / 64 + 4 / 16384
    assert qlora.weights_gb == pytest.approx((7.62 - embeddings) * nf4 + embeddings * 2)
    assert lora.adapter_params_b == pytest.approx(7.62 * 0.01)  # rank 32 -> 1%
    # Adapters carry FP32 weights 4 + grads 4 + Adam 8 = 16 bytes per adapter parameter.
    adapter_bytes = lora.adapters_gb + lora.gradients_gb + lora.optimizer_gb
    assert adapter_bytes == pytest.approx(lora.adapter_params_b * 16)
    assert lora.checkpoint_gb == pytest.approx(lora.adapter_params_b * 12)
    assert qlora.total_gb < lora.total_gb
    rank64 = estimate_memory(Workload("training", method="lora", model="Qwen2.5-7B", lora_rank=64))
    assert rank64.adapter_params_b == pytest.approx(2 * lora.adapter_params_b)


def test_moe_fits_on_total_params() -> None:
    mem = estimate_memory(Workload("inference", model="Qwen3-30B-A3B"))
    assert mem.arch.is_moe
    # Counted from its config.json (hand sum in test_rec_real_configs): 30,532,122,624 params.
    assert mem.weights_gb == pytest.approx(30_532_122_624 * 2 / 1e9)
    assert any("MoE" in note for note in mem.notes)


def test_custom_params_use_a_stated_architecture_estimate() -> None:
    arch = architecture_for(Workload("inference", params_b=7))
    assert arch.estimated
    assert (arch.layers, arch.hidden, arch.kv_heads, arch.head_dim) == (33, 4224, 8, 128)
    assert "estimated" in arch.source


@pytest.mark.parametrize("name", list(PRESETS))
def test_presets_cite_their_config_json(name: str) -> None:
    preset = PRESETS[name]
    assert "huggingface.co" in preset.source and "config.json" in preset.source
    assert preset.active_params_b <= preset.params_b
    if preset.attention != "mla":  # MLA caches a latent, not KV heads
        assert preset.kv_heads * preset.head_dim <= preset.hidden


def test_preset_architecture_figures() -> None:
    expected = {
        "Llama-3.1-8B-Instruct": (8.03, 32, 8, 128),
        "Llama-3.1-70B-Instruct": (70.6, 80, 8, 128),
        "Qwen2.5-7B-Instruct": (7.62, 28, 4, 128),
        "Qwen2.5-14B-Instruct": (14.7, 48, 8, 128),
        "Qwen2.5-32B-Instruct": (32.8, 64, 8, 128),
        "Qwen2.5-72B-Instruct": (72.7, 80, 8, 128),
        "GLM-4-9B-Chat": (9.4, 40, 2, 128),
    }
    for name, (params, layers, kv_heads, head_dim) in expected.items():
        p = get_preset(name)
        assert (p.params_b, p.layers, p.kv_heads, p.head_dim) == (
            params,
            layers,
            kv_heads,
            head_dim,
        )
    distill, qwen32 = get_preset("DeepSeek-R1-Distill-Qwen-32B"), get_preset("Qwen2.5-32B")
    assert (distill.layers, distill.hidden, distill.kv_heads, distill.head_dim) == (
        qwen32.layers,
        qwen32.hidden,
        qwen32.kv_heads,
        qwen32.head_dim,
    )


def test_preset_lookup_ignores_case_and_instruct_suffix() -> None:
    assert get_preset("llama-3.1-8b").name == "Llama-3.1-8B-Instruct"
    assert get_preset("QWEN2.5-72B-INSTRUCT").name == "Qwen2.5-72B-Instruct"
    assert get_preset("glm-4-9b").name == "GLM-4-9B-Chat"
