"""In the demo profile, `gpuprice run` and `gpuprice backfill` bring the bundled demo market up
themselves when nothing serves it, so a new user's first command works without `make up`.

The market runs on threads of this process for the length of the command. It is started only
when every demo source points at the bundled market's own host and ports and none of those
ports answers: a market someone started (or another program on those ports) is left alone.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from configuration.settings import Settings


def port_answers(host: str, port: int) -> bool:
    """Something accepts connections on host:port (also `gpuprice up`'s check of its ports)."""
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def bundled_market_ports(settings: Settings) -> list[tuple[str, int]]:
    """The (host, port) pairs of the bundled market that the demo sources read, or [] when a
    demo source points anywhere else (then the market is not ours to start)."""
    if settings.profile != "demo":
        return []
    market = settings.file.demo_market
    ours = {market.jygpu_port, market.smm_port, market.platforms_port}
    wanted: set[tuple[str, int]] = set()
    for name in settings.enabled_sources():
        url = urlsplit(settings.source_url(name))
        port = url.port or (443 if url.scheme == "https" else 80)
        if url.hostname != market.host or port not in ours:
            return []
        wanted.add((market.host, port))
    return sorted(wanted)


@contextmanager
def demo_market_if_needed(settings: Settings, say: Callable[[str], None]) -> Iterator[bool]:
    """Serve the bundled demo market while the block runs, when it is needed and not running.
    Yields whether it was started here. A port that cannot be bound is said, not raised: the
    run then records the sources it cannot reach as failed, as it would without this."""
    ports = bundled_market_ports(settings)
    if not ports or any(port_answers(host, port) for host, port in ports):
        yield False
        return
    # Imported here: only a demo run that has to serve the market pays for its price model.
    from demo.market import DemoMarket

    cfg = settings.file.demo_market
    market = DemoMarket(
        cfg.host, cfg.jygpu_port, cfg.smm_port, cfg.seed, platforms_port=cfg.platforms_port
    )
    try:
        market.start()
    except OSError as exc:
        say(
            f"the demo market could not start on {cfg.host} ({exc.strerror or exc}); run it with `gpuprice demo-market`"
        )
        yield False
        return
    say(
        f"started the bundled demo market (SIMULATED prices) on {cfg.host}, ports "
        f"{', '.join(str(p) for _, p in ports)}; it stops when this command ends"
    )
    try:
        yield True
    finally:
        market.stop()
