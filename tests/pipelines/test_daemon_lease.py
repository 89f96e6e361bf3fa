"""Runs the Dagster daemon starts hold the warehouse's lease (issue 40): a run launched the
way the schedule and the UI launch one (queued in the home's instance, dequeued by a real
`dagster-daemon` over the `pipelines.definitions` code location, executed by its run launcher
in a process of its own), never in-process by a `gpuprice` command.

Before, such a run took no lease: a `restore` while a scheduler-started `scrape_job` was
loading returned 0, and the rows went, some into the file moved aside, some into the
restored one."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import dagster as dg
import httpx
import pytest

from configuration.settings import Settings, load_settings
from demo.market import DemoMarket
from gpuprice.dagster_instance import instance_for, prepare_home
from tests.support.demo_settings import platform_sources_toml
from warehouse.store.backup import backup
from warehouse.store.db import read_frame, write_connection
from warehouse.store.lease import exclusive

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
WAIT_S = 240  # for the daemon to start, dequeue and launch a run on a loaded machine
# The run's fetch waits at the gate while the test tries its restore: no read timeout then.
HTTP = f"""
[http]
connect_timeout_s = 2
read_timeout_s = {WAIT_S}
total_deadline_s = {2 * WAIT_S}
retries = 0
min_interval_s = 0
"""


@dataclass
class Gate:
    """A loopback relay to the demo market's jygpu that holds the first request it gets
    until released: the run is then inside its jygpu snapshot step."""

    upstream: str
    reached: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    url: str = ""


@contextmanager
def gate(upstream: str) -> Iterator[Gate]:
    state = Gate(upstream)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.reached.set()
            state.release.wait(WAIT_S)
            got = httpx.get(state.upstream + self.path, timeout=10)
            self.send_response(got.status_code)
            self.send_header("Content-Type", got.headers.get("content-type", "text/html"))
            self.send_header("Content-Length", str(len(got.content)))
            self.end_headers()
            self.wfile.write(got.content)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()


def _env(settings: Settings) -> dict[str, str]:
    assert settings.config_path is not None
    return os.environ | {
        "GPUPRICE_HOME": str(settings.home),
        "GPUPRICE_CONFIG": str(settings.config_path),
        "GPUPRICE_PROFILE": "demo",
        "DAGSTER_HOME": str(prepare_home(settings)),
        "PYTHONPATH": str(ROOT),
    }


@contextmanager
def daemon(settings: Settings) -> Iterator[None]:
    """`dagster-daemon run` over the project's code location, as `gpuprice up` runs it."""
    log = (settings.home / "daemon.log").open("w")
    process = subprocess.Popen(
        [str(BIN / "dagster-daemon"), "run", "-m", "pipelines.definitions"],
        cwd=ROOT, env=_env(settings), stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        yield
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def launch(settings: Settings) -> None:
    """Submit a run of scrape_job to the home's instance, as the UI's launchpad does: it is
    queued, and the daemon launches it."""
    done = subprocess.run(
        [str(BIN / "dagster"), "job", "launch", "-m", "pipelines.definitions", "-j", "scrape_job"],
        cwd=ROOT, env=_env(settings), capture_output=True, text=True, timeout=WAIT_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]


def the_run(settings: Settings, finished: bool) -> dg.DagsterRun:
    """The one run of the home's instance, once it exists (and, with ``finished``, ended)."""
    deadline = time.monotonic() + WAIT_S
    with dg.DagsterInstance.from_config(str(settings.dagster_home)) as instance:
        while time.monotonic() < deadline:
            runs = instance.get_runs()
            if runs and (not finished or runs[0].is_finished):
                return runs[0]
            time.sleep(0.5)
    raise AssertionError(f"no {'finished ' if finished else ''}run within {WAIT_S} s")


def logged(settings: Settings, run_id: str, words: str) -> bool:
    with dg.DagsterInstance.from_config(str(settings.dagster_home)) as instance:
        return any(words in (e.message or "") for e in instance.all_logs(run_id))


def restore(settings: Settings, directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpuprice.main", "restore", str(directory)],
        cwd=ROOT, env=_env(settings), capture_output=True, text=True, timeout=WAIT_S,
    )  # fmt: skip


def _prepared(market: DemoMarket, tmp_path: Path, jygpu: str) -> tuple[Settings, Path]:
    """Settings with jygpu behind ``jygpu``, an empty warehouse, and a backup of it."""
    config = tmp_path / "gpuprice.toml"
    config.write_text(
        f'{HTTP}\n[sources.jygpu]\ndemo_url = "{jygpu}"\n[sources.smm]\n'
        f'demo_url = "{market.smm_url}"\n{platform_sources_toml(None)}',
        encoding="utf-8",
    )
    settings = load_settings(config, home=tmp_path / "home", profile="demo")
    with write_connection(settings.warehouse):
        pass  # created and migrated
    backup(settings.warehouse, tmp_path / "bk")
    with instance_for(settings):
        pass  # its storage created once, before the daemon and the launch open it at once
    return settings, tmp_path / "bk"


def test_a_restore_is_refused_while_a_run_the_daemon_launched_loads(
    market: DemoMarket, tmp_path: Path
) -> None:
    with gate(market.jygpu_url) as held:
        settings, directory = _prepared(market, tmp_path, held.url)
        with daemon(settings):
            launch(settings)
            assert held.reached.wait(WAIT_S), "the daemon's run never fetched jygpu"
            refused = restore(settings, directory)  # while the run is inside its jygpu step
            held.release.set()
            run = the_run(settings, finished=True)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "in use by a run" in refused.stderr
    assert run.status == dg.DagsterRunStatus.SUCCESS
    assert run.tags.get("dagster/max_retries") != "0"  # the daemon's own, not a command's
    # every row went into the one warehouse there is; nothing was moved aside
    assert not list(settings.home.glob("*.before-restore-*"))
    assert _rows(settings) == (True, True)


def _rows(settings: Settings) -> tuple[bool, bool]:
    """Whether jygpu's offers and SMM's quotes are in the warehouse."""
    found = read_frame(
        settings.warehouse,
        "SELECT (SELECT count(*) FROM offer WHERE source = 'jygpu') AS offers, "
        "(SELECT count(*) FROM spot_quote WHERE source = 'smm') AS quotes",
    )
    return found["offers"].item() > 0, found["quotes"].item() > 0


def test_a_run_the_daemon_launched_waits_for_a_restore_and_says_so(
    market: DemoMarket, tmp_path: Path
) -> None:
    settings, _ = _prepared(market, tmp_path, market.jygpu_url)
    with daemon(settings):
        with exclusive(settings.warehouse):  # what a restore holds while it replaces the file
            launch(settings)
            run = the_run(settings, finished=False)
            deadline = time.monotonic() + WAIT_S
            while not logged(settings, run.run_id, "waits for it to finish"):
                assert time.monotonic() < deadline, "the run never said it waits"
                assert not the_run(settings, finished=False).is_finished, "it did not wait"
                time.sleep(0.5)
        run = the_run(settings, finished=True)  # the restore is over: the run goes on
    assert run.status == dg.DagsterRunStatus.SUCCESS
    assert _rows(settings) == (True, True)
