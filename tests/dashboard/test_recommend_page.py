"""The recommender page through Streamlit's AppTest: form, results, fallback, SIMULATED."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.conftest import headers
from tests.support.handles import warehouse_at
from tests.support.seeded_warehouse import seed_demo_history

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
PAGE = "app_pages/recommend.py"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUPRICE_HOME", str(tmp_path))
    monkeypatch.setenv("GPUPRICE_PROFILE", "demo")
    monkeypatch.delenv("GPUPRICE_CONFIG", raising=False)
    return tmp_path


def open_page(*, english: bool = False) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=60)
    app.session_state["lang_en"] = english  # the sidebar toggle's key (dashboard.i18n)
    app.run()
    app.switch_page(PAGE).run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def submit(app: AppTest) -> AppTest:
    app.button[0].click().run()  # the form's only button: 推荐 (Recommend)
    assert not app.exception, [e.value for e in app.exception]
    return app


def texts(app: AppTest) -> str:
    parts = [
        m.value
        for m in (
            *app.markdown,
            *app.info,
            *app.warning,
            *app.success,
            *app.error,
            *app.caption,
            *app.title,
            *app.subheader,
        )
    ]
    return "\n".join(str(p) for p in parts)


def test_the_page_is_in_the_navigation_and_shows_the_form(home: Path) -> None:
    app = open_page()
    assert app.title[0].value == "用哪张卡、几张、怎么租？"
    assert [r.value for r in app.radio] == ["inference"]
    for key in ("rec_method", "rec_model", "rec_precision", "rec_source", "rec_kv"):
        assert app.selectbox(key=key) is not None
    for key in ("rec_params", "rec_context", "rec_concurrency", "rec_hours", "rec_budget"):
        assert app.number_input(key=key) is not None
    assert app.number_input(key="rec_gpu_util").value == 0.9  # vLLM's default
    assert app.selectbox(key="rec_kv").value == "auto"
    assert app.checkbox(key="rec_domestic").value is False
    assert app.button[0].label == "推荐"
    assert len(app.dataframe) == 0  # nothing computed before the form is sent


def test_empty_warehouse_says_it_uses_the_seed_prices_and_still_recommends(home: Path) -> None:
    app = open_page()
    before = texts(app)
    assert "Fallback" in before and "gpuprice run" in before and "**推荐**" in before
    submit(app)
    shown = texts(app)
    assert "Fallback" in shown and "seeds' published" in shown
    assert "SIMULATED" not in shown  # the seeds' prices are real
    options = app.dataframe[0].value
    assert len(options) > 0 and set(options["data"]) == {"real"}
    assert {"card", "count_exact", "count_rule", "mode", "cny_per_month"} <= set(options.columns)
    # the headers in the page's language (they were English on the Chinese page)
    assert headers(app.dataframe[0])[:5] == [
        "排名",
        "推荐",
        "显卡",
        "卡数（精确）",
        "卡数（种子经验法则）",
    ]
    # The answer first; the memory, every option, the budget and the steps folded below.
    assert [e.label for e in app.expander] == [
        "显存：两种算法",
        "全部方案，最便宜在前（每月 720 小时）",
        "预算与调整项",
        "第 1 步：Task",
        "第 2 步：Memory",
        "第 3 步：Cards and count",
        "第 4 步：Rent mode",
        "第 5 步：Budget",
    ]


def test_70b_fp16_shows_memory_both_ways_and_both_card_counts(home: Path) -> None:
    app = open_page()
    app.selectbox(key="rec_model").set_value("custom")
    app.number_input(key="rec_params").set_value(70.0)
    app.selectbox(key="rec_precision").set_value("fp16")
    submit(app)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["经验法则（低 - 高）"] == "140.0 - 168.0 GB"
    assert metrics["权重"] == "140.0 GB"
    assert {"KV 缓存", "每卡预留", "合计", "显存利用率（vLLM `gpu-memory-utilization`）"} <= set(
        metrics
    )
    assert "+20% 余量，单卡" not in metrics  # serving is sized by the engine's budget
    options = app.dataframe[0].value.set_index("card")
    assert options.loc["h20-96g", "count_exact"] == 2
    assert options.loc["h20-96g", "count_rule"] == 2
    # vLLM's 0.9 x 80 GiB per card holds 70 GB of weights and the KV: two H100, as the seed.
    assert options.loc["h100-80g", "count_exact"] == 2
    assert options.loc["h100-80g", "layout"] == "TP 2 × PP 1 × DP 1, 1 node"
    assert options.loc["h100-80g", "count_rule"] == 2
    assert options.loc["h100-80g", "kv_tokens_fit"] == 31_361
    assert "seed 000" in texts(app)


def test_over_budget_shows_the_levers(home: Path) -> None:
    app = open_page()
    app.selectbox(key="rec_model").set_value("Llama-3.1-70B-Instruct")
    app.selectbox(key="rec_precision").set_value("fp16")
    app.number_input(key="rec_budget").set_value(3000.0)
    submit(app)
    assert "over budget" in texts(app) or "> budget" in texts(app)
    levers = app.dataframe[1].value
    assert "FP16 -> INT8 weights" in set(levers["lever"])


def test_invalid_combination_shows_an_error_not_an_exception(home: Path) -> None:
    app = open_page()
    app.radio[0].set_value("training").run()
    app.selectbox(key="rec_method").set_value("full")
    app.selectbox(key="rec_precision").set_value("int8")
    submit(app)
    assert app.error and "allowed" in app.error[0].value
    assert len(app.dataframe) == 0


def test_simulated_prices_get_the_banner(home: Path) -> None:
    seed_demo_history(warehouse_at(home / "gpuprice.duckdb"), date(2026, 9, 10), days=2)
    app = open_page()
    assert "Fallback" not in texts(app)
    app.selectbox(key="rec_source").set_value("jygpu")
    submit(app)
    shown = texts(app)
    # Every price here is the demo market's: SIMULATED, and never called live.
    assert "SIMULATED demo-market prices from jygpu (not live)" in shown
    assert "live prices" not in shown.lower().replace("(not live)", "")
    options = app.dataframe[0].value
    assert set(options["data"]) == {"SIMULATED"} and set(options["source"]) == {"jygpu"}
    assert set(options["price_date"]) == {"2026-09-10"}


def test_nothing_fits_is_a_helpful_empty_state(home: Path) -> None:
    app = open_page()
    app.selectbox(key="rec_model").set_value("Qwen2.5-72B-Instruct")
    app.checkbox(key="rec_domestic").check()
    app.number_input(key="rec_context").set_value(1_000_000)
    app.number_input(key="rec_concurrency").set_value(16)
    submit(app)
    assert "没有合适的卡" in texts(app)


def test_the_page_follows_the_language_switch(home: Path) -> None:
    app = open_page()
    assert app.title[0].value == "用哪张卡、几张、怎么租？"
    assert app.radio(key="rec_task").label == "任务"
    assert app.selectbox(key="rec_model").label == "模型"
    assert app.number_input(key="rec_hours").label == "每卡每月使用小时"
    assert app.button[0].label == "推荐"
    assert any("填写上面的表单" in i.value for i in app.info)
    app.selectbox(key="rec_model").set_value("custom")
    app.number_input(key="rec_params").set_value(70.0)
    submit(app)
    assert "决策树：五个步骤" in texts(app)
    assert app.expander[0].label == "显存：两种算法"

    app.toggle(key="lang_en").set_value(True).run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.title[0].value == "Which card, how many, rented how?"
    assert app.radio(key="rec_task").label == "Task"
    assert app.selectbox(key="rec_model").label == "Model"
    assert app.selectbox(key="rec_source").label == "Price source"
    assert app.number_input(key="rec_hours").label == "Hours per month per card"
    assert app.checkbox(key="rec_domestic").label == "Domestic cards only (Ascend)"
    assert app.button[0].label == "Recommend"
    # The result computed in Chinese is still shown, now in English; the choice survives.
    assert app.selectbox(key="rec_model").value == "custom"
    shown = texts(app)
    assert "The answer" in shown and "The five steps" in shown
    assert "显存" not in shown and "决策树" not in shown and "推荐：" not in shown
    labels = [e.label for e in app.expander]
    assert labels[:3] == ["Memory, two ways", "Every option, cheapest first (at 720 h/month)",
                          "Budget and levers"]  # fmt: skip
    assert labels[3] == "Step 1: Task"

    app.toggle(key="lang_en").set_value(False).run()
    assert app.title[0].value == "用哪张卡、几张、怎么租？" and "回答" in texts(app)
    assert app.expander[0].label == "显存：两种算法"


def test_english_empty_states_and_errors(home: Path) -> None:
    app = open_page(english=True)
    assert any(i.value.startswith("Describe the workload above") for i in app.info)
    app.selectbox(key="rec_model").set_value("paste")
    submit(app)
    assert app.error[0].value == "Invalid input: Paste the model's config.json first."
    app.selectbox(key="rec_model").set_value("Qwen2.5-72B-Instruct")
    app.checkbox(key="rec_domestic").check()
    app.number_input(key="rec_context").set_value(1_000_000)
    app.number_input(key="rec_concurrency").set_value(16)
    submit(app)
    assert "None of the priced cards fits" in texts(app)


REAL_CONFIGS = Path(__file__).resolve().parents[2] / "recommender" / "configs"


def test_a_pasted_config_json_is_sized_from_its_architecture(home: Path) -> None:
    # Qwen3-8B's real config.json (recommender/configs/README.md cites it): 8,190,735,360
    # params counted from it, 36 layers x 8 KV heads x 128 x 2 x 2 B = 147,456 B KV/token.
    app = open_page()
    app.selectbox(key="rec_model").set_value("paste")
    app.text_area(key="rec_config").input((REAL_CONFIGS / "Qwen--Qwen3-8B.json").read_text())
    app.selectbox(key="rec_precision").set_value("bf16")
    submit(app)
    shown = texts(app)
    assert "8.191B params" in shown and "147,456 B KV per token" in shown and "GQA" in shown
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["权重"] == "16.4 GB"  # 8.190735 x 2
    assert "layout" in app.dataframe[0].value.columns


def test_a_broken_pasted_config_is_an_error_not_an_exception(home: Path) -> None:
    app = open_page()
    app.selectbox(key="rec_model").set_value("paste")
    app.text_area(key="rec_config").input('{"hidden_size": 4096,')
    submit(app)
    assert app.error and "not valid JSON" in app.error[0].value
    assert len(app.dataframe) == 0


def test_a_hugging_face_id_is_read_from_the_local_cache(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "hf"
    snapshot = cache / "models--Qwen--Qwen3-8B" / "snapshots" / ("a" * 40)
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text((REAL_CONFIGS / "Qwen--Qwen3-8B.json").read_text())
    (cache / "models--Qwen--Qwen3-8B" / "refs").mkdir()
    (cache / "models--Qwen--Qwen3-8B" / "refs" / "main").write_text("a" * 40)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    app = open_page()
    app.selectbox(key="rec_model").set_value("hf")
    app.text_input(key="rec_hf_id").input("Qwen/Qwen3-8B")
    submit(app)
    assert "Qwen/Qwen3-8B: 8.191B params" in texts(app)
    app.text_input(key="rec_hf_id").input("Qwen/Not-Cached")
    submit(app)
    assert app.error and "HF_HUB_OFFLINE" in app.error[0].value


def test_the_answer_shows_the_pick_kv_tokens_and_serve_line_in_both_languages(home: Path) -> None:
    app = open_page()
    app.selectbox(key="rec_model").set_value("Qwen3-32B")
    app.number_input(key="rec_context").set_value(8192)
    submit(app)
    assert app.success[0].value.startswith("推荐：1 × h20-96g（96 GB），TP 1 × PP 1 × DP 1, 1 node")
    shown = texts(app)
    assert "KV：每个副本容纳" in shown and "常用估算" in shown and "解码：每条序列 ≤" in shown
    assert "备选：" in shown
    # ¥ per million tokens, labelled a best-case estimate with the price's date, for the pick
    # (at one sequence and at the 11 the KV holds) and each runner-up.
    assert "每 token 成本（最理想情况的估算，2026-09-04 的价格）：1 条序列 ¥48.56/百万" in shown
    assert "11 条序列 ¥5.82/百万" in shown and "¥10.65/百万输出 token（8 条序列）" in shown
    vllm = (
        "vllm serve Qwen/Qwen3-32B --tensor-parallel-size 1 --pipeline-parallel-size 1 "
        "--max-model-len 8192 --gpu-memory-utilization 0.9"
    )
    assert app.code[0].value == vllm
    app.radio(key="rec_engine").set_value("sglang").run()
    assert app.code[0].value.startswith(
        "python -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp-size 1"
    )
    app.toggle(key="lang_en").set_value(True).run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.success[0].value.startswith("Pick: 1 x h20-96g (96 GB), TP 1 × PP 1 × DP 1")
    shown = texts(app)
    assert "KV: " in shown and "tokens fit per replica" in shown and "Runners-up:" in shown
    assert "upper bound from bandwidth" in shown
    assert "Per token (best-case estimate, price of 2026-09-04): ¥48.56/M output tokens" in shown
    assert app.code[0].value.startswith("python -m sglang.launch_server")


def test_the_form_speaks_the_users_words_and_cites_on_hover(home: Path) -> None:
    app = open_page()
    caption = app.caption[0]
    assert caption.value.startswith("说明要跑的模型、上下文长度和并发")
    assert "种子" not in caption.value and "§" not in caption.value
    # the citation is there, on hover, named by the article's own heading, not only its
    # number ("种子 000 §四" meant nothing to a user)
    assert "「GPU选卡决策树：5步精准选型」" in caption.help and "种子文章 000 §四" in caption.help
    english = open_page(english=True)
    assert "seed" not in english.caption[0].value
    assert '"the GPU decision tree: 5 steps"' in english.caption[0].help


def test_per_token_objective_and_api_comparison(home: Path) -> None:
    app = open_page(english=True)
    app.selectbox(key="rec_model").set_value("Llama-3.1-70B-Instruct")
    app.number_input(key="rec_context").set_value(8192)
    app.number_input(key="rec_concurrency").set_value(4)
    submit(app)
    shown = texts(app)
    # 8 x RTX 4090 is cheaper a month than the pick (2 x H20) but splits the model over PCIe.
    assert "Why not the cheaper 8 x rtx4090-24g (¥7,920.00/month): it splits the model" in shown
    app.selectbox(key="rec_objective").set_value("tokens")
    app.number_input(key="rec_api").set_value(2.0)
    submit(app)
    shown = texts(app)
    # Per token the pick is the option with the lowest ¥/M at its largest batch, no longer
    # the 2 x H20 of the monthly bill.
    options = app.dataframe[0].value
    per_token = "cny_per_m_output_tokens_best"
    best = options.loc[options[per_token].idxmin()]
    assert best["recommended"] == "★" and best["card"] != "h20-96g"
    assert app.success[0].value.startswith(f"Pick: {best['count_exact']} x {best['card']}")
    assert "self-hosting would need" in shown or "self-hosting is cheaper above" in shown


def test_a_lower_gpu_memory_utilization_shrinks_the_kv_budget(home: Path) -> None:
    app = open_page(english=True)
    app.selectbox(key="rec_model").set_value("Qwen3-32B")
    app.number_input(key="rec_gpu_util").set_value(0.8)
    submit(app)
    assert "--gpu-memory-utilization 0.8" in app.code[0].value
    assert "0.8 x" in texts(app)
