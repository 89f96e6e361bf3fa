"""Procurement alerts: watch rules evaluated over the breakeven history.

A rule watches one card on one line (a platform, or the cheapest line across platforms)
at a monthly usage. Each new breakeven snapshot after the rule's cursor is compared with
the rule's state, in time order:

* ``breakeven_shift``: the breakeven moved at least the threshold (hours, or percent) away
  from the *baseline*, the value procurement last heard about (the first value seen, then
  the value of the last shift alert). Jitter never accumulates into alerts, and a slow
  drift past the threshold is still caught.
* ``mode_flip``: the cheaper of bare metal and the rule's container mode at the rule's
  usage changed. Bare metal is cheaper when ``usage > breakeven``; with hysteresis the
  mode only flips once the breakeven is more than ``hysteresis_hours`` past the usage, so a
  price bouncing around the usage does not spam.

Exactly once: an alert's id hashes the rule, the kind and the snapshot that caused it
(``INSERT ... ON CONFLICT DO NOTHING``), so re-running the same snapshots adds nothing. A
rule's state is what walking every breakeven snapshot of its line in time order gives:
each run walks on from the rule's cursor, and when snapshots older than the cursor arrive
(the first start seeds its history after its first scrape; a backfill; a history import)
the rule walks its line again from the oldest snapshot. A new or changed rule starts at the
newest snapshot without alerting about the past.

About history: an alert is news only when a rule steps onto a snapshot of the last
:data:`HISTORY_AGE`. One whose snapshot is older (a past day loaded now) or that a rule found
by walking its line again (past days that arrived later) is dated by its snapshot
(``created_at``), never sent (``not_sent`` says why) and so never pending.
Delivery is in ``warehouse.derive.notify``.

The same table holds the third kind, ``scraper_broken``: a source whose pages stopped
parsing into plausible prices (``warehouse.ingest.drift``). It concerns a source, not a card, so its
card and breakeven columns are NULL; ``rule`` is ``scraper:<source>``. It is delivered by the
same path as the price alerts, and resolves itself when the source next loads
(``resolved_at``, ``resolution``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Literal

import duckdb

from warehouse.derive.metrics import CHEAPEST
from warehouse.store.db import read_frame, utcnow, write_connection
from warehouse.store.handle import Warehouse
from warehouse.store.lake import insert_new

Against = Literal["hourly", "monthly"]
SCRAPER_BROKEN = "scraper_broken"  # stored by warehouse.ingest.drift
# An alert about a snapshot older than this when it is raised is about history (see above):
# an hourly run raises its alerts minutes after the snapshot; a backfilled day is older.
HISTORY_AGE = timedelta(days=1)
_QUERY = re.compile(r"(https?://[^\s?]+)\?[^\s:]*")
ALERT_KINDS = ("breakeven_shift", "mode_flip", SCRAPER_BROKEN)
BARE_METAL = "bare_metal"
MODE_NAMES = {
    "bare_metal": "bare metal",
    "hourly": "hourly container",
    "monthly": "monthly-plan container",
}


@dataclass(frozen=True, slots=True)
class WatchRule:
    """What procurement watches. Exactly one of ``threshold_hours`` / ``threshold_pct``."""

    name: str
    gpu: str
    usage_hours: float
    source: str | None = None  # a platform; None = the cheapest line across platforms
    against: Against = "hourly"
    threshold_hours: float | None = None
    threshold_pct: float | None = None
    hysteresis_hours: float = 10.0

    def __post_init__(self) -> None:
        if (self.threshold_hours is None) == (self.threshold_pct is None):
            raise ValueError(
                f"rule {self.name!r}: give exactly one of threshold_hours, threshold_pct"
            )
        if self.against not in ("hourly", "monthly"):
            raise ValueError(f"rule {self.name!r}: against must be 'hourly' or 'monthly'")

    @property
    def line(self) -> str:
        return self.source or CHEAPEST

    @property
    def column(self) -> str:
        return f"breakeven_hours_vs_{self.against}"

    @property
    def rate_column(self) -> str:
        return "list_cny_per_card_hour" if self.against == "hourly" else "monthly_cny_per_card_hour"

    def fingerprint(self) -> str:
        text = json.dumps(asdict(self), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def threshold_text(self) -> str:
        if self.threshold_hours is not None:
            return f"{self.threshold_hours:g} h"
        return f"{self.threshold_pct:g} %"

    def moved(self, baseline: float, value: float) -> bool:
        delta = abs(value - baseline)
        if self.threshold_hours is not None:
            return delta >= self.threshold_hours
        return baseline > 0 and delta / baseline * 100 >= (self.threshold_pct or 0)

    def mode(self, value: float, current: str | None) -> str:
        """The cheaper mode at ``usage_hours`` for breakeven ``value``, with hysteresis."""
        if current is None:
            return BARE_METAL if self.usage_hours > value else self.against
        if current != BARE_METAL and self.usage_hours - value > self.hysteresis_hours:
            return BARE_METAL
        if current == BARE_METAL and value - self.usage_hours > self.hysteresis_hours:
            return self.against
        return current


@dataclass(frozen=True, slots=True)
class Point:
    """One snapshot of the watched line."""

    observed_at: datetime
    value: float  # breakeven hours per month
    bare_metal: Decimal | None  # CNY per card-month
    container: Decimal | None  # CNY per card-hour of the rule's container mode
    simulated: bool = False
    offers: str | None = None


@dataclass(frozen=True, slots=True)
class RuleState:
    last: Point
    baseline: Point
    mode: str


@dataclass(frozen=True, slots=True)
class Alert:
    alert_id: str
    kind: str
    rule: WatchRule
    old: Point
    new: Point
    old_mode: str | None
    new_mode: str | None
    message: str


def _alert_id(rule: WatchRule, kind: str, at: datetime) -> str:
    key = f"{rule.name}|{rule.fingerprint()}|{kind}|{at.isoformat()}"
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def _money(value: Decimal | None, unit: str) -> str:
    return "n/a" if value is None else f"¥{value:,.2f}/{unit}"


def _message(
    rule: WatchRule, kind: str, old: Point, new: Point, old_mode: str | None, new_mode: str | None
) -> str:
    where = f"{rule.gpu} on {rule.line if rule.source else 'the cheapest line across platforms'}"
    tag = "[SIMULATED] " if new.simulated else ""
    container = MODE_NAMES[rule.against]
    prices = (
        f"bare metal {_money(new.bare_metal, 'card-month')}, {container} "
        f"{_money(new.container, 'card-hour')} (snapshot {new.observed_at:%Y-%m-%d %H:%M} UTC; "
        f"before: {_money(old.bare_metal, 'card-month')}, {_money(old.container, 'card-hour')} "
        f"at {old.observed_at:%Y-%m-%d %H:%M} UTC)"
    )
    if kind == "mode_flip":
        cheaper = MODE_NAMES[new_mode or ""]
        dearer = MODE_NAMES[old_mode or ""]
        head = (
            f"{tag}{where}: at {rule.usage_hours:g} h/month the {cheaper} is now cheaper than "
            f"the {dearer}; breakeven {old.value:.1f} h → {new.value:.1f} h per month"
        )
    else:
        head = (
            f"{tag}{where}: breakeven vs {container} moved {new.value - old.value:+.1f} h "
            f"({old.value:.1f} h → {new.value:.1f} h per month; threshold {rule.threshold_text()})"
        )
    return f"{head}; {prices}. Rule '{rule.name}'."


def step(rule: WatchRule, state: RuleState | None, point: Point) -> tuple[RuleState, list[Alert]]:
    """Advance one rule by one snapshot: the new state and the alerts it raises (pure)."""
    if state is None:
        return RuleState(point, point, rule.mode(point.value, None)), []
    alerts: list[Alert] = []
    mode = rule.mode(point.value, state.mode)
    if mode != state.mode:
        alerts.append(
            Alert(
                _alert_id(rule, "mode_flip", point.observed_at),
                "mode_flip",
                rule,
                state.last,
                point,
                state.mode,
                mode,
                _message(rule, "mode_flip", state.last, point, state.mode, mode),
            )
        )
    baseline = state.baseline
    if rule.moved(baseline.value, point.value):
        alerts.append(
            Alert(
                _alert_id(rule, "breakeven_shift", point.observed_at),
                "breakeven_shift",
                rule,
                baseline,
                point,
                None,
                None,
                _message(rule, "breakeven_shift", baseline, point, None, None),
            )
        )
        baseline = point
    return RuleState(point, baseline, mode), alerts


REWALKED = "found when the rule walked its line again (past days loaded later): kept, not sent"


def not_sent_reason(observed_at: datetime, raised_at: datetime) -> str | None:
    """Why an alert about ``observed_at`` raised at ``raised_at`` is not sent: it is about
    history; ``None`` when it is news."""
    if raised_at - observed_at <= HISTORY_AGE:
        return None
    return (
        f"about {observed_at:%Y-%m-%d}, a day of history loaded on {raised_at:%Y-%m-%d} "
        "(seeding, backfill or import): kept, not sent"
    )


@dataclass(frozen=True, slots=True)
class EvaluationSummary:
    rules: int
    snapshots: int  # rule × snapshot steps evaluated
    new_alerts: list[str]  # ids of alerts stored by this evaluation

    def line(self) -> str:
        return (
            f"alerts: {self.rules} rule(s), {self.snapshots} snapshot step(s), "
            f"{len(self.new_alerts)} new alert(s)"
        )


def evaluate(
    warehouse: Warehouse, rules: list[WatchRule], *, now: datetime | None = None
) -> EvaluationSummary:
    """Evaluate every rule over the breakeven snapshots after its cursor; store new alerts."""
    with write_connection(warehouse) as con:
        return evaluate_with(con, rules, now=now)


def evaluate_with(
    con: duckdb.DuckDBPyConnection, rules: list[WatchRule], *, now: datetime | None = None
) -> EvaluationSummary:
    now = now or utcnow()
    stored: list[str] = []
    steps = 0
    con.execute("BEGIN TRANSACTION")
    try:
        for rule in rules:
            state, seen, points, rewalk = _walk_from(con, rule)
            for point in points:
                state, alerts = step(rule, state, point)
                steps += 1
                seen += 1
                for alert in alerts:
                    if _store(con, alert, now, rewalk):
                        stored.append(alert.alert_id)
            if state is not None and points:
                _save_state(con, rule, state, seen, now)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return EvaluationSummary(len(rules), steps, stored)


def hold_for_history(
    con: duckdb.DuckDBPyConnection, rules: list[WatchRule], until: datetime
) -> int:
    """Imported history is not news: each rule that has walked its line moves its cursor up
    to ``until`` (the newest imported snapshot), keeping its baseline and mode, and counts the
    snapshots up to there as walked, so neither the next run nor a walk again from the oldest
    snapshot (older days arriving) raises an alert about them. A rule without state starts at
    the newest snapshot anyway. Returns the rules held."""
    held = 0
    for rule in rules:
        state, fingerprint, _ = _load_state(con, rule)
        if state is None or fingerprint != rule.fingerprint():
            continue
        cursor = max(state.last.observed_at, until)
        con.execute(
            "UPDATE alert_rule_state SET last_observed_at = ?, points_seen = ? WHERE rule = ?",
            [cursor, _count_points(con, rule, cursor), rule.name],
        )
        held += 1
    return held


def _walk_from(
    con: duckdb.DuckDBPyConnection, rule: WatchRule
) -> tuple[RuleState | None, int, list[Point], str | None]:
    """Where ``rule`` walks on from: its state, how many snapshots that state has walked, the
    snapshots to walk, and why alerts found on the way are not sent (``None``: they are news
    unless older than a day).

    * the usual run: on from the cursor;
    * snapshots older than the cursor arrived since the last walk (the count up to it
      changed: the first start's history after its first scrape, a backfill): the whole line
      again from its oldest snapshot, what it finds kept and not sent;
    * a new or changed rule: it starts at the newest snapshot without alerting about the
      past (and counts the rest as walked)."""
    state, fingerprint, seen = _load_state(con, rule)
    if state is not None and fingerprint == rule.fingerprint():
        cursor = state.last.observed_at
        counted = _count_points(con, rule, cursor)
        if seen is None or counted == seen:  # (None: a state from before migration 010)
            return state, counted, _points(con, rule, cursor), None
        return None, 0, _points(con, rule, None), REWALKED
    points = _points(con, rule, None)
    return None, max(len(points) - 1, 0), points[-1:], None


_LINE = """
    FROM breakeven
    WHERE source = ? AND gpu = ? AND {column} IS NOT NULL AND isfinite({column}) AND {column} > 0
"""


def _count_points(con: duckdb.DuckDBPyConnection, rule: WatchRule, upto: datetime) -> int:
    sql = f"SELECT count(*) {_LINE.format(column=rule.column)} AND observed_at <= ?"
    row = con.execute(sql, [rule.line, rule.gpu, upto]).fetchone()
    return int(row[0]) if row else 0


def _points(con: duckdb.DuckDBPyConnection, rule: WatchRule, after: datetime | None) -> list[Point]:
    sql = f"""
        SELECT observed_at, {rule.column} AS value, bare_metal_cny_per_card_month,
               {rule.rate_column} AS rate, simulated,
               concat_ws(', ', bare_metal_offer, {rule.against}_offer) AS offers
        {_LINE.format(column=rule.column)}
          {"AND observed_at > ?" if after is not None else ""}
        ORDER BY observed_at
    """
    params: list[object] = [rule.line, rule.gpu] + ([after] if after is not None else [])
    return [
        Point(row[0], float(row[1]), row[2], row[3], bool(row[4]), row[5] or None)
        for row in con.execute(sql, params).fetchall()
    ]


def _load_state(
    con: duckdb.DuckDBPyConnection, rule: WatchRule
) -> tuple[RuleState | None, str | None, int | None]:
    row = con.execute(
        "SELECT fingerprint, last_observed_at, last_value, last_bare_metal, last_container, "
        "baseline_observed_at, baseline_value, baseline_bare_metal, baseline_container, mode, "
        "points_seen FROM alert_rule_state WHERE rule = ?",
        [rule.name],
    ).fetchone()
    if row is None:
        return None, None, None
    last = Point(row[1], row[2], row[3], row[4])
    baseline = Point(row[5], row[6], row[7], row[8])
    return RuleState(last, baseline, row[9]), row[0], row[10]


def _save_state(
    con: duckdb.DuckDBPyConnection, rule: WatchRule, state: RuleState, seen: int, now: datetime
) -> None:
    # DELETE + INSERT, not INSERT OR REPLACE: a DuckLake has no key (warehouse.store.lake)
    con.execute("DELETE FROM alert_rule_state WHERE rule = ?", [rule.name])
    con.execute(
        "INSERT INTO alert_rule_state (rule, fingerprint, last_observed_at, last_value, "
        "last_bare_metal, last_container, baseline_observed_at, baseline_value, "
        "baseline_bare_metal, baseline_container, mode, updated_at, points_seen) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            rule.name,
            rule.fingerprint(),
            state.last.observed_at,
            state.last.value,
            state.last.bare_metal,
            state.last.container,
            state.baseline.observed_at,
            state.baseline.value,
            state.baseline.bare_metal,
            state.baseline.container,
            state.mode,
            now,
            seen,
        ],
    )


def _store(con: duckdb.DuckDBPyConnection, alert: Alert, now: datetime, rewalk: str | None) -> bool:
    rule = alert.rule
    not_sent = not_sent_reason(alert.new.observed_at, now) or rewalk
    added = insert_new(
        con,
        """
        INSERT INTO alert (alert_id, created_at, kind, rule, gpu, source, old_value, new_value,
            message, against, usage_hours, old_mode, new_mode, old_observed_at, new_observed_at,
            old_bare_metal_cny_per_card_month, new_bare_metal_cny_per_card_month,
            old_container_cny_per_card_hour, new_container_cny_per_card_hour, new_offers,
            simulated, not_sent)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        [
            alert.alert_id,
            now if not_sent is None else alert.new.observed_at,
            alert.kind,
            rule.name,
            rule.gpu,
            rule.line,
            alert.old.value,
            alert.new.value,
            alert.message,
            rule.against,
            rule.usage_hours,
            alert.old_mode,
            alert.new_mode,
            alert.old.observed_at,
            alert.new.observed_at,
            alert.old.bare_metal,
            alert.new.bare_metal,
            alert.old.container,
            alert.new.container,
            alert.new.offers,
            alert.new.simulated,
            not_sent,
        ],
        table="alert",
        key={"alert_id": alert.alert_id},
    )
    return bool(added)


