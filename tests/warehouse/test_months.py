"""warehouse/read/months.py: the month-to-date windows every month-over-month figure uses,
worked out by hand from a calendar."""

from __future__ import annotations

from datetime import date

import pytest

from warehouse.read.months import MonthToDate, next_month, previous_month


@pytest.mark.parametrize(
    ("day", "previous", "through", "whole"),
    [
        (date(2026, 12, 3), date(2026, 11, 1), date(2026, 11, 3), False),
        (date(2026, 1, 15), date(2025, 12, 1), date(2025, 12, 15), False),  # across a year
        (date(2026, 3, 30), date(2026, 2, 1), date(2026, 2, 28), False),  # February is short
        (date(2026, 3, 31), date(2026, 2, 1), date(2026, 2, 28), True),
        (date(2024, 2, 29), date(2024, 1, 1), date(2024, 1, 31), True),  # a leap day ends Feb
        (date(2026, 2, 28), date(2026, 1, 1), date(2026, 1, 31), True),
        (date(2026, 4, 1), date(2026, 3, 1), date(2026, 3, 1), False),
    ],
)
def test_month_to_date_against_the_same_days_of_the_month_before(
    day: date, previous: date, through: date, whole: bool
) -> None:
    window = MonthToDate(day)
    assert window.month == day.replace(day=1)
    assert (window.previous, window.through, window.whole) == (previous, through, whole)


def test_month_steps() -> None:
    assert next_month(date(2026, 12, 31)) == date(2027, 1, 1)
    assert previous_month(date(2026, 1, 1)) == date(2025, 12, 1)
    assert previous_month(date(2026, 3, 31)) == date(2026, 2, 1)
