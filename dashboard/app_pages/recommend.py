"""Recommender page: a workload in, cards, count, rent mode and monthly cost out.

The same inputs as `gpuprice recommend`, the seeds' 5-step decision tree (recommender
package) at the warehouse's latest prices, with the seeds' published prices standing in
when the warehouse holds none yet.
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl
import streamlit as st

from configuration.recommender_feed import (
    PriceInputs,
    hub_architecture,
    parse_config_text,
    shows_simulated,
)
from dashboard.app_pages import recommend_text as text
from dashboard.data import price_inputs
from dashboard.tables import show as show_table
from recommender import (
    INFERENCE_METHODS,
    KV_PRECISIONS,
    MARGIN,
    PRECISION_BYTES,
    PRESETS,
    TRAINING_METHODS,
    Recommendation,
    RecommenderInputError,
    Workload,
    recommend,
)

CUSTOM = "custom (parameter count)"
DEFAULT = "default"
CHEAPEST = "cheapest source per card"
REQUEST = "recommend_request"
METHOD_HELP = {
    "online": "online serving",
    "offline": "offline batch",
    "full": "full fine-tune",
    "lora": "LoRA",
    "qlora": "QLoRA (4-bit base)",
    "pretrain": "pretraining",
}

st.title("选卡推荐 · GPU recommender")
st.caption(
    "The seeds' 5-step decision tree (seed 000 §四, seed 003 §五): task → memory → cards and "
    "count → rent mode → budget. GB = 10^9 bytes; money in CNY per month."
)

available = price_inputs()
sources = available.sources if available is not None and not available.fallback else []


def _forget_result() -> None:
    st.session_state.pop(REQUEST, None)


task = st.radio(
    "任务 / Task",
    ["inference", "training"],
    horizontal=True,
    key="rec_task",
    on_change=_forget_result,
)
training = task == "training"

with st.form("recommend_form"):
    left, middle, right = st.columns(3)
    with left:
        methods = TRAINING_METHODS if training else INFERENCE_METHODS
        method = st.selectbox(
            "方法 / Method",
            methods,
            index=methods.index("lora") if training else 0,
            format_func=lambda m: f"{m} · {METHOD_HELP[m]}",
            key="rec_method",
        )
        model = st.selectbox(
            "模型 / Model",
            [*PRESETS, CUSTOM, text.PASTE, text.HF_ID],
            index=0,
            key="rec_model",
            help="Presets carry their real architecture (config.json cited); custom sizes "
            "use a stated estimate; or paste a config.json, or give a Hugging Face id.",
        )
        config_text = st.text_area(
            text.CONFIG_LABEL, key="rec_config", height=120, help=text.CONFIG_HELP
        )
        hf_id = st.text_input(text.HF_LABEL, key="rec_hf_id", help=text.HF_HELP)
        params = st.number_input(
            "参数量 / Parameters (billions, for custom)",
            min_value=0.1,
            max_value=10_000.0,
            value=7.0,
            step=1.0,
            key="rec_params",
        )
        precision = st.selectbox(
            "精度 / Precision",
            [DEFAULT, *PRECISION_BYTES],
            key="rec_precision",
            help="default: bf16 (int4 for QLoRA). Full fine-tune takes bf16 / fp16 only.",
        )
    with middle:
        context = st.number_input(
            "上下文 / Context (tokens per sequence)",
            min_value=1,
            max_value=10_000_000,
            value=2048 if training else 4096,
            step=1024,
            key="rec_context",
        )
        concurrency = st.number_input(
            "micro-batch per card" if training else "并发 / Concurrent sequences",
            min_value=1,
            max_value=100_000,
            value=1,
            key="rec_concurrency",
        )
        hours = st.number_input(
            "每月使用 / Hours per month per card",
            min_value=1.0,
            max_value=744.0,
            value=720.0,
            step=10.0,
            key="rec_hours",
            help="720 = always on. Decides hourly vs monthly plan vs bare metal (seed 003 §六).",
        )
        budget = st.number_input(
            "预算 / Monthly budget, CNY (0 = none)",
            min_value=0.0,
            value=0.0,
            step=500.0,
            key="rec_budget",
        )
    with right:
        domestic = st.checkbox("信创 / Domestic cards only (Ascend)", key="rec_domestic")
        source = st.selectbox(
            "价格来源 / Price source",
            [CHEAPEST, *sources],
            key="rec_source",
            help="Default: per card, the source that is cheapest for this workload.",
        )
        kv_precision = st.selectbox(
            "KV cache dtype (inference)",
            [DEFAULT, *KV_PRECISIONS],
            key="rec_kv",
            disabled=training,
        )
        dataset_gb = st.number_input(
            "数据集 / Dataset, GB (disk check)", min_value=0.0, value=0.0, key="rec_dataset"
        )
        lora_rank = st.number_input(
            "LoRA rank",
            min_value=1,
            max_value=1024,
            value=32,
            key="rec_rank",
            disabled=not training,
        )
    submitted = st.form_submit_button("推荐 / Recommend", type="primary")

if submitted:
    st.session_state[REQUEST] = {
        "workload": {
            "task": task,
            "method": method,
            "model": None if model in (CUSTOM, text.PASTE, text.HF_ID) else model,
            "params_b": float(params) if model == CUSTOM else None,
            "precision": None if precision == DEFAULT else precision,
            "kv_precision": None if training or kv_precision == DEFAULT else kv_precision,
            "context": int(context),
            "concurrency": int(concurrency),
            "hours_per_month": float(hours),
            "budget_cny": float(budget) if budget > 0 else None,
            "domestic": bool(domestic),
            "dataset_gb": float(dataset_gb),
            "lora_rank": int(lora_rank),
        },
        "source": None if source == CHEAPEST else source,
        "model_from": {text.PASTE: "config", text.HF_ID: "hf"}.get(model),
        "config_text": config_text,
        "hf_id": hf_id.strip(),
    }


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#+!|~$])")


def _md(text: str) -> str:
    """Reasoning is plain text; escape what Markdown would read as markup."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def _gb(value: float) -> str:
    return f"{value:,.1f} GB"


