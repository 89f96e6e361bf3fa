"""`gpuprice recommend` as a user runs it: exit codes, JSON shape, live prices, fallback."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gpuprice.cli import app
from tests.support.handles import warehouse_at
from tests.support.sim_offers import offer
from warehouse.ingest.insert import insert_rows
from warehouse.ingest.reference import load_reference
from warehouse.store.db import write_connection
from warehouse.store.handle import Warehouse

runner = CliRunner()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUPRICE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GPUPRICE_CONFIG", raising=False)
    monkeypatch.delenv("GPUPRICE_PROFILE", raising=False)
    return tmp_path / "home"


# The demo market a month after the seeds: the 4090 got cheaper, H20 dearer.
DEMO_ROWS = [
    offer("rtx4090-24g", "hourly", "1.50"),
    offer("rtx4090-24g", "monthly", "1.20"),
    offer("rtx4090-24g", "bare_metal_monthly", "1.25"),  # ¥7,200 per 8-card server-month
    offer("h20-96g", "hourly", "8.10"),
    offer("h20-96g", "monthly", "6.90"),
]


@pytest.fixture
def warehouse(home: Path) -> Warehouse:
    path = home / "gpuprice.duckdb"
    with write_connection(warehouse_at(path)) as con:
        load_reference(con)
        insert_rows(con, DEMO_ROWS, page=None, run_id=None)
    return warehouse_at(path)


def run(*args: str) -> Any:
    return runner.invoke(app, ["recommend", *args])


def run_json(*args: str) -> dict[str, Any]:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def option(data: dict[str, Any], gpu: str) -> dict[str, Any]:
    return next(o for o in data["options"] if o["gpu"] == gpu)


# --- invalid input: a clear message on stderr, exit code 2 -------------------------


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["--task", "inference", "--params", "0"], "--params must be a finite number > 0"),
        (["--task", "inference", "--params=-7"], "--params must be a finite number > 0"),
        (["--task", "inference", "--params", "nan"], "--params must be a finite number"),
        (["--task", "inference", "--model", "GPT-5"], "allowed: Qwen2.5-7B-Instruct"),
        (["--task", "inference", "--params", "7", "--context", "0"], "context must be"),
        (["--task", "inference", "--params", "7", "--precision", "fp64"], "allowed: bf16, fp16"),
        (["--task", "inference", "--params", "7", "--kv-precision", "fp4"], "allowed: auto, bf16"),
        (
            ["--task", "inference", "--params", "7", "--gpu-memory-utilization", "1.5"],
            "--gpu-memory-utilization must be",
        ),
        (["--task", "inference", "--params", "7", "--engine", "tgi"], "allowed: vllm, sglang"),
        (
            ["--task", "inference", "--model", "Qwen3-8B", "--context", "50000", "--strict"],
            "max_position_embeddings 40,960",
        ),
        (["--task", "inference"], "give exactly one of --model"),
        (["--task", "serving", "--params", "7"], "allowed: inference, training"),
        (["--task", "training", "--params", "7"], "allowed: full, lora, qlora"),
        (
            ["--task", "training", "--method", "lora", "--params", "7", "--precision", "int4"],
            "--method qlora",
        ),
        (["--task", "inference", "--params", "7", "--hours", "800"], "--hours must be"),
        (["--task", "inference", "--params", "7", "--budget", "0"], "--budget must be"),
    ],
)
def test_invalid_inputs_exit_2_with_a_clear_message(home: Path, args: list[str], hint: str) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert "invalid input" in result.stderr
    assert hint in " ".join(result.stderr.split()), result.stderr


def test_a_non_number_is_a_usage_error_with_exit_2(home: Path) -> None:
    result = run("--task", "inference", "--params", "seven")
    assert result.exit_code == 2
    assert "--params" in result.stderr


_BAD_ARGS = st.one_of(
    st.floats(max_value=0, allow_nan=False).map(lambda v: [f"--params={v!r}"]),
    st.integers(max_value=0).map(lambda v: ["--params=7", f"--context={v}"]),
    st.integers(max_value=0).map(lambda v: ["--params=7", f"--concurrency={v}"]),
    st.text(st.characters(codec="utf-8", categories=["L", "N", "P"]), max_size=8)
    .filter(lambda s: s.strip().lower() not in {"fp16", "bf16", "fp8", "int8", "int4"})
    .map(lambda v: ["--params=7", f"--precision={v}"]),
    st.text(st.characters(codec="utf-8", categories=["L", "N", "P"]), min_size=1, max_size=12)
    .filter(lambda s: not s.lower().startswith(("qwen", "llama", "glm", "deepseek", "mixtral")))
    .map(lambda v: [f"--model={v}"]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_BAD_ARGS)
@example(["--model=0/¹"])  # not a Hub id: huggingface_hub's own validation error, once a traceback
def test_property_invalid_inputs_always_exit_2(args: list[str]) -> None:
    # Validation happens before any price is read, so no warehouse is needed here; offline,
    # so an id-shaped name is looked up in the cache only (no network here).
    with mock.patch.dict(os.environ, {"HF_HUB_OFFLINE": "1"}):
        result = run("--task", "inference", *args)
    assert result.exit_code == 2, (args, result.output)
    assert result.stderr.strip()


# --- fallback: no warehouse -> the seeds' published prices, and it says so ---------


def test_without_a_warehouse_the_seed_prices_are_used_and_labelled(home: Path) -> None:
    data = run_json("--task", "inference", "--params", "7", "--precision", "fp16")
    prices = data["prices"]
    assert prices["origin"] == "seed_fallback" and prices["fallback"] is True
    assert "no warehouse" in prices["note"] and "gpuprice run" in prices["note"]
    assert prices["simulated"] is False and prices["price_dates"] == ["2026-09-04"]
    assert option(data, "rtx4090-24g")["price_source"].startswith("jygpu.com published")

    text = run("--task", "inference", "--params", "7")
    assert text.exit_code == 0
    assert "Fallback" in text.stdout and "seeds' published" in text.stdout
    assert "Fallback" in text.stderr  # also when stdout is piped somewhere
    assert "SIMULATED" not in text.stdout


def test_an_empty_warehouse_falls_back_too(home: Path) -> None:
    with write_connection(warehouse_at(home / "gpuprice.duckdb")):
        pass  # migrated, no rows
    data = run_json("--task", "inference", "--params", "7")
    assert data["prices"]["origin"] == "seed_fallback"
    assert "holds no prices" in data["prices"]["note"]


def test_source_without_a_warehouse_is_refused(home: Path) -> None:
    result = run("--task", "inference", "--params", "7", "--source", "jygpu")
    assert result.exit_code == 2
    assert "leave out --source" in " ".join(result.stderr.split())


# --- live prices from the warehouse ------------------------------------------------


def test_live_prices_come_from_the_warehouse_cheapest_source_per_card(warehouse: Warehouse) -> None:
    data = run_json("--task", "inference", "--params", "7", "--precision", "fp16")
    assert data["prices"]["origin"] == "warehouse"
    assert set(data["prices"]["sources"]) == {"jygpu", "jygpu-published"}
    assert data["prices"]["specs_from"] == "gpu_spec"
    rtx = option(data, "rtx4090-24g")
    # Simulated 4090 at ¥1.20/h monthly plan beats the seeds' ¥1.57: 1.20 x 720 h.
    assert (rtx["price_source"], rtx["simulated"]) == ("jygpu", True)
    assert (rtx["mode"], rtx["monthly_cny"]) == ("monthly_plan", pytest.approx(864.0))
    assert rtx["price_date"] == "2026-10-01"
    assert [q["source"] for q in rtx["other_sources"]] == ["jygpu-published"]
    # Simulated H20 is dearer than the published one, so the real price wins there.
    h20 = option(data, "h20-96g")
    assert (h20["price_source"], h20["simulated"]) == ("jygpu-published", False)
    assert h20["monthly_cny"] == pytest.approx(6.20 * 720)
    assert data["prices"]["simulated"] is True
    # Bare metal from the warehouse: ¥1.25/card-h x 8 cards x 720 h = ¥7,200 per server.
    assert rtx["breakeven_hours_vs_hourly"] == pytest.approx(7200 / 8 / 1.50, abs=0.1)
    # The container's 16 cores / 64 GB / 200 GB per card reach the companion check.
    assert rtx["companion"]["cpu_cores_listed"] == 16
    assert rtx["companion"]["disk_listed_gb"] == 200


def test_text_output_labels_simulated_prices_and_dates(warehouse: Warehouse) -> None:
    result = run("--task", "inference", "--params", "7", "--hours", "200", "--budget", "500")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("SIMULATED")
    # Real prices (jygpu-published) and SIMULATED ones (jygpu) are each called what they are;
    # neither is called live.
    prices_line = next(line for line in out.splitlines() if line.startswith("Prices:"))
    assert "real prices from jygpu-published;" in prices_line and "2026-10-01" in out
    assert "live prices" not in prices_line.lower()
    assert "SIMULATED demo-market prices from jygpu (not live)" in prices_line
    assert "GB" in out and "¥" in out and "h/month" in out
    assert "jygpu, 2026-10-01 SIMULATED" in out
    assert "Step 1: Task" not in out  # the reasoning is --verbose
    assert result.stderr == ""
    verbose = run("--task", "inference", "--params", "7", "--hours", "200", "--verbose")
    for step in ("Step 1: Task", "Step 2: Memory", "Step 3: Cards and count", "Step 4", "Step 5"):
        assert step in verbose.stdout


def test_default_answer_is_short_with_the_serve_line(home: Path) -> None:
    result = run("--task", "inference", "--model", "Qwen3-32B", "--context", "8192")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) <= 25, result.stdout
    assert max(len(line) for line in lines) < 400
    serve = next(line for line in lines if line.startswith("Serve: "))
    assert serve == (
        "Serve: vllm serve Qwen/Qwen3-32B --tensor-parallel-size 1 --pipeline-parallel-size 1 "
        "--max-model-len 8192 --gpu-memory-utilization 0.9"
    )
    assert any(line.startswith("Pick: 1 x h20-96g") for line in lines)
    assert any(line.startswith("KV: ") and "tokens fit" in line for line in lines)
    assert any(line.startswith("Decode: ≤ ") and "upper bound" in line for line in lines)
    assert "Runners-up:" in lines
    sglang = run(
        "--task", "inference", "--model", "Qwen3-32B", "--context", "8192", "--engine", "sglang"
    )
    assert (
        "Serve: python -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp-size 1 "
        "--context-length 8192 --mem-fraction-static 0.9"
    ) in sglang.stdout


def test_context_beyond_the_models_positions_warns_or_refuses_with_strict(home: Path) -> None:
    # Qwen3-8B's config says max_position_embeddings 40,960.
    warned = run("--task", "inference", "--model", "Qwen3-8B", "--context", "50000")
    assert warned.exit_code == 0, warned.output
    assert (
        "! context 50,000 tokens is longer than Qwen3-8B's max_position_embeddings 40,960"
        in warned.stdout
    )
    data = run_json("--task", "inference", "--model", "Qwen3-8B", "--context", "50000")
    assert any("max_position_embeddings 40,960" in w for w in data["warnings"])


def test_source_option_limits_prices_to_one_source(warehouse: Warehouse) -> None:
    data = run_json("--task", "inference", "--params", "7", "--source", "jygpu-published")
    assert {o["price_source"] for o in data["options"]} == {"jygpu-published"}
    assert data["prices"]["simulated"] is False
    only_demo = run_json("--task", "inference", "--params", "7", "--source", "jygpu")
    assert {o["gpu"] for o in only_demo["options"]} == {"rtx4090-24g", "h20-96g"}
    assert all(o["simulated"] for o in only_demo["options"])

    unknown = run("--task", "inference", "--params", "7", "--source", "nope")
    assert unknown.exit_code == 2
    assert "allowed: jygpu, jygpu-published" in unknown.stderr


# --- JSON shape --------------------------------------------------------------------


def test_json_has_memory_steps_and_ranked_options(home: Path) -> None:
    data = run_json(
        "--task", "inference", "--model", "Llama-3.1-8B", "--concurrency", "4", "--budget", "500"
    )  # fmt: skip
    memory = data["memory"]
    for key in ("weights_gb", "kv_cache_gb", "overhead_gb", "total_gb", "rule_of_thumb_gb"):
        assert isinstance(memory[key], float), key
    assert [s["step"] for s in data["steps"]] == [1, 2, 3, 4, 5]
    assert all(s["title"] and s["reasoning"] for s in data["steps"])
    assert data["options"], "something fits an 8B model"
    costs = [o["monthly_cny"] for o in data["options"]]
    assert costs == sorted(costs)
    for o in data["options"]:
        for key in ("gpu", "count", "mode", "monthly_cny", "headroom_gb", "why"):
            assert o[key] is not None, key
        assert o["headroom_gb"] > 0
        assert {"rule_of_thumb_count", "exact_count", "count_basis"} <= set(o)
    assert data["budget"]["budget_cny"] == 500


def test_training_json_has_the_training_parts(home: Path) -> None:
    data = run_json("--task", "training", "--method", "full", "--params", "7")
    for key in ("gradients_gb", "optimizer_gb", "activations_gb", "checkpoint_gb"):
        assert data["memory"][key] > 0


# --- the acceptance items through the CLI ------------------------------------


def test_acceptance_7b_fp16_inference_is_16_8_gb_on_one_4090(home: Path) -> None:
    data = run_json("--task", "inference", "--params", "7", "--precision", "fp16")
    assert data["memory"]["rule_of_thumb_gb"] == pytest.approx(16.8)
    assert (data["recommended"]["gpu"], data["recommended"]["count"]) == ("rtx4090-24g", 1)


def test_acceptance_7b_full_finetune_is_112_to_140_gb_not_one_4090(home: Path) -> None:
    data = run_json("--task", "training", "--method", "full", "--params", "7")
    memory = data["memory"]
    assert (memory["rule_of_thumb_low_gb"], memory["rule_of_thumb_high_gb"]) == (112.0, 140.0)
    assert option(data, "rtx4090-24g")["count"] > 1
    assert any(a["name"] == "lora" and a["count"] == 1 for a in data["alternatives"])


def test_acceptance_70b_fp16_two_h20_or_two_h100_by_the_seed_rule(home: Path) -> None:
    data = run_json("--task", "inference", "--params", "70", "--precision", "fp16")
    assert data["memory"]["weights_gb"] == pytest.approx(140)
    h20, h100 = option(data, "h20-96g"), option(data, "h100-80g")
    assert (h20["rule_of_thumb_count"], h100["rule_of_thumb_count"]) == (2, 2)
    # vLLM's budget (0.9 x 80 GiB per card) holds 70 GB of weights per card and the KV.
    assert (h20["exact_count"], h100["exact_count"]) == (2, 2)
    assert h100["layout"]["label"] == "TP 2 × PP 1 × DP 1, 1 node"
    assert h100["engine_budget"]["usable_gb"] == pytest.approx(77.309, abs=1e-3)
    assert "no margin" in h100["count_basis"]
    int8 = run_json("--task", "inference", "--params", "70", "--precision", "int8")
    assert option(int8, "h20-96g")["count"] == 1


def test_acceptance_4090_breakeven_near_505_hours(home: Path) -> None:
    data = run_json("--task", "inference", "--params", "7", "--precision", "fp16")
    rtx = option(data, "rtx4090-24g")
    assert rtx["breakeven_hours_vs_hourly"] == pytest.approx(505, abs=1)
    assert rtx["breakeven_hours_vs_monthly_plan"] == pytest.approx(630, abs=1)


def test_acceptance_llama31_8b_kv_is_131072_bytes_per_token_fp16(home: Path) -> None:
    data = run_json("--task", "inference", "--model", "Llama-3.1-8B", "--precision", "fp16")
    assert data["memory"]["kv_bytes_per_token"] == 131_072
    assert data["model"]["layers"] == 32 and data["model"]["kv_heads"] == 8
