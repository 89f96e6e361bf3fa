"""A warehouse that existed and is gone, or has lost its tables, is reported with what to do,
never silently created again empty (issue 31: a run after a lost warehouse exited 0 with an
empty one); the marker beside it says one existed."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from warehouse.store.db import read_frame, write_connection
from warehouse.store.faults import WarehouseLost
from warehouse.store.handle import Warehouse
from warehouse.store.marker import marker_path


def made(tmp_path: Path) -> Warehouse:
    warehouse = Warehouse(tmp_path / "home" / "gpuprice.duckdb")
    with write_connection(warehouse):
        pass
    assert marker_path(warehouse.path).exists()
    return warehouse


def test_a_missing_warehouse_is_reported_not_created_again(tmp_path: Path) -> None:
    warehouse = made(tmp_path)
    warehouse.path.unlink()
    with pytest.raises(WarehouseLost) as lost, write_connection(warehouse):
        pass
    message = str(lost.value)
    assert "is missing" in message and "restore from a backup: `gpuprice restore DIR`" in message
    assert str(marker_path(warehouse.path)) in message and "\n" not in message
    assert not warehouse.path.exists()
    with pytest.raises(WarehouseLost):  # readers say the same
        read_frame(warehouse, "SELECT 1")


def test_a_warehouse_without_its_tables_is_reported(tmp_path: Path) -> None:
    warehouse = made(tmp_path)
    warehouse.path.unlink()
    duckdb.connect(str(warehouse.path)).close()  # a DuckDB file with no tables in its place
    with (
        pytest.raises(WarehouseLost, match="has no tables; restore from a backup"),
        write_connection(warehouse),
    ):
        pass
    with duckdb.connect(str(warehouse.path)) as con:  # still empty: nothing was created in it
        assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchone()[0] == 0


def test_deleting_the_marker_starts_an_empty_warehouse(tmp_path: Path) -> None:
    warehouse = made(tmp_path)
    warehouse.path.unlink()
    marker_path(warehouse.path).unlink()
    with write_connection(warehouse) as con:
        assert con.execute("SELECT count(*) FROM offer").fetchone()[0] == 0
    assert marker_path(warehouse.path).exists()


def test_a_first_warehouse_and_an_empty_file_without_marker_are_created(tmp_path: Path) -> None:
    fresh = Warehouse(tmp_path / "a" / "gpuprice.duckdb")
    with write_connection(fresh) as con:
        assert con.execute("SELECT count(*) FROM offer").fetchone()[0] == 0
    empty = Warehouse(tmp_path / "b" / "gpuprice.duckdb")
    empty.path.parent.mkdir()
    duckdb.connect(str(empty.path)).close()  # e.g. made with the DuckDB CLI first
    with write_connection(empty) as con:
        assert con.execute("SELECT count(*) FROM offer").fetchone()[0] == 0
