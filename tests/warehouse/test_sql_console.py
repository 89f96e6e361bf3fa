"""`gpuprice sql` under adversarial input (issue 22): the memory limit applies, --timeout and
--limit are validated and capped by [sql], deep nesting is refused, trailing comments are
fine, table functions with side effects are refused, and the first check refuses every quoted
name the sandbox would read as a file."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from configuration.environment import MEMORY_LIMIT_ENV
from gpuprice.cli import app
from tests.warehouse.test_safe_sql import _home as _home
from tests.warehouse.test_safe_sql import _warehouse_on_ducklake as _warehouse_on_ducklake
from tests.warehouse.test_safe_sql import warehouse as warehouse
from warehouse.read import sql as safe_sql
from warehouse.store.handle import Warehouse

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
# The query: 400 M list entries, 3.2 GB of BIGINTs in one aggregate state.
HUGE_LIST = "SELECT sum(len(l)) FROM (SELECT list(i) AS l FROM range(400000000) t(i))"


@pytest.fixture
def small(warehouse: Warehouse) -> Warehouse:
    """The module's warehouse opened under a 64MB limit."""
    return replace(warehouse, config=replace(warehouse.config, memory_limit="64MB"))


def test_the_sandbox_runs_under_the_configured_memory_limit(small: Warehouse) -> None:
    warehouse = small
    got = safe_sql.run(warehouse, "SELECT current_setting('memory_limit') AS m")
    assert got.rows == [("61.0 MiB",)]  # 64MB as DuckDB prints it, not 80% of the RAM
    spill = safe_sql.run(warehouse, "SELECT current_setting('temp_directory') AS t")
    assert spill.rows == [("",)]  # it does not spill to disk either
    with pytest.raises(safe_sql.QueryTooBig, match="more memory than the limit of 64MB"):
        safe_sql.run(warehouse, HUGE_LIST)
    # the next query runs
    assert safe_sql.run(warehouse, "SELECT 1 AS one").rows == [("1",)]


def test_a_query_too_big_for_the_limit_stops_in_its_own_process(warehouse: Warehouse) -> None:
    """The real command, in a process of its own: it stops with a message and exit code 1
    instead of growing (before: past 4 GB resident in 10 s)."""
    env = os.environ | {MEMORY_LIMIT_ENV: "64MB", "GPUPRICE_HOME": str(warehouse.path.parent)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    done = subprocess.run(
        [sys.executable, "-m", "gpuprice.cli", "sql", HUGE_LIST, "--timeout", "30"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert "needs more memory than the limit of 64MB" in done.stderr
    assert "Traceback" not in done.stderr
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if peak_kib > before:  # this child set the children's peak: it stayed far below 4 GB
        assert peak_kib < 1024 * 1024, peak_kib


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--timeout", "inf"], "--timeout inf is out of range"),
        (["--timeout", "1e12"], "--timeout 1e+12 is out of range"),
        (["--timeout", "nan"], "--timeout nan is out of range"),
        (["--timeout", "0"], "--timeout 0 is out of range"),
        (["--timeout", "-1"], "--timeout -1 is out of range"),
        (["--timeout", "30.5"], "at most 30 ([sql].timeout_s"),
        (["--limit", "0"], "--limit 0 is out of range"),
        (["--limit", "-5"], "--limit -5 is out of range"),
        (["--limit", "10001"], "from 1 to 10000 ([sql].max_rows"),
        (["--limit", "99999999999999999999999"], "from 1 to 10000"),
    ],
)
def test_timeout_and_limit_are_validated_and_capped(
    warehouse: Warehouse, args: list[str], says: str
) -> None:
    result = runner.invoke(app, ["sql", "SELECT 1", *args])
    assert result.exit_code == 2, result.output
    assert says in " ".join(result.stderr.split()), result.stderr
    assert result.stdout == ""


def test_the_caps_come_from_the_sql_section(warehouse: Warehouse, tmp_path: Path) -> None:
    config = tmp_path / "gpuprice.toml"
    config.write_text("[sql]\nmax_rows = 3\ntimeout_s = 2\n", encoding="utf-8")
    query = "SELECT * FROM range(10)"
    over = runner.invoke(app, ["sql", query, "--config", str(config), "--timeout", "2.5"])
    assert over.exit_code == 2 and "at most 2 ([sql].timeout_s" in " ".join(over.stderr.split())
    over = runner.invoke(app, ["sql", query, "--config", str(config), "--limit", "4"])
    assert over.exit_code == 2 and "from 1 to 3" in over.stderr
    capped = runner.invoke(app, ["sql", query, "--config", str(config), "--format", "csv"])
    assert capped.exit_code == 0 and capped.stdout.splitlines() == ["range", "0", "1", "2"]
    assert "only the first 3 rows" in capped.stderr


@pytest.mark.parametrize(
    ("max_rows", "timeout_s"),
    [(0, 1.0), (True, 1.0), (10, float("inf")), (10, float("nan")), (10, 1e12), (10, 0)],
)
def test_run_itself_refuses_limits_out_of_range(
    warehouse: Warehouse, max_rows: int, timeout_s: float
) -> None:
    with pytest.raises(ValueError, match="must be"):
        safe_sql.run(warehouse, "SELECT 1", max_rows=max_rows, timeout_s=timeout_s)


@pytest.mark.parametrize(
    "query",
    [
        "SELECT " + "(SELECT " * 250 + "1" + ")" * 250,  # RecursionError in the checker before
        "SELECT " + "abs(" * 101 + "1" + ")" * 101,
        "SELECT * FROM " + "(SELECT * FROM " * 5000 + "range(1)" + ")" * 5000,
    ],
    ids=["250 subqueries", "101 calls", "5000 subqueries"],
)
def test_deep_nesting_is_refused_with_exit_2(warehouse: Warehouse, query: str) -> None:
    result = runner.invoke(app, ["sql", query])
    assert result.exit_code == 2, result.output
    assert "refused" in result.stderr and "nests" in result.stderr
    assert "Traceback" not in result.output


def test_nesting_up_to_the_limit_runs(warehouse: Warehouse) -> None:
    depth = safe_sql.MAX_NESTING - 1
    query = "SELECT " + "(SELECT " * depth + "1" + ")" * depth + " AS v, '((((' AS s -- (((("
    assert safe_sql.run(warehouse, query).rows == [("1", "((((")]


@pytest.mark.parametrize(
    "query",
    [
        "SELECT 1 AS v; -- note",
        "SELECT 1 AS v -- note",
        "SELECT 1 AS v; /* note */ ;",
        "-- a note first\nSELECT 1 AS v;",
        "/* a note */ SELECT 1 AS v /* and one after */",
        "SELECT 1 AS v;;",
    ],
)
def test_comments_around_the_statement_are_fine(warehouse: Warehouse, query: str) -> None:
    result = runner.invoke(app, ["sql", "--format", "csv", "--", query])  # "--": not an option
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "v\n1\n"


def test_comments_do_not_hide_a_second_statement_or_change_explain(warehouse: Warehouse) -> None:
    two = runner.invoke(app, ["sql", "SELECT 1; -- note\nDELETE FROM gpu_spec"])
    assert two.exit_code == 2 and "2 statements given" in two.stderr
    explain = runner.invoke(app, ["sql", "--", "-- why slow?\nEXPLAIN SELECT * FROM gpu_spec"])
    assert explain.exit_code == 0, explain.stderr
    hidden = runner.invoke(app, ["sql", "/* x */ EXPLAIN SELECT * FROM read_csv('/etc/passwd')"])
    assert hidden.exit_code == 2 and "read_csv" in hidden.stderr


@pytest.mark.parametrize(
    "function",
    [
        "checkpoint()",
        "force_checkpoint()",
        "enable_logging()",
        "disable_logging()",
        "truncate_duckdb_logs()",
        "enable_profiling()",
        "python_map_function('x', 'y', 'z')",
        "arrow_scan(0, 0, 0)",
        "pandas_scan(0)",
        "register_external_resource('x')",
        "duckdb_secrets()",
        "ducklake_expire_snapshots('warehouse')",
    ],
)
def test_table_functions_with_side_effects_are_refused(warehouse: Warehouse, function: str) -> None:
    result = runner.invoke(app, ["sql", f"SELECT * FROM {function}"])
    assert result.exit_code == 2, result.output
    assert "refused" in result.stderr
    assert "Success" not in result.stdout


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM range(3)",
        "SELECT * FROM generate_series(1, 3)",
        "SELECT * FROM duckdb_tables()",
        "SELECT * FROM pragma_table_info('offer')",
        "SELECT count(*) FROM duckdb_tables",
        "SELECT * FROM unnest([1, 2])",
    ],
)
def test_read_only_table_functions_are_allowed(warehouse: Warehouse, query: str) -> None:
    result = runner.invoke(app, ["sql", query, "--format", "csv"])
    assert result.exit_code == 0, result.stderr


