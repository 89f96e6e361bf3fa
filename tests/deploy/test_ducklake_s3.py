"""The warehouse on a DuckLake whose data path is object storage (``s3://``), with only
configuration changing (docs/SCALING.md): a PostgreSQL catalog (conftest.py's server) and the
Parquet files in a bucket of a real S3 API server, moto's (``moto[server]`` in
``.venv-ducklake``; s3_lake.py), which checks every request's signature against the access
key it issued. The product runs in ``.venv-ducklake`` (DuckDB 1.5.5 with the ducklake,
postgres and httpfs extensions from PyPI), reached through its environment variables alone:
``GPUPRICE_DUCKLAKE_DATA_PATH=s3://…``, ``GPUPRICE_S3_ENDPOINT``, ``AWS_ACCESS_KEY_ID`` /
``AWS_SECRET_ACCESS_KEY``.

Covered: the product's own warehouse tests on such a lake (a selection in ``make test``, the
QUICK one of test_ducklake_product.py in ``make test-ducklake``); demo pages loaded, derived
and read back by the product's reader functions with the same answers as on the DuckDB file,
their Parquet files in the bucket and listed in the catalog; a second process reading them
through `gpuprice sql`; a key that is refused, a bucket that does not exist, an endpoint that
is down or never answers: a message saying what to fix, exit code 1, nothing written to the
catalog or the bucket, the secret key never shown. Not covered: AWS S3 itself, MinIO, R2 (moto
stands in for them: same API, its own implementation).
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.deploy.conftest import LAKE_DB, PG_PASSWORD, PG_USER, free_port, pg_count
from tests.deploy.test_ducklake_product import FULL_RUN, LAKE_PYTHON, QUICK, ROOT, run_on_lake

pytestmark = pytest.mark.deploy

BUCKET = "gpuprice-lake"
HELPER = "tests.deploy.s3_lake"
# make test: loading, and the Dagster pipeline from scrape through derive to delivery;
# make test-ducklake: test_ducklake_product.py's QUICK selection.
S3_QUICK = [
    "tests/warehouse/test_warehouse_load.py::test_same_page_twice_adds_nothing",
    "tests/pipelines/test_pipeline_metrics.py::test_scrape_job_derives_alerts_and_delivers_once",
]


@dataclass(frozen=True)
class S3Server:
    endpoint: str
    key_id: str
    secret: str

    def env(self) -> dict[str, str]:
        """What a deployment sets to reach this store."""
        return {
            "GPUPRICE_S3_ENDPOINT": self.endpoint,
            "AWS_ACCESS_KEY_ID": self.key_id,
            "AWS_SECRET_ACCESS_KEY": self.secret,
            "AWS_REGION": "us-east-1",
        }


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    if not LAKE_PYTHON.exists():
        pytest.skip("the DuckLake environment is not built: run `make ducklake-deps`")
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    with log.open("w") as err:
        proc = subprocess.Popen(
            [str(LAKE_PYTHON), "-m", HELPER, "serve", BUCKET],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True,
        )  # fmt: skip
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        line = proc.stdout.readline() if ready else ""
        assert line, f"the moto S3 server did not start: {log.read_text()[-3000:]}"
        yield S3Server(**json.loads(line))
    finally:
        proc.stdin.close()  # the helper stops its server when its input ends
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _dsn(postgres: dict[str, str]) -> str:
    return (
        f"dbname={LAKE_DB} host=127.0.0.1 port={postgres['DAGSTER_PG_PORT']} "
        f"user={PG_USER} password={PG_PASSWORD}"
    )


def _lake_env(postgres: dict[str, str], s3: S3Server, name: str, home: Path) -> dict[str, str]:
    """A deployment's settings: the catalog in PostgreSQL (schema ``name``), the data under
    ``s3://BUCKET/name/``."""
    return s3.env() | {
        "GPUPRICE_HOME": str(home),
        "GPUPRICE_DUCKLAKE": f"ducklake:postgres:{_dsn(postgres)}",
        "GPUPRICE_DUCKLAKE_SCHEMA": name,
        "GPUPRICE_DUCKLAKE_DATA_PATH": f"s3://{BUCKET}/{name}/",
    }


