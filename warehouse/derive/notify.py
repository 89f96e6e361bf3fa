"""Delivering stored alerts through apprise (DingTalk, Feishu/Lark, WeCom, Slack, e-mail,
plain webhooks: any apprise URL).

It lives in ``warehouse`` because it is the other half of the ``alert`` table's life cycle
(pending → delivered) and the Dagster assets and sensor may import ``warehouse`` but not
``gpuprice``. The URLs are secrets: the caller passes them in (``configuration.settings`` reads
them from ``GPUPRICE_NOTIFY_URLS`` or a file outside the repository); they are never
stored, logged or put into an error message. A target is recorded only as a hash.

Delivery is at least once and never loses an alert: an alert stays pending
(``delivered_at IS NULL``) until every target took it; each failed attempt increments
``attempts`` and records ``last_error``, and the next tick tries again, skipping the
targets that already took it. No write connection is held while sending.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import apprise
import duckdb

from warehouse.store.db import read_connection, utcnow, warehouse_exists, write_connection
from warehouse.store.handle import Warehouse
from warehouse.store.lake import insert_new

log = logging.getLogger(__name__)

Sender = Callable[[str, str, str], "str | None"]  # (url, title, body) -> error or None

_ANY_URL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://\S+")


def target_id(url: str) -> str:
    """A stable, non-secret name for a notification URL."""
    return hashlib.sha256(url.strip().encode()).hexdigest()[:16]


def mask_url(url: str) -> str:
    """``scheme://…#<hash>``: enough to tell targets apart, nothing to reuse."""
    scheme = url.split("://", 1)[0] if "://" in url else "?"
    return f"{scheme}://…#{target_id(url)}"


def _scrub(text: str, url: str) -> str:
    text = text.replace(url, mask_url(url))
    return _ANY_URL.sub(lambda m: mask_url(m.group(0)), text)


def apprise_send(url: str, title: str, body: str) -> str | None:
    """Send one message to one apprise URL; ``None`` on success, else a scrubbed reason."""
    sender = apprise.Apprise()
    if not sender.add(url):
        return f"{mask_url(url)} is not an apprise URL apprise can use"
    with apprise.LogCapture(level=logging.WARNING) as captured:
        ok = bool(sender.notify(body=body, title=title))
    if ok:
        return None
    lines = [line.split(" - ", 2)[-1] for line in captured.getvalue().splitlines() if line]
    reason = "; ".join(lines[-3:]) or "apprise reported a failure"
    return _scrub(reason, url)[:500]


@dataclass
class DeliverySummary:
    pending_before: int = 0
    delivered: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # alert_id -> last error
    note: str | None = None

    @property
    def pending_after(self) -> int:
        return self.pending_before - len(self.delivered)

    def line(self) -> str:
        text = (
            f"delivery: {self.pending_before} pending, {len(self.delivered)} delivered, "
            f"{len(self.failed)} failed"
        )
        return f"{text} ({self.note})" if self.note else text


# Waiting to go out: not delivered yet, not an alert about history (never sent:
# warehouse.derive.alerts, not_sent), and still standing (one superseded when its rule
# walked its line again is never sent: warehouse.derive.alerts, superseded).
PENDING = "delivered_at IS NULL AND not_sent IS NULL AND superseded IS NULL"


def pending_signature(warehouse: Warehouse) -> tuple[int, int]:
    """(alerts waiting to go out, their attempts so far): what the delivery sensor and
    `gpuprice run` look at."""
    with read_connection(warehouse) as con:
        try:
            row = con.execute(
                f"SELECT count(*), coalesce(sum(attempts), 0)::BIGINT FROM alert WHERE {PENDING}"
            ).fetchone()
        except duckdb.BinderException:  # before migration 016 (the next write applies it)
            row = con.execute(
                "SELECT count(*), coalesce(sum(attempts), 0)::BIGINT FROM alert "
                "WHERE delivered_at IS NULL"
            ).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def pending_alerts(warehouse: Warehouse, limit: int = 200) -> list[dict]:
    with read_connection(warehouse) as con:
        alerts = con.execute(
            "SELECT alert_id, kind, gpu, rule, message, simulated, resolved_at, resolution "
            f"FROM alert WHERE {PENDING} ORDER BY new_observed_at, created_at, alert_id LIMIT ?",
            [limit],
        ).fetchall()
        done = con.execute(
            "SELECT d.alert_id, d.target FROM alert_delivery d "
            "JOIN alert a USING (alert_id) WHERE a.delivered_at IS NULL AND a.not_sent IS NULL "
            "AND a.superseded IS NULL"
        ).fetchall()
    taken: dict[str, set[str]] = {}
    for alert_id, target in done:
        taken.setdefault(alert_id, set()).add(target)
    keys = ("alert_id", "kind", "gpu", "rule", "message", "simulated", "resolved_at", "resolution")
    return [
        dict(zip(keys, row, strict=True)) | {"taken": taken.get(row[0], set())} for row in alerts
    ]


