"""The recommender's inputs: latest prices and GPU specs from the warehouse, and the model.

`resolve_model` turns `--model` into what `recommender.Workload` takes: a preset name as
it is, or an Architecture read from a config.json (a file, a directory holding one, or a
Hugging Face id found in the local Hugging Face cache, fetched with huggingface_hub when
online). The recommender itself reads no files.

warehouse (SQL, rows as dicts) -> this module (CardPrice / CardSpec) -> recommender (pure).
The warehouse layer does not know the recommender; the recommender does no I/O. When
there is no warehouse yet, or it holds no prices, the seeds' published prices and the
built-in specs stand in, and `PriceInputs.note` says so.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from recommender import (
    DEFAULT_SPECS,
    Architecture,
    CardPrice,
    CardSpec,
    Recommendation,
    RecommenderInputError,
    architecture_from_config,
    find_preset,
    get_preset,
    seed_prices,
)

if TYPE_CHECKING:  # DuckDB and the warehouse readers load only when there are prices
    from warehouse.store.handle import Warehouse

CONFIG_FILE = "config.json"
INDEX_FILE = "model.safetensors.index.json"
# ModelOpt (0.29 and before) states the quantisation beside config.json; vLLM reads it when
# config.json has no quantization_config (vllm/transformers_utils/config.py).
QUANT_FILE = "hf_quant_config.json"
# owner/name as the Hub spells repository ids
_HF_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_TRUE = ("1", "true", "yes", "on")

WAREHOUSE = "warehouse"
SEED_FALLBACK = "seed_fallback"


class UnknownSource(ValueError):
    """`--source` names a source the warehouse has no prices for; the message lists them."""


@dataclass(frozen=True)
class PriceInputs:
    """Specs and prices to pass to `recommender.recommend`, and where they came from."""

    specs: list[CardSpec]
    prices: list[CardPrice]
    origin: str  # WAREHOUSE or SEED_FALLBACK
    note: str  # one sentence for the user: which prices, from where, as of when
    sources: list[str] = field(default_factory=list)
    specs_from: str = "gpu_spec"

    @property
    def simulated(self) -> bool:
        return any(p.simulated for p in self.prices)

    @property
    def fallback(self) -> bool:
        return self.origin == SEED_FALLBACK

    def to_dict(self, rec: Recommendation | None = None) -> dict[str, Any]:
        """JSON for the `prices` block; with `rec`, `simulated` is about the options shown."""
        return {
            "origin": self.origin,
            "fallback": self.fallback,
            "note": self.note,
            "sources": self.sources,
            "simulated": self.simulated if rec is None else shows_simulated(rec),
            "inputs_simulated": self.simulated,
            "price_dates": sorted({p.date for p in self.prices}),
            "specs_from": self.specs_from,
        }


def shows_simulated(rec: Recommendation) -> bool:
    """Whether any option in the recommendation is priced by the SIMULATED demo market."""
    return any(o.price.simulated for o in rec.options)


HOME_ENV = "GPUPRICE_HOME"
DEFAULT_HOME = Path("var")  # configuration.environment.EnvSettings.home's default


class WarehouseSettingError(ValueError):
    """The environment names the warehouse wrongly; the message says what to set."""


def warehouse_from_environment(environ: Mapping[str, str] | None = None) -> Warehouse:
    """The warehouse `gpuprice recommend` reads, from the two things that place it: the
    home (GPUPRICE_HOME, matched without regard to case as pydantic-settings matches it)
    and how it opens (warehouse.store.environment). The TOML file does not place the
    warehouse, so the command does not load and validate the whole configuration for it:
    pydantic-settings, the schema and every scraper adapter cost about half a second at
    start-up (issue 39). tests/recommender check that this agrees with load_settings()."""
    from warehouse.store.environment import WarehouseEnvironmentError, warehouse_config
    from warehouse.store.handle import Warehouse

    env = os.environ if environ is None else environ
    home_text = next((v for k, v in env.items() if k.upper() == HOME_ENV), None)
    home = DEFAULT_HOME if home_text is None else Path(home_text)
    home = home if home.is_absolute() else Path(os.getcwd()) / home
    try:
        return Warehouse(home / "gpuprice.duckdb", warehouse_config(env))
    except WarehouseEnvironmentError as exc:
        raise WarehouseSettingError(str(exc)) from None


def load_price_inputs(warehouse: Warehouse, source: str | None = None) -> PriceInputs:
    """Latest prices per card, mode and source, and the specs, from the warehouse.

    Falls back to the seeds' published prices only when the warehouse is missing or has
    no prices (and then `source` must be None). Raises `UnknownSource` for a `source`
    the warehouse does not list, and lets `WarehouseBusy` through.
    """
    if warehouse.lake is None and not warehouse.path.exists():
        # Said before DuckDB and Polars are imported: a first `gpuprice recommend` on a
        # machine with no warehouse answers without paying for them.
        return _fallback(f"no warehouse at {warehouse.path} yet", source)
    from warehouse.read.recommender import gpu_specs, latest_card_prices, price_sources
    from warehouse.store.db import WarehouseMissing

    try:
        rows = latest_card_prices(warehouse, source)
    except WarehouseMissing:
        return _fallback(f"no warehouse at {warehouse.path} yet", source)
    if not rows:
        if source is not None:
            known = [row["source"] for row in price_sources(warehouse)]
            if known:
                raise UnknownSource(
                    f"no prices from source {source!r} in the warehouse; allowed: "
                    + ", ".join(known)
                )
        return _fallback(f"the warehouse at {warehouse.path} holds no prices yet", source)

    specs = specs_from_rows(gpu_specs(warehouse))
    specs_from = "gpu_spec"
    if not specs:
        specs, specs_from = list(DEFAULT_SPECS.values()), "built-in (gpu_spec is empty)"
    prices = prices_from_rows(rows)
    sources = sorted({p.source for p in prices})
    note = warehouse_note(prices)
    return PriceInputs(specs, prices, WAREHOUSE, note, sources, specs_from)


def warehouse_note(prices: list[CardPrice]) -> str:
    """Where the warehouse's prices come from, in one sentence. A demo market's prices are
    called SIMULATED, never live; the others real (a published snapshot or an imported
    capture is real without being live, so "live" is not claimed for them either)."""
    sources = sorted({p.source for p in prices})
    dates = sorted({p.date for p in prices})
    real = sorted({p.source for p in prices if not p.simulated})
    simulated = sorted({p.source for p in prices if p.simulated})
    parts = []
    if real:
        parts.append(f"real prices from {', '.join(real)}")
    if simulated:
        parts.append(f"SIMULATED demo-market prices from {', '.join(simulated)} (not live)")
    return (
        f"Warehouse: {'; '.join(parts)} (latest per card and mode, observed {_span(dates)} UTC)"
        + ("; per card the cheapest source for this workload is shown" if len(sources) > 1 else "")
        + "."
    )


def _fallback(why: str, source: str | None) -> PriceInputs:
    if source is not None:
        raise UnknownSource(
            f"{why}, so there is no source {source!r} to read; run `gpuprice run` first, "
            "or leave out --source to use the seeds' published prices"
        )
    prices = seed_prices()
    note = (
        f"Fallback: {why}, so these are the seeds' published jygpu.com prices of "
        f"{prices[0].date} (real but a fixed snapshot, not live) and built-in GPU specs. "
        "Run `gpuprice run` (or `make up`) for live prices."
    )
    return PriceInputs(
        list(DEFAULT_SPECS.values()),
        prices,
        SEED_FALLBACK,
        note,
        sorted({p.source for p in prices}),
        "built-in",
    )


def _span(dates: list[str]) -> str:
    return dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"


def specs_from_rows(rows: list[dict[str, Any]]) -> list[CardSpec]:
    """gpu_spec rows as CardSpec. FP8 support is gpu_spec.fp8: read from the row when
    the warehouse read returns it, else from the shipped gpu_spec.csv the table is
    loaded from (same rows, same column)."""
    return [
        CardSpec(
            gpu=row["gpu"],
            vram_gb=float(row["vram_gb"]),
            bandwidth_gbs=float(row["bandwidth_gbs"]),
            fp16_tflops_dense=float(row["fp16_tflops_dense"]),
            interconnect=row["interconnect"] or "",
            link_gbs=None if row["link_gbs"] is None else float(row["link_gbs"]),
            domestic=bool(row["domestic"]),
            fp8=_fp8(row),
        )
        for row in rows
    ]


def _fp8(row: dict[str, Any]) -> bool | None:
    if row.get("fp8") is not None:
        return bool(row["fp8"])
    return shipped_fp8().get(row["gpu"])


@cache
def shipped_fp8() -> dict[str, bool]:
    from warehouse.ingest.reference import gpu_specs as shipped_gpu_specs

    return {spec["gpu"]: spec["fp8"] == "True" for spec in shipped_gpu_specs()}


# --- the model: preset, config.json, directory or Hugging Face id --------------------


def resolve_model(text: str) -> str | Architecture:
    """A preset name as given, or the Architecture its config.json describes.

    Raises RecommenderInputError with one line saying what to do for a missing file,
    broken JSON, a partial config, or a Hugging Face id that is not cached while offline.
    """
    text = text.strip()
    if find_preset(text) is not None:
        return text
    try:
        path = Path(text).expanduser()
        is_dir, is_file = path.is_dir(), path.is_file()
    except (OSError, RuntimeError, ValueError) as exc:  # a name too long for a path, ~nosuchuser
        raise RecommenderInputError(
            f"--model {text[:80]}: not a usable path ({exc}); give a config.json path, a "
            "directory holding one, a preset or a Hugging Face id"
        ) from None
    if is_dir:
        config = path / CONFIG_FILE
        if not config.is_file():
            raise RecommenderInputError(
                f"directory {path} holds no {CONFIG_FILE}; give the model's directory (with "
                "config.json), the config.json itself, a preset or a Hugging Face id"
            )
        return config_architecture(config)
    if is_file:
        return config_architecture(path)
    if text.endswith(".json") or text.startswith((".", "/", "~")) or os.sep + os.sep in text:
        raise RecommenderInputError(
            f"--model {text}: no such file or directory; give a config.json path, a directory "
            "holding one, a preset or a Hugging Face id"
        )
    if _HF_ID.match(text):
        return hub_architecture(text)
    get_preset(text)  # raises: names the presets and the other forms --model takes
    return text


def config_architecture(config: Path, name: str | None = None) -> Architecture:
    """Read config.json (and model.safetensors.index.json and hf_quant_config.json beside
    it, when there)."""
    data = _read_json(config)
    index_path, quant_path = config.with_name(INDEX_FILE), config.with_name(QUANT_FILE)
    return architecture_from_config(
        data,
        name=name or config.parent.name or config.stem,
        source=str(config),
        index=_read_json(index_path) if index_path.is_file() else None,
        repo_id=str(config.parent),
        quant_file=_read_json(quant_path) if quant_path.is_file() else None,
    )


def parse_config_text(text: str, name: str = "pasted config.json") -> Architecture:
    """A config.json pasted as text (the dashboard)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecommenderInputError(
            f"{name} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "paste the whole file"
        ) from None
    return architecture_from_config(data, name=_config_name(data, name), source=name)


