"""docs/SCALING.md's DuckLake recipe on a real DuckLake: deploy/ducklake/check_ducklake.py run in
its own environment (``.venv-ducklake``: DuckDB 1.5.5 with the ducklake and postgres
extensions from PyPI, built by ``make ducklake-deps``), once with a DuckDB-file catalog and
once with a PostgreSQL catalog (conftest.py) and Parquet files in a local data path.

What this covers: every migration of the product, as written, is refused by DuckLake only for
its PRIMARY KEY / UNIQUE / CHECK clauses and applies without them, making the same tables as
the product's own migration runner; ``ON CONFLICT`` and ``INSERT OR REPLACE`` are refused and
their documented replacements (an anti-join load, DELETE + INSERT) keep one copy of a page
loaded twice; ``SET SORTED BY``; a second process reading while the writer holds the lake
(Postgres catalog); the serving copy ATTACHed from the lake's connection. The product's
own code on a DuckLake: test_ducklake_product.py; with an ``s3://`` data path:
test_ducklake_s3.py.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.deploy.conftest import LAKE_DB, PG_PASSWORD, PG_USER, pg_count
from tests.support.handles import warehouse_at
from warehouse.store.db import write_connection

pytestmark = pytest.mark.deploy

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "deploy" / "ducklake" / "check_ducklake.py"
LAKE_PYTHON = ROOT / ".venv-ducklake" / "bin" / "python"
CONSTRAINT_REFUSAL = re.compile(
    r"^Not implemented Error: (PRIMARY KEY/UNIQUE|CHECK) constraints are not supported in DuckLake$"
)


def _check(catalog: str, tmp_path: Path) -> tuple[int, dict, Path]:
    if not LAKE_PYTHON.exists():
        pytest.skip("the DuckLake environment is not built: run `make ducklake-deps`")
    data = tmp_path / "lake-data"
    proc = subprocess.run(
        [str(LAKE_PYTHON), str(CHECK), "--catalog", catalog, "--data-path", f"{data}/",
         "--serving", str(tmp_path / "serving.duckdb")],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout), data


def _product_tables(tmp_path: Path) -> set[str]:
    """The tables the product's migration runner makes in a DuckDB file (less its ledger)."""
    with write_connection(warehouse_at(tmp_path / "gpuprice.duckdb")) as con:
        rows = con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
        ).fetchall()
    return {name for (name,) in rows} - {"schema_migration"}


def _assert_recipe_holds(report: dict, tmp_path: Path, data: Path) -> None:
    assert report["duckdb"] == "1.5.5"
    # Refused as written, for constraints and nothing else; every statement applies without.
    assert report["refused_as_written"], "DuckLake accepted the constraints: update the docs"
    assert all(CONSTRAINT_REFUSAL.match(r["error"]) for r in report["refused_as_written"])
    assert report["failed_without_constraints"] == []
    assert set(report["tables"]) == _product_tables(tmp_path)
    assert "no UNIQUE/PRIMARY KEY constraints" in report["on_conflict"]
    assert "no UNIQUE/PRIMARY KEY constraints" in report["insert_or_replace"]
    assert report["offer_rows_after_two_loads"] == 2
    assert report["ledger_rows"] == 1
    assert report["sorted_by"] == "accepted"
    assert report["serving_rows"] == 2
    assert list(data.rglob("*.parquet")), "the rows were not written as Parquet to the data path"
    assert report["as_documented"] is True


def test_recipe_on_a_duckdb_file_catalog(tmp_path: Path) -> None:
    rc, report, data = _check(str(tmp_path / "catalog.ducklake"), tmp_path)
    assert rc == 0, report
    assert report["catalog"] == "duckdb file"
    _assert_recipe_holds(report, tmp_path, data)
    # One process at a time, like the warehouse file today: what the Postgres catalog lifts.
    assert "Could not set lock" in report["second_process_reads"]


def test_recipe_on_a_postgres_catalog(postgres: dict[str, str], tmp_path: Path) -> None:
    catalog = (
        f"postgres:dbname={LAKE_DB} host=127.0.0.1 port={postgres['DAGSTER_PG_PORT']} "
        f"user={PG_USER} password={PG_PASSWORD}"
    )
    rc, report, data = _check(catalog, tmp_path)
    assert rc == 0, report
    assert report["catalog"] == "postgres"
    _assert_recipe_holds(report, tmp_path, data)
    assert report["second_process_reads"] == 2  # read while the writer held the lake
    # The catalog lives in PostgreSQL, not in a local file.
    # (at least one: other DuckLake tests of the same worker may have made theirs, in their
    # own schemas, in this session's database before this one)
    tables = "SELECT count(*) FROM information_schema.tables WHERE table_name = 'ducklake_table'"
    assert pg_count(postgres, LAKE_DB, tables) >= 1
    offer = "SELECT count(*) FROM ducklake_table WHERE table_name = 'offer'"
    assert pg_count(postgres, LAKE_DB, offer) >= 1
    assert not list(tmp_path.glob("*.ducklake"))
