"""The price index against two computations of method v1 that share nothing with the
product's code: a plain Python one written here from docs/INDEX.md (statistics.median, loops
over days), and the plain SQL query docs/INDEX.md publishes. On a seeded random history of
six platforms (gaps, sold-out and unknown stock, several snapshots a day, real and SIMULATED
rows) loaded out of order, one derive per batch: the current values equal both, and what the
index said after each batch (`as_of`) equals the Python computation over the rows loaded by
then."""

from __future__ import annotations

import random
import re
import statistics
from collections import defaultdict
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest

from scrapers.rows import OfferRow
from tests.support.demo_days import insert
from warehouse.derive.metrics import derive_tables
from warehouse.read.index import IndexFilter, index_rows
from warehouse.store.db import read_frame
from warehouse.store.handle import Warehouse

DOC = Path(__file__).resolve().parents[3] / "docs" / "INDEX.md"
START = date(2026, 8, 1)
DAYS = 40
PLATFORMS = ("pa", "pb", "pc", "pd", "pe", "pf")
CARDS = {"rtx4090-24g": 2.0, "h20-96g": 7.5, "h100-80g": 14.0}
MODES = ("hourly", "monthly")
MIN_PLATFORMS = 3
COMPARED = (
    "value", "platforms", "observations", "sold_out_share", "stock_platforms", "status",
    "change_1d", "change_1d_platforms", "change_7d", "change_7d_platforms", "change_30d",
    "change_30d_platforms", "level",
)  # fmt: skip


def history(seed: int = 37) -> list[list[OfferRow]]:
    """Batches of rows (one a day, shuffled: days arrive out of order, as a history import
    and late pages bring them)."""
    rng = random.Random(seed)
    batches = []
    for offset in range(DAYS):
        day = START + timedelta(days=offset)
        rows: list[OfferRow] = []
        for source in PLATFORMS:
            if rng.random() < 0.3:
                continue  # the platform was not scraped that day
            for snap in range(rng.choice((1, 1, 2, 3))):
                at = datetime(day.year, day.month, day.day, 2 + 7 * snap)
                simulated = not (source in ("pa", "pb", "pc") and snap == 0 and rng.random() < 0.6)
                rows += _snapshot(rng, at, source, simulated, offset)
        batches.append(rows)
    rng.shuffle(batches)
    return batches


def _snapshot(
    rng: random.Random, at: datetime, source: str, simulated: bool, offset: int
) -> list[OfferRow]:
    rows = []
    for gpu, base in CARDS.items():
        for billing in MODES:
            if rng.random() < 0.2:
                continue
            for listing in range(rng.choice((1, 2, 3))):
                price = Decimal(
                    str(round(base * (1 + 0.01 * offset) * rng.uniform(0.8, 1.25), 2))
                ) * (Decimal("0.8") if billing == "monthly" else 1)
                stock = rng.choice((None, None, 0, 1, 4))
                rows.append(
                    OfferRow(
                        observed_at=at, source=source, offer_id=f"{gpu}-{listing}",
                        gpu=gpu, gpu_name_raw=gpu, gpu_count=1, vram_gb=None,
                        billing=billing, price=price, currency="CNY",  # type: ignore[arg-type]
                        unit="CNY/card-hour", unit_raw="元/时", per_card_hour=price,
                        stock=stock, simulated=simulated,
                    )
                )  # fmt: skip
    return rows


def _platform_medians(offers: list[OfferRow]) -> dict:
    """(kind, card, mode) -> day -> source -> (median or None, listings, sold out, stock
    given), each platform on its last snapshot of the day."""
    last: dict[tuple, datetime] = {}
    for o in offers:
        key = (o.observed_at.date(), o.simulated, o.source)
        last[key] = max(last.get(key, o.observed_at), o.observed_at)
    listed: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for o in offers:
        if o.observed_at != last[(o.observed_at.date(), o.simulated, o.source)]:
            continue
        kind = "SIMULATED" if o.simulated else "real"
        listed[(kind, o.gpu, o.billing)][o.observed_at.date()][o.source].append(o)
    out: dict = defaultdict(dict)
    for series, days in listed.items():
        for day, platforms in days.items():
            out[series][day] = {}
            for source, rows in platforms.items():
                shown = [float(r.per_card_hour) for r in rows if r.stock != 0]
                out[series][day][source] = (
                    statistics.median(shown) if shown else None,
                    len(shown),
                    sum(1 for r in rows if r.stock == 0),
                    sum(1 for r in rows if r.stock is not None),
                )
    return out


def _matched(today: dict, before: dict) -> tuple[float | None, int]:
    both = [s for s, v in today.items() if v[0] is not None and before.get(s, (None,))[0]]
    if not both:
        return None, 0
    now = statistics.median(today[s][0] for s in both)
    return now / statistics.median(before[s][0] for s in both), len(both)


