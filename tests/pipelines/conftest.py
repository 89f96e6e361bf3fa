"""Fixtures of the pipeline tests."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from demo.market import DemoMarket
from tests.support.webhook_receiver import Receiver, running_receiver
from warehouse.derive import alerts


@pytest.fixture
def days_are_news(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo days a test loads (September 2026) count as today's: alerts about them are
    sent as the hourly run of their own day would send them, instead of being kept as
    history (warehouse.derive.alerts.HISTORY_AGE)."""
    monkeypatch.setattr(alerts, "HISTORY_AGE", timedelta(days=365 * 100))


@pytest.fixture
def market() -> Iterator[DemoMarket]:
    """The demo market on free ports (jygpu, SMM and the platforms), for one test."""
    with DemoMarket(jygpu_port=0, smm_port=0, platforms_port=0).start() as running:
        yield running


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    """A webhook receiver, the only notification target of the test's runs."""
    with running_receiver() as running:
        monkeypatch.setenv("GPUPRICE_NOTIFY_URLS", running.url())
        monkeypatch.delenv("GPUPRICE_NOTIFY_URLS_FILE", raising=False)
        yield running
