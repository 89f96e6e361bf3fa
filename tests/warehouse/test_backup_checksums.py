"""Backups are verified by content: the manifest holds each table's row count and checksum
(warehouse.store.backup.CHECKSUM), and `restore` refuses a backup whose contents changed,
naming the table, as well as manifests that are not one or predate checksums."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from gpuprice.cli import app
from tests.support.handles import warehouse_at
from tests.support.seeded_warehouse import seed_demo_history
from warehouse.store.backup import MANIFEST, BackupError, backup, verify
from warehouse.store.restore import restore

runner = CliRunner()


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One backup of a two-day demo warehouse (copied by each test that changes it)."""
    root = tmp_path_factory.mktemp("checksums")
    seed_demo_history(warehouse_at(root / "home" / "gpuprice.duckdb"), date(2026, 9, 5), 2)
    backup(warehouse_at(root / "home" / "gpuprice.duckdb"), root / "bk")
    return root / "bk"


def copy_of(made: Path, tmp_path: Path) -> Path:
    target = tmp_path / "bk"
    shutil.copytree(made, target)
    return target


def change(directory: Path, statement: str) -> None:
    with duckdb.connect(str(directory / "gpuprice.duckdb")) as con:
        con.execute(statement)


def test_the_manifest_holds_a_checksum_per_table(made: Path) -> None:
    manifest = json.loads((made / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["checksums"].keys() == manifest["tables"].keys()
    assert manifest["tables"]["offer"] > 0 and manifest["checksums"]["offer"] != "0"
    assert manifest["checksums"]["alert"] == "0"  # an empty table
    assert manifest["duckdb"] == duckdb.__version__
    assert verify(made) == manifest["tables"]


@pytest.mark.parametrize(
    ("statement", "table"),
    [
        ("UPDATE offer SET price = price * 10", "offer"),  # the adversarial pass's case
        ("UPDATE spot_quote SET cny_per_card_hour = cny_per_card_hour + 0.0001 "
         "WHERE rowid = (SELECT min(rowid) FROM spot_quote)", "spot_quote"),  # one value
        ("UPDATE raw_page SET body = body || 'x'::BLOB "
         "WHERE rowid = (SELECT min(rowid) FROM raw_page)", "raw_page"),  # one byte of a page
        ("UPDATE gpu_spec SET note = NULL WHERE note IS NOT NULL AND gpu = (SELECT min(gpu) FROM gpu_spec WHERE note IS NOT NULL)", "gpu_spec"),  # a NULL
    ],
)  # fmt: skip
def test_a_changed_value_is_refused_naming_its_table(
    made: Path, tmp_path: Path, statement: str, table: str
) -> None:
    directory = copy_of(made, tmp_path)
    change(directory, statement)
    with pytest.raises(BackupError) as info:
        verify(directory)
    message = str(info.value)
    assert f"table {table}: its contents differ (checksum)" in message
    assert message.count("table ") == 1 and "not restoring" in message


def test_rows_swapped_between_tables_keep_counts_but_not_checksums(
    made: Path, tmp_path: Path
) -> None:
    """Same count, other rows: a delete and an insert of a changed copy of the row."""
    directory = copy_of(made, tmp_path)
    change(
        directory,
        "CREATE TEMP TABLE one AS SELECT * FROM scrape_run LIMIT 1; "
        "DELETE FROM scrape_run WHERE run_id = (SELECT run_id FROM one); "
        "INSERT INTO scrape_run SELECT * REPLACE (rows + 1 AS rows) FROM one",
    )
    with pytest.raises(BackupError, match=r"table scrape_run: its contents differ"):
        verify(directory)


def test_a_missing_row_or_table_is_named(made: Path, tmp_path: Path) -> None:
    directory = copy_of(made, tmp_path)
    change(directory, "DELETE FROM offer WHERE rowid = 0; DROP TABLE market_premium")
    with pytest.raises(BackupError) as info:
        verify(directory)
    assert "table market_premium is missing" in str(info.value)
    assert "table offer has " in str(info.value) and "the manifest says" in str(info.value)


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ('{"tables": {"offer": 1}}', "no content checksums .* take a new backup"),
        ("{", "is not a backup manifest"),
        ("[]", "lists no tables"),
        ('{"tables": {}, "checksums": []}', "checksums is not a table"),
        (b"\xff\xfe", "is not a backup manifest"),
    ],
)
def test_old_or_broken_manifests_are_refused(
    made: Path, tmp_path: Path, manifest: str | bytes, message: str
) -> None:
    directory = copy_of(made, tmp_path)
    path = directory / MANIFEST
    path.write_bytes(manifest if isinstance(manifest, bytes) else manifest.encode())
    with pytest.raises(BackupError, match=message):
        verify(directory)


def test_a_file_that_is_not_duckdb_is_refused(made: Path, tmp_path: Path) -> None:
    directory = copy_of(made, tmp_path)
    (directory / "gpuprice.duckdb").write_bytes(b"not a database" * 100)
    with pytest.raises(BackupError, match="is not a readable DuckDB file"):
        verify(directory)


def test_restore_refuses_a_tampered_backup_and_leaves_the_warehouse(
    made: Path, tmp_path: Path
) -> None:
    directory = copy_of(made, tmp_path)
    change(directory, "UPDATE offer SET price = price * 10")
    home = tmp_path / "home"
    home.mkdir()
    warehouse = home / "gpuprice.duckdb"
    warehouse.write_bytes(b"the current warehouse")
    result = runner.invoke(app, ["restore", str(directory)], env={"GPUPRICE_HOME": str(home)})
    assert result.exit_code == 1
    assert "table offer: its contents differ (checksum)" in result.stderr
    assert "Traceback" not in result.output
    assert warehouse.read_bytes() == b"the current warehouse"
    assert list(home.iterdir()) == [warehouse]


def test_restore_over_a_warehouse_that_does_not_open_keeps_it_aside(
    made: Path, tmp_path: Path
) -> None:
    """A damaged warehouse (not a lock) is what a restore is for: moved aside, then replaced."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "gpuprice.duckdb").write_bytes(b"damaged" * 1000)
    moved = restore(warehouse_at(home / "gpuprice.duckdb"), made)
    assert moved is not None and moved.read_bytes() == b"damaged" * 1000
    with duckdb.connect(str(home / "gpuprice.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM offer").fetchone()[0] == verify(made)["offer"]


@pytest.mark.parametrize("kind", ["a file", "under a file", "cannot be made"])
def test_backup_into_a_place_that_is_not_a_directory_is_a_message(
    made: Path, tmp_path: Path, kind: str
) -> None:
    home = made.parent / "home"
    a_file = tmp_path / "a_file"
    a_file.write_text("x", encoding="utf-8")
    target = {
        "a file": a_file,
        "under a file": a_file / "sub",
        "cannot be made": Path("/proc/no-such-dir/bk"),
    }[kind]
    result = runner.invoke(app, ["backup", str(target)], env={"GPUPRICE_HOME": str(home)})
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    expected = "is a file" if kind == "a file" else "cannot create the backup directory"
    assert expected in result.stderr