def body_of(alert: dict) -> str:
    """The message sent; a break that has already ended says so (it still goes out: someone
    may want to know the source was broken)."""
    if alert.get("resolved_at") is None:
        return alert["message"]
    return f"{alert['message']}\nResolved {alert['resolved_at']:%Y-%m-%d %H:%M} UTC: {alert['resolution']}."


def title_of(alert: dict) -> str:
    tag = "[SIMULATED] " if alert["simulated"] else ""
    if alert["kind"] == "scraper_broken":
        source = alert["rule"].removeprefix("scraper:")
        if alert.get("resolved_at") is not None:
            return f"{tag}gpuprice: scraper for {source} was broken (resolved)"
        return f"{tag}gpuprice: scraper for {source} is broken"
    what = {
        "mode_flip": "cheaper rent mode flipped",
        "index_move": "price index moved",  # warehouse.derive.index_alerts
    }.get(alert["kind"], "breakeven shifted")
    return f"{tag}gpuprice: {alert['gpu']} {what}"


def deliver_pending(
    warehouse: Warehouse,
    urls: Sequence[str],
    *,
    send: Sender = apprise_send,
    now: Callable[[], datetime] = utcnow,
    limit: int = 200,
) -> DeliverySummary:
    """Send every pending alert to every target that has not taken it yet; record the outcome."""
    if not warehouse_exists(warehouse):
        return DeliverySummary(note="no warehouse yet")
    pending = pending_alerts(warehouse, limit)
    summary = DeliverySummary(pending_before=len(pending))
    if not pending:
        return summary
    targets = [u.strip() for u in urls if u.strip()]
    if not targets:
        summary.note = "no notification URL configured (GPUPRICE_NOTIFY_URLS); alerts stay pending"
        return summary
    down: dict[str, str] = {}  # a target that failed this tick is not tried again this tick
    results: list[tuple[str, list[tuple[str, datetime]], str | None, bool, datetime]] = []
    for alert in pending:
        took: list[tuple[str, datetime]] = []
        errors: list[str] = []
        for url in targets:
            target = target_id(url)
            if target in alert["taken"]:
                continue
            error = down.get(target)
            if error is None:
                error = send(url, title_of(alert), body_of(alert))
            if error is None:
                took.append((target, now()))
            else:
                down[target] = error
                errors.append(error)
        complete = not errors
        results.append((alert["alert_id"], took, "; ".join(errors) or None, complete, now()))
    with write_connection(warehouse) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            for alert_id, took, error, complete, at in results:
                for target, when in took:
                    insert_new(
                        con,
                        "INSERT INTO alert_delivery VALUES (?, ?, ?)",
                        [alert_id, target, when],
                        table="alert_delivery",
                        key={"alert_id": alert_id, "target": target},
                    )
                con.execute(
                    "UPDATE alert SET attempts = attempts + 1, last_attempt_at = ?, "
                    "last_error = ?, delivered_at = CASE WHEN ? THEN ? ELSE delivered_at END "
                    "WHERE alert_id = ?",
                    [at, error, complete, at, alert_id],
                )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    for alert_id, _, error, complete, _ in results:
        if complete:
            summary.delivered.append(alert_id)
        else:
            summary.failed[alert_id] = error or ""
    if summary.failed:
        log.warning("%s; will retry on the next tick", summary.line())
    return summary
