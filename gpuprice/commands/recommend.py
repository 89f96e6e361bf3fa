"""`gpuprice recommend`: the decision-tree recommender at the warehouse's latest prices."""

from __future__ import annotations

import json
import re
import sys
from typing import Annotated, NoReturn

import typer
from rich.markup import escape

from gpuprice.cli_common import ConfigOption, err, settings_or_exit

TASKS_HELP = "inference or training."
METHODS_HELP = (
    "Training: full, lora, qlora or pretrain (required for training). "
    "Inference: online (default) or offline."
)
PRECISIONS_HELP = (
    "Weight precision: bf16, fp16, fp32, fp8, int8, int4 (AWQ/GPTQ, group scales counted) or "
    "mxfp4. Default: the model's own quantization_config (e.g. FP8 for DeepSeek-V3, MXFP4 "
    "for gpt-oss), else bf16; int4 for qlora; full fine-tune takes bf16/fp16 only. A card "
    "that cannot run the format is not offered (recommender/README.md: support matrix)."
)
KV_HELP = (
    "Inference KV-cache dtype: auto (default, as vLLM: BF16, or the KV dtype the checkpoint "
    "declares), bf16, fp16, fp8 or int8."
)
UTILIZATION_HELP = (
    "Share of each card's memory the engine may use, as vLLM's --gpu-memory-utilization "
    "(SGLang: --mem-fraction-static)."
)
MODEL_HELP = (
    "A preset (e.g. Qwen2.5-72B-Instruct, DeepSeek-V3, Qwen3-235B-A22B, Kimi-K2-Instruct), "
    "a config.json, a directory holding one, or a Hugging Face id (read from the local "
    "Hugging Face cache; fetched with huggingface_hub when online)."
)


