"""The `gpuprice` commands as a user runs them (typer's runner, real files, real servers)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from demo.market import DemoMarket
from gpuprice.cli import app
from scrapers.gpu_names import CANONICAL_GPUS
from tests.support.handles import warehouse_at
from warehouse.ingest.reference import load_reference
from warehouse.store.db import read_frame, write_connection
from warehouse.store.handle import Warehouse

FIXTURES = Path(__file__).parent.parent / "fixtures" / "pages"
runner = CliRunner()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUPRICE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GPUPRICE_CONFIG", raising=False)
    monkeypatch.delenv("GPUPRICE_PROFILE", raising=False)
    return tmp_path / "home"


@pytest.fixture
def warehouse(home: Path) -> Warehouse:
    path = home / "gpuprice.duckdb"
    with write_connection(warehouse_at(path)) as con:
        load_reference(con)
    return warehouse_at(path)


@pytest.fixture
def market_config(tmp_path: Path) -> Iterator[tuple[DemoMarket, Path]]:
    with DemoMarket().start() as market:
        config = tmp_path / "gpuprice.toml"
        config.write_text(
            "[http]\nmin_interval_s = 0\nretries = 0\nconnect_timeout_s = 1\n"
            f'[sources.jygpu]\ndemo_url = "{market.jygpu_url}"\n'
            f'[sources.smm]\ndemo_url = "{market.smm_url}"\n',
            encoding="utf-8",
        )
        yield market, config


def test_sql_prints_a_table(warehouse: Warehouse) -> None:
    result = runner.invoke(app, ["sql", "SELECT gpu, vram_gb FROM gpu_spec WHERE gpu = 'h20-96g'"])
    assert result.exit_code == 0, result.output
    assert "h20-96g" in result.output and "96" in result.output and "1 row(s)" in result.output


def test_sql_csv_and_json(warehouse: Warehouse) -> None:
    query = "SELECT gpu, vram_gb FROM gpu_spec WHERE gpu IN ('h20-96g', '910b-64g') ORDER BY gpu"
    csv = runner.invoke(app, ["sql", query, "--format", "csv"])
    assert csv.exit_code == 0
    assert csv.stdout.splitlines() == ["gpu,vram_gb", "910b-64g,64", "h20-96g,96"]
    js = runner.invoke(app, ["sql", query, "--format", "json"])
    assert [json.loads(line) for line in js.stdout.splitlines()] == [
        {"gpu": "910b-64g", "vram_gb": 64},
        {"gpu": "h20-96g", "vram_gb": 96},
    ]


@pytest.mark.parametrize(
    "query",
    ["SELEC 1", "SELECT nope FROM gpu_spec", "DELETE FROM gpu_spec", "CREATE TABLE t(a INT)"],
)
def test_bad_or_writing_sql_is_refused_and_nothing_changes(
    warehouse: Warehouse, query: str
) -> None:
    result = runner.invoke(app, ["sql", query])
    assert result.exit_code == 2
    assert "query failed" in result.stderr
    assert read_frame(warehouse, "SELECT count(*) FROM gpu_spec").item() == len(CANONICAL_GPUS)


def test_sql_before_any_load_says_what_to_do(home: Path) -> None:
    result = runner.invoke(app, ["sql", "SELECT 1"])
    assert result.exit_code == 1
    assert "gpuprice run" in result.stderr


def test_parse_prints_one_json_object_per_row() -> None:
    result = runner.invoke(
        app, ["parse", "jygpu", str(FIXTURES / "jygpu_container_2026-09-04.html")]
    )
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    hourly_4090 = next(r for r in rows if r["gpu"] == "rtx4090-24g" and r["billing"] == "hourly")
    assert hourly_4090["price"] == "1.96" and hourly_4090["unit_raw"] == "元/时"
    assert hourly_4090["observed_at"] == "2026-09-04 02:00:00"
    assert hourly_4090["simulated"] is True


def test_parse_of_a_broken_page_is_an_error_with_no_rows() -> None:
    result = runner.invoke(app, ["parse", "smm", str(FIXTURES / "smm_quotes_no_table.html")])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "parse error" in result.stderr


def test_parse_of_a_page_with_one_broken_row_prints_the_others_and_names_it() -> None:
    result = runner.invoke(
        app, ["parse", "smm", str(FIXTURES / "smm_quotes_price_on_request.html")]
    )
    assert result.exit_code == 0
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows and "H20-96G" not in {(r["gpu_name_raw"], r["region"])[0] for r in rows
                                      if r["region"] == "京津冀"}  # fmt: skip
    (line,) = result.stderr.strip().splitlines()
    assert f"{len(rows)} row(s); 1 of {len(rows) + 1} listing(s) rejected: row" in line
    assert "H20-96G 京津冀: no price given: '面议'" in line


def test_parse_unknown_source_lists_the_known_ones() -> None:
    result = runner.invoke(app, ["parse", "nope", str(FIXTURES / "empty_body.html")])
    assert result.exit_code == 2
    assert "jygpu" in result.stderr and "smm" in result.stderr


def test_bad_config_exits_2_naming_the_key(home: Path, tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("[http]\nretries = -3\n", encoding="utf-8")
    result = runner.invoke(app, ["run", "--config", str(config)])
    assert result.exit_code == 2
    assert "http.retries" in result.stderr


@pytest.mark.e2e
def test_run_prints_a_summary_and_fails_when_a_source_is_down(
    home: Path, market_config: tuple[DemoMarket, Path]
) -> None:
    market, config = market_config
    ok = runner.invoke(app, ["run", "--config", str(config)])
    assert ok.exit_code == 0, ok.output
    assert "jygpu" in ok.stdout and "smm" in ok.stdout and "SIMULATED" in ok.stdout
    market.stop_site("smm")
    down = runner.invoke(app, ["run", "--config", str(config), "--as-of", "2026-10-01"])
    assert down.exit_code == 1
    assert "failed" in down.stdout


@pytest.mark.e2e
def test_backfill_fills_every_day_for_every_card(
    home: Path, market_config: tuple[DemoMarket, Path]
) -> None:
    _, config = market_config
    result = runner.invoke(
        app, ["backfill", "--days", "4", "--end", "2026-10-04", "--config", str(config)]
    )
    assert result.exit_code == 0, result.output
    assert "backfilled 4 day(s) 2026-10-01 .. 2026-10-04" in result.stdout
    days = read_frame(
        warehouse_at(home / "gpuprice.duckdb"),
        "SELECT gpu, count(DISTINCT observed_at::DATE) AS n FROM offer WHERE source = 'jygpu' GROUP BY gpu",
    )
    assert set(days["gpu"]) == {"rtx4090-24g", "rtx5090-32g", "h100-80g", "h20-96g", "910b-64g"}
    assert set(days["n"]) == {4}
    again = runner.invoke(
        app, ["backfill", "--days", "4", "--end", "2026-10-04", "--config", str(config)]
    )
    assert "0 new row(s)" in again.stdout
