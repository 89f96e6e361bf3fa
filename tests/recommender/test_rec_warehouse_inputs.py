"""The recommender's warehouse inputs: latest price per card, mode and source; specs."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from configuration.recommender_feed import (
    SEED_FALLBACK,
    WAREHOUSE,
    UnknownSource,
    load_price_inputs,
    prices_from_rows,
    specs_from_rows,
)
from recommender import DEFAULT_SPECS
from scrapers.gpu_names import CANONICAL_GPUS
from tests.support.handles import warehouse_at
from tests.support.seeded_warehouse import seed_demo_history
from tests.support.sim_offers import LATER, offer
from warehouse.ingest.insert import insert_rows
from warehouse.ingest.reference import load_reference
from warehouse.read.recommender import gpu_specs, latest_card_prices
from warehouse.store.db import write_connection


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "gpuprice.duckdb"


def load(path: Path, rows: list) -> None:
    with write_connection(warehouse_at(path)) as con:
        insert_rows(con, rows, page=None, run_id=None)


def row(rows: list[dict], gpu: str, source: str = "jygpu") -> dict:
    return next(r for r in rows if r["gpu"] == gpu and r["source"] == source)


def test_one_row_per_source_and_card_with_every_mode(path: Path) -> None:
    with write_connection(warehouse_at(path)) as con:
        load_reference(con)
    rows = latest_card_prices(warehouse_at(path))
    rtx = row(rows, "rtx4090-24g", "jygpu-published")
    # 2026-09-04 (seed 003) wins over the older July (seed 002) ¥2.45 listing.
    assert (rtx["hourly_cny"], rtx["monthly_plan_cny_per_hour"]) == (1.96, 1.57)
    assert (rtx["bare_metal_cny_per_server_month"], rtx["cards_per_server"]) == (7920.0, 8)
    assert (rtx["cpu_cores_per_card"], rtx["ram_gb_per_card"], rtx["disk_gb_per_card"]) == (
        15.0,
        60.0,
        100.0,
    )
    assert rtx["observed_at"] == datetime(2026, 9, 4) and rtx["simulated"] is False
    h100 = row(rows, "h100-80g", "jygpu-published")
    assert h100["hourly_cny"] is None and h100["bare_metal_cny_per_server_month"] == 84480.0
    keys = [(r["source"], r["gpu"]) for r in rows]
    assert len(keys) == len(set(keys))


def test_newest_snapshot_then_cheapest_in_stock_listing(path: Path) -> None:
    earlier = LATER - timedelta(days=1)
    load(
        path,
        [
            offer("rtx4090-24g", "hourly", "0.99", observed_at=earlier),  # older: ignored
            offer("rtx4090-24g", "hourly", "1.80", offer_id="a", stock=3),
            offer("rtx4090-24g", "hourly", "1.40", offer_id="b", stock=0),  # sold out
            offer("rtx4090-24g", "hourly", "1.60", offer_id="c", stock=None),
        ],
    )
    rtx = row(latest_card_prices(warehouse_at(path)), "rtx4090-24g")
    assert (rtx["hourly_cny"], rtx["hourly_offer_id"]) == (1.60, "c")
    assert rtx["observed_at"] == LATER


def test_a_listing_gone_from_newer_snapshots_is_dropped(path: Path) -> None:
    load(
        path,
        [
            offer("h20-96g", "hourly", "8.00", observed_at=LATER - timedelta(days=30)),
            offer("rtx4090-24g", "hourly", "1.50"),
        ],
    )
    assert [r["gpu"] for r in latest_card_prices(warehouse_at(path))] == ["rtx4090-24g"]


def test_bare_metal_only_listing_gives_per_card_companion_figures(path: Path) -> None:
    load(path, [offer("h100-80g", "bare_metal_monthly", "14.50")])
    h100 = row(latest_card_prices(warehouse_at(path)), "h100-80g")
    assert h100["bare_metal_cny_per_server_month"] == pytest.approx(14.50 * 8 * 720)
    assert (h100["cpu_cores_per_card"], h100["ram_gb_per_card"]) == (8.0, 64.0)
    assert h100["companion_from"].startswith("bare-metal")
    [price] = prices_from_rows(latest_card_prices(warehouse_at(path)))
    assert price.cpu_cores == 8 and price.hourly_cny is None and price.simulated
    assert price.observed_at.tzinfo is not None


def test_specs_from_gpu_spec_match_the_built_in_ones(path: Path) -> None:
    with write_connection(warehouse_at(path)) as con:
        load_reference(con)
    specs = {s.gpu: s for s in specs_from_rows(gpu_specs(warehouse_at(path)))}
    assert set(specs) == CANONICAL_GPUS  # the warehouse knows every card; the built-in
    assert set(DEFAULT_SPECS) <= set(specs)  # fallback only the seeds' ten
    for gpu, built_in in DEFAULT_SPECS.items():
        spec = specs[gpu]
        assert spec.vram_gb == built_in.vram_gb
        assert spec.bandwidth_gbs == built_in.bandwidth_gbs
        assert spec.fp16_tflops_dense == pytest.approx(built_in.fp16_tflops_dense, abs=0.1)
        assert spec.fast_interconnect == built_in.fast_interconnect, (
            gpu
        )  # "no NVLink" is not NVLink
        assert spec.domestic == built_in.domestic


def test_load_price_inputs_reads_the_demo_history(path: Path) -> None:
    seed_demo_history(warehouse_at(path), date(2026, 9, 12), days=2)
    inputs = load_price_inputs(warehouse_at(path))
    assert inputs.origin == WAREHOUSE and not inputs.fallback
    assert inputs.sources == ["jygpu", "jygpu-published"]
    assert inputs.simulated  # the demo market's rows are
    assert "SIMULATED" in inputs.note and "2026-09-12" in inputs.note
    demo = load_price_inputs(warehouse_at(path), "jygpu")
    assert {p.source for p in demo.prices} == {"jygpu"}
    assert all(p.date == "2026-09-12" for p in demo.prices)
    with pytest.raises(UnknownSource, match="allowed: jygpu, jygpu-published"):
        load_price_inputs(warehouse_at(path), "smm")  # quotes, not rentable listings


def test_missing_warehouse_falls_back_to_the_seeds(path: Path) -> None:
    inputs = load_price_inputs(warehouse_at(path))
    assert inputs.origin == SEED_FALLBACK and inputs.fallback
    assert not path.exists()  # reading never creates the file
    assert "Fallback" in inputs.note and "2026-09-04" in inputs.note
    assert len(inputs.specs) == len(DEFAULT_SPECS)
