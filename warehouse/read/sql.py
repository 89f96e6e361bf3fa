"""Ad-hoc SQL over the warehouse (`gpuprice sql`, and any query box): read-only, one query,
a row limit, a timeout, and no access to files, URLs or extensions.

Two layers, so that one mistake in either does not open the warehouse up:

1. :func:`check` parses the text with DuckDB's own parser (``duckdb.extract_statements`` for
   the statement type, ``json_serialize_sql`` for the syntax tree) and refuses anything but
   one ``SELECT`` / ``WITH`` / ``FROM`` / ``DESCRIBE`` / ``SHOW`` / ``SUMMARIZE`` /
   ``EXPLAIN``, any query that names a file- or URL-reading function, a table function
   that is not on the read-only list (``checkpoint()`` is not), or a table whose name is not
   a plain name (DuckDB reads a quoted ``'x.csv?'`` or ``'s3://…'`` as a file or URL), and a
   query nested too deeply to be checked. The message says what is allowed. Comments before
   and after the statement are fine.
2. :func:`run` executes in a child process (warehouse.read.sql_child) whose address space is
   capped and which is killed at the timeout: DuckDB's memory limit does not track what one
   function's result holds, and such a function ignores the interrupt. In it, the query
   runs on a private in-memory DuckDB under the configured memory limit
   (``GPUPRICE_DUCKDB_MEMORY_LIMIT``; it does not spill to disk, so a query that needs more
   fails with :class:`QueryTooBig`) that ATTACHes the warehouse ``READ_ONLY``, then sets
   ``enable_external_access = false`` and ``lock_configuration = true``: even a query that
   got past the check can neither write, nor read or write a file, nor load an extension,
   nor change a setting. At most ``max_rows`` rows are fetched, rendered as text or JSON by
   DuckDB itself (warehouse.read.sql_output) under the same bounds.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal

import duckdb

from warehouse.read import sql_child
from warehouse.read.sql_output import Row, json_sql, quote, text_sql
from warehouse.store.config import DEFAULT_MEMORY_LIMIT
from warehouse.store.db import (
    WarehouseBusy,
    WarehouseMissing,
    WarehouseUnreachable,
    attach_read_only,
    memory_connection,
    warehouse_exists,
)
from warehouse.store.faults import DiskFull, WarehouseCorrupt, WarehouseLost, WarehouseReadOnly
from warehouse.store.handle import Warehouse
from warehouse.store.marker import lost, marker_path, refuse_if_lost

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
        "write_log",
    }
)
# Table functions a query may call: they read the catalog or make rows, and change nothing.
# Every other one is refused: checkpoint() and force_checkpoint() write, enable_logging(),
# truncate_duckdb_logs() and the external-resource functions change the instance, arrow_scan()
# and pandas_scan() read process memory, and extensions add more (ducklake_expire_snapshots).
_TABLE_FUNCTIONS = frozenset(
    {
        "range",
        "generate_series",
        "unnest",
        "repeat",
        "repeat_row",
        "summary",
        "json_each",
        "json_tree",
        "histogram",
        "histogram_values",
        "test_all_types",
        "test_vector_types",
        "icu_calendar_names",
        "pg_timezone_names",
        "pragma_table_info",
        "pragma_storage_info",
        "pragma_database_size",
        "pragma_metadata_info",
        "pragma_show",
        "pragma_collations",
        "pragma_version",
        "pragma_platform",
        "duckdb_columns",
        "duckdb_constraints",
        "duckdb_databases",
        "duckdb_dependencies",
        "duckdb_functions",
        "duckdb_indexes",
        "duckdb_keywords",
        "duckdb_schemas",
        "duckdb_sequences",
        "duckdb_tables",
        "duckdb_types",
        "duckdb_views",
        "ducklake_snapshots",
        "ducklake_table_info",
    }
)
_EXPLAIN = re.compile(r"^explain\s+(analyze\s+)?", re.IGNORECASE)
# A warehouse table's name is a plain word; DuckDB reads a quoted name with a dot, a slash, a
# colon, a "?" or a "*" ('x.csv', 'x.csv?', 's3://b/k', 'data/*.parquet') as a file or URL.
_TABLE_NAME = re.compile(r"[\w$]+")
# Well above any query a person writes, and below where json.loads of the syntax tree would
# hit Python's recursion limit (250 nested scalar subqueries did).
MAX_NESTING = 100


class UnsafeQuery(ValueError):
    """The query was refused; the message says why and what is allowed."""


class QueryTimeout(RuntimeError):
    """The query ran longer than the timeout and was interrupted."""


class QueryTooBig(RuntimeError):
    """The query needed more memory than the configured limit and was stopped."""


Render = Literal["text", "json"]


@dataclass(frozen=True, slots=True)
class QueryResult:
    columns: list[str]
    types: list[str]  # DuckDB's name of each column's type
    rows: list[Row]  # each value as text or as JSON (see render), text None for NULL
    truncated: bool  # more rows than max_rows existed; only the first max_rows are kept
    seconds: float


def _refuse(why: str) -> UnsafeQuery:
    return UnsafeQuery(f"refused: {why}. Allowed: {ALLOWED}.")


def _function_denied(name: str) -> bool:
    name = name.lower()
    return name in _DENIED_FUNCTIONS or name.startswith("read_") or name.endswith("_scan")


def _table_function_problem(name: str) -> str | None:
    if name.lower() in _TABLE_FUNCTIONS:
        return None
    return (
        f"table function {name}() is not one of the read-only ones "
        f"({', '.join(sorted(_TABLE_FUNCTIONS))})"
    )


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
        if item.get("type") == "TABLE_FUNCTION":
            called = (item.get("function") or {}).get("function_name")
            problem = _table_function_problem(str(called)) if called else None
            if problem and not _function_denied(str(called)):  # that one is said already
                problems.append(problem)
        if item.get("type") == "BASE_TABLE":
            table = str(item.get("table_name", ""))
            if not _TABLE_NAME.fullmatch(table):
                problems.append(
                    f"{table!r} is not a warehouse table: DuckDB reads a quoted name with "
                    "anything but letters, digits and _ as a file or URL"
                )
        stack.extend(item.values())
    return problems


def _tokens(sql: str) -> list[tuple[str, int, bool]]:
    """DuckDB's tokens of ``sql``: each one's text, where it starts, and whether it is a
    comment (a string or a quoted name is one token)."""
    found = duckdb.tokenize(sql)
    ends = [offset for offset, _ in found[1:]] + [len(sql)]
    return [
        (sql[offset:end].rstrip(), offset, kind == duckdb.token_type.comment)
        for (offset, kind), end in zip(found, ends, strict=True)
    ]


def _statement_text(sql: str, tokens: list[tuple[str, int, bool]]) -> str:
    """``sql`` without the comments and semicolons before and after its statement (a
    trailing ``; -- note`` would break the query it is wrapped in to cap its rows)."""
    code = [(text, at) for text, at, comment in tokens if not comment and text != ";"]
    if not code:
        return ""
    last, at = code[-1]
    return sql[code[0][1] : at + len(last)]


def _nesting(tokens: list[tuple[str, int, bool]]) -> int:
    """How deep the parentheses go, outside strings and comments."""
    depth = deepest = 0
    for text, _, comment in tokens:
        if not comment and text in ("(", ")"):
            depth += 1 if text == "(" else -1
            deepest = max(deepest, depth)
    return deepest


def check(sql: str) -> str:
    """The one statement of ``sql``, without the comments around it, or :class:`UnsafeQuery`
    saying why not."""
    tokens = _tokens(sql)
    text = _statement_text(sql, tokens)
    if not text:
        raise _refuse("the query is empty")
    if _nesting(tokens) > MAX_NESTING:
        raise _refuse(
            f"the query nests parentheses more than {MAX_NESTING} deep; flatten it with WITH"
        )
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
    with memory_connection(DEFAULT_MEMORY_LIMIT, None) as parser:  # parsing only
        tree = parser.execute("SELECT json_serialize_sql(?)", [inner]).fetchone()[0]
    try:
        parsed = json.loads(tree)
    except RecursionError:  # a tree deeper than the parentheses show
        raise _refuse("the query nests too deeply to be checked; flatten it with WITH") from None
    if parsed.get("error"):
        raise _refuse(f"the query cannot be checked ({parsed.get('error_message', 'unknown')})")
    problems = _walk(parsed.get("statements", []))
    if problems:
        raise _refuse("; ".join(sorted(set(problems))))
    return text


def _sandbox(warehouse: Warehouse, wait_s: float) -> duckdb.DuckDBPyConnection:
    """A private in-memory DuckDB under the warehouse's memory limit, with it
    attached read-only, external access off, Python variables out of reach (DuckDB would
    read a data frame in scope as a table of its name) and the configuration locked."""
    if not warehouse_exists(warehouse):
        raise _missing(warehouse)
    # No spilling: the memory limit bounds the query, and the disk stays out of reach too.
    con = memory_connection(warehouse.memory_limit, None, python_enable_replacements=False)
    try:
        attach_read_only(con, warehouse, wait_s=wait_s)
        con.execute("USE warehouse")
        con.execute("SET TimeZone = 'UTC'")  # the warehouse's times are UTC; so is the output
        con.execute("SET enable_external_access = false")
        con.execute("SET autoinstall_known_extensions = false")
        con.execute("SET autoload_known_extensions = false")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


# Far beyond any query a person waits for; [sql].timeout_s caps the CLI's far below this.
MAX_TIMEOUT_S = 86_400.0


def _validate(max_rows: int, timeout_s: float) -> None:
    if isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 1:
        raise ValueError(f"max_rows must be a whole number of at least 1, not {max_rows!r}")
    if not (isinstance(timeout_s, int | float) and math.isfinite(timeout_s)):
        raise ValueError(f"timeout_s must be a finite number of seconds, not {timeout_s!r}")
    if not 0 < timeout_s <= MAX_TIMEOUT_S:
        raise ValueError(
            f"timeout_s must be above 0 and at most {MAX_TIMEOUT_S:g}, not {timeout_s}"
        )


def _rendered(rel: duckdb.DuckDBPyRelation, render: Render) -> list[Row]:
    """The rows of ``rel``, every value rendered by DuckDB (warehouse.read.sql_output); the
    columns are renamed by position, so a name used twice or any character in a name is fine."""
    names = [f"c{i}" for i in range(len(rel.columns))]
    value = text_sql if render == "text" else json_sql
    select = ", ".join(value(quote(n), t) for n, t in zip(names, rel.types, strict=True))
    if not select:
        return []
    return rel.query("q", f"SELECT {select} FROM q AS q({', '.join(names)})").fetchall()


def run(
    warehouse: Warehouse,
    sql: str,
    *,
    max_rows: int = 10_000,
    timeout_s: float = 30.0,
    wait_s: float = 15.0,
    render: Render = "text",
) -> QueryResult:
    """Check ``sql`` and run it read-only in a child process; the rows rendered as text
    (table, CSV) or JSON. Raise UnsafeQuery, QueryTimeout, QueryTooBig, WarehouseMissing,
    WarehouseBusy, or duckdb.Error for a query that fails on its own; ValueError for a
    ``max_rows`` or ``timeout_s`` out of range. Refused queries start no process."""
    _validate(max_rows, timeout_s)
    text = check(sql)
    if not warehouse_exists(warehouse):
        refuse_if_lost(warehouse.path)
        raise _missing(warehouse)
    job = sql_child.Job(warehouse, text, max_rows, render, wait_s, timeout_s)
    try:
        reply = sql_child.run_in_child(job)
    except sql_child.ChildTimedOut:
        raise QueryTimeout(
            f"query interrupted after {timeout_s:g} s (the timeout); narrow it with WHERE or "
            "LIMIT, or raise --timeout"
        ) from None
    except sql_child.ChildLost:  # an allocation failed where DuckDB could not catch it
        raise _too_big(warehouse.memory_limit) from None
    except sql_child.ChildNotReady as exc:
        raise WarehouseUnreachable(f"{exc}; try again") from None
    return _result(reply, warehouse.memory_limit)


def _refuse_if_empty(con: duckdb.DuckDBPyConnection, warehouse: Warehouse) -> None:
    """A name not found in a warehouse with no tables at all: say that, not "list its
    tables" (a file that lost its tables where one was kept: restore a backup)."""
    tables = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = 'warehouse'"
    ).fetchone()[0]
    if tables:
        return
    if warehouse.lake is None and marker_path(warehouse.path).exists():
        raise lost(warehouse.path, "has no tables")
    raise WarehouseMissing(
        f"the warehouse {warehouse.describe()} has no tables yet: run `gpuprice run` or "
        "`make up` first"
    )


