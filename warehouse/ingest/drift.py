"""Scraper drift: prices outside plausible ranges, and each source's health (ok | broken).

A site that changes its layout rarely fails loudly: a page may still parse, but into zero
rows, or into numbers that are not prices any more (a month price read as an hour price, a
price in cents, a cell shifted by one column). So, besides the parser's own errors:

* every row's CNY per card-hour must lie within the plausible range of its card
  (:data:`PLAUSIBLE`); one row outside rejects its page, like any invalid row;
* a snapshot with any page that fails to parse, parses to zero rows or is rejected marks
  its source **broken** (``source_health``) and raises one ``scraper_broken`` alert, stored
  in ``alert`` and delivered by ``warehouse.derive.notify`` like the procurement alerts. While the
  source stays broken no further alert is raised; the first snapshot whose pages all load
  makes it ``ok`` again and resolves the alert (``resolved_at``, ``resolution``), and a
  later break alerts again. A snapshot of a past day (a backfill, the first start's
  seeding, a history import) is judged on that day: its alert is dated by it, is resolved
  by the next day that loads, whenever that was loaded, and is not sent
  (``warehouse.derive.alerts``, "about history").

A snapshot that could not be fetched (site unreachable, HTTP error) or was skipped (not
configured) says nothing about the parser and leaves the health as it was.

The ranges (CNY per card-hour, any billing mode) are a tenth to ten times a reference price
per card, and a twentieth for spot quotes (an interruptible floor can be very low). The
references are the seeds' published prices (4090 ¥1.96/h, 5090 and H100 from the 8-card
bare-metal months, H20 ¥7.75/h, 910B ¥4.47/h) and, for cards the seeds do not price, public
list prices converted at 7.10 CNY/USD: A100 ~$1.2–1.9/h, H200 ~$3.99/h, L40S ~$0.86/h, and
for the other cards the real captures in ``tests/fixtures/real/`` (RunPod's GraphQL answer of
2026-09-28, its Secure Cloud list price, else its Community price; Lambda's page; SkyPilot's
vast catalog). A card no capture prices takes a similar card's reference, said per line.
A factor of ten either way is far wider than any market move, and narrower than the usual
unit slips (×100 cents, ×24 days, ×720 months).
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from decimal import Decimal

import duckdb

from scrapers.rows import UNKNOWN_GPU, OfferRow, Row
from warehouse.derive.scraper_alerts import (
    open_scraper_break,
    resolve_scraper_broken,
    store_scraper_broken,
)

D = Decimal

# card -> reference CNY per card-hour (see the module docstring for where each comes from)
REFERENCE_CNY_PER_CARD_HOUR: dict[str, Decimal] = {
    "rtx4090-24g": D("1.96"),  # seed 003: 挂牌 ¥1.96/时
    "rtx4090-48g": D("3.00"),  # modded 48 GB boards list at roughly 1.5× the 24 GB card
    "rtx5090-32g": D("2.43"),  # seed 003: ¥13,990 / 8 cards / 720 h
    "a100-40g": D("6.00"),
    "a100-80g": D("8.00"),
    "h100-80g": D("14.67"),  # seed 003: ¥84,480 / 8 cards / 720 h
    "h200-141g": D("28.00"),
    "h20-96g": D("7.75"),  # seed 003: 挂牌 ¥7.75/时
    "l40s-48g": D("6.00"),
    "910b-64g": D("4.47"),  # seed 003: 挂牌 ¥4.47/时
    # Real captures, USD × 7.10. RP = runpod/runpod_graphql_20260928.json (securePrice, the
    # list price; communityPrice where RunPod sells no Secure Cloud card).
    "rtx3060-12g": D("0.37"),  # skypilot/v9/vast: 4x-RTX_3060 $0.21 / 4 cards
    "rtx3080ti-12g": D("1.28"),  # RP communityPrice $0.18 (no Secure Cloud)
    "rtx3090-24g": D("3.55"),  # RP $0.50
    "rtx3090ti-24g": D("3.27"),  # RP $0.46
    "a10-24g": D("5.33"),  # lambda/lambda_20241103180910.html: 1x A10 $0.75
    "a30-24g": D("2.91"),  # runpod/runpod_graphql_gputypes_20250621.json securePrice $0.41
    "a40-48g": D("3.48"),  # RP $0.49
    "rtxa6000-48g": D("3.76"),  # RP $0.53
    "rtx6000ada-48g": D("5.96"),  # RP $0.84
    "rtxpro6000-96g": D("14.84"),  # RP $2.09
    "l4-24g": D("3.48"),  # RP $0.49
    "l40-48g": D("5.82"),  # RP $0.82
    "v100-16g": D("1.35"),  # RP "Tesla V100" communityPrice $0.19 (no Secure Cloud)
    "v100-32g": D("3.48"),  # runpod_graphql_gputypes_20250621.json "V100 SXM2 32GB" $0.49
    "h100nvl-94g": D("22.65"),  # RP $3.19
    "b200-180g": D("48.21"),  # RP $6.79
    "mi300x-192g": D("16.97"),  # RP $2.39
    # Issue 36's cards, the same way (RP communityPrice where its securePrice is RunPod's
    # 0.5 placeholder or 0; SV = skypilot/v9/vast, price / card count).
    "rtx3070-8g": D("0.92"),  # RP communityPrice $0.13 (no Secure Cloud)
    "rtx3080-10g": D("1.21"),  # RP communityPrice $0.17 (no Secure Cloud)
    "rtx4060ti-16g": D("0.51"),  # SV 4x-RTX_4060_Ti $0.29 / 4 cards
    "rtx4070ti-12g": D("1.35"),  # RP communityPrice $0.19
    "rtx4070tisuper-16g": D("1.37"),  # SV 4x-RTX_4070S_Ti $0.77 / 4 cards
    "rtx4080-16g": D("1.92"),  # RP communityPrice $0.27
    "rtx4080super-16g": D("1.99"),  # RP communityPrice $0.28
    "rtx5070-12g": D("0.66"),  # SV 4x-RTX_5070 $0.37 / 4 cards
    "rtx5080-16g": D("4.19"),  # RP $0.59
    "rtxa2000-6g": D("0.85"),  # RP communityPrice $0.12
    "rtxa4000-16g": D("1.78"),  # RP $0.25
    "rtxa4500-20g": D("1.78"),  # RP $0.25
    "rtxa5000-24g": D("1.92"),  # RP $0.27
    "rtx2000ada-16g": D("1.70"),  # RP $0.24
    "rtx4000ada-20g": D("1.99"),  # RP $0.28
    "rtx4000adasff-20g": D("3.12"),  # RP $0.44
    "rtx5000ada-32g": D("5.89"),  # RP $0.83
    "rtx5880ada-48g": D("2.49"),  # SV 1x-RTX_5880Ada $0.35
    "quadrortx6000-24g": D("4.90"),  # trackers/gpu_price_track: Lambda "RTX 6000 24 GB" $0.69
    "rtxpro4000-24g": D("4.05"),  # RP $0.57
    "rtxpro4500-32g": D("5.11"),  # RP $0.72
    "rtxpro5000-48g": D("6.82"),  # RP $0.96
    "rtxpro6000maxq-96g": D("11.64"),  # RP communityPrice $1.64
    "h200nvl-141g": D("26.91"),  # RP $3.79
    "b300-288g": D("56.02"),  # RP $7.89
    "gh200-96g": D("16.26"),  # trackers/gpu_price_track: Lambda "NVIDIA GH200 96 GB" $2.29
    # No price in the seeds or the captures: a similar card's reference.
    "rtx3060-8g": D("0.37"),  # as the 12 GB RTX 3060 (same GPU)
    "rtx4090d-24g": D("1.96"),  # as the RTX 4090 (seed 003), which it stands in for in China
    "rtx5090d-32g": D("2.43"),  # as the RTX 5090 (seed 000 bare metal)
    "t4-16g": D("1.35"),  # as the V100 16 GB: both 16 GB, pre-Ampere, at the bottom of lists
    "v100s-32g": D("3.48"),  # as the V100 32 GB
    "a800-40g": D("6.00"),  # as the A100 40 GB (same silicon, slower NVLink)
    "a800-80g": D("8.00"),  # as the A100 80 GB
    "l20-48g": D("5.82"),  # as the L40 (same AD102 board and memory)
    "h800-80g": D("14.67"),  # as the H100 (seed 000 bare metal; same silicon)
    "h20-141g": D("7.75"),  # as the 96 GB H20 (seed 003; same compute)
}
LOW_FACTOR = D("0.1")
SPOT_LOW_FACTOR = D("0.05")
HIGH_FACTOR = D("10")
# A card the warehouse does not know may be anything from an old GTX card to a B300.
UNKNOWN_RANGE = (D("0.02"), D("1000"))


def plausible_range(gpu: str, spot: bool = False) -> tuple[Decimal, Decimal]:
    """The CNY per card-hour range a price of ``gpu`` must fall in."""
    reference = REFERENCE_CNY_PER_CARD_HOUR.get(gpu)
    if reference is None or gpu == UNKNOWN_GPU:
        return UNKNOWN_RANGE
    low = reference * (SPOT_LOW_FACTOR if spot else LOW_FACTOR)
    return low.quantize(D("0.001")), (reference * HIGH_FACTOR).quantize(D("0.01"))


def implausible(row: Row) -> str | None:
    """Why a row's price is implausible, or ``None``."""
    spot = not isinstance(row, OfferRow) or row.billing == "spot"
    low, high = plausible_range(row.gpu, spot)
    value = row.cny_per_card_hour
    if low <= value <= high:
        return None
    what = "offer" if isinstance(row, OfferRow) else "quote"
    ident = row.offer_id if isinstance(row, OfferRow) else f"{row.gpu_name_raw} {row.region}"
    return (
        f"implausible price: {what} {ident} ({row.gpu_name_raw}) at {value} CNY/card-hour "
        f"(listed {row.price} {row.currency} {row.unit_raw}) is outside [{low}, {high}] for {row.gpu}"
    )


