"""Warehouse handles for tests that call the warehouse directly, built as an entry point
builds its own: from the environment (so that a DuckLake the test run configures,
tests/conftest.py, is the test's warehouse)."""

from __future__ import annotations

from pathlib import Path

from configuration.environment import warehouse_config
from warehouse.store.handle import Warehouse


def warehouse_at(where: Path | Warehouse) -> Warehouse:
    """The warehouse whose DuckDB file is ``where`` (the lake instead, when one is set); a
    handle already is one (helpers shared by tests that hold a path and tests that hold a
    handle)."""
    if isinstance(where, Warehouse):
        return where
    return Warehouse(where, warehouse_config())
