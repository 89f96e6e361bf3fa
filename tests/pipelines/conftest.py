"""Fixtures of the pipeline tests."""

from __future__ import annotations

from datetime import timedelta

import pytest

from warehouse.derive import alerts


@pytest.fixture
def days_are_news(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo days a test loads (September 2026) count as today's: alerts about them are
    sent as the hourly run of their own day would send them, instead of being kept as
    history (warehouse.derive.alerts.HISTORY_AGE)."""
    monkeypatch.setattr(alerts, "HISTORY_AGE", timedelta(days=365 * 100))
