"""Shared fixtures: a programmable loopback HTTP server and temporary settings."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from gpuprice.settings import Settings, load_settings
from tests.support.loopback import LoopbackServer, reply


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
