"""`gpuprice reparse --source X [--since DATE]`: today's parser over the archived pages,
reloaded idempotently; a fixed parser repairs history."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuprice.cli import app
from scrapers.collect import Snapshot, parse_page
from scrapers.fx import FxRate
from scrapers.http import FetchedPage
from scrapers.rows import ParseError
from scrapers.sources.matpool import MatpoolAdapter
from scrapers.sources.runpod.adapter import RunpodAdapter
from scrapers.sources.skypilot import SkypilotAdapter
from tests.support.handles import warehouse_at
from tests.support.live_fixtures import MATPOOL, RUNPOD, read
from tests.support.live_settings import FAST_HTTP, sources
from warehouse.ingest.load import load_snapshot
from warehouse.ingest.quarantine import decide
from warehouse.ingest.reference import load_reference
from warehouse.ingest.reparse import reparse
from warehouse.store.db import read_frame, write_connection

T0 = datetime(2026, 9, 4, 3, 0)
FX_DEFAULTS = (FxRate(T0.date(), "USD", Decimal("7.10"), "configured default"),)


class OldMatpool(MatpoolAdapter):
    """Yesterday's parser: read millicents as 1/50000 yuan (every price doubled)."""

    def rows(self, item, page):
        return [
            replace(r, price=r.price * 2, per_card_hour=r.per_card_hour * 2)
            for r in super().rows(item, page)
        ]


REAL_RUNPOD = (
    Path(__file__).resolve().parents[1] / "fixtures/real/runpod/runpod_20250909131230.html"
)

REAL_VERDA = Path(__file__).resolve().parents[1] / "fixtures/real/skypilot/v8/verda/vms.csv"


class OldRunpod(RunpodAdapter):
    """Yesterday's parser: knew only the pricing rows, not the JSON-LD."""

    def read(self, body, url, fetched_at):
        if b"application/ld+json" in body:
            raise ParseError(f"{url}: no .gpu-pricing-row")
        return super().read(body, url, fetched_at)


def load(path: Path, adapter, source: str, url: str, body: bytes, at: datetime) -> None:
    snap = Snapshot(source, "offers", at, None)
    snap.pages = [parse_page(adapter, FetchedPage(url, 200, body, "", at))]
    load_snapshot(
        warehouse_at(path),
        snap,
        profile="live",
        run_id=f"run-{source}-{at:%d%H}",
        fx_defaults=FX_DEFAULTS,
    )


def prices(path: Path, source: str) -> list[tuple]:
    return read_frame(
        warehouse_at(path),
        "SELECT observed_at, offer_id, price, run_id FROM offer WHERE source = $s "
        "ORDER BY observed_at, offer_id",
        {"s": source},
    ).rows()


