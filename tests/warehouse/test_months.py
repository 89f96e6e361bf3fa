"""warehouse/read/months.py: the month-to-date windows every month-over-month figure uses,
worked out by hand from a calendar, and its SQL twin checked against it in DuckDB."""

from __future__ import annotations

from datetime import date, timedelta

import duckdb
import pytest

from warehouse.read.months import (
    MonthToDate,
    next_month,
    previous_month,
    same_days_sql,
    whole_sql,
)


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


def test_the_sql_rule_is_the_python_rule_on_every_day_of_four_years() -> None:
    """For each newest day of 2023-2026 and each day of its month and the month before,
    the SQL the trends KPIs and the report medians use (whole_sql, same_days_sql) picks the
    days MonthToDate picks: a difference on any day (a leap February, a 31st against a
    30-day month) fails here."""
    rows = duckdb.sql(
        f"""
        WITH newest AS (
            SELECT n::DATE AS newest FROM range(DATE '2023-01-01', DATE '2027-01-01',
                                                 INTERVAL 1 DAY) t(n)
        ), days AS (
            SELECT newest, {whole_sql("newest")} AS whole, d::DATE AS day
            FROM newest, range(date_trunc('month', newest) - INTERVAL 1 MONTH,
                               newest + INTERVAL 1 DAY, INTERVAL 1 DAY) t(d)
        )
        SELECT newest, whole, day, {same_days_sql("day", "newest", "whole")} AS compared
        FROM days
        """
    ).fetchall()
    assert len(rows) > 1461 * 28
    for newest, whole, day, compared in rows:
        window = MonthToDate(newest)
        assert whole == window.whole, newest
        expected = window.month <= day <= newest or window.previous <= day <= window.through
        assert compared == expected, (newest, day)
    assert MonthToDate(date(2024, 3, 30)).through + timedelta(days=1) == date(2024, 3, 1)
