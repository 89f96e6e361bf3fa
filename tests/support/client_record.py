"""What the polite HTTP client did, recorded instead of timed: its attempts, the waits it
chose before a retry, and its pacing sleeps on a clock that stands still.

A test asserts on these (a bounded number of attempts, every wait within its cap) rather than
on wall-clock time, which a loaded machine stretches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from tenacity import RetryCallState

from scrapers import http
from scrapers.http import PoliteClient


@dataclass
class ClientRecord:
    attempts: list[str] = field(default_factory=list)  # the URL of each attempt, in order
    waits: list[float] = field(default_factory=list)  # seconds, one per failed attempt


def record_client(monkeypatch: pytest.MonkeyPatch) -> ClientRecord:
    """Record every PoliteClient's attempts and chosen waits for the rest of the test.
    (tenacity asks for the wait after each failed attempt, the last one's unused.)"""
    record = ClientRecord()
    attempt, choose = PoliteClient._get_once, PoliteClient._wait

    def attempted(client: PoliteClient, request: Any, headers: dict[str, str]) -> Any:
        record.attempts.append(request.url)
        return attempt(client, request, headers)

    def chosen(client: PoliteClient, state: RetryCallState) -> float:
        record.waits.append(choose(client, state))
        return record.waits[-1]

    monkeypatch.setattr(PoliteClient, "_get_once", attempted)
    monkeypatch.setattr(PoliteClient, "_wait", chosen)
    return record


class StoppedClock:
    """The client's clock, standing still except while it sleeps: requests take no time, so
    the pacing sleeps are exactly what the per-host interval asks for."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def stop_client_clock(monkeypatch: pytest.MonkeyPatch) -> StoppedClock:
    """Give scrapers.http a StoppedClock for the rest of the test (its pacing only; the
    retry waits are tenacity's)."""
    clock = StoppedClock()
    monkeypatch.setattr(http, "time", clock)
    return clock