def store_scraper_broken(
    con: duckdb.DuckDBPyConnection,
    alert_id: str | None,
    *,
    source: str,
    profile: str,
    at: datetime,
    problem: str,
    raised_at: datetime | None = None,
    resolved_at: datetime | None = None,
) -> str | None:
    """Store the ``scraper_broken`` alert of one break of ``source`` seen in a snapshot about
    ``at`` (``warehouse.ingest.drift`` decides when a break starts), raised at ``raised_at``
    (default now; a snapshot about history is dated ``at`` and not sent), already resolved
    when the source loaded at ``resolved_at`` after it; ``None`` if it was stored before.
    Caller's transaction."""
    raised_at = raised_at or utcnow()
    not_sent = not_sent_reason(at, raised_at)
    simulated = profile == "demo"
    tag = "[SIMULATED] " if simulated else ""
    reason = _QUERY.sub(r"\1?…", problem)  # a search API's query string says little here
    reason = reason if len(reason) <= 800 else reason[:797] + "..."
    when = (
        f"was broken on {at:%Y-%m-%d}" if not_sent else f"is broken since {at:%Y-%m-%d %H:%M} UTC"
    )
    message = (
        f"{tag}scraper for {source} ({profile} profile) {when}: {reason}. Nothing from the "
        "failing pages was loaded (they are kept in raw_page). Fix the adapter, then run "
        f"`gpuprice reparse --source {source}` to repair the history."
    )
    added = insert_new(
        con,
        """
        INSERT INTO alert (alert_id, created_at, kind, rule, gpu, source, message,
                           new_observed_at, simulated, not_sent)
        VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)
        """,
        [
            alert_id,
            raised_at if not_sent is None else at,
            SCRAPER_BROKEN,
            f"scraper:{source}",
            source,
            message,
            at,
            simulated,
            not_sent,
        ],
        table="alert",
        key={"alert_id": alert_id},
    )
    if added and resolved_at is not None:
        resolve_scraper_broken(con, source=source, simulated=simulated, at=resolved_at)
    return alert_id if added else None


