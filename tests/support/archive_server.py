"""A real loopback server over a demo.market.archive.LocalArchive (the Wayback-like and
GitHub-like answers over the real captures), with what a real archive also does now and then:
answer 429 / 503 first, cut a body short. Each request is recorded (path, query, headers)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from configuration.settings import Settings, load_settings
from demo.market.archive import (
    ARCHIVE_PREFIX,
    GITHUB_API_PREFIX,
    GITHUB_RAW_PREFIX,
    LocalArchive,
)


@dataclass
class Hit:
    path: str
    query: str
    headers: dict[str, str]


@dataclass
class _Fault:
    kind: str  # status | truncated | body
    times: int
    status: int = 429
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b"busy"


class ArchiveServer:
    """``with ArchiveServer(LocalArchive(...)) as server``: ``server.wayback``, ``.api`` and
    ``.raw`` are the bases a history import is pointed at."""

    def __init__(self, archive: LocalArchive | None = None) -> None:
        self.archive = archive or LocalArchive()
        self.hits: list[Hit] = []
        self._faults: dict[str, list[_Fault]] = {}
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- faults ------------------------------------------------------------------------
    def answer_status(self, path: str, status: int = 429, times: int = 1, **headers: str) -> None:
        """The next ``times`` requests of ``path`` get ``status`` (with ``headers``)."""
        self._faults.setdefault(path, []).append(_Fault("status", times, status, headers))

    def answer_body(self, path: str, body: bytes, times: int = 1_000_000) -> None:
        """The next ``times`` requests of ``path`` get ``body`` (JSON, status 200)."""
        self._faults.setdefault(path, []).append(_Fault("body", times, 200, {}, body))

    def truncate(self, path: str, times: int = 1_000_000) -> None:
        """Requests of ``path`` get half the body, with the whole body's Content-Length."""
        self._faults.setdefault(path, []).append(_Fault("truncated", times))

    def _fault(self, path: str) -> _Fault | None:
        with self._lock:
            queue = self._faults.get(path) or []
            while queue and queue[0].times <= 0:
                queue.pop(0)
            if not queue:
                return None
            queue[0].times -= 1
            return queue[0]

    # -- bookkeeping ------------------------------------------------------------------
    def requests(self, prefix: str) -> list[Hit]:
        return [h for h in self.hits if h.path.startswith(prefix)]

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def wayback(self) -> str:
        return self.url + ARCHIVE_PREFIX

    @property
    def api(self) -> str:
        return self.url + GITHUB_API_PREFIX

    @property
    def raw(self) -> str:
        return self.url + GITHUB_RAW_PREFIX

    def __enter__(self) -> ArchiveServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                owner.hits.append(Hit(parts.path, parts.query, dict(self.headers)))
                fault = owner._fault(parts.path)
                answer = owner.archive.answer("GET", parts.path, parts.query)
                if fault is not None and fault.kind in ("status", "body"):
                    kind = "application/json" if fault.kind == "body" else "text/plain"
                    self._send(fault.status, fault.body, kind, fault.headers)
                elif answer is None:
                    self._send(404, b"not found", "text/plain")
                elif fault is not None and answer.status == 200:  # truncated
                    self.send_response(200)
                    self.send_header("Content-Type", answer.content_type)
                    self.send_header("Content-Length", str(len(answer.body)))
                    self.end_headers()
                    self.wfile.write(answer.body[: len(answer.body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    with contextlib.suppress(OSError):
                        self.connection.shutdown(socket.SHUT_RDWR)
                else:
                    self._send(answer.status, answer.body, answer.content_type)

            def _send(
                self, status: int, body: bytes, kind: str, headers: dict[str, str] | None = None
            ) -> None:
                self.send_response(status)
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()


@contextlib.contextmanager
def serving(archive: LocalArchive | None = None) -> Iterator[ArchiveServer]:
    with ArchiveServer(archive) as server:
        yield server


# Fast, bounded HTTP and no per-host pause: the archive is a loopback server.
HISTORY_TOML = """
[http]
connect_timeout_s = 1
read_timeout_s = 2
retries = 1
connect_retries = 1
backoff_s = 0.01
max_retry_after_s = 1

[history]
min_interval_s = 0
"""


def history_settings(tmp_path: Path, extra: str = "", profile: str = "live") -> Settings:
    """Settings over ``tmp_path/home`` for history imports against a loopback archive; the
    built-in sources keep their defaults (runpod's and lambda's archived_urls)."""
    config = tmp_path / "gpuprice.toml"
    config.write_text(HISTORY_TOML + extra, encoding="utf-8")
    return load_settings(config, home=tmp_path / "home", profile=profile)
