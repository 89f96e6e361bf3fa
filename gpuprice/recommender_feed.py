"""The recommender's inputs from the warehouse: latest prices and GPU specs as its types.

warehouse (SQL, Polars frames) -> this module (CardPrice / CardSpec) -> recommender (pure).
The warehouse layer does not know the recommender; the recommender does no I/O. When
there is no warehouse yet, or it holds no prices, the seeds' published prices and the
built-in specs stand in, and `PriceInputs.note` says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from recommender import DEFAULT_SPECS, CardPrice, CardSpec, Recommendation, seed_prices
from warehouse.read.recommender import gpu_specs, latest_card_prices, price_sources
from warehouse.store.db import WarehouseMissing

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


def load_price_inputs(warehouse_path: Path, source: str | None = None) -> PriceInputs:
    """Latest prices per card, mode and source, and the specs, from the warehouse.

    Falls back to the seeds' published prices only when the warehouse is missing or has
    no prices (and then `source` must be None). Raises `UnknownSource` for a `source`
    the warehouse does not list, and lets `WarehouseBusy` through.
    """
    try:
        frame = latest_card_prices(warehouse_path, source)
    except WarehouseMissing:
        return _fallback(f"no warehouse at {warehouse_path} yet", source)
    if frame.is_empty():
        if source is not None:
            known = price_sources(warehouse_path)["source"].to_list()
            if known:
                raise UnknownSource(
                    f"no prices from source {source!r} in the warehouse; allowed: "
                    + ", ".join(known)
                )
        return _fallback(f"the warehouse at {warehouse_path} holds no prices yet", source)

    spec_frame = gpu_specs(warehouse_path)
    specs = specs_from_frame(spec_frame) if not spec_frame.is_empty() else []
    specs_from = "gpu_spec"
    if not specs:
        specs, specs_from = list(DEFAULT_SPECS.values()), "built-in (gpu_spec is empty)"
    prices = prices_from_frame(frame)
    sources = sorted({p.source for p in prices})
    dates = sorted({p.date for p in prices})
    simulated = sorted({p.source for p in prices if p.simulated})
    note = (
        f"Live prices from the warehouse ({', '.join(sources)}; latest per card and mode, "
        f"observed {_span(dates)} UTC)"
        + (f"; SIMULATED demo-market prices from {', '.join(simulated)}" if simulated else "")
        + ("; per card the cheapest source for this workload is shown" if len(sources) > 1 else "")
        + "."
    )
    return PriceInputs(specs, prices, WAREHOUSE, note, sources, specs_from)


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


def specs_from_frame(frame: pl.DataFrame) -> list[CardSpec]:
    return [
        CardSpec(
            gpu=row["gpu"],
            vram_gb=float(row["vram_gb"]),
            bandwidth_gbs=float(row["bandwidth_gbs"]),
            fp16_tflops_dense=float(row["fp16_tflops_dense"]),
            interconnect=row["interconnect"] or "",
            link_gbs=None if row["link_gbs"] is None else float(row["link_gbs"]),
            domestic=bool(row["domestic"]),
        )
        for row in frame.iter_rows(named=True)
    ]


def prices_from_frame(frame: pl.DataFrame) -> list[CardPrice]:
    """One CardPrice per (source, gpu). Warehouse times are naive UTC; made explicit here."""
    out = []
    for row in frame.iter_rows(named=True):
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
