"""Issue 29: the engine's memory budget, layouts vLLM runs, the format x card support
matrix, the decode bound and the short answer with its serve command.

The figures are worked by hand from vLLM's rules (recommender/README.md cites them): the
engine may use gpu_memory_utilization (0.9) x the card's memory, an "80 GB" card being
80 GiB; what the weights and the reserve leave is KV cache.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from recommender import (
    DEFAULT_SPECS,
    PRESETS,
    Architecture,
    CardSpec,
    Workload,
    architecture_from_config,
    card_budget,
    decode_speed,
    estimate_memory,
    recommend,
    render_text,
    seed_prices,
    support,
    tp_choices,
)
from recommender.layout import Layout
from recommender.render import MAX_SHORT_LINES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "hf_configs"
GIB = 2**30


def real(stem: str) -> Architecture:
    config = json.loads((FIXTURES / f"{stem}.json").read_text())
    return architecture_from_config(config, name=stem, source=stem, repo_id=stem.replace("--", "/"))


def _option(rec, gpu: str):
    return next(o for o in rec.options if o.gpu == gpu)


# --- the memory budget ---------------------------------------------------------------------


def test_qwen3_32b_bf16_at_8k_is_offered_on_one_h100_with_35k_tokens_of_kv() -> None:
    w = Workload("inference", model="Qwen3-32B", context=8192)
    assert (w.precision, w.kv_precision, w.kv_dtype, w.kv_bytes) == ("bf16", "auto", "bf16", 2.0)
    rec = recommend(w, DEFAULT_SPECS, seed_prices())
    h100 = _option(rec, "h100-80g")
    assert (h100.count, h100.layout.tp) == (1, 1)
    b = h100.budget
    # 0.9 x 80 GiB = 77.31 GB; weights 32,762,123,264 x 2 B = 65.52 GB; reserve: runtime 1 +
    # CUDA graphs 1 + prefill 2,048 x 5,120 x 32 B + logits 256 x 151,936 x 4 B.
    reserve = 2 + (2048 * 5120 * 32 + 256 * 151_936 * 4) / 1e9
    assert b.usable_gb == pytest.approx(0.9 * 80 * GIB / 1e9)
    assert b.weights_gb == pytest.approx(65.524246528)
    assert b.reserve_gb == pytest.approx(reserve)
    assert b.kv_room_gb == pytest.approx(0.9 * 80 * GIB / 1e9 - 65.524246528 - reserve)
    # KV per token: 2 x 64 layers x 8 KV heads x 128 x 2 B = 262,144 B -> ~35k tokens.
    assert b.tokens_fit == int(b.kv_room_gb * 1e9 // 262_144)
    assert 34_000 < b.tokens_fit < 36_000
    assert b.sequences_fit == b.tokens_fit // 8192


def test_gpu_memory_utilization_moves_the_budget_and_can_refuse() -> None:
    spec = DEFAULT_SPECS["h100-80g"]
    loose = estimate_memory(Workload("inference", model="Qwen3-32B", context=8192))
    tight = estimate_memory(
        Workload("inference", model="Qwen3-32B", context=8192, gpu_memory_utilization=0.8)
    )
    one = Layout(tp=1)
    assert card_budget(loose, spec, one).fits
    # 0.8 x 85.9 = 68.7 GB - 65.5 weights - 2.49 reserve = 0.71 GB < 2.15 GB of KV at 8k.
    assert not card_budget(tight, spec, one).fits
    rec = recommend(
        Workload("inference", model="Qwen3-32B", context=8192, gpu_memory_utilization=0.8),
        [spec],
        seed_prices(),
    )
    assert rec.options[0].count == 2


def test_the_seeds_rule_of_thumb_stays_beside_the_exact_figure() -> None:
    rec = recommend(Workload("inference", model="Qwen3-32B"), DEFAULT_SPECS, seed_prices())
    h100 = _option(rec, "h100-80g")
    assert h100.rule_of_thumb_count == 1
    assert rec.memory.rule_high_gb == pytest.approx(rec.memory.rule_low_gb * 1.2)
    assert "seeds' rule of thumb" in h100.count_basis and "engine budget" in h100.count_basis


def test_a_checkpoint_that_declares_an_fp8_kv_cache_gets_it_by_auto() -> None:
    config = json.loads((Path("recommender/configs/Qwen--Qwen3-8B.json")).read_text())
    config["quantization_config"] = {
        "quant_method": "compressed-tensors",
        "config_groups": {"g": {"weights": {"num_bits": 8, "type": "float"}}},
        "kv_cache_scheme": {"num_bits": 8, "type": "float"},
    }
    a = architecture_from_config(config, name="q", source="q")
    w = Workload("inference", model=a)
    assert (w.precision, w.kv_dtype, w.kv_bytes) == ("fp8", "fp8", 1.0)
    assert "checkpoint declares" in w.kv_label


# --- layouts an engine can run ---------------------------------------------------------------


def test_block_fp8_at_tp8_is_refused_and_expert_parallel_offered() -> None:
    # Qwen3-235B-A22B-FP8: moe_intermediate_size 1536 / 8 = 192, not a multiple of 128.
    a = real("Qwen--Qwen3-235B-A22B-FP8")
    choices, _ = tp_choices(a, a.quantization)
    by_tp = {c.tp: c for c in choices}
    assert [by_tp[t].ep for t in (1, 2, 4)] == [False, False, False]  # 1536 / 4 = 384 = 3 x 128
    assert by_tp[8].ep and "192 is not a multiple of the FP8 block 128" in by_tp[8].why_ep
    # Served at BF16 instead, nothing constrains TP 8.
    assert not {c.tp: c for c in tp_choices(a)[0]}[8].ep


def test_no_option_is_a_layout_vllm_refuses() -> None:
    for stem in ("Qwen--Qwen3-235B-A22B-FP8", "MiniMaxAI--MiniMax-M2.5"):
        a = real(stem)
        rec = recommend(Workload("inference", model=a), DEFAULT_SPECS, seed_prices())
        assert rec.options
        block = a.quantization.block[0]
        for o in rec.options:
            for what, size, group in a.tp_dims:
                split = min(o.layout.tp, a.kv_heads) if group == "attention_kv" else o.layout.tp
                if group == "routed_experts" and o.layout.ep:
                    continue  # whole experts per card
                assert (size // split) % block == 0, (stem, o.gpu, o.layout.label, what)
            if o.layout.ep:
                assert "--enable-expert-parallel" in o.serve["vllm"].command


def test_a_width_that_no_block_divides_rules_the_degree_out() -> None:
    config = json.loads((FIXTURES / "Qwen--Qwen3-235B-A22B-FP8.json").read_text())
    config = dict(config, num_experts=0, num_experts_per_tok=0, intermediate_size=1536)
    dense = architecture_from_config(config, name="d", source="d")
    degrees, why = tp_choices(dense, dense.quantization)
    assert [c.tp for c in degrees] == [1, 2, 4]
    assert any("intermediate_size 1536 / TP 8 = 192" in w for w in why)


def test_expert_parallel_where_tp_would_cut_experts_thinner_than_a_tile() -> None:
    # Qwen3-30B-A3B: 768-wide experts at TP 8 would be 96 columns per card.
    choices, _ = tp_choices(PRESETS["Qwen3-30B-A3B"])
    assert {c.tp: c.ep for c in choices} == {1: False, 2: False, 4: False, 8: True}


def test_high_concurrency_uses_data_parallel_replicas_not_wide_tp() -> None:
    rec = recommend(
        Workload("inference", params_b=1, concurrency=1000, context=4096),
        [DEFAULT_SPECS["rtx4090-24g"]],
        seed_prices(),
    )
    o = rec.options[0]
    assert (o.layout.tp, o.layout.pp) == (1, 1)  # one card holds the model
    assert o.layout.dp == o.count > 1
    assert o.budget.sequences_fit * o.layout.dp >= 1000
    assert f"--data-parallel-size {o.layout.dp}" in o.serve["vllm"].command
    assert f"--dp-size {o.layout.dp}" in o.serve["sglang"].command


# --- the format x card support matrix --------------------------------------------------------


@pytest.mark.parametrize(
    ("precision", "gpu", "path"),
    [
        ("fp8", "910b-64g", "none"),
        ("mxfp4", "910b-64g", "none"),
        ("fp8", "a100-80g", "weight-only"),
        ("fp8", "rtx4090-24g", "native"),
        ("fp8", "h20-96g", "native"),
        ("mxfp4", "a100-80g", "weight-only"),
        ("mxfp4", "h100-80g", "native"),
        ("int8", "910b-64g", "native"),
        ("int4", "rtx4090-24g", "weight-only"),
        ("bf16", "910b-64g", "native"),
    ],
)
def test_support_matrix(precision: str, gpu: str, path: str) -> None:
    found = support(precision, DEFAULT_SPECS[gpu])
    assert found.path == path
    assert found.why


def test_gpt_oss_mxfp4_is_not_offered_on_the_910b() -> None:
    rec = recommend(
        Workload("inference", model=real("openai--gpt-oss-120b")), DEFAULT_SPECS, seed_prices()
    )
    assert "910b-64g" in dict(rec.unsupported)
    assert "MXFP4" in dict(rec.unsupported)["910b-64g"]
    assert "910b-64g" not in {o.gpu for o in rec.options}


# --- decode: an upper bound whose formula evaluates to its number -----------------------------

_NUMBER = re.compile(r"[-+]?\d[\d,]*\.?\d*(?:e[-+]?\d+)?")


def _numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in _NUMBER.findall(text)]


@pytest.mark.parametrize(
    ("model", "gpu", "layout"),
    [
        ("Qwen3-32B", "h100-80g", Layout(tp=1)),
        ("DeepSeek-V3", "h20-96g", Layout(tp=8, pp=2, nodes=2)),
        ("Qwen3-8B", "rtx4090-24g", Layout(tp=2, pcie=True)),
    ],
)
def test_decode_formula_evaluates_to_its_number(model: str, gpu: str, layout: Layout) -> None:
    speed = decode_speed(
        estimate_memory(Workload("inference", model=model)), DEFAULT_SPECS[gpu], layout
    )
    n, thousand, read, bw, eff, thousand2, floor, result = _numbers(speed.formula)[:8]
    assert (thousand, thousand2) == (1000, 1000)
    assert n * 1000 / max(read / (bw * eff) * 1000, floor) == pytest.approx(result, rel=1e-3)
    assert result == pytest.approx(speed.total_tps, rel=1e-3)
    terms = _numbers(speed.floor_formula)
    *pairs, total = terms
    assert sum(count * us for count, us in zip(pairs[::2], pairs[1::2], strict=True)) / 1000 == (
        pytest.approx(total, rel=1e-3)
    )
    assert speed.label.startswith("≤ ") and "upper bound" in speed.label


def test_large_moe_batch_one_decode_is_held_to_tens_by_the_latency_floor() -> None:
    mem = estimate_memory(Workload("inference", model="DeepSeek-V3"))
    speed = decode_speed(mem, DEFAULT_SPECS["h20-96g"], Layout(tp=8, pp=2, nodes=2))
    assert speed.bound == "latency floor"
    assert 10 < speed.per_sequence_tps < 100
    assert "58 MoE layers" in speed.floor_formula


# --- the short answer ----------------------------------------------------------------------


def test_short_answer_is_about_ten_lines_with_the_serve_command() -> None:
    rec = recommend(Workload("inference", model="DeepSeek-V3"), DEFAULT_SPECS, seed_prices())
    text = render_text(rec)
    lines = text.splitlines()
    assert 8 <= len(lines) <= MAX_SHORT_LINES
    assert lines[1].startswith("Pick: 8 x h20-96g (96 GB), TP 8 × PP 1 × DP 1, 1 node")
    assert "¥" in lines[1] and "2026-09-04" in lines[1]
    assert any(line.startswith("KV: 85,743 tokens fit") for line in lines)
    assert (
        "Serve: vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 "
        "--pipeline-parallel-size 1 --max-model-len 4096 --gpu-memory-utilization 0.9"
    ) in lines
    assert lines[lines.index("Runners-up:") + 1].startswith("  40 x rtx4090-24g")
    assert "Step 1: Task" not in text
    verbose = render_text(rec, verbose=True)
    assert verbose.startswith(text.rstrip()) and "Step 5: Budget" in verbose


def test_labels_say_mxfp4_bf16_and_mla_head_dim() -> None:
    gpt = Workload("inference", model=real("openai--gpt-oss-120b"))
    assert gpt.precision == "mxfp4"
    assert "weights MXFP4" in render_text(recommend(gpt, DEFAULT_SPECS, seed_prices()))
    assert Workload("inference", params_b=7).precision == "bf16"
    data = recommend(
        Workload("inference", model="DeepSeek-V3"), DEFAULT_SPECS, seed_prices()
    ).to_dict()
    assert data["model"]["head_dim"] == 192  # qk_nope 128 + qk_rope 64, not 7168 / 128 = 56


def test_serve_line_quantises_online_only_to_fp8() -> None:
    h100 = DEFAULT_SPECS["h100-80g"]
    fp8 = recommend(Workload("inference", model="Qwen3-8B", precision="fp8"), [h100], seed_prices())
    assert "--quantization fp8" in fp8.options[0].serve["vllm"].command
    int4 = recommend(
        Workload("inference", model="Qwen3-8B", precision="int4"), [h100], seed_prices()
    )
    line = int4.options[0].serve["vllm"]
    assert "--quantization" not in line.command and "AWQ / GPTQ INT4 checkpoint" in line.note
    kv = recommend(
        Workload("inference", model="Qwen3-8B", kv_precision="fp8"), [h100], seed_prices()
    ).options[0]
    assert kv.serve["vllm"].command.endswith("--kv-cache-dtype fp8")
    assert kv.serve["sglang"].command.endswith("--kv-cache-dtype fp8_e4m3")


def test_a_card_outside_the_table_falls_back_to_its_stated_fp8() -> None:
    t4 = CardSpec("t4-16g", 16, 320, 65, "PCIe 3.0", 32, False, False)
    assert support("fp8", t4).path == "none"
