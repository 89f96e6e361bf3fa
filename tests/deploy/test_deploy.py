"""deploy/: the Dagster instance config against a real PostgreSQL, and the compose files'
shape. PostgreSQL comes from Debian's packages (apt-get install postgresql); the test starts
its own server on a free port in a temporary directory and stops it at the end, and skips
with a message when the binaries are not there. The Docker run launcher is only
instantiated (its config validated), never launched: this machine has no Docker engine.
DuckLake is not tested (docs/SCALING.md says why)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
PG_USER, PG_DB, PG_PASSWORD = "gpuprice", "dagster", "test-only"


def _pg_bin() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return found[-1].parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def postgres() -> Iterator[dict[str, str]]:
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip(
            "PostgreSQL is not installed (sudo apt-get install postgresql): "
            "the Postgres instance storage is not tested"
        )
    pytest.importorskip("dagster_postgres", reason="pip install -e '.[deploy]'")
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
    data, port = root / "data", _free_port()
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
        subprocess.run(
            [str(bin_dir.parent / "bin" / "createdb"), "-h", "127.0.0.1", "-p", str(port),
             "-U", PG_USER, PG_DB],
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


@dg.op
def _hello() -> int:
    return 1


@dg.job
def _probe() -> None:
    _hello()


def test_dagster_instance_on_postgres(
    postgres: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """deploy/dagster.yaml as is: Dagster migrates its schema into PostgreSQL, a run and
    its events are stored there, and a second instance (another process would do the
    same) reads them back."""
    import psycopg2
    from dagster_docker import DockerRunLauncher
    from dagster_postgres import PostgresEventLogStorage, PostgresRunStorage

    for key, value in postgres.items():
        monkeypatch.setenv(key, value)
    for key in ("GPUPRICE_HOME", "GPUPRICE_PROFILE", "GPUPRICE_NOTIFY_URLS"):
        monkeypatch.setenv(key, "")
    shutil.copy(DEPLOY / "dagster.yaml", tmp_path / "dagster.yaml")
    with dg.DagsterInstance.from_config(str(tmp_path)) as instance:
        assert isinstance(instance.run_storage, PostgresRunStorage)
        assert isinstance(instance.event_log_storage, PostgresEventLogStorage)
        assert isinstance(instance.run_launcher, DockerRunLauncher)  # config valid, not launched
        result = _probe.execute_in_process(instance=instance)
        assert result.success
        run_id = result.run_id
    with dg.DagsterInstance.from_config(str(tmp_path)) as again:
        run = again.get_run_by_id(run_id)
        assert run is not None and run.status == dg.DagsterRunStatus.SUCCESS
    con = psycopg2.connect(
        host="127.0.0.1",
        port=int(postgres["DAGSTER_PG_PORT"]),
        user=PG_USER,
        password=PG_PASSWORD,
        dbname=PG_DB,
    )
    try:
        with con.cursor() as cur:
            cur.execute("SELECT count(*) FROM runs WHERE run_id = %s", (run_id,))
            assert cur.fetchone()[0] == 1
            cur.execute("SELECT count(*) FROM event_logs WHERE run_id = %s", (run_id,))
            assert cur.fetchone()[0] > 0
    finally:
        con.close()


def test_compose_file_is_consistent() -> None:
    """The compose file names what dagster.yaml relies on: the network and the data volume
    the run launcher mounts, the workspace's code host, and env vars set in .env.example."""
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))
    instance = yaml.safe_load((DEPLOY / "dagster.yaml").read_text(encoding="utf-8"))
    workspace = yaml.safe_load((DEPLOY / "workspace.yaml").read_text(encoding="utf-8"))
    launcher = instance["run_launcher"]["config"]
    assert set(compose["services"]) >= {"postgres", "code", "webserver", "daemon", "dashboard"}
    assert compose["networks"]["gpuprice"]["name"] == launcher["network"]
    volume = launcher["container_kwargs"]["volumes"][0].split(":")[0]
    assert compose["volumes"][volume]["name"] == volume
    assert workspace["load_from"][0]["grpc_server"]["host"] in compose["services"]
    env_example = {
        line.split("=", 1)[0]
        for line in (DEPLOY / ".env.example").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    }
    assert set(launcher["env_vars"]) <= env_example
    pg = instance["storage"]["postgres"]["postgres_db"]
    assert {v["env"] for v in pg.values() if isinstance(v, dict)} <= env_example
    # The code location's module is the project's Dagster definitions.
    assert "-m pipelines.definitions" in compose["services"]["code"]["command"]
    assert (ROOT / "pipelines" / "definitions.py").exists()
    dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    for package in ("gpuprice", "scrapers", "warehouse", "pipelines", "dashboard", "recommender"):
        assert f"COPY {package} {package}" in dockerfile
