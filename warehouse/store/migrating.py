"""Applying the numbered migrations (warehouse/store/migrations/NNN_name.sql) within the memory
limit, so that an upgrade of a large warehouse cannot leave it unusable.

A migration is applied whole or not at all, and recorded in ``schema_migration`` in the same
transaction as its last statement. Two things keep it within ``GPUPRICE_DUCKDB_MEMORY_LIMIT``
(warehouse.store.memory):

- a table rebuild (DuckDB cannot change a CHECK in place, so 003 and 007 create
  ``<table>_vN``, copy every row with ``INSERT INTO new BY NAME SELECT * FROM old``, drop
  the old table and rename the new one) copies in slices of rows, each committed, into the
  new table; the drop, the rename, the migration's other statements and its record then
  commit together. Until that last commit the old table is untouched and the migration is
  not recorded, so a failure or a SIGKILL part-way leaves the warehouse as it was, plus a
  half-filled ``<table>_vN`` that the next attempt drops and fills again;
- any other transaction runs again with a larger limit when it runs out
  (:func:`~warehouse.store.memory.with_more_memory`).

What still does not fit raises :class:`~warehouse.store.faults.WarehouseOutOfMemory`, whose
message names the setting; nothing of that migration is kept. A DuckLake has no indexes to
hold in memory and no rowid slices to rely on: its migrations run as one transaction each.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

import duckdb

from warehouse.store import lake as ducklake
from warehouse.store.faults import WarehouseFault, WarehouseOutOfMemory, fault_of, out_of_memory
from warehouse.store.memory import current_limit, in_slices, with_more_memory
from warehouse.store.migrations import migration_files

_COPY = re.compile(
    r"^INSERT INTO (\w+) BY NAME SELECT \* FROM (\w+)(\s+ORDER BY [\w\s,]+)?;?$", re.IGNORECASE
)
_CREATE = re.compile(r"^CREATE TABLE (\w+)\s*\(", re.IGNORECASE)
_COMMENT = re.compile(r"--[^\n]*")


@dataclass
class _Plan:
    """A migration's statements in the order they run: ``create`` (the rebuilt tables), the
    ``copies`` (new table, old table, ORDER BY) done in slices, then ``rest`` and the record."""

    create: list[str] = field(default_factory=list)
    copies: list[tuple[str, str, str]] = field(default_factory=list)
    rest: list[str] = field(default_factory=list)


def _plan(sql: str) -> _Plan:
    statements = [s.query for s in duckdb.extract_statements(sql)]
    bare = [" ".join(_COMMENT.sub("", s).split()) for s in statements]
    copies = [m.groups() for text in bare if (m := _COPY.match(text))]
    targets = {new.lower() for new, _, _ in copies}
    plan = _Plan(copies=[(new, old, order or "") for new, old, order in copies])
    for statement, text in zip(statements, bare, strict=True):
        created = _CREATE.match(text)
        if _COPY.match(text):
            continue
        if created and created.group(1).lower() in targets:
            plan.create.append(statement)
        else:
            plan.rest.append(statement)
    return plan


def _in_transaction(con: duckdb.DuckDBPyConnection, *statements: str) -> None:
    con.execute("BEGIN TRANSACTION")
    try:
        for statement in statements:
            con.execute(statement)
        con.execute("COMMIT")
    except BaseException:
        # a COMMIT that failed has ended the transaction already
        with contextlib.suppress(duckdb.Error):
            con.execute("ROLLBACK")
        raise


def _record(version: int, name: str) -> str:
    at = datetime.now(UTC).replace(tzinfo=None).isoformat(sep=" ")
    return f"INSERT INTO schema_migration VALUES ({version}, '{name}', TIMESTAMP '{at}')"


def _apply(con: duckdb.DuckDBPyConnection, version: int, name: str, sql: str) -> None:
    plan = _plan(sql)
    configured = current_limit(con)
    if not plan.copies:
        with_more_memory(
            con, lambda: _in_transaction(con, sql, _record(version, name)), configured=configured
        )
        return
    targets = [new for new, _, _ in plan.copies]
    try:
        _in_transaction(con, *(f"DROP TABLE IF EXISTS {t}" for t in targets), *plan.create)
        for new, old, order in plan.copies:
            copy = f"INSERT INTO {new} BY NAME SELECT * FROM {old} WHERE {{}}{order}"
            in_slices(con, old, lambda where, c=copy: _in_transaction(con, c.format(where)))
        with_more_memory(
            con,
            lambda: _in_transaction(con, *plan.rest, _record(version, name)),
            configured=configured,
        )
    except duckdb.Error:
        _drop_quietly(con, targets)
        raise


def _drop_quietly(con: duckdb.DuckDBPyConnection, tables: list[str]) -> None:
    """Drop the half-filled rebuilt tables of a failed migration; the next attempt drops
    them too, so a connection DuckDB has given up on (FATAL) may leave them."""
    with contextlib.suppress(duckdb.Error):
        _in_transaction(con, *(f"DROP TABLE IF EXISTS {t}" for t in tables))


def _failed(name: str, exc: duckdb.Error, configured: str) -> WarehouseFault:
    """What a migration that failed raises: out of memory names the setting; anything else
    says the warehouse is as before."""
    fault = fault_of(exc, memory_limit=configured)
    if isinstance(fault, WarehouseOutOfMemory):
        return out_of_memory(f"upgrading the warehouse ({name})", configured)
    if fault is not None:
        return fault
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return WarehouseFault(
        f"upgrading the warehouse failed at {name} ({first}); the warehouse is as it was "
        "before (a migration is kept whole or not at all): run again, and report it if it "
        "fails the same way"
    )


def migrate(con: duckdb.DuckDBPyConnection, *, memory_limit: str | None = None) -> list[str]:
    """Apply the numbered migrations not yet applied, in order; returns their names. On a
    DuckLake without the constraints it does not have (warehouse.store.lake). Raises a
    :class:`~warehouse.store.faults.WarehouseFault` saying what to do when one fails
    (``memory_limit``: the configured limit it names, default the connection's own)."""
    lake = ducklake.is_lake(con)
    ddl = ducklake.without_constraints if lake else (lambda sql: sql)
    con.execute("SET enable_progress_bar = false")  # a long copy drew one on the console
    con.execute(
        ddl(
            "CREATE TABLE IF NOT EXISTS schema_migration ("
            " version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)"
        )
    )
    done = {row[0] for row in con.execute("SELECT version FROM schema_migration").fetchall()}
    applied = []
    for version, name, sql in migration_files():
        if version in done:
            continue
        configured = memory_limit or current_limit(con)
        try:
            if lake:
                _in_transaction(con, ddl(sql), _record(version, name))
            else:
                _apply(con, version, name, sql)
        except duckdb.Error as exc:
            raise _failed(name, exc, configured) from exc
        applied.append(name)
    return applied
