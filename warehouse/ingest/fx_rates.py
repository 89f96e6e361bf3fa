"""The ``fx_rate`` table: daily CNY rates, the configured default and the optional source.

``fx_rate(day, currency, cny_per_unit, source)``: one rate per day and currency. The
configured default (``[fx] usd_cny`` with its ``as_of`` date) is stored under its date with
``source`` starting "configured default"; a fetched rate (``[fx] source_url``) names its URL.
A fetched rate replaces a default of the same day, never the other way round. A history
import (:func:`import_rates`, ``gpuprice fx import``: the ECB's daily series) fills the days
without a rate and replaces defaults, and keeps every fetched rate already stored. Rows are
converted at load by :mod:`warehouse.ingest.money` (the latest rate on or before the row's
day, the default before the first one, looked up by :class:`scrapers.fx.FxRates`).

Every fetched or imported rate is screened first (:func:`screen_rates`, :class:`FxPolicy`):

- dated after now (scrapers.clock, the one clock every loader asks): refused;
- outside the pair's plausible band (``[fx] usd_cny_min`` .. ``usd_cny_max``): refused, one
  line says which and why (999,999 CNY per USD would have made that day's USD offers 6.7 M CNY
  a card-hour);
- moved by more than ``[fx] max_daily_change`` from the rate before it (at most a week
  earlier): held in ``fx_rate_held``, like a quarantined price, and never used; confirmed
  and stored once ``confirm_days`` rates in a row agree with it (a real change of level),
  or accepted by hand (``gpuprice fx accept DAY``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal

import duckdb

from scrapers.clock import refusal
from scrapers.fx import CONFIGURED_DEFAULT, FxRate
from warehouse.store.db import WarehouseMissing, read_connection, utcnow, write_connection
from warehouse.store.handle import Warehouse

# A jump is measured against the rate before it only when that is at most this much earlier
# (weekends and holidays have no rate); after a longer gap there is no day before to compare.
JUMP_SPAN = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class FxPolicy:
    """What a stored rate must be: within its currency's band (CNY per unit; a currency
    without one is not checked), and within ``max_move`` (a share) of the rate before it,
    else held until ``confirm`` rates in a row agree."""

    bands: Mapping[str, tuple[Decimal, Decimal]] = field(default_factory=dict)
    max_move: Decimal = Decimal("0.05")
    confirm: int = 3


@dataclass(slots=True)
class Screened:
    """The rates of :func:`screen_rates`: to store, held (with why), refused (with why)."""

    accepted: list[FxRate] = field(default_factory=list)
    held: list[tuple[FxRate, str]] = field(default_factory=list)
    confirmed: list[FxRate] = field(default_factory=list)  # held ones now accepted
    refused: list[tuple[FxRate, str]] = field(default_factory=list)

    def lines(self, shown: int = 5) -> list[str]:
        """One line each for what was refused and what was held (at most ``shown`` named)."""
        out = []
        for what, items in (("refused", self.refused), ("held", self.held)):
            if items:
                named = "; ".join(f"{r.day} {r.cny_per_unit} ({why})" for r, why in items[:shown])
                more = f"; … {len(items) - shown} more" if len(items) > shown else ""
                out.append(f"{len(items)} rate(s) {what}: {named}{more}")
        return out


def _band_problem(rate: FxRate, policy: FxPolicy) -> str | None:
    band = policy.bands.get(rate.currency.upper())
    if band is not None and not band[0] <= rate.cny_per_unit <= band[1]:
        return (
            f"outside the plausible band {band[0]} .. {band[1]} CNY per {rate.currency} "
            "([fx] usd_cny_min, usd_cny_max)"
        )
    return refusal(datetime.combine(rate.day, time.min))


def _moved(rate: FxRate, before: FxRate, policy: FxPolicy) -> str | None:
    """Why ``rate`` is a jump from ``before`` (the rate before it), or None."""
    if rate.day - before.day > JUMP_SPAN:
        return None
    move = abs(rate.cny_per_unit / before.cny_per_unit - 1)
    if move <= policy.max_move:
        return None
    return (
        f"moved {move:.1%} from {before.cny_per_unit} on {before.day}, more than "
        f"{policy.max_move:.0%} ([fx] max_daily_change)"
    )


class _Screen:
    """One currency's rates in day order against the last accepted one: a jump starts a
    held run; the run is confirmed when ``confirm`` of its rates agree, dropped (left held)
    when a rate comes back to the accepted level."""

    def __init__(self, policy: FxPolicy, out: Screened) -> None:
        self.policy, self.out = policy, out
        self.baseline: FxRate | None = None
        self.run: list[tuple[FxRate, str]] = []

    def stored(self, rate: FxRate) -> None:
        """A rate already in ``fx_rate``: the level the next ones are compared with."""
        self.close()
        self.baseline = rate

    def add(self, rate: FxRate) -> None:
        policy, run = self.policy, self.run
        if run and _moved(rate, run[-1][0], policy) is None:
            run.append((rate, f"agrees with the held rate of {run[0][0].day}"))
            if len(run) >= policy.confirm:
                self.out.confirmed += [r for r, _ in run]
                self.baseline, self.run = rate, []
            return
        jump = None if self.baseline is None else _moved(rate, self.baseline, policy)
        if jump is None:
            self.out.accepted.append(rate)
            self.close()
            self.baseline = rate
        else:
            self.close()
            self.run = [(rate, jump)]

    def close(self) -> None:
        self.out.held += self.run
        self.run = []


def screen_rates(
    con: duckdb.DuckDBPyConnection, rates: Iterable[FxRate], policy: FxPolicy
) -> Screened:
    """Sort ``rates`` into accepted, held and refused (:class:`FxPolicy`), each compared with
    the rate before it, stored or among ``rates`` (configured defaults are no market rate:
    never the level compared with)."""
    out = Screened()
    by_currency: dict[str, list[FxRate]] = {}
    for rate in rates:
        problem = _band_problem(rate, policy)
        if problem is None:
            by_currency.setdefault(rate.currency, []).append(rate)
        else:
            out.refused.append((rate, problem))
    for currency, fresh in by_currency.items():
        screen = _Screen(policy, out)
        first, last = min(r.day for r in fresh), max(r.day for r in fresh)
        known = _stored(con, currency, first - JUMP_SPAN, last)
        events = sorted([(r.day, 0, r) for r in known] + [(r.day, 1, r) for r in fresh],
                        key=lambda e: (e[0], e[1]))  # fmt: skip
        for _, new, rate in events:
            (screen.add if new else screen.stored)(rate)
        screen.close()
    return out


def _stored(con: duckdb.DuckDBPyConnection, currency: str, first: date, last: date) -> list[FxRate]:
    return [
        FxRate(*row)
        for row in con.execute(
            "SELECT day, currency, cny_per_unit, source FROM fx_rate WHERE currency = ? "
            "AND day BETWEEN ? AND ? AND NOT starts_with(source, ?) ORDER BY day",
            [currency, first, last, CONFIGURED_DEFAULT],
        ).fetchall()
    ]


def hold(con: duckdb.DuckDBPyConnection, held: Sequence[tuple[FxRate, str]]) -> None:
    """Keep held rates in ``fx_rate_held`` (a rate held before keeps its first entry)."""
    now = utcnow()
    for rate, reason in held:
        con.execute(
            "INSERT INTO fx_rate_held SELECT ?, ?, ?, ?, ?, 'held', ?, NULL WHERE NOT EXISTS "
            "(SELECT 1 FROM fx_rate_held WHERE day = ? AND currency = ?)",
            [rate.day, rate.currency, rate.cny_per_unit, rate.source, reason, now, rate.day,
             rate.currency],
        )  # fmt: skip


def _decide(con: duckdb.DuckDBPyConnection, rates: Sequence[FxRate], status: str) -> None:
    for rate in rates:
        con.execute(
            "UPDATE fx_rate_held SET status = ?, decided_at = ? WHERE day = ? AND currency = ? "
            "AND status = 'held'",
            [status, utcnow(), rate.day, rate.currency],
        )


def store_rates(con: duckdb.DuckDBPyConnection, rates: Iterable[FxRate]) -> int:
    """Insert or update rates; a configured default never overwrites a fetched rate.

    Read, then UPDATE or INSERT (not ON CONFLICT DO UPDATE, which a DuckLake refuses: it
    has no key; warehouse.store.lake). The caller holds the one writer connection."""
    n = 0
    for rate in rates:
        found = con.execute(
            "SELECT source FROM fx_rate WHERE day = ? AND currency = ?", [rate.day, rate.currency]
        ).fetchall()
        if not found:
            con.execute(
                "INSERT INTO fx_rate VALUES (?, ?, ?, ?)",
                [rate.day, rate.currency, rate.cny_per_unit, rate.source],
            )
        elif found[0][0].startswith(CONFIGURED_DEFAULT) or not rate.source.startswith(
            CONFIGURED_DEFAULT
        ):
            con.execute(
                "UPDATE fx_rate SET cny_per_unit = ?, source = ? WHERE day = ? AND currency = ?",
                [rate.cny_per_unit, rate.source, rate.day, rate.currency],
            )
        n += 1
    return n


def store_fetched(
    con: duckdb.DuckDBPyConnection,
    defaults: Sequence[FxRate],
    fetched: Sequence[FxRate],
    policy: FxPolicy,
) -> Screened:
    """The configured defaults, then the fetched rates as :func:`screen_rates` lets them (a
    fetched rate of a default's day replaces it); held ones kept in ``fx_rate_held``."""
    screened = screen_rates(con, fetched, policy)
    store_rates(con, [*defaults, *screened.accepted, *screened.confirmed])
    hold(con, screened.held)
    _decide(con, screened.confirmed, "confirmed")
    return screened


def read_rates(con: duckdb.DuckDBPyConnection) -> list[FxRate]:
    """Every stored rate, by currency and day (read in the caller's connection)."""
    return [
        FxRate(day, currency, rate, source)
        for day, currency, rate, source in con.execute(
            "SELECT day, currency, cny_per_unit, source FROM fx_rate ORDER BY currency, day"
        ).fetchall()
    ]


def has_recent_rate(warehouse: Warehouse, currency: str, since: date, source: str) -> bool:
    """Whether ``source`` already gave a rate for ``since`` or later (fetch once a day)."""
    try:
        with read_connection(warehouse) as con:
            return bool(
                con.execute(
                    "SELECT count(*) FROM fx_rate WHERE day >= ? AND currency = ? AND source = ?",
                    [since, currency, source],
                ).fetchone()[0]
            )
    except WarehouseMissing:
        return False


@dataclass(frozen=True, slots=True)
class ImportedRates:
    """What :func:`import_rates` did: rates added, configured defaults replaced, rates
    already stored (kept as they are), and the screen's held and refused ones."""

    added: int
    replaced_default: int
    already_stored: int
    screened: Screened = field(default_factory=Screened)


def import_rates(
    warehouse: Warehouse, rates: Sequence[FxRate], policy: FxPolicy | None = None
) -> ImportedRates:
    """Store a history of rates in one write transaction (``gpuprice fx import``), each
    screened first (:func:`screen_rates`: refused, held or accepted).

    A day with no rate gets it; a day whose stored rate is the configured default gets the
    imported one (as :func:`store_rates` does); a day that already has a fetched rate keeps
    it, because rows may have been converted at it. Re-importing adds nothing."""
    with write_connection(warehouse) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            stored = {
                (day, currency): source
                for day, currency, source in con.execute(
                    "SELECT day, currency, source FROM fx_rate"
                ).fetchall()
            }
            known = [r for r in rates if (r.day, r.currency) in stored]
            kept = sum(
                not stored[(r.day, r.currency)].startswith(CONFIGURED_DEFAULT) for r in known
            )
            new = [r for r in rates if not _fetched((r.day, r.currency), stored)]
            screened = screen_rates(con, new, policy or FxPolicy())
            usable = [*screened.accepted, *screened.confirmed]
            fresh = [r for r in usable if (r.day, r.currency) not in stored]
            defaults = [r for r in usable if (r.day, r.currency) in stored]
            _insert(con, fresh)
            store_rates(con, defaults)
            hold(con, screened.held)
            _decide(con, screened.confirmed, "confirmed")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    return ImportedRates(len(fresh), len(defaults), kept, screened)


def _fetched(key: tuple[date, str], stored: dict[tuple[date, str], str]) -> bool:
    source = stored.get(key)
    return source is not None and not source.startswith(CONFIGURED_DEFAULT)


def _insert(con: duckdb.DuckDBPyConnection, fresh: Sequence[FxRate]) -> None:
    """New keys only: a plain bulk insert."""
    if fresh:
        con.execute(
            "INSERT INTO fx_rate SELECT unnest(?::DATE[]), unnest(?::VARCHAR[]), "
            "unnest(?::VARCHAR[])::DECIMAL(12, 6), unnest(?::VARCHAR[])",
            [
                [r.day for r in fresh],
                [r.currency for r in fresh],
                [str(r.cny_per_unit) for r in fresh],
                [r.source for r in fresh],
            ],
        )


def read_held(con: duckdb.DuckDBPyConnection) -> list[tuple[FxRate, str, str]]:
    """Every held rate with its reason and status, by currency and day."""
    return [
        (FxRate(day, currency, rate, source), reason, status)
        for day, currency, rate, source, reason, status in con.execute(
            "SELECT day, currency, cny_per_unit, source, reason, status FROM fx_rate_held "
            "ORDER BY currency, day"
        ).fetchall()
    ]


def accept_held(warehouse: Warehouse, days: Sequence[date], currency: str) -> list[FxRate]:
    """Store the held rates of ``days`` (``gpuprice fx accept``); the ones accepted."""
    with write_connection(warehouse) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            held = [
                rate for rate, _, status in read_held(con)
                if status == "held" and rate.day in days and rate.currency == currency
            ]  # fmt: skip
            store_rates(con, held)
            _decide(con, held, "accepted")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    return held
