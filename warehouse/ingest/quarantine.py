"""Anomaly quarantine: rows that look wrong are held back from ``offer`` / ``spot_quote`` (and
so from every derived table and alert) with the reason, until confirmed by
``confirm_snapshots`` consecutive snapshots or accepted by hand.

What is held, and how it interacts with page-level validation (``warehouse.ingest.load``):

- ``jump``: a price per card-hour more than ``jump_factor`` times (or less than 1 /
  ``jump_factor`` of) the last accepted value of the same listing (offer: source, offer_id,
  billing; quote: source, name, region, basis). The row is held; the rest of the page loads.
  When the listing's held jumps since its last accepted value number ``confirm_snapshots``
  and agree with each other (within ``jump_factor``), the new level is real: they are all
  released into the table (status ``confirmed``).
- ``impossible_unit``: an offer whose normalised unit is not ``<currency>/<card|server>-
  <hour|day|month>`` in its own currency. The row is held; the rest of the page loads.
- ``invalid_price``: zero, negative, NaN or infinite prices. As before this rejects the whole
  page (a page with junk in it is most likely a changed layout: zero rows, never junk); the
  bad rows are also kept here with the reason, ``loadable = false`` (they can only be
  rejected).
- ``unknown_gpu``: a name that maps to no card. As before the row is loaded with
  ``gpu = 'unknown'`` (every metric skips that id), and noted here (status ``noted``) so a
  person can see it and teach ``scrapers.gpu_names`` the new spelling.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

import duckdb
import polars as pl

from scrapers.fx import FxRate
from scrapers.parse import DEFAULT_MAX_REJECTED_SHARE
from scrapers.rows import UNKNOWN_GPU, OfferRow, Row, SpotQuoteRow
from warehouse.ingest.insert import insert_rows
from warehouse.ingest.money import PricedOffer, PricedQuote
from warehouse.store.db import read_frame, utcnow, write_connection
from warehouse.store.handle import Warehouse
from warehouse.store.lake import insert_new_frame

REASONS = ("jump", "invalid_price", "unknown_gpu", "impossible_unit")
STATUSES = ("held", "confirmed", "accepted", "rejected", "noted")
_UNIT = re.compile(r"^(?P<cur>[A-Z]{3})/(card|server)-(hour|day|week|month|year)$")
_DECIMAL_FIELDS = (
    "price", "per_card_hour", "cny_per_card_hour", "list_price", "stated_discount",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class QuarantinePolicy:
    """How the load screens a page's rows (``[quarantine]``, ``[parse]``)."""

    jump_factor: float = 3.0  # > 1
    confirm_snapshots: int = 3  # >= 1
    # more rejected listings than this share fail the page (scrapers.parse)
    max_rejected_share: float = DEFAULT_MAX_REJECTED_SHARE


@dataclass(frozen=True, slots=True)
class Entry:
    row: Row
    reason_kind: str
    reason: str
    status: str = "held"
    loadable: bool = True
    baseline: float | None = None
    baseline_at: datetime | None = None


def row_table(row: Row) -> str:
    return "offer" if isinstance(row, OfferRow) else "spot_quote"


def row_key(row: Row) -> str:
    if isinstance(row, OfferRow):
        return f"{row.source}|{row.offer_id}|{row.billing}"
    return f"{row.source}|{row.gpu_name_raw}|{row.region}|{row.basis}"


def entry_id(row: Row) -> str:
    text = f"{row_table(row)}|{row_key(row)}|{row.observed_at.isoformat()}"
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _as_float(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError, InvalidOperation):
        return None
    return number if math.isfinite(number) else None


def bad_price(row: Row) -> str | None:
    """What is wrong with the listed prices of ``row`` (its price and price per card-hour)."""
    for name in ("price", "per_card_hour"):
        value = getattr(row, name)
        number = _as_float(value)
        if not isinstance(value, Decimal) or number is None or number <= 0:
            return f"{name} {value!r} is not a positive number"
    return None


def impossible_unit(row: Row) -> str | None:
    if not isinstance(row, OfferRow):
        return None
    m = _UNIT.match(row.unit or "")
    if m is None:
        return f"unit {row.unit!r} is not <currency>/<card|server>-<hour|day|week|month|year>"
    if m["cur"] != row.currency:
        return f"unit {row.unit!r} is not in the row's currency {row.currency}"
    return None


