"""Procurement alerts on the price index: a watch rule names a card, a rent mode and a kind
of data, and a move (for example ±10 % in 30 days); an ``index_move`` alert is raised when
the index's published matched-sample change over those days (docs/INDEX.md) crosses it, up
or down, and is stored and delivered like every other alert (warehouse.derive.notify).

A rule's state is the direction it last saw (``up``, ``down`` or ``flat``): an alert is
raised when the direction changes into up or down, so a move that stays past the threshold
for weeks is one alert, not one a day. With hysteresis a move counts as over only once the
change is ``hysteresis_pct`` points back inside the threshold. The newest day walked is
walked again next time (its value follows the day's snapshots), from the direction before
it; alert ids hash the rule, the day and the direction, so walking a day again adds nothing.
A new or changed rule starts at the newest published day without alerting about the past;
an alert about a day of history (loaded a day or more after it) is kept and not sent
(warehouse.derive.alerts.not_sent_reason).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

import duckdb

from warehouse.derive import alert_text
from warehouse.derive.alerts import not_sent_reason
from warehouse.derive.index_method import METHOD, PUBLISHED, SIMULATED
from warehouse.store.db import utcnow, write_connection
from warehouse.store.handle import Warehouse
from warehouse.store.lake import insert_new

INDEX_MOVE = "index_move"
INDEX_LINE = "index"  # alert.source of an index_move alert: the index, not a platform
UP, DOWN, FLAT = "up", "down", "flat"


@dataclass(frozen=True, slots=True)
class IndexMoveRule:
    """A move of ``gpu``'s index in ``billing`` (series ``data``: real or SIMULATED) of at
    least ``move_pct`` percent over ``days`` (1, 7 or 30) days."""

    name: str
    gpu: str
    move_pct: float
    billing: str = "hourly"
    data: str = "real"
    days: int = 30
    hysteresis_pct: float = 2.0

    def __post_init__(self) -> None:
        if self.days not in (1, 7, 30):
            raise ValueError(f"rule {self.name!r}: days must be 1, 7 or 30 (the published changes)")
        if not 0 <= self.hysteresis_pct < self.move_pct:
            raise ValueError(f"rule {self.name!r}: hysteresis_pct must be in [0, move_pct)")

    def fingerprint(self) -> str:
        text = json.dumps(asdict(self), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def direction(self, change_pct: float, current: str) -> str:
        """Where a change of ``change_pct`` percent puts the rule, coming from ``current``."""
        if change_pct >= self.move_pct:
            return UP
        if change_pct <= -self.move_pct:
            return DOWN
        inside = self.move_pct - self.hysteresis_pct
        if current == UP and change_pct > inside:
            return UP
        if current == DOWN and change_pct < -inside:
            return DOWN
        return FLAT


@dataclass(frozen=True, slots=True)
class Move:
    """One published day of the watched series with its change over the rule's days."""

    day: date
    value: float  # CNY per card-hour
    change: float  # fraction, 0.05 = +5 %
    platforms: int  # in the change's matched sample
    before: float | None  # the value ``days`` earlier
    snapshot_at: datetime | None  # the newest snapshot behind the day's value


@dataclass(frozen=True, slots=True)
class IndexEvaluation:
    rules: int
    days: int  # rule × day steps walked
    new_alerts: list[str]

    def line(self) -> str:
        return (
            f"index alerts: {self.rules} rule(s), {self.days} day step(s), "
            f"{len(self.new_alerts)} new alert(s)"
        )


def evaluate_index_rules(
    warehouse: Warehouse, rules: list[IndexMoveRule], *, now: datetime | None = None
) -> IndexEvaluation:
    """Walk every index rule over the days since its last walk; store new alerts."""
    if not rules:
        return IndexEvaluation(0, 0, [])
    with write_connection(warehouse) as con:
        return evaluate_index_rules_with(con, rules, now=now or utcnow())


def evaluate_index_rules_with(
    con: duckdb.DuckDBPyConnection, rules: list[IndexMoveRule], *, now: datetime
) -> IndexEvaluation:
    stored: list[str] = []
    steps = 0
    con.execute("BEGIN TRANSACTION")
    try:
        for rule in rules:
            start, direction, moves = _walk_from(con, rule)
            before = direction
            for move in moves:
                before = direction
                direction = rule.direction(move.change * 100, direction)
                steps += 1
                if direction != before and direction in (UP, DOWN):
                    alert_id = _store(con, rule, move, before, direction, now)
                    if alert_id:
                        stored.append(alert_id)
            if moves or start is None:
                _save(con, rule, moves[-1].day if moves else None, before, direction, now)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return IndexEvaluation(len(rules), steps, stored)