def _alert_id(source: str, profile: str, since: datetime) -> str:
    key = f"scraper_broken|{source}|{profile}|{since.isoformat()}"
    return hashlib.sha256(key.encode()).hexdigest()[:24]


# What a recorded run is about: the day it fetched (as_of) when that was a past day, else when
# it ran. A backfill or the first start's seeding fetches past days after today's run.
_OBSERVED = (
    "CASE WHEN as_of IS NOT NULL AND as_of < CAST(started_at AS DATE) "
    "THEN CAST(as_of AS TIMESTAMP) ELSE started_at END"
)


def observation_moment(con: duckdb.DuckDBPyConnection, run_id: str, at: datetime) -> datetime:
    """What the snapshot of ``run_id`` (recorded in this transaction) is about."""
    row = con.execute(f"SELECT {_OBSERVED} FROM scrape_run WHERE run_id = ?", [run_id]).fetchone()
    return row[0] if row is not None and row[0] is not None else at


def _loaded_after(
    con: duckdb.DuckDBPyConnection, source: str, profile: str, about: datetime
) -> datetime | None:
    """The first observation after ``about`` at which ``source`` loaded whole, if any (a day
    of history that failed may be loaded after the days that followed it)."""
    row = con.execute(
        f"SELECT min({_OBSERVED}) FROM scrape_run WHERE source = ? AND profile = ? "
        f"AND status = 'ok' AND {_OBSERVED} > ?",
        [source, profile, about],
    ).fetchone()
    return row[0] if row is not None else None