def invalid_price_entries(rows: list[Row]) -> list[Entry]:
    """The rows of a page with zero, negative or NaN prices (the page itself is rejected)."""
    return [
        Entry(r, "invalid_price", problem, loadable=False)
        for r in rows
        if (problem := bad_price(r)) is not None
    ]


def _row_json(row: Row) -> str:
    return json.dumps(row.to_dict() | {"_table": row_table(row)}, default=str, ensure_ascii=False)


def row_from_json(text: str) -> Row:
    """The row a quarantine entry keeps: priced (with the rate it was converted at) when it
    was screened, listed only when its page was rejected before pricing."""
    data = json.loads(text)
    table = data.pop("_table")
    data["observed_at"] = datetime.fromisoformat(data["observed_at"])
    if "per_card_hour" not in data:
        # kept before rows carried their listed per-card-hour figure (converted when parsed)
        data["per_card_hour"] = data["cny_per_card_hour"]
        data["fx"] = {"day": data["observed_at"].date().isoformat(), "currency": "CNY",
                      "cny_per_unit": "1", "source": "converted when parsed"}  # fmt: skip
    for name in _DECIMAL_FIELDS:
        if data.get(name) is not None:
            data[name] = Decimal(data[name])
    fx = data.pop("fx", None)
    if fx is not None and "cny_per_card_hour" in data:
        rate = FxRate(
            date.fromisoformat(fx["day"]), fx["currency"], Decimal(fx["cny_per_unit"]), fx["source"]
        )
        return (PricedOffer if table == "offer" else PricedQuote)(**data, fx=rate)
    data.pop("cny_per_card_hour", None)
    return OfferRow(**data) if table == "offer" else SpotQuoteRow(**data)


def _key_sql(table: str) -> str:
    if table == "offer":
        return "source || '|' || offer_id || '|' || billing"
    return "source || '|' || gpu_name_raw || '|' || region || '|' || basis"


# How far back a page's baselines are looked for first. A listing seen within it (every
# listing of a tracker's page after its first) is found without reading the source's whole
# history: read on every page, that history made a long import quadratic (a 200 MB tracker
# CSV spent 10 s of its 108 s here). Only the listings not seen since are looked for further.
RECENT = timedelta(days=7)


def _baselines(
    con: duckdb.DuckDBPyConnection, table: str, source: str, before: datetime, keys: set[str]
) -> dict[str, tuple[float, datetime]]:
    """The last accepted value (and its time) before ``before`` of each listing in ``keys``."""
    if not keys:
        return {}
    key = _key_sql(table)

    def last_values(where: str, params: list[Any]) -> dict[str, tuple[float, datetime]]:
        rows = con.execute(
            f"SELECT {key} AS k, arg_max(cny_per_card_hour, observed_at)::DOUBLE, "
            f"max(observed_at) FROM {table} WHERE source = ? AND {where} GROUP BY k",
            [source, *params],
        ).fetchall()
        return {k: (v, t) for k, v, t in rows}

    recent = before - RECENT
    found = last_values("observed_at >= ? AND observed_at < ?", [recent, before])
    missing = sorted(keys - found.keys())
    if missing:
        found |= last_values(f"observed_at < ? AND list_contains(?, {key})", [recent, missing])
    return found


def _already_loaded(con: duckdb.DuckDBPyConnection, rows: list[Row]) -> set[str]:
    """Ids of rows whose exact listing and time is already in its table (a page loaded
    again): they are not screened a second time."""
    found: set[str] = set()
    for table in ("offer", "spot_quote"):
        mine = [r for r in rows if row_table(r) == table]
        if not mine:
            continue
        key = _key_sql(table)
        times = [r.observed_at for r in mine]
        hits = con.execute(
            f"SELECT {key}, observed_at FROM {table} WHERE source = ? AND observed_at "
            "BETWEEN ? AND ?",
            [mine[0].source, min(times), max(times)],
        ).fetchall()
        present = {(k, t) for k, t in hits}
        found |= {entry_id(r) for r in mine if (row_key(r), r.observed_at) in present}
    return found