def show_memory(rec: Recommendation) -> None:
    mem = rec.memory
    st.subheader("显存 / Memory, two ways")
    rule_col, exact_col = st.columns(2)
    with rule_col:
        st.markdown("**Seeds' rule of thumb**")
        if mem.rule_low_gb == mem.rule_high_gb:
            st.metric("rule of thumb", _gb(mem.rule_high_gb))
        else:
            st.metric(
                "rule of thumb (low - high)", f"{mem.rule_low_gb:,.1f} - {_gb(mem.rule_high_gb)}"
            )
        st.metric(f"+{MARGIN:.0%} margin", _gb(mem.rule_high_gb * (1 + MARGIN)))
        st.caption(_md(mem.rule_basis))
    with exact_col:
        st.markdown("**Exact model**")
        a, b, c = st.columns(3)
        a.metric("weights", _gb(mem.weights_gb))
        if rec.workload.is_training:
            b.metric(
                "grads + optimizer", _gb(mem.gradients_gb + mem.optimizer_gb + mem.adapters_gb)
            )
            c.metric("activations + runtime", _gb(mem.activations_gb + mem.runtime_gb))
        else:
            b.metric("KV cache", _gb(mem.kv_cache_gb))
            c.metric("overhead", _gb(mem.overhead_gb))
        d, e = st.columns(2)
        d.metric("total", _gb(mem.total_gb))
        e.metric(f"+{MARGIN:.0%} margin, one card", _gb(mem.total_gb * (1 + MARGIN)))
        st.caption(
            "seeds' card count = rule-of-thumb low end ÷ card VRAM, no margin; exact count = "
            f"total split across cards (runtime on each) + {MARGIN:.0%} margin."
        )


def show_steps(rec: Recommendation) -> None:
    st.subheader("决策树 / The five steps")
    for step in rec.steps:
        with st.expander(f"Step {step.step}: {step.title}", expanded=step.step in (2, 3)):
            for line in step.reasoning.splitlines():
                bullet = line.startswith(("- ", "  "))
                st.markdown(("- " if bullet else "") + _md(line.lstrip(" -!") if bullet else line))


def _options_frame(rec: Recommendation) -> pl.DataFrame:
    rows: list[dict[str, Any]] = []
    for rank, o in enumerate(rec.options, 1):
        rows.append(
            {
                "rank": rank,
                "recommended": "★" if o is rec.recommended else "",
                "card": o.gpu,
                "count (exact)": o.count,
                "count (seeds' rule)": o.rule_of_thumb_count,
                text.LAYOUT: None if o.layout is None else o.layout.label,
                "mode": o.chosen.label,
                "CNY / month": round(o.monthly_cny, 2),
                "per card GB": round(o.per_card_gb, 1),
                "headroom GB": round(o.headroom_gb, 1),
                "tokens/s per sequence": None
                if o.speed is None
                else round(o.speed.per_sequence_tps, 1),
                "CNY per M output tokens": None
                if o.cny_per_million_tokens is None
                else round(o.cny_per_million_tokens, 2),
                "within budget": o.within_budget,
                "source": o.price.source,
                "price date": o.price.date,
                "data": "SIMULATED" if o.price.simulated else "real",
                "warnings": len(o.warnings),
                "why": o.why,
            }
        )
    return pl.DataFrame(rows, infer_schema_length=None)


