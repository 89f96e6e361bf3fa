"""`gpuprice index` and `gpuprice index export DIR` over a real warehouse: the JSON fields,
the filters, `--as-of` after a revision, the table's names, units and dates, CSV, one-line
errors (exit 2) for bad options, and the export read back by DuckDB."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
from datetime import timedelta
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from gpuprice import cli_common
from gpuprice.cli import app
from tests.support.demo_days import insert, reference_warehouse
from tests.support.handles import warehouse_at
from tests.warehouse.derive.test_index import CARD, D1, D2, D4, at, load_days, row
from warehouse.derive.metrics import derive
from warehouse.store.handle import Warehouse

cli = CliRunner()
JSON_FIELDS = {
    "day", "card", "billing", "kind", "value", "platforms", "observations", "sold_out_share",
    "status", "gate", "change_1d", "change_7d", "change_30d", "level", "method",
}  # fmt: skip


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    warehouse = reference_warehouse(tmp_path_factory.mktemp("index"))
    load_days(warehouse)  # five days of four platforms; D4 withheld
    return warehouse


@pytest.fixture
def home(loaded: Warehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Warehouse:
    """The loaded warehouse, a copy of its own for each test (loading it is 2 s, copying it
    a few ms); on a DuckLake, loaded for the test itself."""
    warehouse = warehouse_at(tmp_path / "home" / loaded.path.name)
    if warehouse.lake is None:
        shutil.copytree(loaded.path.parent, warehouse.path.parent)
    else:
        warehouse = reference_warehouse(tmp_path)
        load_days(warehouse)
    monkeypatch.setenv("GPUPRICE_HOME", str(warehouse.path.parent))
    monkeypatch.setattr(cli_common.console, "_width", 250)
    return warehouse


def run(*args: str) -> list[dict]:
    result = cli.invoke(app, ["index", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_rows_carry_the_issue_fields(home: Warehouse) -> None:
    rows = run("--card", CARD, "--billing", "hourly")
    assert [r["day"] for r in rows] == [f"{D1 + timedelta(days=i)}" for i in range(5)]
    assert all(set(r) >= JSON_FIELDS for r in rows)
    first = rows[0]
    assert (first["card"], first["billing"], first["kind"], first["method"]) == (
        CARD, "hourly", "SIMULATED", "v1",
    )  # fmt: skip
    assert first["value"] == pytest.approx(2.30) and first["level"] == pytest.approx(100.0)
    assert (first["status"], first["gate"], first["platforms"]) == ("published", None, 3)
    thin = rows[3]
    assert (thin["status"], thin["gate"], thin["value"]) == ("withheld", "min_platforms", None)


def test_filters(home: Warehouse) -> None:
    assert run("--real") == []  # every row is SIMULATED
    assert len(run("--simulated")) == 5
    assert [r["day"] for r in run("--from", f"{D2}", "--to", f"{D4}")] == [
        f"{D2}", "2026-10-03", f"{D4}",
    ]  # fmt: skip
    assert run("--card", "h100-80g") == []


def test_as_of_answers_what_the_index_said_then(home: Warehouse) -> None:
    insert(home, [row(at(D1, 9), "pc", "late", "9.00")])  # a late page of pc's D1 snapshot
    derive(home, now=at(D2, 23))
    now = run("--card", CARD, "--from", f"{D1}", "--to", f"{D1}")
    then = run("--card", CARD, "--from", f"{D1}", "--to", f"{D1}", "--as-of", f"{D1}T18:00")
    # pc's D1 median becomes (2.60 + 9.00) / 2 = 5.80: median(2.30, 1.90, 5.80) is still 2.30,
    # but the inputs changed, so the day was revised; --as-of sees revision 1
    assert now[0]["revision"] == 2 and then[0]["revision"] == 1
    assert then[0]["value"] == pytest.approx(2.30) and now[0]["value"] == pytest.approx(2.30)
    # a zoned time is UTC: 18:00+08:00 is 10:00 UTC, before the first derive (12:00)
    assert run("--card", CARD, "--as-of", f"{D1}T18:00+08:00") == []


def test_the_table_names_its_unit_dates_and_kind(home: Warehouse) -> None:
    result = cli.invoke(app, ["index", "--card", CARD])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "CNY per card-hour" in out and "UTC" in out and "SIMULATED" in out
    assert "RTX 4090 24GB (rtx4090-24g)" in out and "hourly" in out  # names, ids beside
    assert "2026-10-04" in out and "withheld: 2 platform(s) quoted; at least 3 needed" in out
    assert "2.3000" in out and "+4.3 %" in out  # D2's change: 2.40 / 2.30 - 1


def test_csv_has_every_column(home: Warehouse) -> None:
    result = cli.invoke(app, ["index", "--card", CARD, "--format", "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 5 and set(rows[0]) >= JSON_FIELDS


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--card", "rtx9999"], "is not a card id"),
        (["--billing", "yearly"], "--billing 'yearly': use one of hourly"),
        (["--from", "2026-13-01"], "--from"),
        (["--from", "2026-10-05", "--to", "2026-10-01"], "is after --to"),
        (["--as-of", "yesterday"], "--as-of 'yesterday'"),
        (["--real", "--simulated"], "exclude each other"),
        (["--method", "v9"], "the methods are v1"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(home: Warehouse, args: list[str], says: str) -> None:
    result = cli.invoke(app, ["index", *args])
    assert result.exit_code == 2
    assert says in result.output and "Traceback" not in result.output


def test_no_warehouse_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUPRICE_HOME", str(tmp_path / "nothing"))
    result = cli.invoke(app, ["index"])
    assert result.exit_code == 1 and "no warehouse" in result.output
    assert "Traceback" not in result.output


def test_the_export_loads_in_duckdb(home: Warehouse, tmp_path: Path) -> None:
    insert(home, [row(at(D1, 9), "pc", "late", "9.00")])  # a revision: two rows for D1
    derive(home, now=at(D2, 23))
    out = tmp_path / "dataset"
    result = cli.invoke(app, ["index", "export", str(out)])
    assert result.exit_code == 0, result.output
    assert "6 index row(s) (5 current" in result.stdout
    con = duckdb.connect()
    parquet = con.execute(
        f"SELECT day, card, status, value, revision, superseded_at FROM '{out}/price_index.parquet' "
        "ORDER BY day, revision"
    ).fetchall()
    from_csv = con.execute(
        f"SELECT day, card, status, value, revision, superseded_at FROM "
        f"read_csv_auto('{out}/price_index.csv') ORDER BY day, revision"
    ).fetchall()
    assert parquet == from_csv and len(parquet) == 6
    assert parquet[0][4] == 1 and parquet[0][5] is not None  # D1's first, superseded
    assert parquet[1][4] == 2 and parquet[1][5] is None
    assert [r[2] for r in parquet].count("withheld") == 1 and parquet[-2][3] is None
    methodology = json.loads((out / "methodology.json").read_text(encoding="utf-8"))
    assert methodology["method"] == "v1" and methodology["gates"] == {"v1": {"min_platforms": 3}}
    assert methodology["rows"] == 6 and set(methodology["columns"]) >= JSON_FIELDS
    digest = hashlib.sha256((out / "price_index.csv").read_bytes()).hexdigest()
    assert methodology["content_hash"]["value"] == digest
    assert {p["source"] for p in methodology["platforms"]} == {"pa", "pb", "pc", "pd"}
    assert any("seed 003" in c for c in methodology["citations"]["outside_figures"])


def test_export_into_a_file_is_refused(home: Warehouse, tmp_path: Path) -> None:
    file = tmp_path / "taken"
    file.write_text("x")
    result = cli.invoke(app, ["index", "export", str(file)])
    assert result.exit_code == 2 and "is a file" in result.output
