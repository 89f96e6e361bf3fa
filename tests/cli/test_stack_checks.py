"""`gpuprice up`'s checks before it starts anything: a host it cannot serve on, a port in use."""

from __future__ import annotations

import socket
from collections.abc import Callable

import pytest

from configuration.settings import Settings
from gpuprice.stack import run_stack


def test_an_unresolvable_host_is_exit_2_with_what_to_set(
    make_settings: Callable[..., Settings], capsys: pytest.CaptureFixture[str]
) -> None:
    settings = make_settings('[services]\nhost = "no-such-host.invalid"\n')
    assert run_stack(settings) == 2
    out = capsys.readouterr().out
    assert "cannot serve on no-such-host.invalid" in out and "[services] host" in out


def test_a_port_in_use_is_exit_2_naming_it(
    make_settings: Callable[..., Settings], capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        settings = make_settings(f"[services]\ndashboard_port = {port}\n")
        assert run_stack(settings) == 2
    out = capsys.readouterr().out
    assert f"dashboard port 127.0.0.1:{port}" in out and "[services]/[demo_market] ports" in out
