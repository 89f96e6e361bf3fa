"""A real PostgreSQL for tests/deploy (Debian's package: `make postgres-deps`), started once
per test session on a free port in a temporary directory and stopped at the end; the tests
that need it skip with a message when the binaries are not there. Two databases: Dagster's
instance storage and a DuckLake catalog."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.loopback import free_port

PG_USER, PG_DB, PG_PASSWORD = "gpuprice", "dagster", "test-only"

# test_docker_deploy.py builds the image and runs deploy/ on a Docker engine (minutes): only
# `make test-docker` (which sets this) collects it.
collect_ignore = [] if os.environ.get("GPUPRICE_DOCKER_TEST") == "1" else ["test_docker_deploy.py"]
LAKE_DB = "lake"


def _pg_bin() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return found[-1].parent if found else None


@pytest.fixture(scope="session")
def postgres() -> Iterator[dict[str, str]]:
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip(
            "PostgreSQL is not installed (sudo apt-get install postgresql): "
            "Dagster's Postgres storage and the DuckLake Postgres catalog are not tested"
        )
    root = Path(tempfile.mkdtemp(prefix="gpuprice-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root: run the server as Debian's postgres user
        if (
            shutil.which("runuser") is None
            or subprocess.run(["id", "postgres"], capture_output=True).returncode
        ):
            pytest.skip("running as root without a postgres user to run PostgreSQL as")
        shutil.chown(root, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = root / "data", free_port()
    pwfile = root / "pw"
    pwfile.write_text(PG_PASSWORD)
    if as_user:
        shutil.chown(pwfile, "postgres")

    def run(*cmd: str) -> None:
        subprocess.run([*as_user, *cmd], check=True, capture_output=True, timeout=120)

    run(str(bin_dir / "initdb"), "-D", str(data), "-U", PG_USER, "--auth=scram-sha-256",
        f"--pwfile={pwfile}", "-E", "UTF8")  # fmt: skip
    run(str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-w", "-o",
        f"-p {port} -k {root} -c listen_addresses=127.0.0.1", "start")  # fmt: skip
    try:
        env = {"PGPASSWORD": PG_PASSWORD}
        for db in (PG_DB, LAKE_DB):
            subprocess.run(
                [str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", PG_USER,
                 db],
                check=True, capture_output=True, timeout=60, env=os.environ | env,
            )  # fmt: skip
        yield {
            "DAGSTER_PG_HOST": "127.0.0.1",
            "DAGSTER_PG_PORT": str(port),
            "DAGSTER_PG_USER": PG_USER,
            "DAGSTER_PG_PASSWORD": PG_PASSWORD,
            "DAGSTER_PG_DB": PG_DB,
        }
    finally:
        subprocess.run(
            [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(root, ignore_errors=True)


def pg_count(postgres: dict[str, str], dbname: str, sql: str, params: tuple = ()) -> int:
    """The one number ``sql`` (a ``count(*)``) returns from database ``dbname`` of the test
    server, read with psycopg2 (what another client of that database would see)."""
    psycopg2 = pytest.importorskip("psycopg2")
    con = psycopg2.connect(
        host="127.0.0.1",
        port=int(postgres["DAGSTER_PG_PORT"]),
        user=PG_USER,
        password=PG_PASSWORD,
        dbname=dbname,
    )
    try:
        with con.cursor() as cur:
            cur.execute(sql, params)
            return cur.fetchone()[0]
    finally:
        con.close()
