"""Recommender page: a workload in, cards, count, rent mode and monthly cost out.

The same inputs as `gpuprice recommend`, the seeds' 5-step decision tree (recommender
package) at the warehouse's latest prices, with the seeds' published prices standing in
when the warehouse holds none yet. The answer comes first, as the CLI prints it: the pick,
the KV tokens it leaves, the usual estimate beside the exact count, the decode upper bound,
¥ per million tokens (best case), the serve command (vLLM or SGLang), the two runners-up
and, when a cheaper one is not the pick, why; the memory, every option, the budget and the
five steps are folded below it. The form speaks the user's words; where a figure comes from
(the seed articles) is said on hover. The figures keep their English names
(metric labels, as table columns do: they are the names the JSON export and the CLI use);
the prose follows the language switch (dashboard/i18n.py).
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
from dashboard.data import price_inputs, simulated_banner
from dashboard.i18n import labels, t
from dashboard.tables import show as show_table
from recommender import (
    ENGINES,
    GPU_MEMORY_UTILIZATION,
    INFERENCE_METHODS,
    KV_PRECISIONS,
    MARGIN,
    PRECISION_BYTES,
    PRESETS,
    TRAINING_METHODS,
    Option,
    Recommendation,
    RecommenderInputError,
    Workload,
    recommend,
)

# The choices that are not a model, a precision or a platform, by id; shown in the page's
# language by ``_say`` (dashboard.i18n.keep_choices carries a choice across the toggle).
CUSTOM, PASTE, HF_ID = "custom", "paste", "hf"
CHEAPEST = "cheapest"  # rec_source: the cheapest platform per card
DEFAULT = "default"  # rec_precision: the model's own
TASKS = ("inference", "training")
OBJECTIVES = ("monthly", "tokens")
_KEYS = {
    CUSTOM: "rec.model.custom",
    PASTE: "rec.model.paste",
    HF_ID: "rec.model.hf",
    CHEAPEST: "rec.source.default",
    DEFAULT: "rec.precision.default",
    **{task: f"rec.task.{task}" for task in TASKS},
    **{goal: f"rec.objective.{goal}" for goal in OBJECTIVES},
}


def _say(choice: Any) -> str:
    """A choice's label: its words when it is one of ours, else itself (a model's name)."""
    return t(_KEYS[choice]) if choice in _KEYS else str(choice)


LAYOUT = "layout"
REQUEST = "recommend_request"


def _forget_result() -> None:
    st.session_state.pop(REQUEST, None)


def _model_inputs(training: bool) -> dict[str, Any]:
    methods = TRAINING_METHODS if training else INFERENCE_METHODS
    return {
        "method": st.selectbox(
            t("rec.method"),
            methods,
            index=methods.index("lora") if training else 0,
            format_func=labels(methods, lambda m: t(f"rec.method.{m}")),
            key="rec_method",
        ),
        "model": st.selectbox(
            t("rec.model"),
            [*PRESETS, CUSTOM, PASTE, HF_ID],
            index=0,
            format_func=labels([*PRESETS, CUSTOM, PASTE, HF_ID], _say),
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
            format_func=labels([DEFAULT, *PRECISION_BYTES], _say),
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
        "objective": st.selectbox(
            t("rec.objective"),
            OBJECTIVES,
            format_func=labels(OBJECTIVES, _say),
            key="rec_objective",
            disabled=training,
            help=t("rec.objective.help"),
        ),
        "api": st.number_input(
            t("rec.api"),
            min_value=0.0,
            value=0.0,
            step=0.5,
            key="rec_api",
            disabled=training,
            help=t("rec.api.help"),
        ),
    }


def _market_inputs(training: bool, sources: list[str]) -> dict[str, Any]:
    return {
        "domestic": st.checkbox(t("rec.domestic"), key="rec_domestic"),
        "source": st.selectbox(
            t("rec.source"),
            [CHEAPEST, *sources],
            format_func=labels([CHEAPEST, *sources], _say),
            key="rec_source",
            help=t("rec.source.help"),
        ),
        "kv_precision": st.selectbox(t("rec.kv"), KV_PRECISIONS, key="rec_kv", disabled=training),
        "gpu_memory_utilization": st.number_input(
            t("rec.gpu_util"),
            min_value=0.5,
            max_value=1.0,
            value=GPU_MEMORY_UTILIZATION,
            step=0.01,
            key="rec_gpu_util",
            disabled=training,
            help=t("rec.gpu_util.help"),
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
            "kv_precision": None if training else kv_precision,
            "gpu_memory_utilization": float(chosen["gpu_memory_utilization"]),
            "context": int(chosen["context"]),
            "concurrency": int(chosen["concurrency"]),
            "hours_per_month": float(chosen["hours"]),
            "budget_cny": float(chosen["budget"]) if chosen["budget"] > 0 else None,
            "domestic": bool(chosen["domestic"]),
            "dataset_gb": float(chosen["dataset_gb"]),
            "lora_rank": int(chosen["lora_rank"]),
            "objective": "monthly" if training else chosen["objective"],
            "api_cny_per_million": float(chosen["api"])
            if chosen["api"] > 0 and not training
            else None,
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
    mem, training = rec.memory, rec.workload.is_training
    rule_col, exact_col = st.columns(2)
    with rule_col:
        st.markdown(t("rec.memory.rule"), help=t("rec.memory.rule.source"))
        if mem.rule_low_gb == mem.rule_high_gb:
            st.metric(t("rec.m.rule"), _gb(mem.rule_high_gb))
        else:
            st.metric(t("rec.m.rule_range"), f"{mem.rule_low_gb:,.1f} - {_gb(mem.rule_high_gb)}")
        if training:
            st.metric(t("rec.m.margin", margin=MARGIN), _gb(mem.rule_high_gb * (1 + MARGIN)))
        st.caption(_md(mem.rule_basis))
    with exact_col:
        st.markdown(t("rec.memory.exact"))
        a, b, c = st.columns(3)
        a.metric(t("rec.m.weights"), _gb(mem.weights_gb))
        if training:
            b.metric(t("rec.m.grads"), _gb(mem.gradients_gb + mem.optimizer_gb + mem.adapters_gb))
            c.metric(t("rec.m.activations"), _gb(mem.activations_gb + mem.runtime_gb))
        else:
            b.metric(t("rec.m.kv"), _gb(mem.kv_cache_gb + mem.state_gb))
            c.metric(t("rec.m.reserve"), _gb(mem.overhead_gb))
        d, e = st.columns(2)
        d.metric(t("rec.m.total"), _gb(mem.total_gb))
        if training:
            e.metric(t("rec.m.margin_one", margin=MARGIN), _gb(mem.total_gb * (1 + MARGIN)))
            st.caption(t("rec.memory.counts", margin=MARGIN))
        else:
            e.metric(t("rec.m.util"), f"{rec.workload.gpu_memory_utilization:g}")
            st.caption(t("rec.memory.budget", util=rec.workload.gpu_memory_utilization))


def show_steps(rec: Recommendation) -> None:
    st.subheader(t("rec.steps"))
    for step in rec.steps:
        label = t("rec.step", n=step.step, title=step.title)
        with st.expander(label, expanded=False):
            for line in step.reasoning.splitlines():
                bullet = line.startswith(("- ", "  "))
                st.markdown(("- " if bullet else "") + _md(line.lstrip(" -!") if bullet else line))


def _layout_label(o: Option) -> str:
    return o.layout.label if o.layout is not None else f"{o.count} card(s)"


def _options_frame(rec: Recommendation) -> pl.DataFrame:
    rows: list[dict[str, Any]] = []
    for rank, o in enumerate(rec.options, 1):
        rows.append(
            {
                "rank": rank,
                "recommended": "★" if o is rec.recommended else "",
                "card": o.gpu,
                "count_exact": o.count,
                "count_rule": o.rule_of_thumb_count,
                LAYOUT: None if o.layout is None else o.layout.label,
                "mode": o.chosen.label,
                "cny_per_month": round(o.monthly_cny, 2),
                "per_card_gb": round(o.per_card_gb, 1),
                "kv_tokens_fit": None if o.budget is None else o.budget.tokens_fit,
                "headroom_gb": round(o.headroom_gb, 1),
                "tokens_per_s_per_sequence": None
                if o.speed is None
                else round(o.speed.per_sequence_tps, 1),
                "cny_per_m_output_tokens": None
                if o.cny_per_million_tokens is None
                else round(o.cny_per_million_tokens, 2),
                "cny_per_m_output_tokens_best": None
                if o.tokens is None
                else round(o.tokens.full.cny_per_million, 2),
                "largest_batch_sequences": None if o.tokens is None else o.tokens.full.sequences,
                "within_budget": o.within_budget,
                "source": o.price.source,
                "price_date": o.price.date,
                "data": "SIMULATED" if o.price.simulated else "real",
                "warnings": len(o.warnings),
                "explanation": o.why,
            }
        )
    return pl.DataFrame(rows, infer_schema_length=None)


def show_options(rec: Recommendation) -> None:
    if not rec.options:
        st.info(t("rec.none"))
        return
    show_table(_options_frame(rec))


def _pick(rec: Recommendation, o: Option) -> None:
    w, mem = rec.workload, rec.memory
    st.success(
        t("rec.answer.pick", count=o.count, gpu=o.gpu, vram=o.spec.vram_gb,
          layout=_layout_label(o), mode=o.chosen.label, cost=o.monthly_cny, price=o.price.label)
    )  # fmt: skip
    lines = []
    if (b := o.budget) is not None:
        lines.append(t("rec.answer.kv", tokens=b.tokens_fit, seqs=b.sequences_fit,
                       context=w.context_tokens, kv=w.kv_label.split(" (")[0],
                       util=w.gpu_memory_utilization, cap=b.capacity_gb, weights=b.weights_gb,
                       reserve=b.reserve_gb, room=b.kv_room_gb))  # fmt: skip
    else:
        lines.append(t("rec.answer.training", per=o.per_card_gb, vram=o.spec.vram_gb))
    lines.append(t("rec.answer.rule", low=mem.rule_low_gb, high=mem.rule_high_gb,
                   rule=o.rule_of_thumb_count, count=o.count))  # fmt: skip
    if (sp := o.speed) is not None:
        lines.append(t("rec.answer.decode", tps=sp.per_sequence_tps, bound=sp.bound,
                       total=sp.total_tps, floor=sp.floor_ms))  # fmt: skip
    st.markdown("\n".join(f"- {_md(line)}" for line in lines))
    _per_token(rec, o)


def _per_token(rec: Recommendation, o: Option) -> None:
    """¥ per million tokens (best case), and the API comparison when one was asked for."""
    if (tc := o.tokens) is None:
        return
    sim = t("rec.answer.tokens.sim") if tc.simulated else ""
    st.markdown(
        "**" + _md(t("rec.answer.tokens", date=tc.price_date, sim=sim, one=tc.one.cny_per_million,
                     seqs=tc.full.sequences, full=tc.full.cny_per_million,
                     tps=tc.full.total_tps, prefill=tc.prefill_cny_per_million)) + "**",
        help=t("rec.answer.tokens.help"),
    )  # fmt: skip
    if (api := o.api_comparison(rec.workload.api_cny_per_million)) is not None:
        key = "rec.answer.api" if api.beats_api else "rec.answer.api.never"
        st.info(t(key, api=api.api_cny_per_million, even=api.breakeven_m_per_day,
                  cap=api.capacity_m_per_day))  # fmt: skip


def _why_not_cheaper(rec: Recommendation) -> None:
    pick, other = rec.recommended, rec.cheaper_skipped
    if pick is None or other is None:
        return
    values = {"count": other.count, "gpu": other.gpu, "cost": other.monthly_cny}
    if rec.workload.objective == "tokens" and pick.tokens and other.tokens:
        st.markdown(_md(t("rec.answer.why_tokens", **values, other=other.tokens.full.cny_per_million,
                          pick=pick.tokens.full.cny_per_million)))  # fmt: skip
        return
    st.markdown(
        _md(t("rec.answer.why_pcie", **values, layout=_layout_label(other))),
        help=t("rec.answer.why_pcie.source"),
    )


def _serve(o: Option) -> None:
    if not o.serve:
        return
    engine = st.radio(t("rec.answer.engine"), ENGINES, horizontal=True, key="rec_engine")
    line = o.serve[engine]
    st.markdown(f"**{t('rec.answer.serve')}**")
    st.code(line.command, language="bash")
    if line.note:
        st.caption(_md(line.note))


def show_answer(rec: Recommendation) -> None:
    """The CLI's short answer: pick, KV tokens, rule of thumb, decode bound, serve command,
    runners-up and the first warnings."""
    st.subheader(t("rec.answer.title"))
    best = rec.recommended
    if best is None:
        st.info(t("rec.none"))
    else:
        _pick(rec, best)
        _serve(best)
    if rec.runners_up:
        st.markdown(t("rec.answer.runners_up"))
        st.markdown("\n".join(
            "- " + _md(t("rec.answer.runner", count=o.count, gpu=o.gpu, layout=_layout_label(o),
                         mode=o.chosen.label, cost=o.monthly_cny, price=o.price.label,
                         tokens="—" if o.budget is None else f"{o.budget.tokens_fit:,}",
                         per_token=_runner_tokens(o)))
            for o in rec.runners_up
        ))  # fmt: skip
    _why_not_cheaper(rec)
    warnings = [w for w in (rec.workload.context_warning,) if w]
    warnings += list(best.warnings) if best is not None else []
    warnings += [t("rec.answer.not_offered", why=why) for _, why in rec.unsupported]
    for warning in warnings[:3]:
        st.warning(warning)
    st.caption(t("rec.answer.details"))


def _runner_tokens(o: Option) -> str:
    if o.tokens is None:
        return "—"
    return t("rec.answer.runner.tokens", cost=o.tokens.full.cny_per_million,
             seqs=o.tokens.full.sequences)  # fmt: skip


def _levers_frame(levers: tuple[Any, ...]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "lever": lever.change,
                "memory_gb": None if lever.total_gb is None else round(lever.total_gb, 1),
                "card": lever.gpu,
                "cards": lever.count,
                "mode": lever.mode,
                "cny_per_month": None if lever.monthly_cny is None else round(lever.monthly_cny, 2),
                "saving_cny": None if lever.saving_cny is None else round(lever.saving_cny, 2),
                "within_budget": lever.within_budget,
                "note": lever.note,
            }
            for lever in levers
        ],
        infer_schema_length=None,
    )


def show_budget(rec: Recommendation) -> None:
    st.markdown(_md(rec.steps[4].reasoning.splitlines()[0]))
    if rec.levers:
        st.markdown(t("rec.levers"), help=t("rec.levers.source"))
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
    show_answer(rec)
    with st.expander(t("rec.memory")):
        show_memory(rec)
    with st.expander(t("rec.answer.options", hours=rec.workload.hours_per_month)):
        show_options(rec)
    with st.expander(t("rec.budget_title")):
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
    available = price_inputs()
    if available is not None and not available.fallback:
        simulated_banner()  # the seeds' fallback prices are real: no demo banner for them
    st.caption(t("rec.caption"), help=t("rec.caption.source"))
    sources = available.sources if available is not None and not available.fallback else []
    task = st.radio(
        t("rec.task"),
        TASKS,
        format_func=labels(TASKS, _say),
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
