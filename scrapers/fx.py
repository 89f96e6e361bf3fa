"""The rate lookup for sources that list in another currency (vast.ai, RunPod: USD).

Pure: :class:`FxRates` is a table of daily rates; nothing here does I/O. Adapters convert
nothing: the warehouse prices each row at load (``warehouse.ingest.money``) with this lookup
over the rates it reads. A figure observed on day D is converted at the latest rate on or
before D; a day older than every known rate uses the configured default (``[fx]`` in
``gpuprice.toml``), which is labelled as such wherever it is stored. A currency with no rate at all is a
:class:`~scrapers.rows.ParseError`, never a guess.

The optional daily source is parsed by :func:`parse_rates`: the JSON of an
``open.er-api.com``-style endpoint (``{"result": "success", "base_code": "USD",
"time_last_update_unix": ..., "rates": {"CNY": 7.1, ...}}``).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from scrapers.rows import ParseError

__all__ = ["CONFIGURED_DEFAULT", "FxRate", "FxRates", "parse_rates"]

RATE_QUANTUM = Decimal("0.000001")
# How a configured default is labelled in fx_rate.source (a fetched rate names its URL).
CONFIGURED_DEFAULT = "configured default (gpuprice.toml [fx])"


@dataclass(frozen=True, slots=True)
class FxRate:
    day: date
    currency: str  # ISO code, e.g. USD
    cny_per_unit: Decimal
    source: str  # where the figure comes from, e.g. "configured default (gpuprice.toml [fx])"


@dataclass(frozen=True)
class FxRates:
    """Daily CNY rates per currency, looked up as "latest on or before the day"."""

    rates: tuple[FxRate, ...] = ()
    defaults: tuple[FxRate, ...] = ()  # one per currency: used before the first known day
    _index: dict[str, tuple[list[date], list[FxRate]]] = field(
        init=False, repr=False, compare=False
    )
    # the default per currency, found once: a tracker's years before the first stored rate
    # looked it up for every row
    _default: dict[str, FxRate] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index: dict[str, tuple[list[date], list[FxRate]]] = {}
        for rate in sorted((*self.rates, *self.defaults), key=lambda r: (r.currency, r.day)):
            days, rows = index.setdefault(rate.currency.upper(), ([], []))
            if days and days[-1] == rate.day:
                # a fetched rate wins over the configured default of the same day
                if rows[-1] in self.defaults:
                    rows[-1] = rate
                continue
            days.append(rate.day)
            rows.append(rate)
        object.__setattr__(self, "_index", index)
        defaults: dict[str, FxRate] = {}
        for default in self.defaults:
            defaults.setdefault(default.currency.upper(), default)
        object.__setattr__(self, "_default", defaults)

    def rate(self, currency: str, day: date) -> FxRate:
        """The rate that applies on ``day``; ``ParseError`` when the currency has none."""
        code = currency.upper()
        if code == "CNY":
            return FxRate(day, "CNY", Decimal(1), "identity")
        found = self._index.get(code)
        if not found:
            raise ParseError(
                f"no {code}→CNY rate: configure [fx] {code.lower()}_cny in gpuprice.toml"
            )
        days, rows = found
        at = bisect.bisect_right(days, day)
        if at == 0:
            return self._default.get(code) or rows[0]
        return rows[at - 1]

    def to_cny(self, amount: Decimal, currency: str, day: date) -> Decimal:
        """``amount`` in CNY at the day's rate, 6 decimals (half-up)."""
        rate = self.rate(currency, day).cny_per_unit
        return (amount * rate).quantize(RATE_QUANTUM, rounding=ROUND_HALF_UP)


def parse_rates(body: bytes, url: str, currencies: tuple[str, ...] = ("USD",)) -> list[FxRate]:
    """CNY per unit of each currency from an ``open.er-api.com``-style JSON document.

    The document gives rates *from* ``base_code``; with base USD, ``rates.CNY`` is CNY per
    USD. Any other base is converted through it (CNY per X = rates.CNY / rates.X).
    """
    # Imported here: scrapers.sources imports this module, so a module-level import would loop.
    from scrapers.sources._json import loads

    try:
        doc = loads(body.decode("utf-8"), url)  # within the parsers' nesting and digit limits
    except UnicodeDecodeError as exc:
        raise ParseError(f"{url}: not a JSON document ({exc})") from None
    if not isinstance(doc, dict) or doc.get("result") != "success":
        raise ParseError(f"{url}: rate document without result=success")
    rates = doc.get("rates")
    base = doc.get("base_code")
    stamp = doc.get("time_last_update_unix")
    if not isinstance(rates, dict) or not isinstance(base, str) or not isinstance(stamp, int):
        raise ParseError(f"{url}: rate document lacks rates, base_code or time_last_update_unix")
    day = datetime.fromtimestamp(stamp, UTC).date()

    def number(code: str) -> Decimal:
        value = rates.get(code)
        try:
            result = Decimal(str(value))
        except (InvalidOperation, ValueError):
            raise ParseError(f"{url}: rate of {code} is not a number: {value!r}") from None
        if not result.is_finite() or result <= 0:
            raise ParseError(f"{url}: rate of {code} is not positive: {value!r}")
        return result

    cny = number("CNY") if base != "CNY" else Decimal(1)
    found = []
    for code in currencies:
        per_base = Decimal(1) if code == base else number(code)
        found.append(FxRate(day, code, (cny / per_base).quantize(RATE_QUANTUM, ROUND_HALF_UP), url))
    return found
