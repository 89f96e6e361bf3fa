"""RunPod pricing page: JSON-LD Products, the pricing-row fallback, and a page saved from a
browser (`gpuprice parse runpod SAVED.html`)."""

from __future__ import annotations

import json
import os
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuprice.cli import app
from scrapers.fx import FxRate, FxRates
from scrapers.rows import ParseError
from scrapers.sources.runpod import RunpodAdapter
from tests.scrapers.live_fixtures import LIVE_DIR, RUNPOD, RUNPOD_ROWS, RUNPOD_SAVED, read

D = Decimal
FETCHED = datetime(2026, 9, 4, 3, 0)
FX = FxRates((), (FxRate(date(2026, 9, 1), "USD", D("7.10"), "configured default"),))
adapter = RunpodAdapter(FX)


def rows_of(name: str, url: str = "https://www.runpod.io/pricing") -> dict:
    return {r.offer_id: r for r in adapter.parse(read(name), url, FETCHED)}


def test_fetch_plan() -> None:
    assert adapter.fetch_plan("https://www.runpod.io/") == ["https://www.runpod.io/pricing"]


def test_jsonld_products_give_one_hourly_row_per_card_and_cloud() -> None:
    rows = rows_of(RUNPOD)
    h100 = rows["H100 SXM/Community Cloud"]
    assert (h100.gpu, h100.gpu_name_raw, h100.vram_gb, h100.gpu_count) == (
        "h100-80g", "H100 SXM", 80, 1,
    )  # fmt: skip
    assert (h100.billing, h100.price, h100.currency, h100.unit) == (
        "hourly", D("2.6900"), "USD", "USD/card-hour",
    )  # fmt: skip
    assert h100.cny_per_card_hour == D("19.099000")  # 2.69 × 7.10
    assert (h100.ram_gb, h100.cpu_cores) == (125, 20)
    assert rows["H100 SXM/Secure Cloud"].price == D("2.9900")
    assert rows["RTX 4090/Community Cloud"].gpu == "rtx4090-24g"
    assert rows["A100 SXM/Secure Cloud"].gpu == "a100-80g"  # size from additionalProperty VRAM
    assert rows["H200 SXM/Secure Cloud"].gpu == "h200-141g"
    assert rows["RTX 6000 Ada/Secure Cloud"].gpu == "unknown"


def test_pricing_rows_are_the_fallback_without_jsonld() -> None:
    jsonld = {k: (r.gpu, r.price, r.vram_gb) for k, r in rows_of(RUNPOD).items()}
    markup = {k: (r.gpu, r.price, r.vram_gb) for k, r in rows_of(RUNPOD_ROWS).items()}
    assert markup == jsonld


def test_a_page_saved_from_a_browser_parses_like_the_fetched_one() -> None:
    saved = read(RUNPOD_SAVED)
    assert saved.startswith(b"\xef\xbb\xbf") and b"saved from url" in saved and b"\r\n" in saved
    uri = (LIVE_DIR / RUNPOD_SAVED).resolve().as_uri()
    got = {k: (r.gpu, r.price) for k, r in rows_of(RUNPOD_SAVED, uri).items()}
    assert got == {k: (r.gpu, r.price) for k, r in rows_of(RUNPOD).items()}


def test_a_page_that_is_not_runpod_pricing_is_an_error() -> None:
    with pytest.raises(ParseError, match="not a RunPod pricing page"):
        adapter.parse(read("generic_table_en.html"), "https://www.runpod.io/pricing", FETCHED)


def test_gpuprice_parse_runpod_saved_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUPRICE_HOME", str(tmp_path))  # no warehouse: the configured default rate
    saved = tmp_path / "Pricing _ Runpod.html"
    saved.write_bytes(read(RUNPOD_SAVED))
    stamp = datetime(2026, 9, 4, 3, 0).timestamp()
    os.utime(saved, (stamp, stamp))
    result = CliRunner().invoke(app, ["parse", "runpod", str(saved)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 16
    h100 = next(r for r in rows if r["offer_id"] == "H100 SXM/Secure Cloud")
    assert (h100["gpu"], h100["currency"], h100["price"]) == ("h100-80g", "USD", "2.9900")
    assert h100["cny_per_card_hour"] == "21.229000"  # 2.99 × the configured 7.10
