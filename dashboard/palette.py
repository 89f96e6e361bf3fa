"""One colour per platform, the same on every page and under every filter.

Altair's default scheme hands colours out in the order the platforms of one chart sort in,
ten of them, so a platform changed colour with the filter and three platforms shared one
blue. Here a platform's colour depends on its name alone: the platforms this product knows
have a fixed colour each (a source and its ``-published`` seed prices a pair, dark and
light, of one hue); any other name is hashed (CRC-32, stable across processes, unlike
``hash()``) onto the colours no known platform uses. Every chart that colours by platform
takes its scale from :func:`platform_scale`.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

import altair as alt

# 24 colours at least ~14 apart in CIELAB (tests/dashboard/test_palette.py measures it):
# Tableau 20's hues without its greys (the trend band is grey), plus six darker ones.
PALETTE: tuple[str, ...] = (
    "#4e79a7",  # blue
    "#a0cbe8",  # light blue
    "#f28e2b",  # orange
    "#ffbe7d",  # light orange
    "#59a14f",  # green
    "#8cd17d",  # light green
    "#b6992d",  # olive
    "#f1ce63",  # yellow
    "#499894",  # teal
    "#86bcb6",  # light teal
    "#e15759",  # red
    "#ff9d9a",  # light red
    "#d37295",  # magenta
    "#fabfd2",  # pink
    "#b07aa1",  # purple
    "#d4a6c8",  # light purple
    "#9d7660",  # brown
    "#d7b5a6",  # light brown
    "#1d3557",  # navy
    "#17becf",  # cyan
    "#7b2d26",  # maroon
    "#3f007d",  # indigo
    "#bcbd22",  # lime
    "#006d2c",  # forest
)

# The demo's and the live profile's sources, their published seed prices, and the made-up
# platforms of the tests and benchmarks.
KNOWN: dict[str, str] = {
    "jygpu": "#e15759",
    "jygpu-published": "#ff9d9a",
    "smm": "#59a14f",
    "smm-published": "#8cd17d",
    "autodl": "#4e79a7",
    "vastai": "#f28e2b",
    "runpod": "#b07aa1",
    "matpool": "#499894",
    "gpushare": "#1d3557",
    "ppio": "#d37295",
    "compshare": "#b6992d",
    "lambda": "#3f007d",
    "skypilot": "#9d7660",
    "cloudgrid": "#17becf",
    "testcloud": "#7b2d26",
}
_FREE = tuple(c for c in PALETTE if c not in set(KNOWN.values()))


def platform_colour(platform: str) -> str:
    """The colour of ``platform``, whatever else is drawn beside it."""
    known = KNOWN.get(platform)
    if known is not None:
        return known
    return _FREE[zlib.crc32(platform.encode("utf-8")) % len(_FREE)]


def platform_scale(platforms: Iterable[str]) -> alt.Scale:
    """The colour scale of a chart whose colour field is the platform: the domain is the
    platforms drawn, each mapped to its own colour (so a filter never shifts them)."""
    domain = sorted(set(platforms))
    return alt.Scale(domain=domain, range=[platform_colour(p) for p in domain])
