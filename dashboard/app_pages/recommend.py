"""Recommender page: a workload in, cards, count, rent mode and monthly cost out.

The same inputs as `gpuprice recommend`, the seeds' 5-step decision tree (recommender
package) at the warehouse's latest prices, with the seeds' published prices standing in
when the warehouse holds none yet. The figures keep their English names (metric labels, as
table columns do: they are the names the JSON export and the CLI use); the prose follows the
language switch (dashboard/i18n.py).
"""

from __future__ import annotations

import json
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
from dashboard.data import price_inputs
from dashboard.i18n import both, t
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

# Choice labels stay the same in both languages (i18n.both): Streamlit keeps a choice by
# its label, so one that changed with the language would drop the user's choice.
CUSTOM = both("rec.model.custom")
PASTE = both("rec.model.paste")
HF_ID = both("rec.model.hf")
CHEAPEST = both("rec.source.default")
DEFAULT = "default"
LAYOUT = "layout"
REQUEST = "recommend_request"
METHOD_HELP = {
    "online": "online serving",
    "offline": "offline batch",
    "full": "full fine-tune",
    "lora": "LoRA",
    "qlora": "QLoRA (4-bit base)",
    "pretrain": "pretraining",
}


def _forget_result() -> None:
    st.session_state.pop(REQUEST, None)


def _model_inputs(training: bool) -> dict[str, Any]:
    methods = TRAINING_METHODS if training else INFERENCE_METHODS
    return {
        "method": st.selectbox(
            t("rec.method"),
            methods,
            index=methods.index("lora") if training else 0,
            format_func=lambda m: f"{m} · {METHOD_HELP[m]}",
            key="rec_method",
        ),
        "model": st.selectbox(
            t("rec.model"),
            [*PRESETS, CUSTOM, PASTE, HF_ID],
            index=0,
            key="rec_model",
            help=t("rec.model.help"),
        ),
        "config_text": st.text_area(
            t("rec.config"), key="rec_config", height=120, help=t("rec.config.help")
        ),
        "hf_id": st.text_input(t("rec.hf"), key="rec_hf_id", help=t("rec.hf.help")),
        "params": st.number_input(
            t("rec.params"),
            min_value=0.1,
            max_value=10_000.0,
            value=7.0,
            step=1.0,
            key="rec_params",
        ),
        "precision": st.selectbox(
            t("rec.precision"),
            [DEFAULT, *PRECISION_BYTES],
            key="rec_precision",
            help=t("rec.precision.help"),
        ),
    }


def _usage_inputs(training: bool) -> dict[str, Any]:
    return {
        "context": st.number_input(
            t("rec.context"),
            min_value=1,
            max_value=10_000_000,
            value=2048 if training else 4096,
            step=1024,
            key="rec_context",
        ),
        "concurrency": st.number_input(
            t("rec.batch") if training else t("rec.concurrency"),
            min_value=1,
            max_value=100_000,
            value=1,
            key="rec_concurrency",
        ),
        "hours": st.number_input(
            t("rec.hours"),
            min_value=1.0,
            max_value=744.0,
            value=720.0,
            step=10.0,
            key="rec_hours",
            help=t("rec.hours.help"),
        ),
        "budget": st.number_input(
            t("rec.budget"), min_value=0.0, value=0.0, step=500.0, key="rec_budget"
        ),
    }


def _market_inputs(training: bool, sources: list[str]) -> dict[str, Any]:
    return {
        "domestic": st.checkbox(t("rec.domestic"), key="rec_domestic"),
        "source": st.selectbox(
            t("rec.source"),
            [CHEAPEST, *sources],
            key="rec_source",
            help=t("rec.source.help"),
        ),
        "kv_precision": st.selectbox(
            t("rec.kv"), [DEFAULT, *KV_PRECISIONS], key="rec_kv", disabled=training
        ),
        "dataset_gb": st.number_input(
            t("rec.dataset"), min_value=0.0, value=0.0, key="rec_dataset"
        ),
        "lora_rank": st.number_input(
            t("rec.rank"),
            min_value=1,
            max_value=1024,
            value=32,
            key="rec_rank",
            disabled=not training,
        ),
    }


def form(task: str, sources: list[str]) -> dict[str, Any] | None:
    """The workload form; the request to compute when it was just sent, else None."""
    training = task == "training"
    with st.form("recommend_form"):
        left, middle, right = st.columns(3)
        with left:
            chosen = _model_inputs(training)
        with middle:
            chosen |= _usage_inputs(training)
        with right:
            chosen |= _market_inputs(training, sources)
        submitted = st.form_submit_button(t("rec.submit"), type="primary")
    return request_of(task, chosen) if submitted else None


