"""Helpers of the live-source tests: test TOMLs, closed and silent loopback ports."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from configuration.settings import Settings, load_settings

LIVE_SOURCES = (
    "jygpu", "smm", "vastai", "runpod", "matpool", "autodl", "gpushare", "ppio", "compshare",
    "lambda", "skypilot",
)  # fmt: skip

# Fast, bounded HTTP for tests: one retry, short timeouts, no pacing.
FAST_HTTP = """
[http]
connect_timeout_s = 1
read_timeout_s = 1
retries = 1
connect_retries = 1
backoff_s = 0.05
min_interval_s = 0
"""


def sources(**tables: dict[str, object]) -> str:
    """``[sources.*]`` TOML: the given sources with their keys; every other built-in source
    disabled (so that no test reaches for a real site)."""
    text = ""
    for name in LIVE_SOURCES:
        if name not in tables:
            text += f"\n[sources.{name}]\nenabled = false\n"
    for name, keys in tables.items():
        text += f"\n[sources.{name}]\n"
        for key, value in keys.items():
            if isinstance(value, dict):
                continue
            text += f"{key} = {_toml(value)}\n"
        for key, value in keys.items():
            if isinstance(value, dict):
                text += f"[sources.{name}.{key}]\n"
                text += "".join(f"{k} = {_toml(v)}\n" for k, v in value.items())
    return text


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, int | float):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def settings_from(tmp_path: Path, toml: str, profile: str = "live") -> Settings:
    config = tmp_path / "gpuprice.toml"
    config.write_text(toml, encoding="utf-8")
    return load_settings(config, home=tmp_path / "home", profile=profile)


def closed_port() -> int:
    """A loopback port nothing listens on: connections are refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def silent_port() -> Iterator[int]:
    """A loopback port that accepts connections (the kernel's backlog) and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()
