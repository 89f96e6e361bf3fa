"""deploy/ on a real Docker engine: `docker compose up` of deploy/docker-compose.yml (PostgreSQL,
the code location, the Dagster webserver and daemon, the dashboard, the demo market), a run
submitted through the webserver's GraphQL API and launched by DockerRunLauncher in a container
of its own, its rows in the warehouse on the shared volume, Dagster's run in PostgreSQL, the
dashboard answering; then the demo market stopped, and the next run's failure recorded with
nothing lost.

Run by `make test-docker` (GPUPRICE_DOCKER_TEST=1; `make test` leaves it out: building the
image takes minutes). tests/deploy/docker/setup.sh (`make docker-deps`) installs and starts
the engine and builds the two base images that stand in for Docker Hub's python:3.11-slim and
postgres:16, which this machine cannot pull: the rest is deploy/ as a user runs it. The
compose project, network and volume have fixed names (`gpuprice`, `gpuprice-data`: the run
launcher's config names them), so this test takes down a deployment of this checkout
running on the same engine.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy.conftest import free_port

pytestmark = pytest.mark.deploy

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
# deploy/gpuprice.toml's demo: jygpu, SMM and every other source's platform on demo-market
DEMO_SOURCES = sorted(
    name
    for name, source in tomllib.loads((DEPLOY / "gpuprice.toml").read_text("utf-8"))[
        "sources"
    ].items()
    if source.get("demo_url") and source.get("enabled", True)
)
RUN_TIMEOUT_S = 600


class Deployment:
    def __init__(self, env_file: Path, dagster_port: int, dashboard_port: int) -> None:
        self.env_file = env_file
        self.dagster_port = dagster_port
        self.dashboard_port = dashboard_port
        self.run_ids: list[str] = []

    def compose(self, *args: str, timeout: float = 300) -> str:
        cmd = ["docker", "compose", "-f", str(DEPLOY / "docker-compose.yml")]
        cmd += ["--env-file", str(self.env_file), *args]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        if out.returncode != 0:
            raise AssertionError(
                f"{' '.join(args)} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
            )
        return out.stdout

    def sql(self, query: str) -> list[dict]:
        """The product's own read-only query command, in the dashboard's container."""
        out = self.compose("exec", "-T", "dashboard", "gpuprice", "sql", "--format", "json", query)
        return [json.loads(line) for line in out.splitlines() if line.startswith("{")]

    def psql(self, db: str, query: str) -> str:
        out = self.compose(
            "exec", "-T", "postgres", "psql", "-U", "gpuprice", "-d", db, "-tAc", query
        )
        return out.strip()

    def launch(self) -> tuple[str, str]:
        """Submit scrape_job through the webserver; its run id and final status."""
        from dagster_graphql import DagsterGraphQLClient

        client = DagsterGraphQLClient("127.0.0.1", port_number=self.dagster_port)
        run_id = client.submit_job_execution("scrape_job", repository_location_name="gpuprice")
        self.run_ids.append(run_id)
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while time.monotonic() < deadline:
            status = client.get_run_status(run_id).value
            if status in ("SUCCESS", "FAILURE", "CANCELED"):
                return run_id, status
            time.sleep(2)
        raise AssertionError(f"run {run_id} did not finish in {RUN_TIMEOUT_S} s (last: {status})")


def _env_file(path: Path, dagster_port: int, dashboard_port: int) -> None:
    """deploy/.env.example as a user copies it, with a password and the stand-in images."""
    lines = [
        line
        for line in (DEPLOY / ".env.example").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    overrides = {
        "DAGSTER_PG_PASSWORD": "test-only-password",
        "GPUPRICE_BASE_IMAGE": "gpuprice-test/python",
        "GPUPRICE_POSTGRES_IMAGE": "gpuprice-test/postgres",
        "GPUPRICE_DAGSTER_PORT": str(dagster_port),
        "GPUPRICE_DASHBOARD_PORT": str(dashboard_port),
        "GPUPRICE_ENV_FILE": str(path),
    }
    kept = [line for line in lines if line.split("=", 1)[0] not in overrides]
    path.write_text("\n".join([*kept, *(f"{k}={v}" for k, v in overrides.items())]) + "\n")


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    if (
        shutil.which("docker") is None
        or subprocess.run(["docker", "info"], capture_output=True).returncode
    ):
        pytest.fail("no Docker engine answers: run `make docker-deps` (as root) first")
    ports = free_port(), free_port()
    env = tmp_path_factory.mktemp("docker") / "deploy.env"
    _env_file(env, *ports)
    d = Deployment(env, *ports)
    d.compose("down", "-v", "--remove-orphans")  # a leftover of an interrupted run
    try:
        d.compose("build", timeout=1800)
        d.compose("up", "-d", "--wait", timeout=600)
        yield d
    finally:
        for run_id in d.run_ids:  # run containers are the launcher's, not compose's
            ids = [c["ID"] for c in _run_containers(run_id)]
            if ids:
                subprocess.run(["docker", "rm", "-f", *ids], capture_output=True)
        d.compose("down", "-v", "--remove-orphans")


def _logs(run_id: str) -> str:
    """The run container's output, for a failure message."""
    out = []
    for c in _run_containers(run_id):
        logs = subprocess.run(["docker", "logs", c["ID"]], capture_output=True, text=True)
        out.append(f"--- {c['Names']}: {logs.stdout[-3000:]}{logs.stderr[-3000:]}")
    return "\n".join(out) or f"no container was launched for run {run_id}"


