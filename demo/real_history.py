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
from warehouse.read.history import imports

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


# Each demo import in a newcomer's words, and what one item of it is.
_WHAT = {
    "runpod": ("RunPod's pricing page as the Internet Archive captured it", "capture"),
    "lambda": ("Lambda's pricing page as the Internet Archive captured it", "capture"),
    "skypilot": ("SkyPilot's catalog of Lambda's prices, version by version on GitHub", "version"),
    "csv": ("two days of a public price tracker's CSV (gpu_price_track)", "snapshot"),
}


def _key(request: HistoryRequest) -> str:
    return request.source if request.kind == "wayback" and request.source else request.kind


def _plural(count: int, unit: str) -> str:
    return f"{count} {unit}{'' if count == 1 else 's'}"


def import_line(request: HistoryRequest, done: dict | None, status: str) -> str:
    """What one import brought in, for someone seeing the demo for the first time: what was
    read, how many items and of which days, how many prices; ``done`` is the import's
    ``history_import`` row (warehouse.read.history.imports), None when it left none."""
    what, unit = _WHAT.get(_key(request), (f"history {request.kind}", "item"))
    if done is None or status not in ("ok", "partial"):
        return f"real history: {what}: not imported ({status}; the Dagster UI's Runs page says why)"
    if not done["rows_added"]:
        return f"real history: {what}: already imported, nothing new"
    text = (
        f"real history: {what}: {_plural(done['parsed'], unit)} from {done['first_day']} to "
        f"{done['last_day']}, {done['rows_added']} prices added"
    )
    if done["failed"]:
        text += f"; {_plural(done['failed'], unit)} could not be read (the Data coverage page lists them)"
    return text


def _rates_line(added: int, rates: list) -> str:
    days = len({rate.day for rate in rates})
    head = "real history: exchange rates, the European Central Bank's daily USD→CNY reference rate"
    if not added:
        return f"{head}: already stored"
    new = "" if added == days else f" ({added} new)"
    return (
        f"{head} on {days} business days from {rates[0].day} to {rates[-1].day}{new}, "
        "to convert the real prices listed in USD below into CNY at each day's own rate"
    )


def _newest_import(settings: Settings, request: HistoryRequest) -> dict | None:
    for row in imports(settings.warehouse, limit=20).to_dicts():
        if row["kind"] == request.kind and (
            request.kind != "wayback" or row["source"] == request.source
        ):
            return row
    return None


def import_real_history(settings: Settings, run: Run, say: Callable[[str], None], base: str) -> int:
    """Import the ECB rates, then every demo request from the archive under ``base`` (the
    demo market's archive of real captures, served for this import only); 0 when all ran, 1
    otherwise. One line each, in words a newcomer follows; the import's own summary (listed,
    kept, fetched …) is in the run log and the Dagster UI."""
    say(
        "real history: importing real prices of the past from the demo market's copy of public "
        f"archives (tests/fixtures/real, served at {base} for this import only)"
    )
    rates = sorted(parse_ecb_history(ECB_CSV.read_bytes(), ECB_ORIGIN), key=lambda r: r.day)
    stored = import_rates(settings.warehouse, rates, settings.file.fx.policy())
    say(_rates_line(stored.added, rates))
    failed = 0
    for request in demo_requests(base):
        status, _ = run(request)
        say(import_line(request, _newest_import(settings, request), status))
        failed += status not in ("ok", "partial")
    return 1 if failed else 0
