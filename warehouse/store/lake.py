"""The warehouse on DuckLake (docs/SCALING.md): attaching it, its writer lock, and the few
statements that differ from the DuckDB file.

``GPUPRICE_DUCKLAKE`` (a warehouse handle's ``config.lake``, parsed by
warehouse.store.environment) switches every warehouse connection (warehouse.store.db) from
the DuckDB file to a DuckLake: catalog in PostgreSQL (or a DuckDB file), rows as Parquet
under a data path. The code above warehouse.store.db is the same
for both. What DuckLake lacks, and what is done instead:

- no PRIMARY KEY / UNIQUE / CHECK ("Not implemented"): the migrations run without those
  clauses (:func:`without_constraints`); NOT NULL and DEFAULT stay; the price tables' CHECKs
  are tested on the rows before they are inserted (:func:`insert_new_frame`);
- so no ``ON CONFLICT`` / ``INSERT OR REPLACE`` (binder error without a key):
  :func:`insert_new` and :func:`insert_new_frame` insert only rows whose key is not there
  yet. On the file they keep ``ON CONFLICT DO NOTHING``, which the primary key's index
  answers without a scan. Upserts are DELETE + INSERT or read-then-write, on both;
- no lock between writers: :func:`writer_lock` (a PostgreSQL advisory lock).

An ``s3://`` data path is reached with the key from the environment (warehouse.store.config
``S3Access``): :func:`attach` gives the attachment a temporary DuckDB secret and probes the
path before ATTACH (:func:`reach_data_path`).

With a PostgreSQL catalog readers on other processes or hosts read while a writer holds the
lake (no file lock).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
from tenacity import Retrying, retry_if_result, stop_after_delay, wait_random_exponential

from warehouse.store.config import (
    DUCKLAKE_DATA_PATH_ENV,
    S3_ENDPOINT_ENV,
    LakeTarget,
    s3_bucket,
)
from warehouse.store.migrations import migration_files

if TYPE_CHECKING:
    import polars as pl

ALIAS = "warehouse"

# DuckLake (1.5) has no PRIMARY KEY / UNIQUE / CHECK: tests/warehouse/test_lake_config.py applies
# every migration with them removed; deploy/ducklake/check_ducklake.py reports any other
# refusal of DuckLake's.
_TABLE_KEY = re.compile(r",\s*(?:PRIMARY KEY|UNIQUE)\s*\([^)]*\)", re.IGNORECASE)
_COLUMN_KEY = re.compile(r"\s+(?:PRIMARY KEY|UNIQUE)(?=[\s,)])", re.IGNORECASE)
_CHECK = re.compile(r"\s+CHECK\s*\((?:[^()]|\([^()]*\))*\)", re.IGNORECASE)


class LakeUnavailable(RuntimeError):
    """The DuckLake could not be attached (extension missing, catalog unreachable)."""


class LakeBusy(RuntimeError):
    """Another process held the lake's writer lock for longer than the wait."""


class LakeNotCreated(LakeUnavailable):
    """A reader attached a catalog no writer has created a DuckLake in yet."""


def without_constraints(sql: str) -> str:
    """``sql`` (DDL) with its PRIMARY KEY, UNIQUE and CHECK clauses removed."""
    return _CHECK.sub("", _COLUMN_KEY.sub("", _TABLE_KEY.sub("", sql)))


_CREATE_TABLE = re.compile(r"CREATE TABLE\s+(?:IF NOT EXISTS\s+)?(\w+)\s*\(", re.IGNORECASE)
_CHECK_BODY = re.compile(r"\bCHECK\s*(\((?:[^()]|\([^()]*\))*\))", re.IGNORECASE)


@cache
def checks(table: str) -> tuple[str, ...]:
    """The CHECK expressions of ``table`` as the migrations leave them (a table rebuilt as
    ``<table>_vN`` and renamed, as 007 does with offer, takes the rebuilt one's), which a
    DuckLake drops with the DDL: :func:`insert_new_frame` tests the rows with them instead."""
    found: dict[str, tuple[str, ...]] = {}
    for _, _, sql in migration_files():
        text = re.sub(r"--[^\n]*", "", sql)
        for statement in text.split(";"):
            if created := _CREATE_TABLE.search(statement):
                found[created.group(1)] = tuple(_CHECK_BODY.findall(statement))
            elif renamed := _RENAME_TABLE.search(statement):
                found[renamed.group(2)] = found.pop(renamed.group(1), ())
    return found.get(table, ())


