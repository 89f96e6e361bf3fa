"""`gpuprice sql` is read-only, capped and interruptible; it refuses writes, ATTACH, COPY,
INSTALL / LOAD, PRAGMA / SET and file- or URL-reading functions (exit code 2)."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuprice.cli import app
from scrapers.gpu_names import CANONICAL_GPUS
from tests.conftest import ducklake_env
from tests.support.handles import warehouse_at
from warehouse.ingest.reference import load_reference
from warehouse.read import sql as safe_sql
from warehouse.read import sql_child
from warehouse.store.db import read_frame, write_connection
from warehouse.store.handle import Warehouse

runner = CliRunner()


@pytest.fixture(scope="module", autouse=True)
def _warehouse_on_ducklake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One lake for the module's one warehouse (replaces tests/conftest.py's lake per test)."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in ducklake_env(tmp_path_factory.mktemp("ducklake")).items():
            patch.setenv(name, value)
        yield


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    tmp = tmp_path_factory.mktemp("safe_sql")
    path = tmp / "home" / "gpuprice.duckdb"
    with write_connection(warehouse_at(path)) as con:
        load_reference(con)
    (tmp / "secret.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    return warehouse_at(path)


@pytest.fixture(autouse=True)
def _home(warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUPRICE_HOME", str(warehouse.path.parent))
    monkeypatch.delenv("GPUPRICE_CONFIG", raising=False)
    monkeypatch.delenv("GPUPRICE_PROFILE", raising=False)


REFUSED = [
    "DELETE FROM gpu_spec",
    "INSERT INTO gpu_spec SELECT * FROM gpu_spec",
    "UPDATE offer SET price = 1",
    "CREATE TABLE t (a INT)",
    "DROP TABLE gpu_spec",
    "ATTACH '/tmp/other.duckdb' AS o",
    "DETACH warehouse",
    "COPY gpu_spec TO '/tmp/out.csv'",
    "COPY (SELECT 1) TO '/tmp/out.parquet' (FORMAT parquet)",
    "EXPORT DATABASE '/tmp/dump'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "PRAGMA enable_profiling",
    "SET threads = 1",
    "SET enable_external_access = true",
    "RESET lock_configuration",
    "USE memory",
    "CHECKPOINT",
    "VACUUM",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_csv_auto('SECRET')",
    "SELECT * FROM read_parquet('x.parquet')",
    "SELECT * FROM read_json_auto('x.json')",
    "SELECT * FROM read_text('/etc/hostname')",
    "SELECT * FROM read_blob('/etc/hostname')",
    "SELECT * FROM glob('/*')",
    "SELECT * FROM 'SECRET'",
    "SELECT * FROM '/etc/passwd'",
    "SELECT * FROM 'https://example.com/data.csv'",
    "SELECT * FROM sqlite_scan('x.db', 't')",
    "SELECT * FROM parquet_scan('x.parquet')",
    "SELECT * FROM query('DROP TABLE gpu_spec')",
    "WITH x AS (SELECT * FROM read_csv('SECRET')) SELECT * FROM gpu_spec, x",
    "SELECT (SELECT count(*) FROM read_csv('SECRET')) FROM gpu_spec",
    "EXPLAIN SELECT * FROM read_csv('SECRET')",
    "SELECT 1; DROP TABLE gpu_spec",
]


@pytest.mark.parametrize("query", REFUSED)
def test_refused_with_exit_2_and_what_is_allowed(warehouse: Warehouse, query: str) -> None:
    secret = warehouse.path.parent.parent / "secret.csv"
    result = runner.invoke(app, ["sql", query.replace("SECRET", str(secret))])
    assert result.exit_code == 2, result.output
    assert "refused" in result.stderr and "Allowed:" in result.stderr
    assert "1,2" not in result.stdout
    assert read_frame(warehouse, "SELECT count(*) FROM gpu_spec").item() == len(CANONICAL_GPUS)


@pytest.mark.parametrize(
    "query",
    [
        "SELECT gpu FROM gpu_spec ORDER BY gpu",
        "FROM gpu_spec SELECT gpu",
        "WITH g AS (SELECT gpu FROM gpu_spec) SELECT count(*) FROM g",
        "DESCRIBE gpu_spec",
        "SHOW TABLES",
        "SUMMARIZE gpu_spec",
        "EXPLAIN SELECT * FROM gpu_spec",
        "SELECT 'read_csv(x)' AS text_is_fine",
        "SELECT * FROM pragma_table_info('offer')",
    ],
)
def test_read_only_queries_are_allowed(warehouse: Warehouse, query: str) -> None:
    result = runner.invoke(app, ["sql", query, "--format", "csv"])
    assert result.exit_code == 0, result.stderr


def test_sandbox_blocks_what_the_check_might_miss(warehouse: Warehouse, tmp_path: Path) -> None:
    """Second layer: even bypassing check(), the connection cannot write, read files or change
    settings."""
    con = safe_sql._sandbox(warehouse, 5)
    try:
        for statement in (
            "INSERT INTO gpu_spec SELECT * FROM gpu_spec",
            f"SELECT * FROM read_csv('{tmp_path / 'secret.csv'}')",
            f"COPY gpu_spec TO '{tmp_path / 'out.csv'}'",
            f"ATTACH '{tmp_path / 'o.duckdb'}' AS o",
            "SET enable_external_access = true",
            "SET lock_configuration = false",
        ):
            with pytest.raises(safe_sql.duckdb.Error):
                con.execute(statement)
    finally:
        con.close()
    assert not (tmp_path / "out.csv").exists() and not (tmp_path / "o.duckdb").exists()


def test_row_limit(warehouse: Warehouse) -> None:
    result = runner.invoke(
        app, ["sql", "SELECT range AS i FROM range(100)", "--limit", "7", "--format", "csv"]
    )
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) == 8  # header + 7 rows
    assert "only the first 7 rows" in result.stderr
    got = safe_sql.run(warehouse, "SELECT range FROM range(5)", max_rows=5)
    assert len(got.rows) == 5 and not got.truncated


def test_timeout_interrupts_a_runaway_query(
    warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    children: list[subprocess.Popen] = []
    start = subprocess.Popen

    def started(*args: Any, **kwargs: Any) -> subprocess.Popen:
        children.append(start(*args, **kwargs))
        return children[-1]

    with monkeypatch.context() as patch:
        patch.setattr(sql_child.subprocess, "Popen", started)
        result = runner.invoke(
            app,
            [
                "sql",
                "SELECT count(*) FROM range(1000000000000) a, range(1000) b",
                "--timeout",
                "0.5",
            ],
        )
    assert result.exit_code == 1
    assert "interrupted after 0.5 s" in result.stderr
    # interrupted, not waited for: the query's process was killed at the timeout
    assert [child.returncode for child in children] == [-signal.SIGKILL]
    # the warehouse is unharmed and the next query runs
    got = safe_sql.run(warehouse, "SELECT count(*) AS n FROM gpu_spec")
    assert got.rows == [(str(len(CANONICAL_GPUS)),)]
