"""A programmable loopback HTTP server for client and fault tests."""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Responder = Callable[[BaseHTTPRequestHandler], None]


def free_port() -> int:
    """A loopback port nothing listens on (the OS's pick, released at once)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class LoopbackServer:
    """A real HTTP server on 127.0.0.1 whose answers a test scripts per path."""

    routes: dict[str, list[Responder]] = field(default_factory=dict)
    hits: list[str] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, path: str, *responders: Responder) -> None:
        """Answer successive requests to ``path`` with these responders; the last one repeats."""
        self.routes[path] = list(responders)


def reply(status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> Responder:
    def respond(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return respond
