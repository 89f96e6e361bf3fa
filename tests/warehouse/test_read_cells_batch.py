"""warehouse/read/cells.py (spreadsheet text escaped) and warehouse/read/batch.py (several
queries in one read connection)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest

from tests.support.handles import warehouse_at
from warehouse.read.batch import read_frames
from warehouse.read.cells import escape_frame, escape_text
from warehouse.store.db import write_connection


@pytest.mark.parametrize(
    "text", ['=HYPERLINK("http://x")', "+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]
)
def test_text_a_spreadsheet_would_run_is_escaped(text: str) -> None:
    assert escape_text(text) == "'" + text


def test_other_text_and_every_number_stay_as_they_are() -> None:
    frame = pl.DataFrame({"name": ["RTX 4090", "—", None, "a=b"], "change": [-0.05, 1.0, 2.0, 3.0]})
    escaped = escape_frame(frame.with_columns(pl.col("name").replace("—", "-bad")))
    assert escaped["name"].to_list() == ["RTX 4090", "'-bad", None, "a=b"]
    assert escaped["change"].to_list() == [-0.05, 1.0, 2.0, 3.0]  # a negative stays a number


def test_queries_are_read_in_one_connection_and_a_missing_optional_table_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warehouse = warehouse_at(tmp_path / "w.duckdb")
    with write_connection(warehouse) as con:
        con.execute("CREATE TABLE t AS SELECT range AS n FROM range(3)")
    opened = []
    real = duckdb.connect

    def counting(*args, **kwargs):
        opened.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(duckdb, "connect", counting)
    frames = read_frames(
        warehouse,
        {
            "all": ("SELECT * FROM t", None),
            "some": ("SELECT * FROM t WHERE n < $k", {"k": 2}),
            "later": ("SELECT * FROM not_migrated_yet", None),
        },
        optional=("later",),
    )
    assert len(opened) == 1
    assert frames["all"]["n"].to_list() == [0, 1, 2] and frames["some"].height == 2
    assert frames["later"] is None
    with pytest.raises(duckdb.CatalogException):
        read_frames(warehouse, {"needed": ("SELECT * FROM not_migrated_yet", None)})