def _missing(warehouse: Warehouse) -> WarehouseMissing:
    return WarehouseMissing(
        f"no warehouse at {warehouse.path} yet: run `gpuprice run` or `make up` first"
    )


def _too_big(memory_limit: str) -> QueryTooBig:
    return QueryTooBig(
        f"query stopped: it needs more memory than the limit of {memory_limit} "
        "(GPUPRICE_DUCKDB_MEMORY_LIMIT); narrow it with WHERE, aggregate before "
        "collecting lists, or raise the limit"
    )


# The errors a child reports by name, raised again as they are in the parent.
_PASSED_ON: dict[str, type[Exception]] = {
    cls.__name__: cls
    for cls in (
        UnsafeQuery,
        WarehouseMissing,
        WarehouseBusy,
        WarehouseUnreachable,
        WarehouseCorrupt,
        WarehouseLost,
        WarehouseReadOnly,
        DiskFull,
    )
}


def _result(reply: dict[str, Any], memory_limit: str) -> QueryResult:
    """The child's answer as a QueryResult, or the error it reported."""
    if "result" in reply:
        got = reply["result"]
        rows = [tuple(row) for row in got.pop("rows")]
        return QueryResult(rows=rows, **got)
    kind, message = reply["error"], reply.get("message", "")
    if kind == "QueryTooBig":
        raise _too_big(memory_limit)
    if kind in _PASSED_ON:
        raise _PASSED_ON[kind](message)
    if kind == "duckdb":
        error = getattr(duckdb, reply["class"], duckdb.Error)
        if not (isinstance(error, type) and issubclass(error, duckdb.Error)):
            error = duckdb.Error
        raise error(message)
    raise RuntimeError(f"the query's process failed: {message}")