def recommend(
    task: Annotated[str, typer.Option("--task", help=TASKS_HELP, show_default=False)],
    method: Annotated[str | None, typer.Option(help=METHODS_HELP)] = None,
    model: Annotated[str | None, typer.Option(help=MODEL_HELP)] = None,
    params: Annotated[
        float | None,
        typer.Option(help="Custom model size in billions of parameters (instead of --model)."),
    ] = None,
    precision: Annotated[str | None, typer.Option(help=PRECISIONS_HELP)] = None,
    kv_precision: Annotated[str, typer.Option(help=KV_HELP)] = "auto",
    gpu_memory_utilization: Annotated[float, typer.Option(help=UTILIZATION_HELP)] = 0.9,
    context: Annotated[
        int | None,
        typer.Option(
            help="Tokens of context per sequence (default 4,096 inference, 2,048 training)."
        ),
    ] = None,
    concurrency: Annotated[
        int,
        typer.Option(help="Concurrent sequences (inference) or micro-batch per card (training)."),
    ] = 1,
    hours: Annotated[
        float, typer.Option(help="Usage hours per month per card (720 = always on).")
    ] = 720.0,
    budget: Annotated[
        float | None, typer.Option(help="Monthly budget in CNY; over it, levers are shown.")
    ] = None,
    domestic: Annotated[
        bool, typer.Option("--domestic", help="信创: domestic (Ascend) cards only.")
    ] = False,
    dataset_gb: Annotated[
        float, typer.Option(help="Dataset size in GB, for the data-disk check.")
    ] = 0.0,
    lora_rank: Annotated[int, typer.Option(help="LoRA / QLoRA adapter rank.")] = 32,
    zero_stage: Annotated[
        int,
        typer.Option(
            help="Training on several cards: ZeRO stage 0-3 (1 shards optimizer state, "
            "2 + gradients, 3 + weights)."
        ),
    ] = 3,
    source: Annotated[
        str | None,
        typer.Option(help="Price only from this warehouse source (default: cheapest per card)."),
    ] = None,
    objective: Annotated[
        str,
        typer.Option(
            help="Inference: pick the cheapest month (monthly) or the lowest ¥ per million "
            "output tokens at the batch each layout serves (tokens; a best-case estimate)."
        ),
    ] = "monthly",
    compare_api: Annotated[
        float | None,
        typer.Option(
            "--compare-api",
            metavar="PRICE",
            help="An API's ¥ per million output tokens: say from what daily volume "
            "self-hosting the pick is cheaper.",
        ),
    ] = None,
    engine: Annotated[
        str, typer.Option(help="Serve command for vllm (default) or sglang.")
    ] = "vllm",
    strict: Annotated[
        bool,
        typer.Option(
            "--strict", help="A --context beyond the model's max_position_embeddings is an error."
        ),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", help="Print the five steps' full reasoning too.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
    config: ConfigOption = None,
) -> None:
    """Size a workload (memory two ways), pick cards and count, rent mode and monthly cost.

    Walks the seeds' 5-step decision tree at the warehouse's latest prices (falls back to
    the seeds' published prices when there is no warehouse yet). About ten lines: the pick,
    the KV tokens it leaves, ¥ per million tokens (best case), the serve command, two
    runners-up. GB = 10^9 bytes; CNY.
    """
    from configuration.recommender_feed import resolve_model
    from recommender import ENGINES, RecommenderInputError, Workload, recommend, render_text

    if engine.strip().lower() not in ENGINES:
        _invalid(f"--engine {engine!r} not allowed; allowed: {', '.join(ENGINES)}")
    try:
        workload = Workload(
            task,
            method=method,
            model=None if model is None else resolve_model(model),
            params_b=params,
            precision=precision,
            kv_precision=kv_precision,
            context=context,
            concurrency=concurrency,
            hours_per_month=hours,
            budget_cny=budget,
            domestic=domestic,
            dataset_gb=dataset_gb,
            lora_rank=lora_rank,
            zero_stage=zero_stage,
            gpu_memory_utilization=gpu_memory_utilization,
            strict=strict,
            objective=objective,
            api_cny_per_million=compare_api,
        )
    except RecommenderInputError as exc:
        _invalid(_as_options(str(exc)))

    from configuration.recommender_feed import (
        UnknownSource,
        WarehouseSettingError,
        load_price_inputs,
        shows_simulated,
        warehouse_from_environment,
    )

    # The file does not place the warehouse: it is loaded (and validated) only when named.
    try:
        warehouse = settings_or_exit(config).warehouse if config else warehouse_from_environment()
    except WarehouseSettingError as exc:
        err.print(f"[red]{escape(str(exc))}[/red]")
        raise typer.Exit(2) from None
    try:
        inputs = load_price_inputs(warehouse, source)
    except UnknownSource as exc:
        _invalid(str(exc))
    except RuntimeError as exc:
        # WarehouseBusy, imported only when it happens: duckdb is slow to import, and with
        # no warehouse file the command never needs it.
        from warehouse.store.db import WarehouseBusy

        if not isinstance(exc, WarehouseBusy):
            raise
        err.print(f"[red]{escape(str(exc))}[/red]")
        raise typer.Exit(1) from None

    rec = recommend(workload, inputs.specs, inputs.prices)
    if inputs.fallback and (as_json or not sys.stdout.isatty()):
        # The text answer's first line says it; a reader of JSON or of a piped answer sees
        # it on the terminal too.
        err.print(f"[yellow]{escape(inputs.note)}[/yellow]", soft_wrap=True)
    if as_json:
        data = rec.to_dict() | {"prices": inputs.to_dict(rec)}
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return
    header = [f"Prices: {inputs.note}"]
    if shows_simulated(rec):
        header.insert(
            0,
            "SIMULATED: options marked SIMULATED are priced by the demo market, not real quotes.",
        )
    text = render_text(rec, verbose=verbose, engine=engine.strip().lower())
    sys.stdout.write("\n".join(header) + "\n" + text)


# The recommender names fields as in Python; the CLI user typed options.
_OPTION_NAMES = {
    "params_b": "--params",
    "hours_per_month": "--hours",
    "budget_cny": "--budget",
    "kv_precision": "--kv-precision",
    "gpu_memory_utilization": "--gpu-memory-utilization",
    "dataset_gb": "--dataset-gb",
    "lora_rank": "--lora-rank",
    "zero_stage": "--zero-stage",
    "api_cny_per_million": "--compare-api",
    "objective": "--objective",
    "model (a preset name)": "--model (a preset name)",
    "method='qlora'": "--method qlora",
}


def _as_options(message: str) -> str:
    for name, option in _OPTION_NAMES.items():
        message = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w])", option, message)
    return message


def _invalid(message: str) -> NoReturn:
    # One line: a config's own error may quote several lines of it.
    message = " ".join(message.split())
    err.print(f"[red]invalid input: {escape(message)}[/red]", soft_wrap=True)
    raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    app.command("recommend")(recommend)