def _run_containers(run_id: str) -> list[dict]:
    out = subprocess.run(
        ["docker", "ps", "-a", "--filter", f"label=dagster/run_id={run_id}", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_a_scheduled_style_run_in_its_own_container(deployment: Deployment) -> None:
    run_id, status = deployment.launch()
    assert status == "SUCCESS", _logs(run_id)

    # Launched by DockerRunLauncher: a container of the code image, on the compose network,
    # labelled with the run, exited cleanly (the run did not execute in the daemon).
    containers = _run_containers(run_id)
    assert len(containers) == 1, containers
    assert containers[0]["Image"] == "gpuprice:latest"
    assert "gpuprice" in containers[0]["Networks"].split(",")
    # The run is reported done before its process has left the container.
    exit_code = subprocess.run(
        ["docker", "wait", containers[0]["ID"]], capture_output=True, text=True, timeout=120
    ).stdout.strip()
    assert exit_code == "0", _logs(run_id)

    # Its rows reached the warehouse on the shared volume, labelled simulated (demo market).
    runs = deployment.sql(
        f"SELECT source, status, rows FROM scrape_run WHERE run_id LIKE '{run_id}-%' ORDER BY 1"
    )
    assert len(DEMO_SOURCES) == 12, DEMO_SOURCES
    assert [(r["source"], r["status"]) for r in runs] == [(s, "ok") for s in DEMO_SOURCES]
    # Every platform's prices are in the warehouse. This run may add none: the deployment's
    # own first run loads the same hour's answers, and loading them again adds nothing.
    loaded = deployment.sql(
        "SELECT DISTINCT source FROM offer UNION SELECT DISTINCT source FROM spot_quote"
    )
    assert set(DEMO_SOURCES) <= {r["source"] for r in loaded}, loaded
    offers = deployment.sql(
        "SELECT count(*) AS n, bool_and(simulated) AS sim FROM offer "
        "WHERE source NOT LIKE '%-published'"
    )
    assert offers[0]["n"] > 0 and offers[0]["sim"] is True
    derived = deployment.sql("SELECT count(*) AS n FROM breakeven")
    assert derived[0]["n"] > 0

    # Dagster's run and its events are in the PostgreSQL container (instance storage).
    assert deployment.psql("dagster", f"SELECT status FROM runs WHERE run_id = '{run_id}'") == (
        "SUCCESS"
    )
    events = deployment.psql(
        "dagster", f"SELECT count(*) FROM event_logs WHERE run_id = '{run_id}'"
    )
    assert int(events) > 0

    # The dashboard and the webserver answer on their published ports.
    with urllib.request.urlopen(
        f"http://127.0.0.1:{deployment.dashboard_port}/_stcore/health", timeout=30
    ) as r:
        assert r.read() == b"ok"
    with urllib.request.urlopen(
        f"http://127.0.0.1:{deployment.dagster_port}/server_info", timeout=30
    ) as r:
        assert "dagster_webserver_version" in json.loads(r.read())


def test_a_source_down_is_a_recorded_failure_and_nothing_is_lost(
    deployment: Deployment,
) -> None:
    before = deployment.sql("SELECT count(*) AS n FROM offer")[0]["n"]
    deployment.compose("stop", "demo-market")
    try:
        run_id, status = deployment.launch()
    finally:
        deployment.compose("start", "demo-market")
    assert status in ("SUCCESS", "FAILURE")  # it finished; what it recorded is below
    runs = deployment.sql(
        "SELECT source, status, reason, error FROM scrape_run "
        f"WHERE run_id LIKE '{run_id}-%' ORDER BY 1"
    )
    assert [(r["source"], r["status"], r["reason"]) for r in runs] == [
        (s, "failed", "unreachable") for s in DEMO_SOURCES
    ], runs
    assert all("demo-market" in r["error"] for r in runs), runs
    assert deployment.sql("SELECT count(*) AS n FROM offer")[0]["n"] == before
