"""The product on a DuckLake, with only configuration changing (docs/SCALING.md): the
product's own warehouse tests, run again in the DuckLake environment (``.venv-ducklake``:
DuckDB 1.5.5, the ducklake and postgres extensions from PyPI, the product's other
dependencies) with ``GPUPRICE_TEST_DUCKLAKE`` set, which gives every test a lake of its own
instead of a warehouse file and fails it if a warehouse file was written (tests/conftest.py).
On a PostgreSQL catalog (the deployment's; conftest.py's server, one catalog schema per test)
and, shorter, on a DuckDB-file catalog; the rows are Parquet files in a local data path
(an ``s3://`` data path on a moto S3 server: test_ducklake_s3.py).

A lake costs ~2 s to create and migrate and every transaction a few catalog round trips, so
``make test`` runs a selection (QUICK: loading, the Dagster pipeline, which derives, with
alerts and delivery, a writer killed mid-transaction, `gpuprice sql`, the serving copy's
answers, backup; on a DuckDB-file catalog, loading and a backfill) and ``make test-ducklake``
every warehouse module and the backfill (FULL, ~11 min). Deselected in both, for reasons that
are the lake's: restoring a backup (`gpuprice restore` refuses a lake:
tests/warehouse/test_lake_config.py), upgrading a warehouse file of an older schema, and the
readers-during-writes test (its readers start when the warehouse file appears, which on a
lake it never does; a second process reading while a writer holds a PostgreSQL-catalog lake
is checked by test_ducklake.py).
"""

from __future__ import annotations

import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.deploy.conftest import LAKE_DB, PG_PASSWORD, PG_USER, pg_count

pytestmark = pytest.mark.deploy

ROOT = Path(__file__).resolve().parents[2]
LAKE_PYTHON = ROOT / ".venv-ducklake" / "bin" / "python"

FULL = [
    "tests/warehouse/test_warehouse_load.py",
    "tests/warehouse/test_quarantine.py",
    "tests/warehouse/derive/test_derive.py",
    "tests/warehouse/derive/test_alerts.py",
    "tests/warehouse/derive/test_notify.py",
    "tests/pipelines/test_pipeline_metrics.py",
    "tests/warehouse/test_serving.py",
    "tests/warehouse/test_offer_daily.py",
    "tests/warehouse/test_safe_sql.py",
    "tests/warehouse/test_backup_retention.py",
    "tests/warehouse/test_concurrency.py",
    "tests/warehouse/test_crash_safety.py",
    "tests/warehouse/test_history_bulk.py",
    "tests/warehouse/test_fx_at_load.py",
    "tests/warehouse/test_rollup_real_apart.py",
    "tests/warehouse/derive/test_history_alerts.py",
    "tests/warehouse/derive/test_index.py",
    "tests/warehouse/derive/test_index_alerts.py",
    "tests/pipelines/test_backfill.py",
]
QUICK = [  # test_derive.py's cases run in FULL; the pipeline and serving tests derive here
    "tests/warehouse/test_warehouse_load.py",
    # the Dagster job end to end (the sensor's retries are the instance's, not the lake's)
    "tests/pipelines/test_pipeline_metrics.py::test_scrape_job_derives_alerts_and_delivers_once",
    # one writer killed mid-transaction (the other crash cases run in FULL: on a lake they
    # took ~150 s of `make test`'s ~10 min budget, issue 36)
    "tests/warehouse/test_crash_safety.py::test_sigkill_inside_the_load_transaction",
    "tests/warehouse/test_safe_sql.py",
    "tests/warehouse/test_serving.py::test_served_queries_equal_warehouse_queries",
    "tests/warehouse/test_backup_retention.py::test_backup_holds_every_table_with_its_rows",
]
ON_DUCKDB_FILE = [
    "tests/warehouse/test_warehouse_load.py",
    # a backfill's derive beside its open write connection: a DuckDB-file catalog refuses a
    # second attach of the lake in one process
    "tests/pipelines/test_backfill.py::test_alerts_about_the_days_are_dated_by_them_and_not_delivered",
]
DESELECTED = [
    "tests/warehouse/test_serving.py::test_restore_drops_the_copy_of_the_replaced_warehouse",
    "tests/warehouse/test_backup_retention.py::test_backup_during_writes_is_consistent_and_restores",
    "tests/warehouse/test_concurrency.py::test_readers_during_writes_see_no_lock_errors_and_the_writer_finishes",
    "tests/pipelines/test_backfill.py::test_a_restore_is_refused_while_the_backfill_runs",
    # upgrades a warehouse file of the schema before 012 (a lake is created at the newest)
    "tests/warehouse/test_rollup_real_apart.py::test_migration_012_upgrades_a_warehouse_of_the_previous_schema",
]
FULL_RUN = os.environ.get("GPUPRICE_DUCKLAKE_FULL") == "1"  # make test-ducklake


def run_on_lake(
    catalog: str, tests: list[str], tmp_path: Path, env: dict[str, str] | None = None
) -> dict[str, int]:
    """Run ``tests`` in the DuckLake environment, each on a new lake in ``catalog`` (with
    ``env`` added: test_ducklake_s3.py's object store); the junit counts."""
    if not LAKE_PYTHON.exists():
        pytest.skip("the DuckLake environment is not built: run `make ducklake-deps`")
    report = tmp_path / "lake-tests.xml"
    proc = subprocess.run(
        [str(LAKE_PYTHON), "-m", "pytest", "-q", "-p", "no:cacheprovider",
         # pyproject's warning filters name dagster's classes; harmless where it is missing
         "-W", "ignore::pytest.PytestConfigWarning", f"--junitxml={report}",
         *tests, *(f"--deselect={t}" for t in DESELECTED)],
        cwd=ROOT, env=os.environ | {"GPUPRICE_TEST_DUCKLAKE": catalog} | (env or {}),
        capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite is not None
    return {k: int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped")}


def test_the_warehouse_tests_pass_on_a_postgres_catalog(
    postgres: dict[str, str], tmp_path: Path
) -> None:
    dsn = (
        f"dbname={LAKE_DB} host=127.0.0.1 port={postgres['DAGSTER_PG_PORT']} "
        f"user={PG_USER} password={PG_PASSWORD}"
    )
    counts = run_on_lake(dsn, FULL if FULL_RUN else QUICK, tmp_path)
    assert counts["failures"] == counts["errors"] == counts["skipped"] == 0, counts
    assert counts["tests"] > (120 if FULL_RUN else 60), counts  # not an empty selection
    # The lakes' catalogs were PostgreSQL's: one schema per test, with DuckLake's tables and
    # the offers' data files listed in them.
    schemas = pg_count(
        postgres,
        LAKE_DB,
        "SELECT count(DISTINCT table_schema) FROM information_schema.tables "
        "WHERE table_schema ~ %s AND table_name = 'ducklake_data_file'",
        (r"^t\d+_\d+$",),
    )
    assert schemas > (60 if FULL_RUN else 10), schemas  # 13 in QUICK: safe_sql, a lake a module


def test_the_load_tests_pass_on_a_duckdb_file_catalog(tmp_path: Path) -> None:
    counts = run_on_lake("duckdb", ON_DUCKDB_FILE, tmp_path)
    assert counts["failures"] == counts["errors"] == counts["skipped"] == 0, counts
    assert counts["tests"] >= 12, counts