def _lake(
    args: list[str], env: dict[str, str], timeout: float = 300
) -> subprocess.CompletedProcess:
    """``python args`` in the DuckLake environment with ``env`` (no lake settings but these)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GPUPRICE_", "AWS_"))}
    return subprocess.run(
        [str(LAKE_PYTHON), *args], cwd=ROOT, env=clean | env,
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def _keys(s3: S3Server, prefix: str) -> list[str]:
    """The objects in the bucket under ``prefix``, listed with the store's own client."""
    proc = _lake(["-m", HELPER, "list", BUCKET], s3.env(), timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [key for key in json.loads(proc.stdout) if key.startswith(prefix)]


def _catalog_files(postgres: dict[str, str], schema: str) -> set[str]:
    """The file names of the data files the lake's catalog lists as live."""
    psycopg2 = pytest.importorskip("psycopg2")
    con = psycopg2.connect(_dsn(postgres))
    try:
        with con.cursor() as cur:
            cur.execute(f"SELECT path FROM {schema}.ducklake_data_file WHERE end_snapshot IS NULL")
            return {Path(path).name for (path,) in cur.fetchall()}
    finally:
        con.close()


def test_the_warehouse_tests_pass_with_an_s3_data_path(
    postgres: dict[str, str], s3: S3Server, tmp_path: Path
) -> None:
    env = s3.env() | {"GPUPRICE_TEST_DUCKLAKE_DATA": f"s3://{BUCKET}/suite"}
    counts = run_on_lake(_dsn(postgres), QUICK if FULL_RUN else S3_QUICK, tmp_path, env)
    assert counts["failures"] == counts["errors"] == counts["skipped"] == 0, counts
    assert counts["tests"] >= (60 if FULL_RUN else len(S3_QUICK)), counts
    # The lakes' rows went to the bucket, each lake under its own prefix: DuckLake writes a
    # Parquet file for every insert of more than 10 rows (fewer stay in the catalog).
    lakes = {key.split("/")[1] for key in _keys(s3, "suite/") if key.endswith(".parquet")}
    assert len(lakes) >= (10 if FULL_RUN else 2), lakes


def test_load_derive_and_read_back_on_s3(
    postgres: dict[str, str], s3: S3Server, tmp_path: Path
) -> None:
    env = _lake_env(postgres, s3, "product", tmp_path / "home")
    on_lake = _lake(["-m", HELPER, "product", str(tmp_path / "home")], env)
    assert on_lake.returncode == 0, on_lake.stderr[-4000:]
    got = json.loads(on_lake.stdout)
    # The same steps on the DuckDB file give the same answers.
    file_home = tmp_path / "file-home"
    on_file = _lake(["-m", HELPER, "product", str(file_home)], {"GPUPRICE_HOME": str(file_home)})
    assert on_file.returncode == 0, on_file.stderr[-4000:]
    expected = json.loads(on_file.stdout)
    assert expected["warehouse_file_written"] and not got["warehouse_file_written"]
    assert {k: v for k, v in got.items() if k != "warehouse_file_written"} == {
        k: v for k, v in expected.items() if k != "warehouse_file_written"
    }
    assert got["offers"] > 0 and got["breakeven_rows"] > 0, got
    # Parquet files in the bucket, one folder per table, and every live data file the
    # catalog lists is one of them.
    keys = _keys(s3, "product/")
    parquet = {Path(key).name for key in keys if key.endswith(".parquet")}
    tables = {key.split("/")[2] for key in keys if key.endswith(".parquet")}
    assert {"breakeven", "card_value", "offer_daily"} <= tables, tables
    listed = _catalog_files(postgres, "product")
    assert listed and listed <= parquet, (listed - parquet, parquet)
    # A second process attaches the lake and reads what the first one wrote, from the
    # catalog (the offers: at most 10 rows per insert, inlined) and from the bucket (the
    # breakeven table's Parquet files), through the SQL sandbox (external access off).
    query = "SELECT (SELECT count(*) FROM offer) AS offers, (SELECT count(*) FROM breakeven) AS b"
    read = _lake(["-m", "gpuprice.cli", "sql", query, "--format", "json"], env)
    assert read.returncode == 0, read.stderr[-3000:]
    assert json.loads(read.stdout) == {"offers": got["offers"], "b": got["breakeven"]}
    # ... and its sandbox does not show the key DuckDB was given
    secrets = _lake(["-m", "gpuprice.cli", "sql", "SELECT * FROM duckdb_secrets()"], env)
    assert secrets.returncode == 2 and s3.secret not in secrets.stdout + secrets.stderr


@pytest.fixture
def silent_endpoint() -> Iterator[str]:
    """An endpoint that accepts connections and never answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        yield f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("wrong secret", "SignatureDoesNotMatch"),
        ("unknown key", "InvalidAccessKeyId"),
        ("no such bucket", "NoSuchBucket"),
        ("endpoint down", "Could not connect"),
    ],
)
def test_an_unreachable_data_path_is_a_message_and_nothing_is_written(
    postgres: dict[str, str], s3: S3Server, tmp_path: Path, case: str, expected: str
) -> None:
    schema = "broken_" + case.replace(" ", "_")
    env = _lake_env(postgres, s3, schema, tmp_path / "home")
    env |= {
        "wrong secret": {"AWS_SECRET_ACCESS_KEY": "not-the-secret"},
        "unknown key": {"AWS_ACCESS_KEY_ID": "AKIAUNKNOWNKEY000000"},
        "no such bucket": {"GPUPRICE_DUCKLAKE_DATA_PATH": f"s3://no-such-bucket/{schema}/"},
        "endpoint down": {"GPUPRICE_S3_ENDPOINT": f"http://127.0.0.1:{free_port()}"},
    }[case]
    # the writer (pruning raw pages); and once a reader (the SQL sandbox), which attaches
    # read-only through the same code
    commands = [["prune-raw", "--days", "30"]] + [["sql", "SELECT 1"]] * (case == "wrong secret")
    for command in commands:
        proc = _lake(["-m", "gpuprice.cli", *command], env, timeout=120)
        output = " ".join((proc.stdout + proc.stderr).split())
        assert proc.returncode == 1, (command, output)
        assert "cannot reach the DuckLake's data path" in output, (command, output)
        assert expected in output and "AWS_SECRET_ACCESS_KEY" in output, (command, output)
        assert "Traceback" not in output and s3.secret not in output
        assert env["AWS_SECRET_ACCESS_KEY"] not in output
    # Stopped before ATTACH: no catalog tables, no objects.
    tables = "SELECT count(*) FROM information_schema.tables WHERE table_schema = %s"
    assert pg_count(postgres, LAKE_DB, tables, (schema,)) == 0
    assert _keys(s3, f"{schema}/") == []


def test_an_endpoint_that_never_answers_is_a_message_after_the_probe_timeout(
    postgres: dict[str, str], s3: S3Server, tmp_path: Path, silent_endpoint: str
) -> None:
    env = _lake_env(postgres, s3, "silent", tmp_path / "home")
    env["GPUPRICE_S3_ENDPOINT"] = silent_endpoint
    # bounded by warehouse.store.lake.PROBE_TIMEOUT_S x (1 + PROBE_RETRIES), well inside this
    proc = _lake(["-m", "gpuprice.cli", "sql", "SELECT 1"], env, timeout=90)
    output = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode == 1, output
    assert "cannot reach the DuckLake's data path" in output and "Timeout" in output, output