def open_scraper_break(
    con: duckdb.DuckDBPyConnection, *, source: str, simulated: bool, at: datetime
) -> str | None:
    """The ``scraper_broken`` alert of the break of ``source`` that is open at ``at`` (seen
    at or before it, not resolved before it), if any."""
    row = con.execute(
        "SELECT alert_id FROM alert WHERE kind = ? AND source = ? AND simulated = ? "
        "AND new_observed_at <= ? AND (resolved_at IS NULL OR resolved_at > ?) "
        "ORDER BY new_observed_at DESC LIMIT 1",
        [SCRAPER_BROKEN, source, simulated, at, at],
    ).fetchone()
    return row[0] if row is not None else None


def resolve_scraper_broken(
    con: duckdb.DuckDBPyConnection,
    *,
    source: str,
    simulated: bool,
    at: datetime,
    run_id: str | None = None,
) -> int:
    """``source`` loaded whole in a snapshot about ``at``: every break seen up to then is
    resolved at ``at`` (or earlier than it was: a day of history loaded late may be the first
    that loaded again). Returns how many alerts it resolved."""
    run = f" (run {run_id})" if run_id else ""
    resolution = f"{source} loaded again: snapshot of {at:%Y-%m-%d %H:%M} UTC{run}"
    resolved = con.execute(
        "UPDATE alert SET resolved_at = ?, resolution = ? WHERE kind = ? AND source = ? "
        "AND simulated = ? AND new_observed_at <= ? AND (resolved_at IS NULL OR resolved_at > ?)",
        [at, resolution, SCRAPER_BROKEN, source, simulated, at, at],
    ).fetchone()
    return int(resolved[0]) if resolved else 0


# What migration 010 added to each alert, for the readers that do not select it yet
# (`gpuprice alerts`; warehouse.read.metrics.alerts could select it instead).
STATE_COLUMNS = ("resolved_at", "resolution", "not_sent")


def alert_states(warehouse: Warehouse, alert_ids: list[str]) -> dict[str, dict[str, object]]:
    """``resolved_at``, ``resolution`` and ``not_sent`` of each of ``alert_ids``; empty for a
    warehouse from before migration 010."""
    if not alert_ids:
        return {}
    try:
        frame = read_frame(
            warehouse,
            f"SELECT alert_id, {', '.join(STATE_COLUMNS)} FROM alert "
            "WHERE list_contains($ids, alert_id)",
            {"ids": alert_ids},
        )
    except duckdb.BinderException:
        return {}
    return {row.pop("alert_id"): row for row in frame.to_dicts()}
