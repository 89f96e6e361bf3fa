"""A real webhook receiver on loopback that apprise's json:// URLs post to."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Receiver:
    """Records every POST; answers ``status`` (set it to 500 to fail deliveries)."""

    status: int = 200
    accepted: list[dict] = field(default_factory=list)  # bodies answered with 2xx
    refused: list[dict] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None
    port: int = 0

    def url(self, secret_path: str = "hook/s3cr3t-t0ken") -> str:
        return f"json://127.0.0.1:{self.port}/{secret_path}"

    def start(self) -> Receiver:
        state = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                state.paths.append(self.path)
                (state.accepted if state.status < 300 else state.refused).append(body)
                self.send_response(state.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None


@contextmanager
def running_receiver() -> Iterator[Receiver]:
    receiver = Receiver().start()
    try:
        yield receiver
    finally:
        receiver.stop()