def record_health(
    con: duckdb.DuckDBPyConnection,
    *,
    source: str,
    profile: str,
    run_id: str,
    at: datetime,
    problem: str | None,
) -> str | None:
    """Judge ``source``'s parser on a snapshot that was fetched at ``at`` (``problem``: what
    was wrong with its pages; ``None``: every page loaded) and recorded as ``run_id`` in this
    transaction. Returns the id of the ``scraper_broken`` alert stored when this snapshot
    started a break, else ``None``.

    A snapshot is judged on what it is about (:func:`observation_moment`): one that loads
    resolves every break seen up to then; one that fails starts a break unless one is open
    at that moment (one alert per break, whatever order the days arrive in). The health row
    follows the newest observation only: a past day loaded later does not overrule it."""
    about = observation_moment(con, run_id, at)
    simulated = profile == "demo"
    raised = None
    if problem is None:
        resolve_scraper_broken(con, source=source, simulated=simulated, at=about, run_id=run_id)
        alert_id = None
    else:
        alert_id = open_scraper_break(con, source=source, simulated=simulated, at=about)
        if alert_id is None:
            alert_id = _alert_id(source, profile, about)
            raised = store_scraper_broken(
                con,
                alert_id,
                source=source,
                profile=profile,
                at=about,
                problem=problem,
                raised_at=at,
                resolved_at=_loaded_after(con, source, profile, about),
            )
    _update_health(con, source, profile, run_id, at, about, problem, alert_id)
    return raised


def _update_health(
    con: duckdb.DuckDBPyConnection,
    source: str,
    profile: str,
    run_id: str,
    at: datetime,
    about: datetime,
    problem: str | None,
    alert_id: str | None,
) -> None:
    current = con.execute(
        "SELECT state, since, observed_at FROM source_health WHERE source = ? AND profile = ?",
        [source, profile],
    ).fetchone()
    if current is not None and current[2] is not None and about < current[2]:
        return  # older news: the health says how the source is now
    state = "broken" if problem else "ok"
    # The state keeps its start while it lasts.
    since = current[1] if current is not None and current[0] == state else about
    # DELETE + INSERT, not ON CONFLICT DO UPDATE, which a DuckLake refuses (no key;
    # warehouse.store.lake).
    con.execute("DELETE FROM source_health WHERE source = ? AND profile = ?", [source, profile])
    con.execute(
        "INSERT INTO source_health (source, profile, state, since, checked_at, run_id, reason, "
        "alert_id, observed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            source,
            profile,
            state,
            since,
            at,
            run_id,
            (problem or "")[:2000] or None,
            alert_id,
            about,
        ],
    )
