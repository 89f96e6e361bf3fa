"""Bounds on one fetch: a total deadline, a minimum transfer rate, and byte limits on the wire
and after decoding.

Written here because httpx bounds none of them. Its read timeout applies to each socket read,
so a server that sends a byte a second (headers or body) is never timed out; and its gzip
decoder inflates each network chunk whole, so one 64 KiB chunk of a gzip bomb becomes 64 MB
before any limit can look at it. Here the body is inflated by zlib with ``max_length``, so
the decoded size never passes the limit by more than one byte.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

Trace = Callable[[str, dict[str, Any]], None]  # httpcore's ``trace`` request extension


class FetchTimeout(Exception):
    """The fetch passed its deadline or fell below the minimum transfer rate."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class BadEncoding(Exception):
    """A body in a Content-Encoding we did not ask for, or not valid in the one it names."""


class Deadline:
    """The time one fetch may take, from its first request to its last byte: across robots.txt,
    redirects, retries and the waits between retries. Our own per-host pacing waits extend it
    (:meth:`extend`): they are politeness, not the server's slowness.

    While a request is in flight (:meth:`watch`), a timer thread shuts its sockets down when
    the deadline passes. Why a thread: headers arriving a byte at a time keep the read inside
    httpcore until they are complete, each byte restarting httpx's per-read timeout, so no
    check in our code would run; shutting the socket down is what ends that read (and the
    TLS handshake's, and the body's, alike).
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds
        self.passed = False

    def remaining(self) -> float:
        return self._end - time.monotonic()

    def extend(self, seconds: float) -> None:
        self._end += max(seconds, 0.0)

    def check(self) -> None:
        if self.passed or self.remaining() <= 0:
            self.passed = True
            raise self._timeout()

    def _timeout(self) -> FetchTimeout:
        return FetchTimeout(f"no complete answer within the {self.seconds:g} s deadline")

    @contextmanager
    def watch(self) -> Iterator[Trace]:
        """Watch one request (with its redirects); yields the ``trace`` callback that hands the
        watch each socket the request connects."""
        self.check()
        watch = _SocketWatch(self)
        timer = threading.Timer(self.remaining(), watch.trip)
        timer.daemon = True
        timer.start()
        try:
            yield watch.trace
        except Exception:
            if self.passed:  # the error is the shut socket's: say why it was shut
                raise self._timeout() from None
            raise
        finally:
            timer.cancel()
            watch.release()
        self.check()  # a socket shut at the deadline can look like a body that simply ended


class _SocketWatch:
    """The sockets of one watched request; ``trip`` shuts them all down."""

    def __init__(self, deadline: Deadline) -> None:
        self._deadline = deadline
        self._lock = threading.Lock()  # shutdown and close never race: a closed fd is reused
        self._sockets: list[socket.socket] = []
        self._tripped = False

    def trace(self, event: str, info: dict[str, Any]) -> None:
        if event != "connection.connect_tcp.complete":
            return
        sock = info["return_value"].get_extra_info("socket")
        if sock is None:
            return
        # A duplicate: TLS detaches the original socket object, the connection stays one.
        copy = sock.dup()
        with self._lock:
            self._sockets.append(copy)
            if self._tripped:
                _shut(copy)

    def trip(self) -> None:
        self._deadline.passed = True
        with self._lock:
            self._tripped = True
            for sock in self._sockets:
                _shut(sock)

    def release(self) -> None:
        with self._lock:
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed by the server or by httpcore
        sock.shutdown(socket.SHUT_RDWR)


class RateMeter:
    """The minimum transfer rate of a body: at least ``min_bytes_per_s`` on average over each
    window of ``window_s`` seconds, counted from the end of the headers (the server's
    thinking time before it answers is the read timeout's and the deadline's).
    ``min_bytes_per_s = 0`` turns it off."""

    def __init__(self, min_bytes_per_s: int, window_s: float) -> None:
        self._min = min_bytes_per_s
        self._window = window_s
        self._start = time.monotonic()
        self._bytes = 0

    def add(self, count: int) -> None:
        self._bytes += count
        now = time.monotonic()
        if now - self._start < self._window or not self._min:
            return
        if self._bytes < self._min * (now - self._start):
            raise FetchTimeout(
                f"slower than {self._min} bytes/s over {self._window:g} s "
                f"({self._bytes} bytes in {now - self._start:.1f} s)"
            )
        self._start, self._bytes = now, 0


@dataclass(frozen=True, slots=True)
class Body:
    data: bytes
    over: str | None = None  # where the limit was passed: "on the wire" or "once decoded"


class _Identity:
    def decode(self, data: bytes, room: int) -> bytes:
        return data


class _Inflate:
    """gzip or deflate, at most ``room`` bytes of output per call: what is left of the input
    waits in zlib's unconsumed tail, which is never inflated because the body is over its
    limit by then."""

    def __init__(self, encoding: str) -> None:
        self._gzip = encoding in ("gzip", "x-gzip")
        self._z = zlib.decompressobj(zlib.MAX_WBITS | 16 if self._gzip else zlib.MAX_WBITS)
        self._first = True

    def decode(self, data: bytes, room: int) -> bytes:
        try:
            return self._inflate(data, room)
        except zlib.error as exc:
            name = "gzip" if self._gzip else "deflate"
            raise BadEncoding(f"body is not valid {name}: {exc}") from None

    def _inflate(self, data: bytes, room: int) -> bytes:
        try:
            out = self._z.decompress(data, room)
        except zlib.error:
            if self._gzip or not self._first:
                raise
            # "deflate" is sent both zlib-wrapped and raw; httpx tries the same two
            self._z = zlib.decompressobj(-zlib.MAX_WBITS)
            out = self._z.decompress(data, room)
        self._first = False
        return out


ACCEPT_ENCODING = "gzip, deflate"  # what _decoder decodes, and so all a request asks for


def _decoder(content_encoding: str) -> _Identity | _Inflate:
    codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
    codings = [c for c in codings if c != "identity"]
    if not codings:
        return _Identity()
    if len(codings) == 1 and codings[0] in ("gzip", "x-gzip", "deflate"):
        return _Inflate(codings[0])
    raise BadEncoding(f"Content-Encoding {content_encoding[:40]!r} was not asked for")


def read_limited(
    chunks: Iterable[bytes],
    content_encoding: str,
    limit: int,
    on_chunk: Callable[[int], None] = lambda n: None,
) -> Body:
    """Read and decode a body, stopping as soon as more than ``limit`` bytes came on the wire
    or came out of the decoder; then ``over`` says which, and ``data`` holds the first
    ``limit`` decoded bytes. ``on_chunk`` sees each raw chunk's size (the rate meter)."""
    decoder = _decoder(content_encoding)
    out = bytearray()
    wire = 0
    for chunk in chunks:
        wire += len(chunk)
        on_chunk(len(chunk))
        out += decoder.decode(chunk, limit + 1 - len(out))
        if wire > limit:
            return Body(bytes(out[:limit]), "on the wire")
        if len(out) > limit:
            return Body(bytes(out[:limit]), "once decoded")
    return Body(bytes(out))
