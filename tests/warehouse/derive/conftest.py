"""Every derive test's temporary warehouse and demo days (tests/support/demo_days.py)."""

from tests.support.demo_days import demo_day, warehouse  # noqa: F401
