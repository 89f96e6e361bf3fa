"""Procurement alerts: watch rules evaluated over the breakeven history.

A rule watches one card on one line (a platform, or the cheapest line across platforms)
at a monthly usage. Each new breakeven snapshot after the rule's cursor is compared with
the rule's state, in time order:

* ``breakeven_shift``: the breakeven moved at least the threshold (hours, or percent) away
  from the *baseline*, the value procurement last heard about (the first value seen, then
  the value of the last shift alert). Jitter never accumulates into alerts, and a slow
  drift past the threshold is still caught. A shift's old value is that baseline: along a
  rule's alerts each shift starts where the one before it ended.
* ``mode_flip``: the cheaper of bare metal and the rule's container mode at the rule's
  usage changed. Bare metal is cheaper when ``usage > breakeven``; with hysteresis the
  mode only flips once the breakeven is more than ``hysteresis_hours`` past the usage, so a
  price bouncing around the usage does not spam. Flips alternate: each undoes the one
  before it.

Alerts are events: a rule's alerts are what one walk over its line, oldest snapshot first,
gives. Each run walks on from the rule's cursor. When snapshots older than the cursor
arrive (the first start seeds its history after its first scrape; a backfill; a run that
lands while a backfill loads), the rule walks its whole line again, and that walk's alerts
replace the ones it no longer gives (:func:`_replace_story`): found on a shorter line, they
would contradict it (two flips the same way, shifts from different old values to one new
one). One about history that the walk does not give again is deleted (it was never sent to
anyone); one raised as news is kept, marked ``superseded`` and never sent from then on. So
whatever order a live run and a backfill arrive in, the rule's standing alerts are the same.
A new or changed rule starts at the newest snapshot without alerting about the past;
imported history is held (:func:`hold_for_history`).

Exactly once: an alert's id hashes the rule, the kind, the snapshot that caused it and the
one it was compared with (``INSERT ... ON CONFLICT DO NOTHING``), so re-running the same
snapshots adds nothing.

About history: an alert is news only when a rule steps onto a snapshot of the last
:data:`HISTORY_AGE`. One whose snapshot is older (a past day loaded now) or that a rule found
by walking its line again (past days that arrived later) is dated by its snapshot
(``created_at``), never sent (``not_sent`` says why) and so never pending.
Delivery is in ``warehouse.derive.notify``; the words, in English and Chinese, in
``warehouse.derive.alert_text`` (``alert.params`` holds what they say, as data).

The same table holds the third kind, ``scraper_broken`` (``warehouse.derive.scraper_alerts``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, Literal

import duckdb

from warehouse.derive import alert_text
from warehouse.derive.alert_text import point_params
from warehouse.derive.metrics import CHEAPEST
from warehouse.store.db import utcnow, write_connection
from warehouse.store.handle import Warehouse
from warehouse.store.lake import insert_new

Against = Literal["hourly", "monthly"]
SCRAPER_BROKEN = "scraper_broken"  # stored by warehouse.derive.scraper_alerts
RULE_KINDS = ("breakeven_shift", "mode_flip")
ALERT_KINDS = (*RULE_KINDS, SCRAPER_BROKEN)
# An alert about a snapshot older than this when it is raised is about history (see above):
# an hourly run raises its alerts minutes after the snapshot; a backfilled day is older.
HISTORY_AGE = timedelta(days=1)
BARE_METAL = "bare_metal"


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
    kind: str
    rule: WatchRule
    old: Point
    new: Point
    old_mode: str | None
    new_mode: str | None

    @property
    def key(self) -> tuple[str, datetime, datetime, str | None, str | None]:
        """What the alert is, whichever walk found it: its kind, the snapshot that raised
        it, the one it was compared with, and the modes."""
        return (self.kind, self.new.observed_at, self.old.observed_at, self.old_mode, self.new_mode)

    @property
    def alert_id(self) -> str:
        # The snapshot compared with is part of it: a walk over a line that had fewer
        # snapshots compares the same new one with another (an event of its own).
        kind, new, old, old_mode, new_mode = self.key
        text = f"{self.rule.name}|{self.rule.fingerprint()}|{kind}|{new.isoformat()}|"
        text += f"{old.isoformat()}|{old_mode}|{new_mode}"
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    @property
    def params(self) -> dict[str, Any]:
        """What the message says, as data (``alert.params``; warehouse.derive.alert_text)."""
        rule = self.rule
        return {
            "rule": rule.name,
            "fingerprint": rule.fingerprint(),
            "gpu": rule.gpu,
            "line": rule.line,
            "usage_hours": rule.usage_hours,
            "against": rule.against,
            "threshold_hours": rule.threshold_hours,
            "threshold_pct": rule.threshold_pct,
            "old": point_params(*_money_of(self.old)),
            "new": point_params(*_money_of(self.new)),
            "old_mode": self.old_mode,
            "new_mode": self.new_mode,
            "simulated": self.new.simulated,
        }

    @property
    def message(self) -> str:
        """The English message (``alert.message``: SQL users, notifications)."""
        return alert_text.message(self.kind, self.params, "en")


def _money_of(point: Point) -> tuple[datetime, float, Decimal | None, Decimal | None]:
    return point.observed_at, point.value, point.bare_metal, point.container


def step(rule: WatchRule, state: RuleState | None, point: Point) -> tuple[RuleState, list[Alert]]:
    """Advance one rule by one snapshot: the new state and the alerts it raises (pure).

    A flip compares the snapshot with the one before it (the mode the rule last saw); a
    shift with the baseline, the value of the rule's last shift (what it last reported): so
    along one walk each flip undoes the one before it and each shift starts where the one
    before it ended."""
    if state is None:
        return RuleState(point, point, rule.mode(point.value, None)), []
    alerts: list[Alert] = []
    mode = rule.mode(point.value, state.mode)
    if mode != state.mode:
        alerts.append(Alert("mode_flip", rule, state.last, point, state.mode, mode))
    baseline = state.baseline
    if rule.moved(baseline.value, point.value):
        alerts.append(Alert("breakeven_shift", rule, baseline, point, None, None))
        baseline = point
    return RuleState(point, baseline, mode), alerts


REWALKED = alert_text.REWALK_NOTE


def not_sent_reason(observed_at: datetime, raised_at: datetime) -> str | None:
    """Why an alert about ``observed_at`` raised at ``raised_at`` is not sent: it is about
    history; ``None`` when it is news."""
    if raised_at - observed_at <= HISTORY_AGE:
        return None
    return alert_text.history_note(observed_at, raised_at)


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
            raised: list[Alert] = []
            for point in points:
                state, alerts = step(rule, state, point)
                raised += alerts
            steps += len(points)
            if rewalk is None:
                stored += [a.alert_id for a in raised if _store(con, a, now, None)]
            else:
                stored += _replace_story(con, rule, raised, now)
            if state is not None and points:
                _save_state(con, rule, state, seen + len(points), now)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return EvaluationSummary(len(rules), steps, stored)


def _replace_story(
    con: duckdb.DuckDBPyConnection, rule: WatchRule, alerts: list[Alert], now: datetime
) -> list[str]:
    """``rule`` walked its whole line again: ``alerts`` are its story now. Each stored alert
    of the rule the walk gives again stands (a superseded one stands again); one it does not
    give is deleted when it was about history (never sent), else marked superseded (raised as
    news: kept, never sent from now on). Returns the ids of the alerts stored new."""
    wanted = {alert.key: alert for alert in alerts}
    stored = con.execute(
        "SELECT alert_id, kind, new_observed_at, old_observed_at, old_mode, new_mode, "
        "not_sent, superseded, params FROM alert WHERE rule = ? AND list_contains(?, kind)",
        [rule.name, list(RULE_KINDS)],
    ).fetchall()
    for alert_id, kind, new_at, old_at, old_mode, new_mode, not_sent, superseded, raw in stored:
        fingerprint = (alert_text.loads(raw) or {}).get("fingerprint", rule.fingerprint())
        key = (kind, new_at, old_at, old_mode, new_mode)
        if key in wanted and fingerprint == rule.fingerprint():
            del wanted[key]
            if superseded is not None:
                con.execute("UPDATE alert SET superseded = NULL WHERE alert_id = ?", [alert_id])
        elif not_sent is not None:
            con.execute("DELETE FROM alert WHERE alert_id = ?", [alert_id])
        elif superseded is None:
            con.execute(
                "UPDATE alert SET superseded = ? WHERE alert_id = ?",
                [alert_text.superseded_note(now), alert_id],
            )
    return [a.alert_id for a in wanted.values() if _store(con, a, now, REWALKED)]


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
    rule, params = alert.rule, alert.params
    not_sent = not_sent_reason(alert.new.observed_at, now) or rewalk
    added = insert_new(
        con,
        """
        INSERT INTO alert (alert_id, created_at, kind, rule, gpu, source, old_value, new_value,
            message, against, usage_hours, old_mode, new_mode, old_observed_at, new_observed_at,
            old_bare_metal_cny_per_card_month, new_bare_metal_cny_per_card_month,
            old_container_cny_per_card_hour, new_container_cny_per_card_hour, new_offers,
            simulated, not_sent, params)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
            alert_text.message(alert.kind, params, "en"),
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
            alert_text.dumps(params),
        ],
        table="alert",
        key={"alert_id": alert.alert_id},
    )
    return bool(added)