def test_a_fixed_parser_repairs_every_snapshot_of_a_page_idempotently(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with write_connection(warehouse_at(path)) as con:
        load_reference(con)
    url = "https://matgo.cn/api/machine_pools"
    # the same body fetched in two runs: two snapshots, one archived page
    for hour in (0, 1):
        load(path, OldMatpool(), "matpool", url, read(MATPOOL), T0 + timedelta(hours=hour))
    before = prices(path, "matpool")
    assert len(before) == 10 and before[0][2] == Decimal("4.4")  # wrong: ¥2.20 doubled
    assert read_frame(warehouse_at(path), "SELECT count(*) FROM raw_page").item() == 1

    summary = reparse(warehouse_at(path), MatpoolAdapter(), "matpool")
    assert (summary.pages, summary.ok, summary.errors) == (1, 1, 0)
    assert (summary.rows_before, summary.rows_after, summary.changed) == (10, 10, 1)
    after = prices(path, "matpool")
    assert [(t, o) for t, o, _, _ in after] == [(t, o) for t, o, _, _ in before]
    assert dict(((t, o), p) for t, o, p, _ in after)[(T0, "pool-119")] == Decimal("2.2")
    assert {r for _, _, _, r in after} == {"run-matpool-0403", "run-matpool-0404"}  # runs kept
    # the derived metrics follow the repaired prices
    card_value = read_frame(
        warehouse_at(path),
        "SELECT observed_at, cny_per_card_hour FROM card_value WHERE source = 'matpool' "
        "AND gpu = 'rtx4090-24g' ORDER BY observed_at",
    ).rows()
    assert card_value == [(T0, Decimal("2.2")), (T0 + timedelta(hours=1), Decimal("2.2"))]

    again = reparse(warehouse_at(path), MatpoolAdapter(), "matpool")
    assert (again.changed, again.rows_after) == (0, 10)
    assert prices(path, "matpool") == after


def test_reparse_cli_turns_archived_errors_into_rows_with_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    path = home / "gpuprice.duckdb"
    url = "https://www.runpod.io/pricing"
    load(path, OldRunpod(), "runpod", url, read(RUNPOD), T0)
    webflow = REAL_RUNPOD.read_bytes()  # a real 2025 page: pricing rows, no JSON-LD
    load(path, OldRunpod(), "runpod", url, webflow, T0 + timedelta(days=2))
    assert read_frame(warehouse_at(path), "SELECT parse_status FROM raw_page ORDER BY fetched_at").rows() == [
        ("error",), ("ok",),
    ]  # fmt: skip
    config = tmp_path / "gpuprice.toml"
    config.write_text(FAST_HTTP + sources(runpod={"live_url": "https://api.runpod.io"}))
    monkeypatch.setenv("GPUPRICE_HOME", str(home))
    monkeypatch.setenv("GPUPRICE_PROFILE", "live")
    runner = CliRunner()

    result = runner.invoke(app, ["reparse", "--source", "runpod", "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert "[1/2]" in result.stderr and "[2/2]" in result.stderr
    assert "2 page(s), 2 ok, 0 with errors, 1 changed; rows 10 → 26" in result.stdout
    pages = read_frame(
        warehouse_at(path),
        "SELECT parse_status, parse_error, rows FROM raw_page ORDER BY fetched_at",
    )
    assert pages.rows() == [("ok", None, 16), ("ok", None, 10)]
    assert (
        read_frame(warehouse_at(path), "SELECT count(*) FROM offer WHERE source = 'runpod'").item()
        == 26
    )

    since = runner.invoke(
        app, ["reparse", "--source", "runpod", "--since", "2026-09-05", "--config", str(config)]
    )
    assert since.exit_code == 0 and "1 page(s), 1 ok, 0 with errors, 0 changed" in since.stdout
    nothing = runner.invoke(
        app, ["reparse", "--source", "runpod", "--since", "2027-01-01", "--config", str(config)]
    )
    assert nothing.exit_code == 0 and "no archived pages of runpod" in nothing.stdout
    unknown = runner.invoke(app, ["reparse", "--source", "nosuch", "--config", str(config)])
    assert unknown.exit_code == 2 and "known sources" in unknown.stderr


class FourfoldMatpool(MatpoolAdapter):
    """A wrong 'fix': every price ×4, still inside drift's plausible range (÷10..×10 of a
    reference price) but past the quarantine's 3× jump limit."""

    def rows(self, item, page):
        return [
            replace(r, price=r.price * 4, per_card_hour=r.per_card_hour * 4)
            for r in super().rows(item, page)
        ]


def test_reparsed_prices_face_the_quarantine_rules(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with write_connection(warehouse_at(path)) as con:
        load_reference(con)
    url = "https://matgo.cn/api/machine_pools"
    earlier = T0 - timedelta(days=1)
    load(path, MatpoolAdapter(), "matpool", url, read(MATPOOL), earlier)  # accepted baseline
    load(path, MatpoolAdapter(), "matpool", url, read(MATPOOL) + b"\n", T0)  # another page
    assert len(prices(path, "matpool")) == 10

    summary = reparse(warehouse_at(path), FourfoldMatpool(), "matpool", since=T0, run_derive=False)
    assert (summary.pages, summary.ok) == (1, 1)
    # the fourfold prices of known cards are held against the day before, not loaded; the
    # unknown card has no baseline to jump from and is loaded (as 'unknown') and noted
    reloaded = read_frame(
        warehouse_at(path),
        "SELECT gpu FROM offer WHERE source = 'matpool' AND observed_at = $t",
        {"t": T0},
    )["gpu"].to_list()
    assert reloaded == ["unknown"]
    held = read_frame(
        warehouse_at(path),
        "SELECT reason_kind, count(*) AS n FROM quarantine WHERE source = 'matpool' "
        "AND status = 'held' GROUP BY ALL",
    ).rows()
    assert held == [("jump", 4)]

    # a person accepts them; re-parsing again keeps them admitted
    ids = read_frame(
        warehouse_at(path), "SELECT quarantine_id FROM quarantine WHERE status = 'held'"
    )["quarantine_id"].to_list()
    assert decide(warehouse_at(path), ids, accept=True) == 4
    reparse(warehouse_at(path), FourfoldMatpool(), "matpool", since=T0, run_derive=False)
    again = read_frame(
        warehouse_at(path),
        "SELECT gpu, price FROM offer WHERE source = 'matpool' AND observed_at = $t "
        "AND gpu = 'rtx4090-24g'",
        {"t": T0},
    ).rows()
    assert again == [("rtx4090-24g", Decimal("8.8"))]


class OldSkypilot(SkypilotAdapter):
    """Yesterday's parser: refused catalogs with a SpotPrice column it did not know."""

    def read(self, body, url, fetched_at):
        raise ParseError(f"{url}: unknown column SpotPrice")


def test_reparse_uses_the_sources_catalog_options_and_repairs_a_skypilot_catalog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    path = home / "gpuprice.duckdb"
    url = (
        "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/"
        "verda/vms.csv"
    )
    load(path, OldSkypilot(), "skypilot", url, REAL_VERDA.read_bytes(), T0)
    assert read_frame(warehouse_at(path), "SELECT parse_status FROM raw_page").item() == "error"
    config = tmp_path / "gpuprice.toml"
    config.write_text(
        FAST_HTTP
        + sources(
            skypilot={"live_url": "https://example.invalid", "catalog": {"clouds": ["verda"]}}
        )
    )
    monkeypatch.setenv("GPUPRICE_HOME", str(home))
    monkeypatch.setenv("GPUPRICE_PROFILE", "live")
    result = CliRunner().invoke(app, ["reparse", "--source", "skypilot", "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert "1 page(s), 1 ok, 0 with errors, 1 changed; rows 0 → 33" in result.stdout
    regions = read_frame(
        warehouse_at(path),
        "SELECT DISTINCT split_part(region, '/', 1) FROM offer WHERE source = 'skypilot'",
    ).rows()
    assert regions == [("verda",)]