def admitted_ids(con: duckdb.DuckDBPyConnection, rows: list[Row]) -> set[str]:
    """Ids of these rows' entries that were accepted by hand or confirmed by later snapshots."""
    ids = [entry_id(r) for r in rows]
    if not ids:
        return set()
    found = con.execute(
        "SELECT quarantine_id FROM quarantine WHERE status IN ('accepted', 'confirmed') "
        "AND list_contains(?, quarantine_id)",
        [ids],
    ).fetchall()
    return {entry for (entry,) in found}


def screen(
    con: duckdb.DuckDBPyConnection, rows: list[Row], policy: QuarantinePolicy
) -> tuple[list[Row], list[Entry]]:
    """Split valid rows of one page into the ones to load and the ones to hold (jumps and
    impossible units); unknown GPU names are loaded and noted. Runs inside the load's
    transaction, so it sees every snapshot loaded before."""
    if not rows:
        return [], []
    loaded = _already_loaded(con, rows)
    before = min(r.observed_at for r in rows)
    listings = [(row_table(r), row_key(r)) for r in rows]  # each row's, worked out once
    baselines = {
        table: _baselines(
            con, table, rows[0].source, before, {k for t, k in listings if t == table}
        )
        for table in ("offer", "spot_quote")
    }
    keep: list[Row] = []
    held: list[Entry] = []
    for row, (table, key) in zip(rows, listings, strict=True):
        if loaded and entry_id(row) in loaded:  # a hash a row only when a page came again
            keep.append(row)
            continue
        problem = impossible_unit(row)
        if problem:
            held.append(Entry(row, "impossible_unit", problem))
            continue
        if row.gpu == UNKNOWN_GPU:
            held.append(
                Entry(
                    row,
                    "unknown_gpu",
                    f"GPU name {row.gpu_name_raw!r} maps to no card; loaded as 'unknown'",
                    status="noted",
                )
            )
            keep.append(row)
            continue
        base = baselines[table].get(key)
        value = float(row.cny_per_card_hour)
        if base is not None and base[0] > 0:
            ratio = value / base[0]
            if ratio > policy.jump_factor or ratio < 1 / policy.jump_factor:
                held.append(
                    Entry(
                        row,
                        "jump",
                        f"{value:g} CNY/card-hour is {ratio:.2f}× the last accepted "
                        f"{base[0]:g} ({base[1]:%Y-%m-%d %H:%M}); limit {policy.jump_factor:g}×",
                        baseline=base[0],
                        baseline_at=base[1],
                    )
                )
                continue
        keep.append(row)
    return keep, held


# The columns of quarantine a new entry fills (decided_at / decided_by stay NULL).
_ENTRY_SCHEMA = {
    "quarantine_id": pl.String, "row_table": pl.String, "row_key": pl.String,
    "observed_at": pl.Datetime("us"), "source": pl.String, "gpu": pl.String,
    "gpu_name_raw": pl.String, "price": pl.String, "unit": pl.String,
    "cny_per_card_hour": pl.Float64, "baseline_cny_per_card_hour": pl.Float64,
    "baseline_observed_at": pl.Datetime("us"), "reason_kind": pl.String, "reason": pl.String,
    "status": pl.String, "loadable": pl.Boolean, "row_json": pl.String, "page_id": pl.String,
    "run_id": pl.String, "created_at": pl.Datetime("us"),
}  # fmt: skip


def store(
    con: duckdb.DuckDBPyConnection,
    entries: list[Entry],
    *,
    page_id: str | None,
    run_id: str | None,
) -> None:
    """The page's entries in one insert (an entry already stored is kept as it is): a page
    of a dozen unknown cards costs one statement, not a dozen (history imports, backfills)."""
    if not entries:
        return
    now = utcnow()
    values = [
        [
            entry_id(e.row), row_table(e.row), row_key(e.row), e.row.observed_at, e.row.source,
            e.row.gpu, e.row.gpu_name_raw, str(e.row.price), getattr(e.row, "unit", None),
            _as_float(getattr(e.row, "cny_per_card_hour", None)), e.baseline, e.baseline_at,
            e.reason_kind, e.reason, e.status, e.loadable, _row_json(e.row), page_id, run_id, now,
        ]
        for e in entries
    ]  # fmt: skip
    frame = pl.DataFrame(values, schema=_ENTRY_SCHEMA, orient="row")
    frame = frame.unique("quarantine_id", keep="first", maintain_order=True)
    insert_new_frame(con, "quarantine", frame, key=("quarantine_id",))