def answer(job: sql_child.Job, ready: Callable[[], None]) -> dict[str, Any]:
    """The child's half of :func:`run`: open the sandbox, call ``ready`` (which caps the
    child's memory and starts the parent's timeout), run the query; the result or the error
    as a JSON object."""
    try:
        return {"result": asdict(_execute(job, ready))}
    except (duckdb.OutOfMemoryException, MemoryError):
        return {"error": "QueryTooBig"}
    except tuple(_PASSED_ON.values()) as exc:
        return {"error": type(exc).__name__, "message": str(exc)}
    except duckdb.Error as exc:
        return {"error": "duckdb", "class": type(exc).__name__, "message": str(exc)}
    except Exception as exc:  # a bug: say what it was rather than die without an answer
        return {"error": "other", "message": f"{type(exc).__name__}: {exc}"}


def _execute(job: sql_child.Job, ready: Callable[[], None]) -> QueryResult:
    con = _sandbox(job.warehouse, job.wait_s)
    try:
        ready()
        started = time.monotonic()
        try:
            rel = con.sql(job.text)
        except duckdb.CatalogException:
            _refuse_if_empty(con, job.warehouse)
            raise
        if rel is None:  # cannot happen for the statement types check() lets through
            raise _refuse("the statement returns no rows")
        columns, types = list(rel.columns), [str(t) for t in rel.types]
        render: Render = "json" if job.render == "json" else "text"
        rows = _rendered(rel.limit(job.max_rows + 1), render)
    finally:
        con.close()
    truncated = len(rows) > job.max_rows
    seconds = time.monotonic() - started
    return QueryResult(columns, types, rows[: job.max_rows], truncated, seconds)