def _config_name(data: object, fallback: str) -> str:
    if isinstance(data, dict) and isinstance(data.get("_name_or_path"), str):
        return data["_name_or_path"]
    return fallback


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RecommenderInputError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "download the file again"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecommenderInputError(f"cannot read {path}: {exc}") from None


def hf_cache_dir() -> Path:
    """huggingface_hub's cache: HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub.
    Read at each call (huggingface_hub reads it once, at import)."""
    if cache_dir := os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE"):
        return Path(cache_dir).expanduser()
    home = os.environ.get("HF_HOME") or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "huggingface"
    )
    return Path(home).expanduser() / "hub"


def hf_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE


# How long the one reachability check of the Hub may take (DNS included): an uncached id
# offline must fail in about a second, not after huggingface_hub's retries (26 s, 12 lines).
HUB_PROBE_TIMEOUT_S = 1.0


def hub_endpoint() -> tuple[str, int]:
    """The Hub's host and port: HF_ENDPOINT (a mirror) or huggingface.co."""
    url = urlsplit(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    return url.hostname or "huggingface.co", url.port or (80 if url.scheme == "http" else 443)


@cache
def hub_unreachable(host: str, port: int) -> str | None:
    """Why the Hub cannot be reached, or None when a TCP connection opens. Asked once per
    process and endpoint; the DNS lookup runs in a thread so it is bounded too."""
    pool = ThreadPoolExecutor(max_workers=1)
    attempt = pool.submit(socket.create_connection, (host, port), HUB_PROBE_TIMEOUT_S)
    try:
        attempt.result(timeout=HUB_PROBE_TIMEOUT_S + 0.2).close()
        return None
    except FutureTimeout:
        return f"{host}:{port} did not answer within {HUB_PROBE_TIMEOUT_S:g} s"
    except OSError as exc:
        return f"{host}:{port} unreachable: {exc.strerror or exc}"
    finally:
        pool.shutdown(wait=False)


def hub_architecture(repo_id: str) -> Architecture:
    """config.json of a Hub model: from the local cache, else fetched when online. Offline
    (HF_HUB_OFFLINE, or the Hub unreachable, checked once) it is one line at once."""
    from huggingface_hub import hf_hub_download, try_to_load_from_cache
    from huggingface_hub.errors import HFValidationError

    cache_dir = hf_cache_dir()
    try:
        cached = try_to_load_from_cache(repo_id, CONFIG_FILE, cache_dir=cache_dir)
    except HFValidationError as exc:  # e.g. "0/¹": not an id the Hub could hold
        reason = str(exc).split(":")[0]
        raise RecommenderInputError(
            f"--model {repo_id[:80]}: not a Hugging Face id ({reason}); give a preset, an id "
            "such as Qwen/Qwen3-32B, or the path to a config.json"
        ) from None
    if isinstance(cached, str):
        return _cached_architecture(repo_id, Path(cached), cache_dir)
    offline = "HF_HUB_OFFLINE is set" if hf_offline() else hub_unreachable(*hub_endpoint())
    if offline is not None:
        return _offline_lookup(repo_id, cache_dir, offline)
    from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError

    try:
        path = hf_hub_download(repo_id, CONFIG_FILE, cache_dir=cache_dir, etag_timeout=10)
    except (HfHubHTTPError, OSError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise RecommenderInputError(
            f"cannot fetch {repo_id}/{CONFIG_FILE} from the Hugging Face Hub ({reason}); check "
            "the id, log in for gated models (`hf auth login`), set HF_ENDPOINT for a mirror, "
            "or pass the path to a downloaded config.json"
        ) from None
    # Single-file or non-safetensors models have no index, most no hf_quant_config.json: the
    # counted figure and config.json's own quantisation stand.
    for extra in (INDEX_FILE, QUANT_FILE):
        with contextlib.suppress(EntryNotFoundError, HfHubHTTPError, OSError, ValueError):
            hf_hub_download(repo_id, extra, cache_dir=cache_dir, etag_timeout=10)
    return _cached_architecture(repo_id, Path(path), cache_dir)


def _offline_lookup(repo_id: str, cache_dir: Path, why: str) -> Architecture:
    """huggingface_hub's own offline lookup (local_files_only: no request, no retry), else
    one line saying what to do."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    with contextlib.suppress(LocalEntryNotFoundError, OSError, ValueError):
        path = hf_hub_download(repo_id, CONFIG_FILE, cache_dir=cache_dir, local_files_only=True)
        return _cached_architecture(repo_id, Path(path), cache_dir)
    raise RecommenderInputError(
        f"{repo_id} has no {CONFIG_FILE} in the local Hugging Face cache ({cache_dir}) and the "
        f"Hub is offline ({why}): run `hf download {repo_id} {CONFIG_FILE}` where there is "
        "network (or set HF_ENDPOINT to a reachable mirror), or pass the path to its config.json"
    )


def _cached_architecture(repo_id: str, config: Path, cache_dir: Path) -> Architecture:
    from huggingface_hub import try_to_load_from_cache

    index = try_to_load_from_cache(repo_id, INDEX_FILE, cache_dir=cache_dir)
    quant = try_to_load_from_cache(repo_id, QUANT_FILE, cache_dir=cache_dir)
    data = _read_json(config)
    source = f"{repo_id} (Hugging Face cache {config})"
    return architecture_from_config(
        data,
        name=repo_id,
        source=source,
        index=_read_json(Path(index)) if isinstance(index, str) else None,
        repo_id=repo_id,
        quant_file=_read_json(Path(quant)) if isinstance(quant, str) else None,
    )


def prices_from_rows(rows: list[dict[str, Any]]) -> list[CardPrice]:
    """One CardPrice per (source, gpu). Warehouse times are naive UTC; made explicit here."""
    out = []
    for row in rows:
        observed: datetime = row["observed_at"]
        out.append(
            CardPrice(
                gpu=row["gpu"],
                source=row["source"],
                observed_at=observed.replace(tzinfo=UTC),
                hourly_cny=_float(row["hourly_cny"]),
                monthly_plan_cny_per_hour=_float(row["monthly_plan_cny_per_hour"]),
                bare_metal_cny_per_server_month=_float(row["bare_metal_cny_per_server_month"]),
                cards_per_server=int(row["cards_per_server"] or 8),
                cpu_cores=None
                if row["cpu_cores_per_card"] is None
                else int(row["cpu_cores_per_card"]),
                ram_gb=_float(row["ram_gb_per_card"]),
                disk_gb=_float(row["disk_gb_per_card"]),
                simulated=bool(row["simulated"]),
            )
        )
    return out


def _float(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]
