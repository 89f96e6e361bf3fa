"""In the demo profile every command that runs the pipeline (`gpuprice run`, `backfill`,
`up`'s first scrape and its history seeding) serves the bundled demo market for itself, on
free ports, for as long as it runs, and its demo sources read that market.

Why its own market and not whichever answers on the configured ports: a command that used
another process's market depended on that process's lifetime. A backfill started 3 s after a
run used the run's market, which stopped when the run ended: 113 of 120 source-days failed.
A private market cannot vanish under its command, and no configured port has to be free.
The demo market is deterministic (its seed), so every private market serves the same pages
(`gpuprice demo-market` and `gpuprice up` still serve the configured ports, for the
daemon's scheduled runs and for people).

Only the sources that read the bundled market (its configured host and one of its three
ports) are moved; a source pointed anywhere else (a test's market, a fault server) is left
as it is.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from configuration.settings import Settings

if TYPE_CHECKING:
    from demo.market import DemoMarket


def port_answers(host: str, port: int) -> bool:
    """Something accepts connections on host:port (`gpuprice up`'s check of its ports)."""
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def bundled_market_sources(settings: Settings) -> dict[str, str]:
    """Each enabled source that reads the bundled market, and the market's site it reads
    ("jygpu", "smm" or "platforms"); empty outside the demo profile."""
    if settings.profile != "demo":
        return {}
    market = settings.file.demo_market
    sites = {market.jygpu_port: "jygpu", market.smm_port: "smm", market.platforms_port: "platforms"}
    readers: dict[str, str] = {}
    for name in settings.enabled_sources():
        url = urlsplit(settings.source_url(name))
        port = url.port or (443 if url.scheme == "https" else 80)
        if url.hostname == market.host and port in sites:
            readers[name] = sites[port]
    return readers


def moved(url: str, root: str) -> str:
    """``url`` on the server at ``root`` (scheme and host:port replaced; path and query kept)."""
    parts, target = urlsplit(url), urlsplit(root)
    return urlunsplit(parts._replace(scheme=target.scheme, netloc=target.netloc))


@contextmanager
def private_market(settings: Settings, say: Callable[[str], None]) -> Iterator[DemoMarket | None]:
    """The bundled demo market on free ports while the block runs; None when it cannot start
    (said, not raised: what reads it then fails and says so)."""
    # Imported here: only a demo command pays for the market's price model.
    from demo.market import DemoMarket

    cfg = settings.file.demo_market
    market = DemoMarket(cfg.host, 0, 0, cfg.seed, platforms_port=0)
    try:
        market.start()
    except OSError as exc:
        say(
            f"the demo market could not start on {cfg.host} ({exc.strerror or exc}); its "
            "sources will fail: set [demo_market] host to an address of this machine"
        )
        yield None
        return
    try:
        yield market
    finally:
        market.stop()


# The demo market's three sites, as a notice names them.
SITE_NAMES = {"jygpu": "极智算 (jygpu)", "smm": "SMM quotes", "platforms": "the other platforms"}


def private_notice(settings: Settings, market: DemoMarket, readers: dict[str, str]) -> str:
    """What a command's own demo market is, for someone who just saw another one start: the
    same SIMULATED pages as the configured market, on free ports, for this command only."""
    cfg = settings.file.demo_market
    sites = sorted(set(readers.values()), key=("jygpu", "smm", "platforms").index)
    where = ", ".join(
        f"{SITE_NAMES[site]} on port {urlsplit(market.url(site)).port}" for site in sites
    )
    return (
        "this command reads its own copy of the demo market (the same SIMULATED pages as "
        f"the one on {cfg.host} ports {cfg.jygpu_port}, {cfg.smm_port}, {cfg.platforms_port}; "
        f"here {where}), so that it depends on no other process; the copy stops when the "
        "command ends"
    )


@contextmanager
def private_demo_market(settings: Settings, say: Callable[[str], None]) -> Iterator[dict[str, str]]:
    """Serve the bundled demo market on free ports while the block runs; yields each demo
    source's URL on it (empty when no source reads the bundled market, or it cannot start)."""
    readers = bundled_market_sources(settings)
    if not readers:
        yield {}
        return
    with private_market(settings, say) as market:
        if market is None:
            yield {}
            return
        say(private_notice(settings, market, readers))
        yield {
            name: moved(settings.source_url(name), market.url(site))
            for name, site in readers.items()
        }