_RENAME_TABLE = re.compile(r"ALTER TABLE\s+(\w+)\s+RENAME TO\s+(\w+)", re.IGNORECASE)


def sql_string(value: str) -> str:
    """``value`` as a SQL string literal. ATTACH and LOAD take no parameters in DuckDB 1.x (the
    DuckLake tests run on 1.5.5, the one DuckDB its extension is built for here)."""
    return "'" + value.replace("'", "''") + "'"


def _wheel_extension(name: str) -> str | None:
    """The extension file of PyPI's ``duckdb-extension-<name>`` wheel, if installed: it loads
    without the network (DuckDB's own ``INSTALL`` downloads)."""
    try:
        module = __import__(f"duckdb_extension_{name}")
    except ImportError:
        return None
    folder = Path(module.__file__).parent / "extensions" / f"v{duckdb.__version__}"
    found = folder / f"{name}.duckdb_extension"
    return str(found) if found.exists() else None


def load_extension(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Load ``name``: from its PyPI wheel, else from DuckDB's extension directory, else
    installed from DuckDB's repository (needs the network)."""
    wheel = _wheel_extension(name)
    attempts = ([f"LOAD {sql_string(wheel)}"] if wheel else []) + [f"LOAD {name}"]
    errors = []
    for statement in attempts:
        try:
            con.execute(statement)
            return
        except duckdb.Error as exc:
            errors.append(str(exc).splitlines()[0])
    try:
        con.execute(f"INSTALL {name}")
        con.execute(f"LOAD {name}")
    except duckdb.Error as exc:
        errors.append(str(exc).splitlines()[0])
        raise LakeUnavailable(
            f"DuckDB {duckdb.__version__} cannot load its {name} extension "
            f"({'; '.join(dict.fromkeys(errors))}). "
            f'Install it where this process can reach the network (python -c "import duckdb; '
            f"duckdb.sql('INSTALL {name}')\"), or pip install duckdb-extension-{name} built for "
            f"DuckDB {duckdb.__version__}; or unset GPUPRICE_DUCKLAKE to use the DuckDB file"
        ) from None


def catalog_exists(lake: LakeTarget) -> bool:
    """False only for a DuckDB-file catalog that was never created (a reader cannot attach
    it); a database catalog is checked by attaching."""
    location = lake.catalog.removeprefix("ducklake:")
    if re.match(r"^[a-z]+:", location):  # postgres:, sqlite:, mysql:
        return True
    return Path(location).exists()


# The probe of an s3:// data path before ATTACH (:func:`reach_data_path`) waits at most this
# long: DuckDB's own default (30 s per request, 3 retries) would keep a process ~2 min on an
# endpoint that accepts connections and never answers. The lake's reads and writes keep it.
PROBE_TIMEOUT_S, PROBE_RETRIES = 5, 1
_PROBE_PREFIX = ".gpuprice-probe/"  # matches no object: the listing is one short request


def s3_secret(con: duckdb.DuckDBPyConnection, lake: LakeTarget) -> None:
    """Give ``con`` (its DuckDB instance, for as long as it lives; never persisted) the S3 key
    of ``lake``'s data path, scoped to its bucket."""
    s3 = lake.s3
    assert s3 is not None and lake.data_path is not None
    load_extension(con, "httpfs")
    bucket = "s3://" + s3_bucket(lake.data_path)
    options = [
        "TYPE s3",
        f"KEY_ID {sql_string(s3.key_id)}",
        f"SECRET {sql_string(s3.secret)}",
        f"REGION {sql_string(s3.region)}",
        f"SCOPE {sql_string(bucket)}",
    ]
    if s3.session_token:
        options.append(f"SESSION_TOKEN {sql_string(s3.session_token)}")
    if s3.endpoint:
        # S3-compatible stores (MinIO, moto) serve buckets as paths, not as host names
        options += [f"ENDPOINT {sql_string(s3.endpoint)}", "URL_STYLE 'path'"]
        options.append(f"USE_SSL {'true' if s3.use_ssl else 'false'}")
    try:
        con.execute(f"CREATE OR REPLACE TEMPORARY SECRET gpuprice_lake ({', '.join(options)})")
    except duckdb.Error as exc:
        # DuckDB quotes the statement, key included, in a parser error: never pass it on
        raise LakeUnavailable(
            f"DuckDB refused the S3 settings of the DuckLake's data path {lake.data_path} "
            f"({type(exc).__name__}); check {S3_ENDPOINT_ENV} and AWS_REGION"
        ) from None


def reach_data_path(con: duckdb.DuckDBPyConnection, lake: LakeTarget) -> None:
    """Fail now, with what to fix, when ``lake``'s s3:// data path cannot be listed (bucket
    missing, key refused, endpoint down), rather than inside a load or a query after its
    catalog was written. One listing of a prefix that holds nothing, at most ~10 s."""
    assert lake.s3 is not None and lake.data_path is not None
    prefix = lake.data_path.rstrip("/") + "/" + _PROBE_PREFIX
    con.execute(f"SET http_timeout = {PROBE_TIMEOUT_S}")
    con.execute(f"SET http_retries = {PROBE_RETRIES}")
    try:
        con.execute(f"SELECT count(*) FROM glob({sql_string(prefix + '*')})").fetchall()
    except duckdb.Error as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        # the first line says what failed; S3's own error, when there is one, says why
        detail = "; ".join(lines[:1] + [ln for ln in lines[1:2] if not ln.startswith("LINE")])
        detail = detail.rstrip(".")
        raise LakeUnavailable(
            f"cannot reach the DuckLake's data path {lake.data_path} at {lake.s3.describe()}: "
            f"{detail}. Check {DUCKLAKE_DATA_PATH_ENV} (the bucket must exist), "
            f"{S3_ENDPOINT_ENV}, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
        ) from None
    finally:
        con.execute("RESET http_timeout")
        con.execute("RESET http_retries")


def attach(con: duckdb.DuckDBPyConnection, lake: LakeTarget, *, read_only: bool) -> None:
    """Attach ``lake`` on ``con`` as ``warehouse``. An s3:// data path is given its key and
    probed first, so that a store that cannot be reached leaves the catalog untouched."""
    load_extension(con, "ducklake")
    if lake.postgres:
        load_extension(con, "postgres_scanner")
    if lake.s3 is not None:
        s3_secret(con, lake)
        reach_data_path(con, lake)
    options = []
    if lake.data_path:
        options.append(f"DATA_PATH {sql_string(lake.data_path)}")
    if lake.metadata_schema:
        options.append(f"METADATA_SCHEMA {sql_string(lake.metadata_schema)}")
    if read_only:
        options.append("READ_ONLY")
    clause = f" ({', '.join(options)})" if options else ""
    try:
        con.execute(f"ATTACH {sql_string(lake.catalog)} AS {ALIAS}{clause}")
    except duckdb.Error as exc:
        if isinstance(exc, duckdb.IOException) and "lock" in str(exc).lower():
            raise  # a DuckDB-file catalog another process holds: the caller waits for it
        kind = (
            LakeNotCreated
            if "creating a new DuckLake is explicitly disabled" in str(exc)
            else LakeUnavailable
        )
        raise kind(
            f"cannot attach the DuckLake {lake.describe()}: {str(exc).splitlines()[0]}. "
            "Check GPUPRICE_DUCKLAKE (and GPUPRICE_DUCKLAKE_DATA_PATH for a new lake)"
        ) from None


@contextmanager
def writer_lock(lake: LakeTarget, wait_s: float) -> Iterator[None]:
    """One writer at a time on ``lake``, as the warehouse file's own lock gives: a PostgreSQL
    advisory lock, on a session of its own (closing it releases the lock), held while the
    write connection is open. Without it two writers (the pipeline's parallel snapshot
    steps, two hosts) would race to create the lake and to migrate it, and conflict on the
    derive's DELETE + INSERT. Written here because neither DuckDB nor DuckLake offers one.
    A DuckDB-file catalog needs none: an attachment holds the file's lock."""
    if not lake.postgres:
        yield
        return
    try:
        import psycopg2  # the `deploy` extra; only a PostgreSQL-catalog lake needs it
    except ImportError:
        raise LakeUnavailable(
            "a PostgreSQL-catalog DuckLake needs psycopg2 for its writer lock: "
            "pip install '.[deploy]'"
        ) from None
    try:
        session = psycopg2.connect(lake.catalog.removeprefix("ducklake:postgres:"))
    except psycopg2.Error as exc:
        raise LakeUnavailable(
            f"cannot reach the DuckLake's catalog {lake.describe()} to take its writer lock: "
            f"{str(exc).strip().splitlines()[0]}. Check GPUPRICE_DUCKLAKE"
        ) from None
    try:
        session.autocommit = True
        key = f"gpuprice warehouse writer {lake.metadata_schema or ''}"

        def take() -> bool:
            with session.cursor() as cur:
                cur.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (key,))
                return bool(cur.fetchone()[0])

        waiting = Retrying(
            stop=stop_after_delay(wait_s),
            wait=wait_random_exponential(multiplier=0.05, max=1.0),
            retry=retry_if_result(lambda taken: not taken),
            retry_error_callback=lambda state: state.outcome.result(),
        )
        if not waiting(take):
            raise LakeBusy(
                f"another process has been writing to the DuckLake {lake.describe()} for "
                f"more than {wait_s:.0f} s; try again when it finishes"
            )
        yield
    finally:
        session.close()


