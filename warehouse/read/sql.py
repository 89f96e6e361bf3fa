"""Ad-hoc SQL over the warehouse (`gpuprice sql`, and any query box): read-only, one query,
a row limit, a timeout, and no access to files, URLs or extensions.

Two layers, so that one mistake in either does not open the warehouse up:

1. :func:`check` parses the text with DuckDB's own parser (``duckdb.extract_statements`` for
   the statement type, ``json_serialize_sql`` for the syntax tree) and refuses anything but
   one ``SELECT`` / ``WITH`` / ``FROM`` / ``DESCRIBE`` / ``SHOW`` / ``SUMMARIZE`` /
   ``EXPLAIN``, and any query that names a file- or URL-reading function or a quoted file
   or URL as a table. The message says what is allowed.
2. :func:`run` executes on a private in-memory DuckDB that ATTACHes the warehouse file
   ``READ_ONLY``, then sets ``enable_external_access = false`` and
   ``lock_configuration = true``: even a query that got past the check can neither write,
   nor read or write a file, nor load an extension, nor change a setting. A timer thread
   interrupts the query at the timeout; at most ``max_rows`` rows are fetched.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from warehouse.store.db import WarehouseMissing, attach_read_only, warehouse_exists

ALLOWED = (
    "one read-only query: SELECT, WITH … SELECT, FROM …, DESCRIBE t, SHOW TABLES, SUMMARIZE t "
    "or EXPLAIN, over the warehouse's tables (list them with SHOW TABLES)"
)
_READ_TYPES = {"SELECT", "EXPLAIN"}
# Table and scalar functions that read files, URLs or other databases, or run SQL text that
# the check could not see. Anything that starts with read_ or ends with _scan is refused too.
_DENIED_FUNCTIONS = frozenset(
    {
        "glob",
        "query",
        "query_table",
        "sniff_csv",
        "parquet_metadata",
        "parquet_schema",
        "parquet_file_metadata",
        "parquet_kv_metadata",
        "parquet_bloom_probe",
        "sqlite_attach",
        "st_read",
        "st_read_meta",
        "duckdb_secrets",
        "which_secret",
        "load_aws_credentials",
        "json_execute_serialized_sql",
        "delta_scan",
        "iceberg_scan",
        "iceberg_metadata",
        "iceberg_snapshots",
    }
)
_EXPLAIN = re.compile(r"^\s*explain\s+(analyze\s+)?", re.IGNORECASE)
_FILE_LIKE = re.compile(r"[/\\:]|\.(csv|tsv|parquet|json|jsonl|ndjson|txt|gz|zst|db|duckdb)$", re.I)


class UnsafeQuery(ValueError):
    """The query was refused; the message says why and what is allowed."""


class QueryTimeout(RuntimeError):
    """The query ran longer than the timeout and was interrupted."""


@dataclass(frozen=True, slots=True)
class QueryResult:
    frame: pl.DataFrame
    truncated: bool  # more rows than max_rows existed; only the first max_rows are kept
    seconds: float


def _refuse(why: str) -> UnsafeQuery:
    return UnsafeQuery(f"refused: {why}. Allowed: {ALLOWED}.")


def _function_denied(name: str) -> bool:
    name = name.lower()
    return name in _DENIED_FUNCTIONS or name.startswith("read_") or name.endswith("_scan")


def _walk(node: Any) -> list[str]:
    """Every problem found in a serialized syntax tree."""
    problems: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
            continue
        if not isinstance(item, dict):
            continue
        name = item.get("function_name")
        if isinstance(name, str) and _function_denied(name):
            problems.append(f"function {name}() reads files, URLs or other databases")
        if item.get("type") == "BASE_TABLE":
            table = str(item.get("table_name", ""))
            if _FILE_LIKE.search(table):
                problems.append(f"{table!r} is a file or URL, not a warehouse table")
        stack.extend(item.values())
    return problems


def check(sql: str) -> str:
    """The one statement of ``sql``, stripped, or :class:`UnsafeQuery` saying why not."""
    text = sql.strip().rstrip(";").strip()
    if not text:
        raise _refuse("the query is empty")
    try:
        statements = duckdb.extract_statements(text)
    except duckdb.Error as exc:
        raise UnsafeQuery(f"the query does not parse: {exc}. Allowed: {ALLOWED}.") from None
    if len(statements) != 1:
        raise _refuse(f"{len(statements)} statements given; give exactly one")
    kind = statements[0].type.name
    if kind not in _READ_TYPES:
        raise _refuse(f"{kind} statements change state or reach outside the warehouse")
    inner = _EXPLAIN.sub("", text, count=1) if kind == "EXPLAIN" else text
    with duckdb.connect(":memory:") as parser:
        tree = parser.execute("SELECT json_serialize_sql(?)", [inner]).fetchone()[0]
    parsed = json.loads(tree)
    if parsed.get("error"):
        raise _refuse(f"the query cannot be checked ({parsed.get('error_message', 'unknown')})")
    problems = _walk(parsed.get("statements", []))
    if problems:
        raise _refuse("; ".join(sorted(set(problems))))
    return text


def _sandbox(path: Path, wait_s: float) -> duckdb.DuckDBPyConnection:
    """A private in-memory DuckDB with the warehouse attached read-only, external access off
    and the configuration locked."""
    if not warehouse_exists(path):
        raise WarehouseMissing(f"no warehouse at {path} yet: run `gpuprice run` or `make up` first")
    con = duckdb.connect(":memory:")
    try:
        attach_read_only(con, path, wait_s=wait_s)
        con.execute("USE warehouse")
        con.execute("SET enable_external_access = false")
        con.execute("SET autoinstall_known_extensions = false")
        con.execute("SET autoload_known_extensions = false")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def run(
    path: Path,
    sql: str,
    *,
    max_rows: int = 10_000,
    timeout_s: float = 30.0,
    wait_s: float = 15.0,
) -> QueryResult:
    """Check ``sql`` and run it read-only; raise UnsafeQuery, QueryTimeout, WarehouseMissing,
    WarehouseBusy, or duckdb.Error for a query that fails on its own."""
    text = check(sql)
    con = _sandbox(path, wait_s)
    fired = threading.Event()

    def interrupt() -> None:
        fired.set()
        con.interrupt()

    timer = threading.Timer(timeout_s, interrupt)
    started = time.monotonic()
    timer.start()
    try:
        frame = con.sql(text).limit(max_rows + 1).pl()
    except duckdb.InterruptException:
        raise QueryTimeout(
            f"query interrupted after {timeout_s:g} s (the timeout); narrow it with WHERE or "
            "LIMIT, or raise --timeout"
        ) from None
    except duckdb.Error:
        if fired.is_set():
            raise QueryTimeout(f"query interrupted after {timeout_s:g} s (the timeout)") from None
        raise
    finally:
        timer.cancel()
        con.close()
    truncated = frame.height > max_rows
    return QueryResult(frame.head(max_rows), truncated, time.monotonic() - started)
