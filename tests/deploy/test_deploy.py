"""deploy/: the Dagster instance config against a real PostgreSQL, and the compose files'
shape. PostgreSQL comes from Debian's packages (apt-get install postgresql); the test starts
its own server on a free port in a temporary directory and stops it at the end
(conftest.py), and skips with a message when the binaries are not there. The Docker run
launcher is only instantiated here (its config validated); test_docker_deploy.py (`make
test-docker`) runs the whole compose deployment on a Docker engine. DuckLake:
test_ducklake*.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg
import pytest
import yaml

from tests.deploy.conftest import PG_DB, pg_count

pytestmark = pytest.mark.deploy

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


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
    pytest.importorskip("dagster_postgres", reason="pip install -e '.[deploy]'")
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
    of_run = "SELECT count(*) FROM {} WHERE run_id = %s"
    assert pg_count(postgres, PG_DB, of_run.format("runs"), (run_id,)) == 1
    assert pg_count(postgres, PG_DB, of_run.format("event_logs"), (run_id,)) > 0


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
    # The containers' configuration sends the demo profile's sources to the demo-market
    # service, on the ports it serves, and is valid for the product.
    from urllib.parse import urlsplit

    from configuration.settings import load_settings

    settings = load_settings(DEPLOY / "gpuprice.toml")
    market = settings.file.demo_market
    ports = {"jygpu": market.jygpu_port, "smm": market.smm_port}
    for name, port in ports.items():
        url = urlsplit(settings.file.sources[name].demo_url)
        assert (url.hostname, url.port) == ("demo-market", port)
    assert "demo" in compose["services"]["demo-market"]["profiles"]
    assert "COMPOSE_PROFILES" in env_example