FILE_NAMES = [
    "x.csv?",
    "x.csv?a=1",
    "x.parquet?",
    "x.json?",
    "x.csv.gz",
    "x.tsv",
    "x.jsonl.zst",
    "data/*.parquet",
    "*.csv",
    "s3://bucket/key",
    "https://example.com/x",
    "X.CSV",
    "x.arrow",
    "x.xlsx",
    "~/x.csv",
    "x.ndjson?y",
]


@pytest.mark.parametrize("name", FILE_NAMES)
def test_the_first_check_refuses_every_quoted_file_name(warehouse: Warehouse, name: str) -> None:
    with pytest.raises(safe_sql.UnsafeQuery, match="not a warehouse table"):
        safe_sql.check(f"SELECT * FROM '{name}'")
    with pytest.raises(safe_sql.UnsafeQuery, match="not a warehouse table"):
        safe_sql.check(f'WITH t AS (SELECT 1) SELECT * FROM t, "{name}"')


def test_the_check_refuses_whatever_the_sandbox_refuses_as_a_file(warehouse: Warehouse) -> None:
    """Each quoted name run straight on the sandbox (no check): every one the sandbox stops
    because it reads files is refused by the check first."""
    con = safe_sql._sandbox(warehouse, 5)
    try:
        stopped = []
        for name in FILE_NAMES:
            try:
                con.sql(f"SELECT * FROM '{name}'").fetchall()
            except safe_sql.duckdb.Error as exc:
                if "external access" in str(exc).lower() or "disabled" in str(exc).lower():
                    stopped.append(name)
    finally:
        con.close()
    assert {"x.csv?", "x.parquet?", "x.csv?a=1"} <= set(stopped), stopped
    for name in stopped:
        with pytest.raises(safe_sql.UnsafeQuery):
            safe_sql.check(f"SELECT * FROM '{name}'")


def test_plain_table_names_still_pass_the_check() -> None:
    for query in ("SELECT * FROM offer", 'SELECT * FROM "gpu_spec"', "SELECT * FROM main.offer"):
        assert safe_sql.check(query) == query


def test_a_data_frame_in_scope_is_not_read_as_a_table(warehouse: Warehouse) -> None:
    secret_frame = pl.DataFrame({"password": ["hunter2"]})  # DuckDB would scan it by name
    assert secret_frame.height == 1
    with pytest.raises(safe_sql.duckdb.Error, match="secret_frame"):
        safe_sql.run(warehouse, "SELECT * FROM secret_frame")
