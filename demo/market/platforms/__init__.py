"""Every other source's platform, SIMULATED, each under its own path ``/<source>`` of one port:
the Chinese markets' APIs (:mod:`.cn_apis`), the international clouds' APIs
(:mod:`.usd_apis`), SkyPilot's catalogs (:mod:`.catalogs`) and a pricing-table page for the
generic extractor (:mod:`.cloudgrid`). What they share (price walks, stock-outs, layout
changes): :mod:`.model`."""

from __future__ import annotations

from demo.market.platforms.base import Answer, Platform, PlatformRequest, Route
from demo.market.platforms.catalogs import SKYPILOT
from demo.market.platforms.cloudgrid import CLOUDGRID
from demo.market.platforms.cn_apis import AUTODL, COMPSHARE, GPUSHARE, MATPOOL, PPIO
from demo.market.platforms.model import Ctx, layout_change_days
from demo.market.platforms.usd_apis import LAMBDA, RUNPOD, VASTAI

__all__ = [
    "PLATFORMS",
    "Answer",
    "Ctx",
    "Platform",
    "PlatformRequest",
    "Route",
    "find_route",
    "layout_change_days",
]

PLATFORMS: dict[str, Platform] = {
    p.name: p
    for p in (
        AUTODL, MATPOOL, GPUSHARE, PPIO, COMPSHARE, VASTAI, RUNPOD, LAMBDA, SKYPILOT, CLOUDGRID,
    )
}  # fmt: skip


def find_route(platform: Platform, method: str, path: str) -> tuple[Route | None, tuple[str, ...]]:
    """The route of ``platform`` answering ``method`` on ``path`` (HEAD is served as GET),
    and the methods ``path`` allows at all (empty: no such path)."""
    wanted = "GET" if method == "HEAD" else method
    allowed = tuple(r.method for r in platform.routes if r.pattern.match(path))
    for candidate in platform.routes:
        if candidate.method == wanted and candidate.pattern.match(path):
            return candidate, allowed
    return None, allowed