def _walk_from(
    con: duckdb.DuckDBPyConnection, rule: IndexMoveRule
) -> tuple[date | None, str, list[Move]]:
    """(the day the walk starts from, the direction before it, the days to walk). A new or
    changed rule takes the newest day's direction without walking it."""
    state = con.execute(
        "SELECT fingerprint, day, mode_before, mode FROM index_rule_state WHERE rule = ?",
        [rule.name],
    ).fetchone()
    if state is not None and state[0] == rule.fingerprint():
        moves = _moves(con, rule, state[1])
        start_from = state[2] if moves and moves[0].day == state[1] else state[3]
        return state[1], start_from, moves
    newest = _moves(con, rule, None)[-1:]
    flat_start = rule.direction(newest[0].change * 100, FLAT) if newest else FLAT
    return None, flat_start, newest


def _moves(con: duckdb.DuckDBPyConnection, rule: IndexMoveRule, since: date | None) -> list[Move]:
    change = f"change_{rule.days}d"
    rows = con.execute(
        f"""
        SELECT n.day, n.value_cny_per_card_hour, n.{change}, n.{change}_platforms,
               b.value_cny_per_card_hour, n.last_snapshot_at
        FROM price_index n
        LEFT JOIN price_index b
          ON b.method = n.method AND b.kind = n.kind AND b.gpu = n.gpu AND b.billing = n.billing
         AND b.day = n.day - {rule.days} AND b.superseded_at IS NULL
        WHERE n.method = ? AND n.superseded_at IS NULL AND n.kind = ? AND n.gpu = ?
          AND n.billing = ? AND n.status = '{PUBLISHED}' AND n.{change} IS NOT NULL
          AND (? IS NULL OR n.day >= ?)
        ORDER BY n.day
        """,
        [METHOD, rule.data, rule.gpu, rule.billing, since, since],
    ).fetchall()
    return [Move(*row) for row in rows]


def _params(rule: IndexMoveRule, move: Move, direction: str) -> dict[str, Any]:
    """What the alert says, as data (``alert.params``): warehouse.derive.alert_text words it
    in the reader's language, and in English for ``alert.message``."""
    return {
        "rule": rule.name, "gpu": rule.gpu, "billing": rule.billing, "data": rule.data,
        "days": rule.days, "threshold": rule.move_pct, "direction": direction,
        "change": move.change * 100, "value": move.value, "before": move.before,
        "day": move.day.isoformat(), "platforms": move.platforms,
    }  # fmt: skip


def _store(
    con: duckdb.DuckDBPyConnection,
    rule: IndexMoveRule,
    move: Move,
    before: str,
    direction: str,
    now: datetime,
) -> str | None:
    key = f"{rule.name}|{rule.fingerprint()}|{INDEX_MOVE}|{move.day}|{direction}"
    alert_id = hashlib.sha256(key.encode()).hexdigest()[:24]
    seen = move.snapshot_at or datetime.combine(move.day, time())
    not_sent = not_sent_reason(seen, now)
    params = _params(rule, move, direction)
    added = insert_new(
        con,
        """
        INSERT INTO alert (alert_id, created_at, kind, rule, gpu, source, old_value, new_value,
            message, against, old_mode, new_mode, old_observed_at, new_observed_at, simulated,
            not_sent, params)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        [
            alert_id, now if not_sent is None else seen, INDEX_MOVE, rule.name, rule.gpu,
            INDEX_LINE, move.before, move.value, alert_text.message(INDEX_MOVE, params, "en"),
            rule.billing, before, direction,
            datetime.combine(move.day - timedelta(days=rule.days), time()), seen,
            rule.data == SIMULATED, not_sent, alert_text.dumps(params),
        ],
        table="alert",
        key={"alert_id": alert_id},
    )  # fmt: skip
    return alert_id if added else None


def _save(
    con: duckdb.DuckDBPyConnection,
    rule: IndexMoveRule,
    day: date | None,
    before: str,
    direction: str,
    now: datetime,
) -> None:
    if day is None:
        return  # nothing published yet: the rule starts when something is
    con.execute("DELETE FROM index_rule_state WHERE rule = ?", [rule.name])
    con.execute(
        "INSERT INTO index_rule_state VALUES (?, ?, ?, ?, ?, ?)",
        [rule.name, rule.fingerprint(), day, before, direction, now],
    )