def expected(offers: list[OfferRow]) -> dict[tuple, dict]:
    """Method v1 as docs/INDEX.md words it, one day at a time."""
    out = {}
    for (kind, gpu, billing), days in _platform_medians(offers).items():
        level, last_pub, last_value = 100.0, None, 0.0
        for day in sorted(days):
            platforms = days[day]
            quoting = [v[0] for v in platforms.values() if v[0] is not None]
            given = [v for v in platforms.values() if v[3] > 0]
            published = len(quoting) >= MIN_PLATFORMS
            row = {
                "value": statistics.median(quoting) if published else None,
                "platforms": len(quoting),
                "observations": sum(v[1] for v in platforms.values()),
                "sold_out_share": sum(v[2] for v in given) / sum(v[3] for v in given)
                if given
                else None,
                "stock_platforms": len(given),
                "status": "published" if published else "withheld",
            }
            for n in (1, 7, 30):
                back = days.get(day - timedelta(days=n))
                ok = published and back and sum(v[0] is not None for v in back.values()) >= 3
                ratio, used = _matched(platforms, back) if ok else (None, 0)
                row[f"change_{n}d"] = ratio - 1 if ratio is not None else None
                row[f"change_{n}d_platforms"] = used if ratio is not None else None
            if published:
                if last_pub is None:
                    level = 100.0
                else:
                    ratio, _ = _matched(platforms, days[last_pub])
                    level *= ratio if ratio is not None else row["value"] / last_value
                last_pub, last_value = day, row["value"]
            row["level"] = level if published else None
            out[(kind, gpu, billing, day)] = row
    return out


def _frame_rows(frame: pl.DataFrame) -> dict[tuple, dict]:
    return {
        (r["kind"], r["card"], r["billing"], r["day"]): {c: r[c] for c in COMPARED}
        for r in frame.iter_rows(named=True)
    }


def _same(got: dict[tuple, dict], want: dict[tuple, dict]) -> None:
    assert set(got) == set(want)
    for key, row in want.items():
        for column, value in row.items():
            if isinstance(value, float):
                assert got[key][column] == pytest.approx(value, rel=1e-9), (key, column)
            else:
                assert got[key][column] == value, (key, column)


def doc_query() -> str:
    """The last SQL block of docs/INDEX.md, for a warehouse before migration 013 (no tier)."""
    sql = re.findall(r"```sql\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)[-1]
    return sql.replace("$min_platforms", str(MIN_PLATFORMS))


def _run_doc_query(warehouse: Warehouse) -> pl.DataFrame:
    sql = doc_query()
    tier = read_frame(
        warehouse,
        "SELECT count(*) AS n FROM duckdb_columns() "
        "WHERE table_name = 'offer' AND column_name = 'tier'",
    )["n"].item()
    if not tier:
        sql = sql.replace(", tier\n", "\n").replace(" AND l.tier <> 'member'", "")
    return read_frame(warehouse, sql.rstrip().rstrip(";"))


def test_the_index_is_method_v1_computed_independently(warehouse: Warehouse) -> None:
    loaded: list[OfferRow] = []
    checkpoints = []
    for number, batch in enumerate(history()):
        insert(warehouse, batch)
        loaded += batch
        now = datetime(2026, 12, 1) + timedelta(hours=number)
        derive_tables(warehouse, now=now)
        if number in (5, 20):
            checkpoints.append((now, list(loaded)))
    current = _frame_rows(index_rows(warehouse))
    want = expected(loaded)
    published = [k for k, r in want.items() if r["status"] == "published"]
    withheld = [k for k, r in want.items() if r["status"] == "withheld"]
    assert len(published) > 50 and len(withheld) > 10  # the history exercises both
    assert any(r["change_30d"] is not None for r in want.values())
    assert any(k[0] == "real" for k in published)
    _same(current, want)
    # what it said after earlier batches, computed over the rows loaded by then
    for moment, rows in checkpoints:
        _same(_frame_rows(index_rows(warehouse, IndexFilter(as_of=moment))), expected(rows))
    # days that arrived out of order revised the changes and levels of later days
    revised = read_frame(warehouse, "SELECT count(*) AS n FROM price_index WHERE revision > 1")
    assert revised["n"].item() > 0


def test_the_documented_sql_reproduces_the_stored_values(warehouse: Warehouse) -> None:
    insert(warehouse, [row for batch in history(seed=7) for row in batch])
    derive_tables(warehouse)
    stored = _frame_rows(index_rows(warehouse))
    documented = _frame_rows(_run_doc_query(warehouse))
    _same(stored, {k: {c: v for c, v in r.items()} for k, r in documented.items()})
