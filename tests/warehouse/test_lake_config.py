"""The DuckLake switch (GPUPRICE_DUCKLAKE, warehouse/store/lake.py) without a lake: its settings
are checked at start with messages that say what to set, the constraints DuckLake lacks
are removed from the DDL and kept as row checks, and `gpuprice restore` refuses a lake
before touching anything. The product running on a real DuckLake is
tests/deploy/test_ducklake_product.py."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from configuration.settings import ConfigError, load_settings
from gpuprice.cli import app
from warehouse.ingest.reference import load_reference
from warehouse.store import lake
from warehouse.store.backup import BackupError, backup
from warehouse.store.config import LakeTarget, S3Access, WarehouseConfig
from warehouse.store.db import WarehouseUnreachable, migration_files, write_connection
from warehouse.store.environment import lake_target
from warehouse.store.handle import Warehouse
from warehouse.store.restore import restore

LAKE_VARS = ("GPUPRICE_DUCKLAKE", "GPUPRICE_DUCKLAKE_DATA_PATH", "GPUPRICE_DUCKLAKE_SCHEMA")
S3_VARS = (
    "GPUPRICE_S3_ENDPOINT",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
)
PG_LAKE = "ducklake:postgres:dbname=lake host=pg password=s3cret"


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in LAKE_VARS + S3_VARS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_unset_means_the_duckdb_file(env: pytest.MonkeyPatch) -> None:
    assert lake_target(os.environ) is None


def test_a_postgres_catalog_with_data_path_and_schema(
    env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    env.setenv("GPUPRICE_DUCKLAKE", PG_LAKE)
    env.setenv("GPUPRICE_DUCKLAKE_DATA_PATH", f"{tmp_path}/data/")
    env.setenv("GPUPRICE_DUCKLAKE_SCHEMA", "prod")
    target = lake_target(os.environ)
    assert target == LakeTarget(PG_LAKE, f"{tmp_path}/data/", "prod")
    assert target.postgres and target.s3 is None
    assert "s3cret" not in target.describe() and "password=***" in target.describe()
    # The settings carry it to every entry point: never in their repr (a log line, an error)
    settings = load_settings(None, home=tmp_path)
    assert settings.warehouse.lake == target
    assert "s3cret" not in repr(settings) and "s3cret" not in repr(target)


def test_an_s3_data_path_on_aws_takes_the_aws_variables(env: pytest.MonkeyPatch) -> None:
    env.setenv("GPUPRICE_DUCKLAKE", PG_LAKE)
    env.setenv("GPUPRICE_DUCKLAKE_DATA_PATH", "s3://gpuprice-lake/prod/")
    env.setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE")
    env.setenv("AWS_SECRET_ACCESS_KEY", "very-secret-key")
    env.setenv("AWS_SESSION_TOKEN", "session-token-value")
    env.setenv("AWS_DEFAULT_REGION", "ap-east-1")
    target = lake_target(os.environ)
    assert target.s3 == S3Access(
        "AKIAEXAMPLE", "very-secret-key", "ap-east-1", "session-token-value", None, True
    )
    assert target.s3.describe() == "AWS S3 (ap-east-1) with key AKIAEXAMPLE"
    env.setenv("AWS_REGION", "eu-west-1")  # AWS_REGION first, as the AWS SDKs read them
    assert lake_target(os.environ).s3.region == "eu-west-1"
    # never shown: not in a repr (a failed comparison, a log line), not in describe()
    for shown in (repr(lake_target(os.environ)), target.describe(), target.s3.describe()):
        assert "very-secret-key" not in shown and "session-token-value" not in shown


@pytest.mark.parametrize(
    ("endpoint", "address", "tls"),
    [
        ("http://127.0.0.1:9000", "127.0.0.1:9000", False),
        ("https://minio.internal:9000/", "minio.internal:9000", True),
        ("https://storage.googleapis.com", "storage.googleapis.com", True),
    ],
)
def test_an_s3_compatible_endpoint(
    env: pytest.MonkeyPatch, endpoint: str, address: str, tls: bool
) -> None:
    env.setenv("GPUPRICE_DUCKLAKE", PG_LAKE)
    env.setenv("GPUPRICE_DUCKLAKE_DATA_PATH", "s3://lake/")
    env.setenv("AWS_ACCESS_KEY_ID", "minio")
    env.setenv("AWS_SECRET_ACCESS_KEY", "minio-secret")
    env.setenv("GPUPRICE_S3_ENDPOINT", endpoint)
    s3 = lake_target(os.environ).s3
    assert (s3.endpoint, s3.use_ssl, s3.region) == (address, tls, "us-east-1")
    assert s3.describe() == f"{'https' if tls else 'http'}://{address} with key minio"


S3_LAKE = {"GPUPRICE_DUCKLAKE": PG_LAKE, "GPUPRICE_DUCKLAKE_DATA_PATH": "s3://gpuprice-lake/x/"}
KEYS = {"AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "very-secret-key"}


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        (S3_LAKE, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set"),
        (S3_LAKE | {"AWS_ACCESS_KEY_ID": "AKIAEXAMPLE"}, "AWS_SECRET_ACCESS_KEY is not set"),
        (S3_LAKE | {"AWS_SECRET_ACCESS_KEY": "very-secret-key"}, "AWS_ACCESS_KEY_ID is not set"),
        (
            S3_LAKE | KEYS | {"GPUPRICE_DUCKLAKE_DATA_PATH": "s3:///gpuprice-lake/x/"},
            "does not name an S3 bucket",
        ),
        (S3_LAKE | KEYS | {"GPUPRICE_DUCKLAKE_DATA_PATH": "s3://"}, "does not name an S3 bucket"),
        (
            S3_LAKE | KEYS | {"GPUPRICE_DUCKLAKE_DATA_PATH": "s3://my lake/x/"},
            "does not name an S3 bucket",
        ),
        (
            S3_LAKE | KEYS | {"GPUPRICE_DUCKLAKE_DATA_PATH": "gs://gpuprice-lake/"},
            "gs:// is not supported",
        ),
        (S3_LAKE | KEYS | {"GPUPRICE_S3_ENDPOINT": "minio:9000"}, "scheme must be http"),
        (S3_LAKE | KEYS | {"GPUPRICE_S3_ENDPOINT": "ftp://minio:9000"}, "scheme must be http"),
        (S3_LAKE | KEYS | {"GPUPRICE_S3_ENDPOINT": "http://:9000"}, "no host"),
        (S3_LAKE | KEYS | {"GPUPRICE_S3_ENDPOINT": "http://minio:port"}, "Port could not be"),
        (S3_LAKE | KEYS | {"GPUPRICE_S3_ENDPOINT": "http://minio:99999"}, "out of range"),
        (S3_LAKE | KEYS | {"GPUPRICE_S3_ENDPOINT": "http://minio:9000/bucket"}, "a path"),
        (
            S3_LAKE | KEYS | {"GPUPRICE_S3_ENDPOINT": "http://k:very-secret-key@minio:9000"},
            "user info",
        ),
        ({"GPUPRICE_DUCKLAKE": "postgres:dbname=lake"}, "is not a DuckLake catalog"),
        ({"GPUPRICE_DUCKLAKE": "ducklake:"}, "is not a DuckLake catalog"),
        ({"GPUPRICE_DUCKLAKE_DATA_PATH": "/data/"}, "GPUPRICE_DUCKLAKE is not"),
        (
            {"GPUPRICE_DUCKLAKE": "ducklake:/x.ducklake", "GPUPRICE_DUCKLAKE_SCHEMA": "a-b"},
            "is not a schema name",
        ),
    ],
)
def test_bad_lake_settings_stop_every_entry_point(
    env: pytest.MonkeyPatch, tmp_path: Path, variables: dict[str, str], expected: str
) -> None:
    for name, value in variables.items():
        env.setenv(name, value)
    with pytest.raises(ConfigError, match=expected) as raised:
        load_settings(None, home=tmp_path)
    assert "very-secret-key" not in str(raised.value)


def test_an_endpoint_without_an_s3_data_path_is_ignored(
    env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    env.setenv("GPUPRICE_S3_ENDPOINT", "http://127.0.0.1:9000")
    assert lake_target(os.environ) is None
    env.setenv("GPUPRICE_DUCKLAKE", PG_LAKE)
    env.setenv("GPUPRICE_DUCKLAKE_DATA_PATH", f"{tmp_path}/data/")
    assert lake_target(os.environ).s3 is None


def test_migrations_lose_only_keys_and_checks() -> None:
    con = duckdb.connect()
    for _, name, sql in migration_files():
        stripped = lake.without_constraints(sql)
        for clause in ("PRIMARY KEY", "UNIQUE", "CHECK ("):
            assert clause not in stripped.upper().replace("CHECK(", "CHECK ("), (name, clause)
        con.execute(stripped)  # the rest applies as is, in order
    assert not con.execute("SELECT * FROM duckdb_constraints() WHERE constraint_type IN "
                           "('PRIMARY KEY', 'UNIQUE', 'CHECK')").fetchall()  # fmt: skip
    assert con.execute("SELECT count(*) FROM duckdb_constraints() WHERE constraint_type = "
                       "'NOT NULL'").fetchall()[0][0] > 100  # fmt: skip
    con.close()
    assert (
        lake.without_constraints(
            "CREATE TABLE t (a INT PRIMARY KEY, b DECIMAL(9, 2) NOT NULL CHECK (b > 0), "
            "c VARCHAR DEFAULT 'x' CHECK (c IN ('x', 'y')), UNIQUE (b, c))"
        )
        == "CREATE TABLE t (a INT, b DECIMAL(9, 2) NOT NULL, c VARCHAR DEFAULT 'x')"
    )


def test_the_price_tables_checks_are_kept_for_the_rows() -> None:
    assert set(lake.checks("offer")) == {
        "(gpu_count > 0)",
        "(billing IN ('hourly', 'daily', 'weekly', 'monthly', 'yearly', 'bare_metal_monthly', "
        "'spot'))",
        "(price > 0)",
        "(cny_per_card_hour > 0)",
    }
    assert set(lake.checks("spot_quote")) == {"(price > 0)", "(cny_per_card_hour > 0)"}


def test_on_the_file_a_repeated_key_is_skipped_by_its_index(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute("CREATE TABLE t (k INT PRIMARY KEY, v VARCHAR)")
    assert not lake.is_lake(con)
    frame = pl.DataFrame({"k": [1, 2, 1], "v": ["a", "b", "c"]})
    assert lake.insert_new_frame(con, "t", frame, key=["k"]) == 2
    assert (
        lake.insert_new(con, "INSERT INTO t VALUES (?, ?)", [2, "z"], table="t", key={"k": 2}) == 0
    )
    assert con.execute("SELECT * FROM t ORDER BY k").fetchall() == [(1, "a"), (2, "b")]


def test_catalog_exists_only_checks_a_file_catalog(tmp_path: Path) -> None:
    assert not lake.catalog_exists(LakeTarget(f"ducklake:{tmp_path / 'none.ducklake'}"))
    (tmp_path / "c.ducklake").write_bytes(b"")
    assert lake.catalog_exists(LakeTarget(f"ducklake:{tmp_path / 'c.ducklake'}"))
    assert lake.catalog_exists(LakeTarget("ducklake:postgres:dbname=lake"))


def test_restore_refuses_a_lake_and_touches_nothing(
    env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "home" / "gpuprice.duckdb"
    with write_connection(Warehouse(path)) as con:
        load_reference(con)
    backup(Warehouse(path), tmp_path / "bk")
    before = path.read_bytes()
    on_lake = WarehouseConfig(lake=LakeTarget(f"ducklake:{tmp_path / 'lake.ducklake'}"))
    with pytest.raises(BackupError, match="DuckLake .* restore its catalog database"):
        restore(Warehouse(path, on_lake), tmp_path / "bk")
    assert path.read_bytes() == before
    assert not (tmp_path / "lake.ducklake").exists()


def test_an_extension_that_will_not_load_says_what_to_do() -> None:
    con = duckdb.connect()
    with pytest.raises(lake.LakeUnavailable, match="cannot load its no_such_gpuprice_ext"):
        lake.load_extension(con, "no_such_gpuprice_ext")


def test_an_unreachable_lake_is_a_message_and_exit_1(
    env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def unavailable(*_: object, **__: object) -> None:
        raise lake.LakeUnavailable("cannot attach the DuckLake x: catalog does not answer")

    env.setattr(lake, "attach", unavailable)
    env.setenv("GPUPRICE_DUCKLAKE", "ducklake:postgres:dbname=lake host=nowhere password=pw")
    env.setenv("GPUPRICE_HOME", str(tmp_path))
    result = CliRunner().invoke(app, ["alerts"])
    assert result.exit_code == 1, result.output
    assert "catalog does not answer" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    # `gpuprice sql` attaches in its own bounded child process, where the stand-in above does
    # not reach: the real attach fails there (no catalog, or no ducklake extension to load),
    # and that is the one-line message.
    result = CliRunner().invoke(app, ["sql", "SELECT 1"])
    assert result.exit_code == 1, result.output
    assert "DuckLake" in result.output or "ducklake" in result.output, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_run_whose_steps_could_not_write_reports_each_source(
    env: pytest.MonkeyPatch, make_settings
) -> None:
    from types import SimpleNamespace

    from gpuprice.jobs import JobRunner, source_results

    runner = JobRunner(make_settings())
    assert not runner.settings.warehouse.path.exists()
    # a run whose steps died before reporting anything has no step events
    results = source_results(SimpleNamespace(all_events=[]), runner.sources)
    assert [(r.source, r.status) for r in results] == [(s, "failed") for s in runner.sources]
    assert all("see Dagster logs" in r.error for r in results)
    assert runner.settings.warehouse.describe() == str(runner.settings.warehouse.path)
    env.setenv("GPUPRICE_DUCKLAKE", "ducklake:postgres:dbname=lake password=pw")
    lake_settings = make_settings()
    assert (
        lake_settings.warehouse.describe() == "DuckLake ducklake:postgres:dbname=lake password=***"
    )


def test_a_writer_that_cannot_reach_the_catalog_is_a_message(tmp_path: Path) -> None:
    # a closed port on the loopback: the writer lock's session is refused at once
    closed = LakeTarget("ducklake:postgres:dbname=lake host=127.0.0.1 port=1")
    with (
        pytest.raises(WarehouseUnreachable, match="cannot reach the DuckLake's catalog"),
        write_connection(Warehouse(tmp_path / "gpuprice.duckdb", WarehouseConfig(lake=closed))),
    ):
        pass