def show_options(rec: Recommendation) -> None:
    st.subheader(f"方案 / Options, cheapest first (at {rec.workload.hours_per_month:g} h/month)")
    if not rec.options:
        st.info(
            "没有合适的卡 / None of the priced cards fits this workload. The levers below show "
            "what would (lower precision, LoRA, shorter context, fewer sequences)."
        )
        return
    show_table(_options_frame(rec))
    best = rec.recommended
    if best is not None:
        st.success(
            f"推荐 / Recommended: {best.count} x {best.gpu}, {best.chosen.label}, "
            f"¥{best.monthly_cny:,.2f}/month ({best.price.label})"
        )
        for warning in best.warnings:
            st.warning(warning)


def _levers_frame(levers: tuple[Any, ...]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "lever": lever.change,
                "memory GB": None if lever.total_gb is None else round(lever.total_gb, 1),
                "card": lever.gpu,
                "count": lever.count,
                "mode": lever.mode,
                "CNY / month": None if lever.monthly_cny is None else round(lever.monthly_cny, 2),
                "saving CNY": None if lever.saving_cny is None else round(lever.saving_cny, 2),
                "within budget": lever.within_budget,
                "note": lever.note,
            }
            for lever in levers
        ],
        infer_schema_length=None,
    )


def show_budget(rec: Recommendation) -> None:
    st.subheader("预算 / Budget and levers")
    st.markdown(_md(rec.steps[4].reasoning.splitlines()[0]))
    if rec.levers:
        st.markdown("Levers (seed 000 §四 step 5, seed 003 §二), each recomputed through the tree:")
        show_table(_levers_frame(rec.levers))
    elif rec.workload.budget_cny is None:
        st.caption("Give a monthly budget to check it; levers appear when the cost is over it.")
    if rec.alternatives:
        st.markdown("Needs several cards; smaller footprints, recomputed:")
        show_table(_levers_frame(rec.alternatives))


def _model_from_request(request: dict[str, Any]) -> Any:
    """The preset name, or the Architecture of a pasted config.json / Hugging Face id."""
    kind = request.get("model_from")
    if kind == "config":
        if not request["config_text"].strip():
            raise RecommenderInputError(text.NO_CONFIG)
        return parse_config_text(request["config_text"])
    if kind == "hf":
        if not request["hf_id"]:
            raise RecommenderInputError(text.NO_HF_ID)
        return hub_architecture(request["hf_id"])
    return request["workload"]["model"]


def show(request: dict[str, Any]) -> None:
    try:
        model = _model_from_request(request)
        fields = dict(request["workload"])
        if model is not None:
            fields |= {"model": model, "params_b": None}
        workload = Workload(**fields)
    except RecommenderInputError as exc:
        st.error(f"输入有误 / Invalid input: {exc}")
        return
    inputs: PriceInputs | None = price_inputs(request["source"])
    if inputs is None:
        return
    rec = recommend(workload, inputs.specs, inputs.prices)
    if shows_simulated(rec):
        st.warning(
            "**模拟数据 SIMULATED** — options marked SIMULATED are priced by the bundled demo "
            "market, not real quotes."
        )
    if inputs.fallback:
        st.info(f"使用种子价格 / {inputs.note}")
    else:
        st.caption(inputs.note)
    arch = rec.memory.arch
    st.caption(
        _md(
            f"{arch.name}: {arch.params_b:.4g}B params ({arch.active_params_b:.4g}B active), "
            f"{arch.attention.upper()}, {rec.memory.kv_bytes_per_token:,.0f} B KV per token; "
            f"source: {arch.source}"
        )
    )
    show_memory(rec)
    show_options(rec)
    show_budget(rec)
    show_steps(rec)
    st.download_button(
        "JSON",
        data=_json(rec, inputs),
        file_name="recommendation.json",
        mime="application/json",
    )


def _json(rec: Recommendation, inputs: PriceInputs) -> str:
    import json

    return json.dumps(rec.to_dict() | {"prices": inputs.to_dict(rec)}, ensure_ascii=False, indent=2)


request = st.session_state.get(REQUEST)
if request is None:
    if available is not None and available.fallback:
        st.info(f"使用种子价格 / {available.note}")
    st.info(
        "填写上面的表单并点击推荐 / Describe the workload above and press **Recommend**: "
        "e.g. Llama-3.1-70B-Instruct, inference, fp16, 4,096 tokens, 8 sequences."
    )
else:
    show(request)