def _release(con: duckdb.DuckDBPyConnection, ids: list[str], status: str, by: str) -> int:
    added = 0
    for qid in ids:
        # fetchall: a half-read result would make the insert below refuse this connection
        [(row_json, page, run)] = con.execute(
            "SELECT row_json, page_id, run_id FROM quarantine WHERE quarantine_id = ?", [qid]
        ).fetchall()
        added += insert_rows(con, [row_from_json(row_json)], page=page, run_id=run)
        con.execute(
            "UPDATE quarantine SET status = ?, decided_at = ?, decided_by = ? "
            "WHERE quarantine_id = ?",
            [status, utcnow(), by, qid],
        )
    return added


def confirm(con: duckdb.DuckDBPyConnection, entries: list[Entry], policy: QuarantinePolicy) -> int:
    """Release the held jumps of every listing in ``entries`` whose held jumps since its last
    accepted value number ``confirm_snapshots`` and agree with each other (within
    ``jump_factor``). Returns rows added."""
    added = 0
    jumps = sorted({(row_table(e.row), row_key(e.row)) for e in entries if e.reason_kind == "jump"})
    for table, key in jumps:
        last = con.execute(
            f"SELECT max(observed_at) FROM {table} WHERE {_key_sql(table)} = ?", [key]
        ).fetchone()[0]
        held = con.execute(
            "SELECT quarantine_id, cny_per_card_hour FROM quarantine WHERE row_table = ? "
            "AND row_key = ? AND reason_kind = 'jump' AND status = 'held' "
            "AND (? IS NULL OR observed_at > ?) ORDER BY observed_at",
            [table, key, last, last],
        ).fetchall()
        values = [v for _, v in held if v]
        if len(held) < policy.confirm_snapshots or len(values) != len(held):
            continue
        if max(values) / min(values) > policy.jump_factor:
            continue
        added += _release(
            con,
            [qid for qid, _ in held],
            "confirmed",
            f"confirmed by {len(held)} consecutive snapshots",
        )
    return added


# ---- reading and deciding by hand (`gpuprice quarantine list|accept|reject`) ----


def list_entries(
    warehouse: Warehouse, status: str | None = "held", source: str | None = None
) -> pl.DataFrame:
    where, params = [], []
    if status:
        where.append("status = ?")
        params.append(status)
    if source:
        where.append("source = ?")
        params.append(source)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    return read_frame(
        warehouse,
        "SELECT quarantine_id AS id, status, reason_kind, source, gpu, gpu_name_raw, observed_at, "
        "price, unit, cny_per_card_hour, baseline_cny_per_card_hour AS baseline, reason "
        f"FROM quarantine {clause} ORDER BY observed_at DESC, source, id",
        params,
    )


class QuarantineError(ValueError):
    """An accept / reject that cannot be done; the message says why."""


def decide(warehouse: Warehouse, ids: list[str], *, accept: bool, note: str | None = None) -> int:
    """Accept (load into the table) or reject held entries, by id or unique id prefix; one
    transaction. Returns rows added (0 for reject)."""
    by = "hand" + (f": {note}" if note else "")
    with write_connection(warehouse) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            resolved = []
            for given in ids:
                found = con.execute(
                    "SELECT quarantine_id, status, loadable FROM quarantine "
                    "WHERE starts_with(quarantine_id, ?)",
                    [given],
                ).fetchall()
                if len(found) != 1:
                    raise QuarantineError(
                        f"{given!r} matches {len(found)} quarantine entries; give a unique id "
                        "(see `gpuprice quarantine list`)"
                    )
                qid, status, loadable = found[0]
                if status not in ("held", "noted"):
                    raise QuarantineError(f"{qid} is already {status}")
                if accept and not loadable:
                    raise QuarantineError(
                        f"{qid} has an invalid price and cannot be loaded; reject it"
                    )
                resolved.append((qid, status))
            added = 0
            for qid, status in resolved:
                if accept and status == "held":
                    added += _release(con, [qid], "accepted", by)
                else:
                    con.execute(
                        "UPDATE quarantine SET status = ?, decided_at = ?, decided_by = ? "
                        "WHERE quarantine_id = ?",
                        ["accepted" if accept else "rejected", utcnow(), by, qid],
                    )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    return added
