"""The decision tree end to end on the seeds' published prices."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

import recommender
from recommender import (
    BARE_METAL,
    DEFAULT_SPECS,
    HOURLY,
    MONTHLY_PLAN,
    CardPrice,
    CardSpec,
    Recommendation,
    Workload,
    breakeven,
    recommend,
    render_text,
    rent_modes,
    seed_prices,
)


def _run(**kwargs: object) -> Recommendation:
    task = str(kwargs.pop("task", "inference"))
    return recommend(Workload(task, **kwargs), DEFAULT_SPECS, seed_prices())  # type: ignore[arg-type]


def _price(gpu: str) -> CardPrice:
    return next(p for p in seed_prices() if p.gpu == gpu)


def _option(rec: Recommendation, gpu: str):
    return next(o for o in rec.options if o.gpu == gpu)


# --- seed examples -----------------------------------------------------------------


def test_seed_7b_fp16_inference_fits_one_4090() -> None:
    rec = _run(params_b=7, precision="fp16")
    assert rec.memory.rule_high_gb == pytest.approx(16.8)
    assert rec.recommended is not None
    assert (rec.recommended.gpu, rec.recommended.count) == ("rtx4090-24g", 1)
    assert rec.recommended.headroom_gb > 0
    assert _option(rec, "rtx4090-24g").rule_of_thumb_count == 1


def test_seed_7b_full_finetune_needs_more_than_one_4090_and_suggests_lora() -> None:
    rec = _run(task="training", method="full", params_b=7)
    assert (rec.memory.rule_low_gb, rec.memory.rule_high_gb) == (
        pytest.approx(112),
        pytest.approx(140),
    )
    rtx = _option(rec, "rtx4090-24g")
    assert rtx.count > 1
    assert rtx.pcie_multi_card and any("PCIe" in w for w in rtx.warnings)
    lora = next(a for a in rec.alternatives if a.name == "lora")
    # Seed 003 §二: LoRA on 7B is 14-28 GB and runs on one 4090.
    assert (lora.gpu, lora.count) == ("rtx4090-24g", 1)
    assert lora.total_gb is not None and lora.total_gb * 1.2 <= 24
    assert "LoRA" in rec.steps[2].reasoning


def test_seed_70b_fp16_is_two_h20_or_two_h100_by_the_seed_rule_and_int8_fits_one_h20() -> None:
    # Seed 000 §6.1: "FP16推理需约140GB显存(H20 96GB双卡或H100 80GB双卡);INT8推理需约70GB
    # 显存(H20 96GB单卡)". The seed counts weights only, with no margin. The exact model
    # checks the engine's budget instead: vLLM may use 0.9 of each card, and an "80 GB"
    # H100 holds 80 GiB = 85.9 GB, so 77.3 GB per card. At TP 2 each card holds 70 GB of
    # weights and a 2.75 GB reserve (runtime 1, CUDA graphs 1, activations 0.75), leaving
    # 4.6 GB of KV: 31,361 tokens, the 4,096-token sequence with room to spare. So two H100
    # serve it, as the seed says; so do two H20.
    rec = _run(params_b=70, precision="fp16")
    assert rec.memory.weights_gb == pytest.approx(140)
    assert rec.memory.rule_low_gb == pytest.approx(140)  # the seed's "约140GB"
    h20, h100 = _option(rec, "h20-96g"), _option(rec, "h100-80g")
    assert (h20.rule_of_thumb_count, h100.rule_of_thumb_count) == (2, 2)  # the seed statement
    assert (h20.count, h100.count) == (2, 2)  # the engine budget holds it
    assert h100.layout is not None and (h100.layout.tp, h100.layout.pp) == (2, 1)
    assert h100.budget is not None
    assert h100.budget.usable_gb == pytest.approx(0.9 * 80 * 2**30 / 1e9)
    assert h100.budget.weights_gb == pytest.approx(70)
    assert h100.budget.kv_room_gb == pytest.approx(77.309 - 70 - rec.memory.overhead_gb, abs=1e-3)
    assert h100.budget.tokens_fit == 31_361
    assert "no margin" in h100.count_basis and "the two agree" in h100.count_basis
    # One H100 would hold the weights only if they were halved: 140 GB > 77.3 GB.
    data = rec.to_dict()
    h100_json = next(o for o in data["options"] if o["gpu"] == "h100-80g")
    assert (h100_json["rule_of_thumb_count"], h100_json["exact_count"]) == (2, 2)
    assert h100_json["kv_tokens_fit"] == 31_361
    assert "rule_of_thumb_count" in data["memory"]["rule_vs_exact"]

    int8 = _run(params_b=70, precision="int8")
    assert int8.memory.rule_low_gb == pytest.approx(70)  # "INT8推理需约70GB"
    assert (_option(int8, "h20-96g").rule_of_thumb_count, _option(int8, "h20-96g").count) == (
        1,
        1,
    )
    assert next(a for a in rec.alternatives if a.name == "int8").gpu is not None


def test_seed_7b_lora_fits_one_4090_with_the_stated_defaults() -> None:
    # Seed 003 §二 / §三: LoRA on 7B is 14-28 GB and one 4090 runs it. Defaults: BF16 base,
    # rank 32, 2,048-token sequences, micro-batch 1 (workload.py states them).
    rec = _run(task="training", method="lora", params_b=7)
    assert rec.workload.precision == "bf16" and rec.workload.context == 2048
    assert rec.workload.lora_rank == 32 and rec.workload.concurrency == 1
    assert (rec.memory.rule_low_gb, rec.memory.rule_high_gb) == (
        pytest.approx(14),
        pytest.approx(28),
    )
    rtx = _option(rec, "rtx4090-24g")
    assert (rtx.count, rtx.rule_of_thumb_count) == (1, 1)
    assert rtx.per_card_gb * 1.2 <= 24
    assert rec.recommended is not None
    assert (rec.recommended.gpu, rec.recommended.count) == ("rtx4090-24g", 1)
    # Qwen2.5-7B is really 7.62B params with a 152k vocabulary: at 2,048 tokens its exact
    # need (20.6 GB) fits 24 GB, but not with the 20% margin; at 1,024 tokens it does.
    qwen = _run(task="training", method="lora", model="Qwen2.5-7B")
    assert qwen.memory.total_gb < 24 < qwen.memory.with_margin_gb(1)
    qwen_1k = _run(task="training", method="lora", model="Qwen2.5-7B", context=1024)
    assert _option(qwen_1k, "rtx4090-24g").count == 1


def test_seed_000_table_70b_inference_on_two_h20_monthly_is_8928_cny() -> None:
    # Seed 000 §五: "70B模型推理服务 H20 96GB 2卡 ~¥8,928" = 2 x ¥6.20 x 720 h.
    h20 = _option(_run(params_b=70, precision="fp16"), "h20-96g")
    assert h20.mode == MONTHLY_PLAN
    assert h20.monthly_cny == pytest.approx(8928)


def test_seed_4090_breakeven_is_505_h_vs_hourly_and_630_h_vs_monthly_plan() -> None:
    be = breakeven(_price("rtx4090-24g"))
    assert be is not None
    assert be.bare_metal_cny_per_card_month == pytest.approx(990)
    assert be.hours_vs_hourly == pytest.approx(505, abs=1)
    assert be.hours_vs_monthly_plan == pytest.approx(630, abs=1)


def test_eight_4090s_flip_from_hourly_to_bare_metal_near_505_h() -> None:
    price = _price("rtx4090-24g")
    assert rent_modes(price, 8, 500)[0].mode == HOURLY
    assert rent_modes(price, 8, 510)[0].mode == BARE_METAL


def test_bare_metal_is_billed_by_whole_server() -> None:
    price = _price("rtx4090-24g")
    costs = {m.mode: m for m in rent_modes(price, 3, 100)}
    assert costs[BARE_METAL].monthly_cny == 7920
    assert (costs[BARE_METAL].servers, costs[BARE_METAL].cards_rented) == (1, 8)
    assert rent_modes(price, 9, 100)[-1].monthly_cny == 2 * 7920
    assert costs[HOURLY].monthly_cny == pytest.approx(1.96 * 3 * 100)
    assert costs[MONTHLY_PLAN].monthly_cny == pytest.approx(1.57 * 3 * 720)


def test_a_card_without_a_mode_price_lacks_that_mode() -> None:
    modes = {m.mode for m in rent_modes(_price("h20-96g"), 1, 100)}
    assert modes == {HOURLY, MONTHLY_PLAN}
    assert {m.mode for m in rent_modes(_price("h100-80g"), 1, 100)} == {BARE_METAL}


# --- tree behaviour ----------------------------------------------------------------


def test_options_are_cheapest_first_and_all_fit() -> None:
    rec = _run(model="Qwen2.5-32B-Instruct", precision="bf16", concurrency=8, context=8192)
    costs = [o.monthly_cny for o in rec.options]
    assert costs == sorted(costs)
    for o in rec.options:
        assert o.budget is not None and o.budget.fits
        assert o.per_card_gb <= o.budget.usable_gb
        assert o.headroom_gb > 0


def test_recommended_avoids_pcie_multi_card_when_an_nvlink_option_exists() -> None:
    rec = _run(params_b=70, precision="fp16")
    assert rec.recommended is not None
    assert not rec.recommended.pcie_multi_card


def test_domestic_filter_keeps_only_910b_and_adds_the_cann_note() -> None:
    rec = _run(model="Qwen2.5-14B", domestic=True)
    assert {o.gpu for o in rec.options} == {"910b-64g"}
    assert "h20-96g" in rec.excluded
    warnings = " ".join(rec.options[0].warnings)
    assert "torch_npu" in warnings and "2-5 person-days" in warnings
    assert "1-2 weeks" in warnings  # Qwen is on the adapted list (seed 002)


def test_companion_checks_flag_the_h20_listing_for_training() -> None:
    # Seed 003 §四: H20 comes with 128 GB RAM (< 1.5 x 96) and a 50 GB disk.
    rec = _run(task="training", method="lora", model="Qwen2.5-32B", dataset_gb=60)
    h20 = _option(rec, "h20-96g")
    assert not h20.companion.ram_listed_gb or h20.companion.ram_listed_gb < 144 * h20.count
    assert any("system RAM" in w for w in h20.warnings)
    assert any("data disk" in w for w in h20.warnings)


def test_decode_speed_and_token_cost_for_inference_only() -> None:
    rec = _run(model="Llama-3.1-8B", precision="fp16")
    rtx = _option(rec, "rtx4090-24g")
    assert rtx.speed is not None and rtx.speed.bound == "bandwidth"
    # 1008 GB/s x 0.6 / (16.06 GB weights + 0.54 GB KV) ~ 36 tokens/s
    assert rtx.speed.per_sequence_tps == pytest.approx(36.4, abs=0.5)
    assert rtx.cny_per_million_tokens == pytest.approx(
        rtx.monthly_cny / (rtx.speed.total_tps * 3600 * 720) * 1e6
    )
    h20 = _option(rec, "h20-96g")
    assert h20.speed is not None and h20.speed.per_sequence_tps > 3 * rtx.speed.per_sequence_tps
    training = _run(task="training", method="lora", model="Llama-3.1-8B")
    assert all(o.speed is None for o in training.options)


def test_moe_decode_reads_only_active_params() -> None:
    rec = _run(model="Qwen3-30B-A3B")
    h20 = _option(rec, "h20-96g")
    assert h20.speed is not None
    assert h20.speed.bytes_per_step_gb < rec.memory.weights_gb / 5


def test_over_budget_levers_are_recomputed() -> None:
    rec = _run(model="Llama-3.1-70B", precision="fp16", budget_cny=5000)
    assert rec.recommended is not None and rec.recommended.within_budget is False
    names = {lever.name for lever in rec.levers}
    assert {"int8", "fewer_hours"} <= names
    int8 = next(lever for lever in rec.levers if lever.name == "int8")
    assert int8.total_gb is not None and int8.total_gb < rec.memory.total_gb
    assert int8.monthly_cny is not None and int8.monthly_cny < rec.recommended.monthly_cny
    hours = next(lever for lever in rec.levers if lever.name == "fewer_hours")
    assert hours.monthly_cny == pytest.approx(5000)


def test_full_finetune_over_budget_offers_lora() -> None:
    rec = _run(task="training", method="full", params_b=7, hours_per_month=200, budget_cny=1500)
    lora = next(lever for lever in rec.levers if lever.name == "lora")
    assert lora.within_budget is True
    assert lora.saving_cny is not None and lora.saving_cny > 0


def test_within_budget_has_no_levers() -> None:
    rec = _run(params_b=7, budget_cny=100_000)
    assert rec.levers == ()
    assert "within budget" in rec.steps[4].reasoning


def test_nothing_fits_is_reported_not_raised() -> None:
    rec = _run(model="Qwen2.5-72B", domestic=True, context=1_000_000, concurrency=16)
    assert rec.recommended is None and rec.options == ()
    assert "No priced card fits" in rec.steps[2].reasoning
    assert render_text(rec)


def test_prices_keep_only_the_latest_snapshot_per_source() -> None:
    old, new = _price("rtx4090-24g"), _price("rtx4090-24g")
    old = CardPrice(old.gpu, old.source, old.observed_at.replace(year=2025), hourly_cny=0.5)
    rec = recommend(Workload("inference", params_b=7), DEFAULT_SPECS, [old, new])
    assert _option(rec, "rtx4090-24g").price.observed_at == new.observed_at


def test_one_option_per_card_from_the_cheapest_source() -> None:
    seed = _price("rtx4090-24g")
    sim = CardPrice(
        seed.gpu, "jygpu", seed.observed_at, hourly_cny=1.50, monthly_plan_cny_per_hour=1.20,
        bare_metal_cny_per_server_month=7000, simulated=True,
    )  # fmt: skip
    same = CardPrice(seed.gpu, "jygpu-sim-twin", seed.observed_at, 1.96, 1.57, 7920, simulated=True)
    rec = recommend(Workload("inference", params_b=7), DEFAULT_SPECS, [seed, sim, same])
    rtx = [o for o in rec.options if o.gpu == "rtx4090-24g"]
    assert len(rtx) == 1 and rtx[0].price.source == "jygpu" and rtx[0].price.simulated
    assert {q.source for q in rtx[0].other_sources} == {seed.source, "jygpu-sim-twin"}
    assert "Cheapest of 3 sources" in rtx[0].why
    assert rtx[0].to_dict()["other_sources"][0]["monthly_cny"] > rtx[0].monthly_cny
    assert any("SIMULATED" in w for w in rtx[0].warnings)
    # At equal cost the real price wins over the simulated twin.
    tie = recommend(Workload("inference", params_b=7), DEFAULT_SPECS, [same, seed])
    assert _option(tie, "rtx4090-24g").price.source == seed.source
    every = recommend(
        Workload("inference", params_b=7), DEFAULT_SPECS, [seed, sim, same], all_sources=True
    )
    assert len([o for o in every.options if o.gpu == "rtx4090-24g"]) == 3


@pytest.mark.parametrize(
    ("interconnect", "fast"),
    [
        ("NVLink 4.0 + NVSwitch", True),
        ("HCCS", True),
        ("PCIe 4.0 x16, no NVLink", False),  # how gpu_spec describes the 4090
        ("不支持 NVLink", False),  # how seed 002 prints it
        ("PCIe 5.0", False),
    ],
)
def test_a_negated_link_is_not_a_fast_interconnect(interconnect: str, fast: bool) -> None:
    assert CardSpec("x-1g", 1, 1, 1, interconnect, None, False).fast_interconnect is fast


def test_specs_may_be_a_plain_list() -> None:
    specs: list[CardSpec] = [DEFAULT_SPECS["rtx4090-24g"]]
    rec = recommend(Workload("inference", params_b=7), specs, seed_prices())
    assert [o.gpu for o in rec.options] == ["rtx4090-24g"]


# --- output ------------------------------------------------------------------------


def test_to_dict_shape_is_json_serialisable() -> None:
    rec = _run(model="Llama-3.1-8B", concurrency=4, budget_cny=500)
    data = json.loads(json.dumps(rec.to_dict(), ensure_ascii=False))
    for key in ("weights_gb", "kv_cache_gb", "overhead_gb", "total_gb", "rule_of_thumb_gb"):
        assert isinstance(data["memory"][key], float)
    assert [s["step"] for s in data["steps"]] == [1, 2, 3, 4, 5]
    assert all(s["title"] and s["reasoning"] for s in data["steps"])
    option = data["options"][0]
    for key in ("gpu", "count", "mode", "monthly_cny", "headroom_gb", "why", "warnings"):
        assert key in option
    assert option["price_date"] == "2026-09-04"
    assert option["tokens_per_s_per_sequence"] > 0
    assert data["budget"]["budget_cny"] == 500


def test_to_dict_training_has_optimizer_gradient_activation_parts() -> None:
    memory = _run(task="training", method="full", params_b=7).to_dict()["memory"]
    for key in ("gradients_gb", "optimizer_gb", "activations_gb"):
        assert memory[key] > 0
    assert memory["rule_of_thumb_low_gb"] == 112.0
    assert memory["rule_of_thumb_high_gb"] == 140.0


def test_render_text_walks_the_steps_with_units_and_dates() -> None:
    text = render_text(
        _run(params_b=7, precision="fp16", budget_cny=800, hours_per_month=300), verbose=True
    )
    for step in ("Step 1: Task", "Step 2: Memory", "Step 3", "Step 4: Rent mode", "Step 5"):
        assert step in text
    assert "16.8 GB" in text and "¥" in text and "2026-09-04" in text
    assert "h/month" in text and "tokens/s" in text


# --- purity ------------------------------------------------------------------------


def test_recommender_imports_nothing_else_from_the_project() -> None:
    package = Path(recommender.__file__).parent
    allowed = set(sys.stdlib_module_names) | {"recommender", "__future__"}
    for path in package.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                roots = [node.module.split(".")[0]]
            else:
                continue
            assert set(roots) <= allowed, f"{path.name} imports {roots}"
