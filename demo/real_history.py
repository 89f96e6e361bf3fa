"""The first start's REAL history (`make up`, demo profile): beside the SIMULATED 90 days,
real points imported from the demo market's archive of real captures (demo.market.archive):
RunPod's and Lambda's pricing pages as the Internet Archive captured them (2023–2026), the
five versions of SkyPilot's Lambda catalog (2023), two days of a public tracker's CSV (2026),
and the ECB's daily USD→CNY rates they are converted at (2022-12 – 2025-05). Every row is
real and cites its origin; the importing itself is the history job's (pipelines.history),
run by the entry point that hands in ``run``."""

from __future__ import annotations

from collections.abc import Callable

from configuration.settings import Settings
from demo.market.archive import ARCHIVE_PREFIX, GITHUB_API_PREFIX, GITHUB_RAW_PREFIX, REAL
from pipelines.history_import import HistoryRequest
from scrapers.ecb import parse_ecb_history
from warehouse.ingest.fx_rates import import_rates

__all__ = ["TRACKER_CSV", "demo_requests", "import_real_history"]

TRACKER_CSV = REAL / "trackers" / "gpu_price_track_2026-07-08_09.csv"
ECB_CSV = REAL / "ecb" / "eurofxref-hist.csv"
ECB_ORIGIN = (
    "ECB euro reference rates, https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip "
    "(excerpt: tests/fixtures/real/ecb)"
)

# Runs one import; returns how it ended ("ok", "partial", "failed", ...) and its summary.
Run = Callable[[HistoryRequest], tuple[str, list[str]]]


def demo_requests(base: str) -> list[HistoryRequest]:
    """The imports of the demo archive, served under ``base`` (the demo market's platforms
    site). Every capture and version is kept (``every`` day), and no pause is made: the
    archive is local and ours."""
    wayback = {"kind": "wayback", "every": "day", "archive_url": base + ARCHIVE_PREFIX}
    return [
        HistoryRequest(source="runpod", min_interval_s=0, **wayback),
        HistoryRequest(source="lambda", min_interval_s=0, **wayback),
        HistoryRequest(
            kind="skypilot",
            cloud="lambda",
            version="v5",
            every="day",
            min_interval_s=0,
            api_url=base + GITHUB_API_PREFIX,
            raw_url=base + GITHUB_RAW_PREFIX,
        ),  # fmt: skip
        HistoryRequest(kind="csv", file=str(TRACKER_CSV), mapping="gpu_price_track"),
    ]


def import_real_history(settings: Settings, run: Run, say: Callable[[str], None], base: str) -> int:
    """Import the ECB rates, then every demo request from the archive under ``base``; 0 when
    all ran, 1 otherwise."""
    rates = parse_ecb_history(ECB_CSV.read_bytes(), ECB_ORIGIN)
    stored = import_rates(settings.warehouse, rates, settings.file.fx.policy())
    say(
        f"real history: {stored.added} ECB USD→CNY rate(s) stored ({rates[0].day} .. {rates[-1].day})"
    )
    failed = 0
    for request in demo_requests(base):
        status, lines = run(request)
        for line in lines[:1] or [f"history {request.kind}: {status}"]:
            say(f"real {line}")  # "real history wayback runpod: 3 listed, …"
        failed += status not in ("ok", "partial")
    return 1 if failed else 0