def is_lake(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether ``con``'s default database is a DuckLake."""
    rows = con.execute(
        "SELECT type FROM duckdb_databases() WHERE database_name = current_database()"
    ).fetchall()
    return bool(rows) and rows[0][0] == "ducklake"


def insert_new(
    con: duckdb.DuckDBPyConnection,
    insert_sql: str,
    params: Sequence[Any],
    *,
    table: str,
    key: Mapping[str, Any],
) -> int:
    """Run ``insert_sql`` (one row, no ON CONFLICT clause) unless a row with ``key`` (column →
    value) is in ``table`` already; the number of rows inserted (0 or 1)."""
    if not is_lake(con):
        return con.execute(f"{insert_sql} ON CONFLICT DO NOTHING", list(params)).fetchall()[0][0]
    where = " AND ".join(f"{column} = ?" for column in key)
    found = con.execute(f"SELECT count(*) FROM {table} WHERE {where}", list(key.values()))
    if found.fetchall()[0][0]:
        return 0
    return con.execute(insert_sql, list(params)).fetchall()[0][0]


def insert_new_frame(
    con: duckdb.DuckDBPyConnection,
    table: str,
    frame: pl.DataFrame,
    *,
    key: Sequence[str],
    time_column: str | None = None,
) -> int:
    """Insert the rows of ``frame`` (by column name) whose ``key`` is not in ``table`` yet,
    the first of any repeated within ``frame``; the number inserted. ``time_column``, part
    of the key, limits what a DuckLake reads of ``table`` to the frame's time range (its
    files' min/max statistics skip the rest)."""
    if frame.is_empty():
        return 0
    # Read by DuckDB's replacement scan (the local's name), not con.register: DuckDB 2.x
    # refuses register while the caller's last result on con is not fetched to the end.
    new_rows = frame
    if not is_lake(con):
        sql = f"INSERT INTO {table} BY NAME SELECT * FROM new_rows ON CONFLICT DO NOTHING"
        return con.execute(sql).fetchall()[0][0]
    # ON CONFLICT DO NOTHING keeps the first of a key repeated within one INSERT
    new_rows = frame.unique(subset=list(key), keep="first", maintain_order=True)  # noqa: F841
    # NOT (NULL) is NULL, not true: a row passes a CHECK that is NULL, as DuckDB's own do.
    # A loop, not a comprehension: the scan looks for new_rows in this frame.
    failing = []
    for expression in checks(table):
        if con.execute(f"SELECT count(*) FROM new_rows WHERE NOT {expression}").fetchall()[0][0]:
            failing.append(f"CHECK {expression}")
    if failing:
        raise duckdb.ConstraintException(
            f"Constraint Error: rows for {table} fail {', '.join(failing)} (a DuckLake has no "
            "CHECK constraints, so they are tested here); nothing was inserted"
        )
    columns = ", ".join(key)
    existing = f"SELECT {columns} FROM {table}"
    if time_column is not None:
        existing += (
            f" WHERE {time_column} BETWEEN (SELECT min({time_column}) FROM new_rows)"
            f" AND (SELECT max({time_column}) FROM new_rows)"
        )
    sql = f"""
        INSERT INTO {table} BY NAME
        SELECT n.* FROM new_rows AS n ANTI JOIN ({existing}) AS e USING ({columns})
    """
    return con.execute(sql).fetchall()[0][0]