def request_of(task: str, chosen: dict[str, Any]) -> dict[str, Any]:
    """What the form asked for, kept in the session so the result outlives a rerun."""
    training, model = task == "training", chosen["model"]
    kv_precision = chosen["kv_precision"]
    return {
        "workload": {
            "task": task,
            "method": chosen["method"],
            "model": None if model in (CUSTOM, PASTE, HF_ID) else model,
            "params_b": float(chosen["params"]) if model == CUSTOM else None,
            "precision": None if chosen["precision"] == DEFAULT else chosen["precision"],
            "kv_precision": None if training or kv_precision == DEFAULT else kv_precision,
            "context": int(chosen["context"]),
            "concurrency": int(chosen["concurrency"]),
            "hours_per_month": float(chosen["hours"]),
            "budget_cny": float(chosen["budget"]) if chosen["budget"] > 0 else None,
            "domestic": bool(chosen["domestic"]),
            "dataset_gb": float(chosen["dataset_gb"]),
            "lora_rank": int(chosen["lora_rank"]),
        },
        "source": None if chosen["source"] == CHEAPEST else chosen["source"],
        "model_from": {PASTE: "config", HF_ID: "hf"}.get(model),
        "config_text": chosen["config_text"],
        "hf_id": chosen["hf_id"].strip(),
    }


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#+!|~$])")


def _md(text: str) -> str:
    """Reasoning is plain text; escape what Markdown would read as markup."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def _gb(value: float) -> str:
    return f"{value:,.1f} GB"


def show_memory(rec: Recommendation) -> None:
    mem = rec.memory
    st.subheader(t("rec.memory"))
    rule_col, exact_col = st.columns(2)
    with rule_col:
        st.markdown(t("rec.memory.rule"))
        if mem.rule_low_gb == mem.rule_high_gb:
            st.metric("rule of thumb", _gb(mem.rule_high_gb))
        else:
            st.metric(
                "rule of thumb (low - high)", f"{mem.rule_low_gb:,.1f} - {_gb(mem.rule_high_gb)}"
            )
        st.metric(f"+{MARGIN:.0%} margin", _gb(mem.rule_high_gb * (1 + MARGIN)))
        st.caption(_md(mem.rule_basis))
    with exact_col:
        st.markdown(t("rec.memory.exact"))
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
        st.caption(t("rec.memory.counts", margin=MARGIN))


def show_steps(rec: Recommendation) -> None:
    st.subheader(t("rec.steps"))
    for step in rec.steps:
        label = t("rec.step", n=step.step, title=step.title)
        with st.expander(label, expanded=step.step in (2, 3)):
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
                LAYOUT: None if o.layout is None else o.layout.label,
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
    st.subheader(t("rec.options", hours=rec.workload.hours_per_month))
    if not rec.options:
        st.info(t("rec.none"))
        return
    show_table(_options_frame(rec))
    best = rec.recommended
    if best is not None:
        st.success(
            t(
                "rec.recommended",
                count=best.count,
                gpu=best.gpu,
                mode=best.chosen.label,
                cost=best.monthly_cny,
                price=best.price.label,
            )
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
    st.subheader(t("rec.budget_title"))
    st.markdown(_md(rec.steps[4].reasoning.splitlines()[0]))
    if rec.levers:
        st.markdown(t("rec.levers"))
        show_table(_levers_frame(rec.levers))
    elif rec.workload.budget_cny is None:
        st.caption(t("rec.no_budget"))
    if rec.alternatives:
        st.markdown(t("rec.alternatives"))
        show_table(_levers_frame(rec.alternatives))


def _model_from_request(request: dict[str, Any]) -> Any:
    """The preset name, or the Architecture of a pasted config.json / Hugging Face id."""
    kind = request.get("model_from")
    if kind == "config":
        if not request["config_text"].strip():
            raise RecommenderInputError(t("rec.no_config"))
        return parse_config_text(request["config_text"])
    if kind == "hf":
        if not request["hf_id"]:
            raise RecommenderInputError(t("rec.no_hf_id"))
        return hub_architecture(request["hf_id"])
    return request["workload"]["model"]


def _workload(request: dict[str, Any]) -> Workload | None:
    """The request's workload, or None after saying what is wrong with it."""
    try:
        model = _model_from_request(request)
        fields = dict(request["workload"])
        if model is not None:
            fields |= {"model": model, "params_b": None}
        return Workload(**fields)
    except RecommenderInputError as exc:
        st.error(t("rec.invalid", error=exc))
        return None


def _price_note(inputs: PriceInputs) -> None:
    if inputs.fallback:
        st.info(t("rec.seed_prices", note=inputs.note))
    else:
        st.caption(inputs.note)


def show(request: dict[str, Any]) -> None:
    workload = _workload(request)
    if workload is None:
        return
    inputs: PriceInputs | None = price_inputs(request["source"])
    if inputs is None:
        return
    rec = recommend(workload, inputs.specs, inputs.prices)
    if shows_simulated(rec):
        st.warning(t("rec.simulated"))
    _price_note(inputs)
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
    return json.dumps(rec.to_dict() | {"prices": inputs.to_dict(rec)}, ensure_ascii=False, indent=2)


def main() -> None:
    st.title(t("rec.title"))
    st.caption(t("rec.caption"))
    available = price_inputs()
    sources = available.sources if available is not None and not available.fallback else []
    task = st.radio(
        t("rec.task"),
        ["inference", "training"],
        horizontal=True,
        key="rec_task",
        on_change=_forget_result,
    )
    sent = form(task, sources)
    if sent is not None:
        st.session_state[REQUEST] = sent
    request = st.session_state.get(REQUEST)
    if request is not None:
        show(request)
        return
    if available is not None and available.fallback:
        st.info(t("rec.seed_prices", note=available.note))
    st.info(t("rec.prompt"))


main()
