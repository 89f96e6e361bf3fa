"""Hostile HTTP servers on loopback for the client's bounds, redirect and error-body tests:
each records what it was sent and how much of its answer it got to send."""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.loopback import Responder, reply


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Sent:
    """How much of an endless or slow answer a responder got out before the client left."""

    bytes: int = 0
    finished: bool = False


@dataclass
class Server:
    url: str
    routes: dict[str, Responder] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)

    def paths(self) -> list[str]:
        return [s.path for s in self.seen]


@contextmanager
def serve() -> Iterator[Server]:
    """A real HTTP server on 127.0.0.1 (a free port the OS picks) answering each path with
    its responder (404 otherwise), recording every request."""
    state = Server(url="")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            path = self.path.split("?")[0]
            state.seen.append(Seen(self.command, self.path, dict(self.headers), body))
            state.routes.get(path, reply(404, b"not found"))(self)
            self.close_connection = True

        do_GET = do_POST = _answer

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def _drip(handler: BaseHTTPRequestHandler, data: bytes, every_s: float, sent: Sent) -> bool:
    """Send ``data`` a byte at a time; False when the client hung up first."""
    try:
        for i in range(len(data)):
            handler.wfile.write(data[i : i + 1])
            sent.bytes += 1
            time.sleep(every_s)
    except OSError:
        return False
    return True


def slow_headers(sent: Sent, pad: int = 4000, every_s: float = 0.005) -> Responder:
    """A 200 whose headers arrive a byte every ``every_s`` (``pad`` bytes of them): each byte
    is well within any read timeout. Answers "ok" if the client waits that long."""

    def respond(handler: BaseHTTPRequestHandler) -> None:
        head = b"HTTP/1.1 200 OK\r\nX-Pad: " + b"a" * pad + b"\r\nContent-Length: 2\r\n\r\nok"
        sent.finished = _drip(handler, head, every_s, sent)

    return respond


def slow_body(sent: Sent, size: int = 4000, every_s: float = 0.005) -> Responder:
    """A 200 with prompt headers and a ``size``-byte body sent a byte every ``every_s``."""

    def respond(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(size))
        handler.end_headers()
        sent.finished = _drip(handler, b"x" * size, every_s, sent)

    return respond


def endless(sent: Sent, start: bytes, line: bytes, most: int, status: int = 200) -> Responder:
    """``start``, then ``line`` again and again, with no length (read until close), up to
    ``most`` bytes: without a limit the client reads all of it."""

    def respond(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "text/plain")
        handler.send_header("Connection", "close")
        handler.end_headers()
        block = line * max(1, 65536 // len(line))
        try:
            handler.wfile.write(start)
            while sent.bytes < most:
                handler.wfile.write(block)
                sent.bytes += len(block)
        except OSError:
            return
        sent.finished = True

    return respond


def gzip_bomb(start: bytes, filler: bytes, decoded_mb: int) -> bytes:
    """``start`` then ``filler`` repeated to ``decoded_mb`` MB, gzipped (about 1,000 : 1)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = filler * ((1 << 20) // len(filler))
    parts = [packer.compress(start)]
    parts += [packer.compress(block) for _ in range(decoded_mb)]
    parts.append(packer.flush())
    return b"".join(parts)
