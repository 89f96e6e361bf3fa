"""A real price's origin shortened for reading (dashboard.origin), and which lines a crowded
trend panel keeps (dashboard.lines): real ones before the next cheapest simulated ones."""

from __future__ import annotations

from datetime import date

import polars as pl

from dashboard.lines import pick_lines
from dashboard.origin import LIMIT, short_origin

TRACKER = (
    "krisjiang-matrix/gpu_price_track, data/gpu_prices.csv "
    "(https://github.com/krisjiang-matrix/gpu_price_track): gpu_prices.csv lines 2-41 "
    "(sha256 0123456789ab)"
)


def test_origins_read_short() -> None:
    assert (
        short_origin("https://web.archive.org/web/20230929070808id_/https://www.runpod.io/gpu-instance/pricing")
        == "web.archive.org 2023-09-29 · runpod.io/gpu-instance/pricing"
    )  # fmt: skip
    assert (
        short_origin("https://web.archive.org/web/20250101000000/https://lambda.ai/pricing/")
        == "web.archive.org 2025-01-01 · lambda.ai/pricing"
    )
    commit = "https://github.com/skypilot-org/skypilot-catalog/commit/96019a2c3d4e5f60718293a4"
    assert short_origin(commit) == "skypilot-org/skypilot-catalog@96019a2"
    # a citation without its embedded URL, cut at the limit with an ellipsis
    tracker = short_origin(TRACKER)
    assert "https://" not in tracker and tracker.startswith("krisjiang-matrix/gpu_price_track")
    assert len(tracker) == LIMIT and tracker.endswith("…")
    seed = "seed 003 FAQ Q1 (上海有色网 SMM 算力专区 2026-09-04 报价)"
    assert short_origin(seed) == seed  # short already: as it is


def test_real_lines_come_before_the_next_cheapest_simulated_ones() -> None:
    """Ten simulated platforms and one real one, none of them the cheapest or the dearest:
    the real line is drawn, a simulated one cheaper than it is left to the band."""
    rows = [
        {"panel": "h100", "platform": f"sim{i:02d}", "billing": "hourly", "value": 10.0 + i,
         "period": date(2026, 9, 1), "real": False}
        for i in range(10)
    ] + [
        {"panel": "h100", "platform": "runpod", "billing": "hourly", "value": 18.5,
         "period": date(2026, 8, 10), "real": True},
        {"panel": "h100", "platform": "runpod", "billing": "hourly", "value": 18.6,
         "period": date(2026, 9, 1), "real": False},
    ]  # fmt: skip
    frame = pl.DataFrame(rows)
    args = {"panel": "panel", "platform": "platform", "billing": "billing", "value": "value",
            "period": "period", "limit": 4}  # fmt: skip
    drawn = pick_lines(frame, real="real", **args)
    kept = set(drawn.filter("drawn")["platform"])
    assert kept == {"sim00", "sim09", "runpod", "sim01"}  # extremes, the real one, next cheapest
    assert drawn.filter(pl.col("platform") == "runpod")["drawn"].all()  # both kinds of it
    # without the real column the next cheapest simulated ones take its place
    assert "runpod" not in set(pick_lines(frame, **args).filter("drawn")["platform"])
