"""Calendar months, once: the month-to-date rule every month-over-month figure uses.

A month in progress is compared with the same days of the month before (1 to the newest
day's day of the month), a month whose data reaches its last day with the whole month
before; comparing a half month with a whole one was the dishonest figure of issue 30.
Compare's month changes, the trends captions, the compare window and the report workbook
take their windows from here (issue 38: the rule had been written in Polars and in dates
four times). Two SQL queries apply it per series inside the query, where one Python day
cannot: the trends KPIs' (warehouse/read/dashboard.py) and the report medians'
(warehouse/read/report.py). They write it through :func:`whole_sql` and
:func:`same_days_sql`, the same rule in SQL beside :class:`MonthToDate` (tests/warehouse/
test_months.py checks the two agree on every day of four years).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta


def month_start(day: date) -> date:
    return day.replace(day=1)


def next_month(day: date) -> date:
    return (month_start(day) + timedelta(days=32)).replace(day=1)


def previous_month(day: date) -> date:
    return (month_start(day) - timedelta(days=1)).replace(day=1)


@dataclass(frozen=True)
class MonthToDate:
    """The days compared when the newest price is on ``day``: ``month`` (its 1st) to
    ``day`` against ``previous`` (the 1st of the month before) to ``through``."""

    day: date

    @property
    def month(self) -> date:
        return month_start(self.day)

    @property
    def previous(self) -> date:
        return previous_month(self.day)

    @property
    def whole(self) -> bool:
        """``day`` ends its month: a whole month against the whole month before."""
        return self.day == next_month(self.day) - timedelta(days=1)

    @property
    def through(self) -> date:
        """The previous month's last compared day: its end when ``whole`` or when it is
        shorter than ``day``'s day of the month (31 March against 28 February)."""
        end = self.month - timedelta(days=1)
        return end if self.whole else min(self.previous + timedelta(days=self.day.day - 1), end)


def whole_sql(newest: str) -> str:
    """:attr:`MonthToDate.whole` in SQL: whether the day ``newest`` (a DATE expression) ends
    its month."""
    return f"({newest} = last_day({newest}))"


def same_days_sql(day: str, newest: str, whole: str) -> str:
    """In SQL, whether ``day`` (a DATE or TIMESTAMP expression in the compared month or an
    earlier one) is among the days compared when the series' newest day is ``newest`` and
    ``whole`` (:func:`whole_sql`) says it ends its month: every day then, else days 1 to
    ``newest``'s day of the month (a shorter month ends sooner: :attr:`MonthToDate.through`)."""
    return f"({whole} OR day({day}) <= day({newest}))"
