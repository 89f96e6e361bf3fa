"""Shared fixtures: a programmable loopback HTTP server and temporary settings."""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from configuration.settings import Settings, load_settings
from tests.support.loopback import LoopbackServer, reply
from warehouse.store.backup import MANIFEST

# tests/deploy/test_ducklake_product.py runs chosen warehouse tests again with the warehouse
# on a DuckLake (DuckDB 1.5.5 in .venv-ducklake): GPUPRICE_TEST_DUCKLAKE is "duckdb" for a
# DuckDB-file catalog, or a PostgreSQL connection string (one catalog schema per lake). Each
# test gets a lake of its own, as it gets a warehouse file of its own in tmp_path.
TEST_DUCKLAKE_ENV = "GPUPRICE_TEST_DUCKLAKE"
# With GPUPRICE_TEST_DUCKLAKE_DATA=s3://bucket each lake's Parquet files go under a prefix of
# its own in that bucket instead of tmp_path (tests/deploy/test_ducklake_s3.py; the endpoint
# and keys are in the environment as a deployment's would be).
TEST_DUCKLAKE_DATA_ENV = "GPUPRICE_TEST_DUCKLAKE_DATA"
_lake_schemas = itertools.count()


def ducklake_env(directory: Path) -> dict[str, str]:
    """The settings of a new lake under ``directory`` (none when not testing on a lake)."""
    catalog = os.environ.get(TEST_DUCKLAKE_ENV, "")
    if not catalog:
        return {}
    directory.mkdir(parents=True, exist_ok=True)
    name = f"t{os.getpid()}_{next(_lake_schemas)}"
    remote = os.environ.get(TEST_DUCKLAKE_DATA_ENV, "").rstrip("/")
    data_path = f"{remote}/{name}/" if remote else f"{directory / 'data'}/"
    env = {"GPUPRICE_DUCKLAKE_DATA_PATH": data_path}
    if catalog == "duckdb":
        return env | {"GPUPRICE_DUCKLAKE": f"ducklake:{directory / 'catalog.ducklake'}"}
    return env | {
        "GPUPRICE_DUCKLAKE": f"ducklake:postgres:{catalog}",
        "GPUPRICE_DUCKLAKE_SCHEMA": name,
    }


@pytest.fixture(autouse=True)
def _warehouse_on_ducklake(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    # Entry points build their warehouse handle from their settings (Settings.warehouse); a
    # test that calls the warehouse directly builds it from the environment the same way
    # (tests.support.handles.warehouse_at), so a lake set here is the test's warehouse.
    if not os.environ.get(TEST_DUCKLAKE_ENV):
        yield  # the usual run: warehouse files, nothing more to set up
        return
    tmp_path: Path = request.getfixturevalue("tmp_path")
    for name, value in ducklake_env(tmp_path / "ducklake").items():
        monkeypatch.setenv(name, value)
    yield
    # The test's warehouse was the lake: no warehouse file was written (a backup of the
    # lake, a DuckDB file beside its manifest, is one by design).
    written = [p for p in tmp_path.rglob("gpuprice.duckdb") if not (p.parent / MANIFEST).exists()]
    assert not written, f"a warehouse file was written: {written}"


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    state = LoopbackServer()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            state.hits.append(self.path)
            queue = state.routes.get(path)
            if not queue:
                reply(404, b"not found")(self)
                return
            responder = queue.pop(0) if len(queue) > 1 else queue[0]
            responder(self)

        def do_POST(self) -> None:  # JSON APIs (vast.ai, RunPod's GraphQL): the route answers
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.do_GET()

        def log_message(self, *args: object) -> None:
            pass

    state.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=state.server.serve_forever, daemon=True)
    thread.start()
    yield state
    state.server.shutdown()
    state.server.server_close()


def write_config(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def make_settings(tmp_path: Path) -> Callable[..., Settings]:
    """Settings over a temporary home, with a TOML written from the given text."""

    def build(toml: str = "", profile: str = "demo") -> Settings:
        config = write_config(tmp_path / "gpuprice.toml", toml)
        return load_settings(config, home=tmp_path / "home", profile=profile)

    return build
