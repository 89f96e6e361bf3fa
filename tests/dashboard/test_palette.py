"""One colour per platform everywhere: a fixed palette keyed by the platform's name, distinct
across more than twenty platforms, the same under any filter and on every page."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from typing import Any

import pytest

from dashboard.palette import KNOWN, PALETTE, platform_colour, platform_scale
from tests.dashboard.seeding import Seeded
from tests.dashboard.test_i18n import NAVIGATION, render


def lab(colour: str) -> tuple[float, float, float]:
    """CIELAB (D65) of ``#rrggbb``: distance there is how different two colours look."""
    rgb = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92 for c in rgb)
    x = (r * 0.4124 + g * 0.3576 + b * 0.1805) / 0.95047
    y = r * 0.2126 + g * 0.7152 + b * 0.0722
    z = (r * 0.0193 + g * 0.1192 + b * 0.9505) / 1.08883

    def f(v: float) -> float:
        return v ** (1 / 3) if v > 0.008856 else 7.787 * v + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def test_the_palette_has_more_than_twenty_distinct_colours() -> None:
    assert len(PALETTE) >= 20 and len(set(PALETTE)) == len(PALETTE)
    closest = min(
        sum((p - q) ** 2 for p, q in zip(lab(a), lab(b), strict=True)) ** 0.5
        for a, b in itertools.combinations(PALETTE, 2)
    )
    assert closest >= 12  # CIE76: well apart, side by side
    # the bug: autodl, skypilot and smm-published shared one blue, cloudgrid and vastai another
    shared = ("autodl", "skypilot", "smm-published", "cloudgrid", "vastai")
    assert len({platform_colour(p) for p in shared}) == len(shared)
    assert len(set(KNOWN.values())) == len(KNOWN) and set(KNOWN.values()) <= set(PALETTE)


def test_twenty_platforms_get_twenty_colours() -> None:
    platforms = [*KNOWN, "bench-a", "bench-b", "bench-c", "examplecloud", "gpufarm", "anycloud"]
    assert len(platforms) >= 20
    colours = [platform_colour(p) for p in platforms]
    assert all(c in PALETTE for c in colours)
    known = {platform_colour(p) for p in KNOWN}
    assert not known & {platform_colour(p) for p in platforms[len(KNOWN) :]}  # never a known one


def test_a_colour_depends_on_the_name_alone() -> None:
    everyone = platform_scale(["jygpu", "autodl", "vastai", "newcloud"]).to_dict()
    filtered = platform_scale(["newcloud", "vastai"]).to_dict()
    mapping = dict(zip(everyone["domain"], everyone["range"], strict=True))
    assert dict(zip(filtered["domain"], filtered["range"], strict=True)) == {
        p: mapping[p] for p in ("newcloud", "vastai")
    }
    # another process (Python salts hash() per process; the palette must not use it)
    code = "from dashboard.palette import platform_colour as c; print(c('newcloud'))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert other.stdout.strip() == platform_colour("newcloud")


def _platform_colours(spec: Any) -> list[dict]:
    found = []
    if isinstance(spec, dict):
        colour = spec.get("encoding", {}).get("color", {})
        if colour.get("field") in ("source", "platform"):
            found.append(colour)
        for value in spec.values():
            found.extend(_platform_colours(value))
    elif isinstance(spec, list):
        for value in spec:
            found.extend(_platform_colours(value))
    return found


@pytest.mark.parametrize("page", NAVIGATION)
def test_every_chart_colours_platforms_by_the_palette(use_multi: Seeded, page: str) -> None:
    app = render(page, english=False)
    for chart in app.get("vega_lite_chart"):
        for colour in _platform_colours(json.loads(chart.proto.spec)):
            scale = colour.get("scale") or {}
            assert scale.get("range") == [platform_colour(p) for p in scale.get("domain", [0])]
