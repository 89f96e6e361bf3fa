"""One warehouse handle, passed explicitly: it carries the memory limit and the lake to every
connection, two handles in one process do not share a configuration, the environment is
parsed by a pure function, and no library module keeps global state."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from configuration.settings import load_settings
from warehouse.store.config import LakeTarget, WarehouseConfig
from warehouse.store.db import (
    WarehouseMissing,
    read_connection,
    read_frame,
    warehouse_exists,
    write_connection,
)
from warehouse.store.environment import WarehouseEnvironmentError, warehouse_config
from warehouse.store.handle import Warehouse

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "scrapers",
    "warehouse",
    "recommender",
    "configuration",
    "pipelines",
    "dashboard",
    "demo",
    "gpuprice",
)
SETTING = "SELECT current_setting('memory_limit') AS m"


def test_each_handle_opens_its_connections_with_its_own_memory_limit(tmp_path: Path) -> None:
    small = Warehouse(tmp_path / "small.duckdb", WarehouseConfig(memory_limit="96MB"))
    default = Warehouse(tmp_path / "default.duckdb")
    for warehouse in (small, default):
        with write_connection(warehouse) as con:
            con.execute("CREATE TABLE t AS SELECT 1 AS a")
    # one process, two handles: neither configures the other (there is nothing global to set)
    assert read_frame(small, SETTING).item() == "91.5 MiB"
    assert read_frame(default, SETTING).item() == "122.0 MiB"  # the 128MB default
    with write_connection(small) as con:
        assert con.execute(SETTING).fetchall() == [("91.5 MiB",)]


def test_a_handle_with_a_lake_reads_the_lake_not_the_file(tmp_path: Path) -> None:
    catalog = tmp_path / "lake.ducklake"
    warehouse = Warehouse(
        tmp_path / "gpuprice.duckdb", WarehouseConfig(lake=LakeTarget(f"ducklake:{catalog}"))
    )
    assert warehouse.describe() == f"DuckLake ducklake:{catalog}"
    assert warehouse_exists(warehouse)  # a lake is there to ask, with or without a file
    with (
        pytest.raises(WarehouseMissing, match="the DuckLake .* has no tables yet"),
        read_connection(warehouse),
    ):
        pass
    assert not (tmp_path / "gpuprice.duckdb").exists()
    assert not warehouse_exists(Warehouse(tmp_path / "gpuprice.duckdb"))  # the file: none yet


def test_the_serving_copy_is_read_as_a_local_file_under_the_same_limit(tmp_path: Path) -> None:
    lake = LakeTarget(f"ducklake:{tmp_path / 'lake.ducklake'}")
    warehouse = Warehouse(tmp_path / "w.duckdb", WarehouseConfig(memory_limit="96MB", lake=lake))
    local = warehouse.local(tmp_path / "w-serving.duckdb")
    assert local.lake is None and local.memory_limit == "96MB"
    assert local.path == tmp_path / "w-serving.duckdb"


def test_settings_build_the_one_handle_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("GPUPRICE_DUCKLAKE", "GPUPRICE_DUCKLAKE_DATA_PATH", "GPUPRICE_DUCKLAKE_SCHEMA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GPUPRICE_DUCKDB_MEMORY_LIMIT", "256MB")
    settings = load_settings(None, home=tmp_path)
    assert settings.warehouse == Warehouse(
        tmp_path / "gpuprice.duckdb", WarehouseConfig(memory_limit="256MB")
    )
    monkeypatch.setenv("GPUPRICE_DUCKDB_MEMORY_LIMIT", "lots")  # read once, at start
    assert settings.warehouse.memory_limit == "256MB"


def test_the_warehouse_environment_is_parsed_from_the_mapping_given() -> None:
    assert warehouse_config({}) == WarehouseConfig()
    given = {"GPUPRICE_DUCKDB_MEMORY_LIMIT": "1GB", "GPUPRICE_DUCKLAKE": "ducklake:/x.ducklake"}
    assert warehouse_config(given) == WarehouseConfig("1GB", LakeTarget("ducklake:/x.ducklake"))
    with pytest.raises(WarehouseEnvironmentError, match="at least 64MB"):
        warehouse_config({"GPUPRICE_DUCKDB_MEMORY_LIMIT": "16MB"})


def _globals(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        f"{path.relative_to(ROOT)}:{node.lineno}: global {', '.join(node.names)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Global)
    ]


def test_no_library_module_keeps_global_state() -> None:
    """State lives in what a caller holds (the warehouse handle, the settings), never in a
    module variable a function rebinds: a ``global`` statement in a production package."""
    found = [
        hit for package in PACKAGES for py in (ROOT / package).rglob("*.py") for hit in _globals(py)
    ]
    assert found == []
