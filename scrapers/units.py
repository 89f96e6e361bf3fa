"""Price text and price-unit normalisation. Pure functions, no I/O.

Prices are kept exactly as listed (``Decimal``) together with the unit as shown ("元/时");
the conversion to CNY per card-hour is explicit about the billing period and about whether
the price is for one card or for the whole machine. A unit this module does not know is a
:class:`~scrapers.rows.ParseError`, never a silent guess.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from typing import Literal

from scrapers.rows import HOURS_PER_MONTH, ParseError

__all__ = [
    "CNY_PER_CARD_HOUR_QUANTUM",
    "parse_discount",
    "parse_price",
    "to_cny_per_card_hour",
]

CNY_PER_CARD_HOUR_QUANTUM = Decimal("0.000001")

Per = Literal["card", "machine"]

# Placeholders sites show instead of a number: "price on request", "ask support", dashes.
_NO_PRICE = {"", "-", "--", "—", "——", "面议", "咨询客服", "联系客服", "询价", "暂无报价", "N/A"}

# "¥7,920/月", "1.96 元/小时", "￥1,074" (NFKC turns ￥ into ¥). Thousands separators must be
# well-formed, so "1,96" or "7,9200" is garbled rather than a misread number.
_PRICE = re.compile(
    r"^(?P<cur>¥|RMB|CNY)?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*"
    r"(?P<unit>.*)$"
)


def _nfkc(text: str) -> str:
    # ASCII is its own NFKC form; skipping the call matters for the short texts of every row.
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return text.strip()


def parse_price(text: str) -> tuple[Decimal, str]:
    """Value and raw unit of a price as a page shows it.

    ``"¥1.96/时"`` → ``(Decimal("1.96"), "元/时")``; ``"7.47 元/卡时"`` → ``(7.47, "元/卡时")``;
    ``"￥1,074"`` → ``(1074, "元")`` (a sum with no billing period); a bare ``"1.26"`` gives
    the unit ``""``. Raises ``ParseError`` for placeholders ("面议"), zero or negative values
    and anything that is not one well-formed number followed by a unit.
    """
    raw = _nfkc(text)
    if raw in _NO_PRICE:
        raise ParseError(f"no price given: {text!r} (placeholder instead of a number)")
    m = _PRICE.match(raw)
    if m is None:
        raise ParseError(f"not a price: {text!r}")
    value = Decimal(m["num"].replace(",", ""))
    if value <= 0:
        raise ParseError(f"price must be positive, got {text!r}")
    unit = re.sub(r"\s+", "", m["unit"])
    if unit.startswith("/"):
        unit = "元" + unit
    elif unit == "" and m["cur"]:
        unit = "元"
    elif unit and not unit.startswith("元"):
        raise ParseError(f"unexpected text after the number in price {text!r}")
    return value, unit


# unit as shown -> (hours in the billing period, who the price is for; None = not stated)
_UNITS: dict[str, tuple[int, Per | None]] = {
    "元/时": (1, None),
    "元/小时": (1, None),
    "元/h": (1, None),
    "元/hr": (1, None),
    "元/卡时": (1, "card"),
    "元/卡/时": (1, "card"),
    "元/卡/小时": (1, "card"),
    "元/卡·时": (1, "card"),
    "元/台/时": (1, "machine"),
    "元/天": (24, None),
    "元/日": (24, None),
    "元/卡/天": (24, "card"),
    "元/台/天": (24, "machine"),
    "元/月": (HOURS_PER_MONTH, None),
    "元/卡/月": (HOURS_PER_MONTH, "card"),
    "元/台/月": (HOURS_PER_MONTH, "machine"),
}
_PERIOD_NAME = {1: "hour", 24: "day", HOURS_PER_MONTH: "month"}


def to_cny_per_card_hour(
    price: Decimal, unit_raw: str, gpu_count: int, per: Per = "card"
) -> tuple[str, Decimal]:
    """Normalised unit and CNY per card-hour (6 decimals, half-up) of a listed price.

    ``per`` says whom the listed price covers: one card, or the whole machine of
    ``gpu_count`` cards (then it is divided by ``gpu_count``). A unit that itself says
    so (元/卡时, 元/台/月) must agree with ``per``. A month is ``HOURS_PER_MONTH`` (720) hours.

    >>> to_cny_per_card_hour(Decimal("7920"), "元/月", 8, per="machine")
    ('CNY/server-month', Decimal('1.375000'))
    """
    if gpu_count < 1:
        raise ParseError(f"gpu_count must be at least 1, got {gpu_count}")
    if price <= 0:
        raise ParseError(f"price must be positive, got {price}")
    key = re.sub(r"\s+", "", _nfkc(unit_raw)).lower()
    if key not in _UNITS:
        known = ", ".join(_UNITS)
        raise ParseError(f"unknown unit {unit_raw!r} (known: {known})")
    hours, stated = _UNITS[key]
    if stated is not None and stated != per:
        raise ParseError(
            f"unit {unit_raw!r} is per {stated}, but the price was said to be per {per}"
        )
    # A one-card machine's hour is a card-hour, so it is reported in card units either way.
    per_card = per == "card" or gpu_count == 1
    cards = 1 if per == "card" else gpu_count
    value = (price / cards / hours).quantize(CNY_PER_CARD_HOUR_QUANTUM, rounding=ROUND_HALF_UP)
    unit = f"CNY/{'card' if per_card else 'server'}-{_PERIOD_NAME[hours]}"
    return unit, value


_CN_DIGITS = str.maketrans("一二三四五六七八九", "123456789")
# Labels that say "no discount": the listing simply has none.
_NO_DISCOUNT = {"", "-", "--", "—", "无", "无折扣", "不打折", "原价"}
# "8折" (one digit: tenths), "95折" (two digits: hundredths), "9.5折" (tenths with a decimal).
# "10折" or "90折" are not labels anyone prints (they would be "无折扣" and "9折").
_DISCOUNT = re.compile(r"^(?:(?P<two>[1-9][1-9])|(?P<one>[1-9])(?:\.(?P<dec>[1-9]))?)折$")


def parse_discount(label: str) -> Decimal | None:
    """Price ratio of a Chinese discount label: ``"95折"`` → ``Decimal("0.95")``.

    "8折"→0.80, "9.5折"→0.95, "93折"→0.93, "八五折"→0.85. A label meaning "no discount"
    ("无折扣", "原价", empty) returns ``None``; anything else that is not a discount
    (e.g. "10折", "折", "半价") raises ``ParseError``.
    """
    raw = re.sub(r"[\s()()]", "", _nfkc(label))
    if raw in _NO_DISCOUNT:
        return None
    m = _DISCOUNT.match(raw.translate(_CN_DIGITS))
    if m is None:
        raise ParseError(f"not a discount label: {label!r}")
    if m["two"]:
        return (Decimal(m["two"]) / 100).quantize(Decimal("0.01"))
    tenths = Decimal(m["one"] + ("." + m["dec"] if m["dec"] else ""))
    return (tenths / 10).quantize(Decimal("0.01"))


# -- any currency: the generic extractor, RunPod and vast.ai ------------------------------

# Currency marks before or after the number. "$" alone is taken as US dollars (the sites that
# use it here are US-priced); "¥" / "￥" (NFKC: ¥) and 元 are yuan.
_CURRENCY_PREFIX = {"US$": "USD", "$": "USD", "USD": "USD", "¥": "CNY", "RMB": "CNY", "CNY": "CNY"}
_CURRENCY_SUFFIX = {"USD": "USD", "CNY": "CNY", "RMB": "CNY", "元": "CNY"}
_MONEY = re.compile(
    r"^(?P<pre>US\$|\$|USD|¥|RMB|CNY)?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*"
    r"(?P<post>USD|CNY|RMB|元)?\s*"
    r"(?P<unit>.*)$",
    re.IGNORECASE,
)

# The billing period a unit text names (its last "/" segment, lower case, no spaces).
_PERIOD_WORDS: dict[str, int] = {
    **dict.fromkeys(("小时", "时", "hour", "hours", "hr", "hrs", "h"), 1),
    **dict.fromkeys(("天", "日", "day", "days", "d"), 24),
    **dict.fromkeys(("月", "month", "months", "mo", "mon"), HOURS_PER_MONTH),
}
_NO_MONEY = frozenset({"contact us", "contact sales", "n/a", "sold out"})
_PER_WORD = re.compile(r"\bper\s+")
_WHO = re.compile(r"^(卡|台|gpu|card|server|machine|node|instance)[-_]?")
_WHO_FIRST = "卡台gcsmni"  # the first characters of _WHO's words
# Currency marks a unit may start with ("元/时", "$/hr"): none starts another, and only 元, $
# and ¥ are one character long.
_LEADS = ("usd", "cny", "rmb", "元", "$", "¥")


# The currency marks parse_money's fast path takes: those one character long.
_FAST_MARKS = {mark: _CURRENCY_PREFIX[mark] for mark in ("$", "¥")}
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")  # _MONEY's first number form, before any "."


def _plain_number(text: str) -> Decimal | None:
    """The value of ``text`` when it is one number and nothing else, as ``_MONEY``'s ``num``
    reads it (thousands separators well-formed); else ``None``. (``str.isdecimal`` is
    exactly what ``\\d`` matches.)"""
    whole, dot, fraction = text.partition(".")
    if dot and not fraction.isdecimal():
        return None
    if whole.isdecimal():
        return Decimal(text)
    # _THOUSANDS.fullmatch(whole) without the regex ("1,088"): the first "," after 1 to 3
    # characters, then one every 4th, no other, and digits everywhere else.
    first = whole.find(",")
    if 0 < first <= 3 and (len(whole) - first) % 4 == 0:
        commas = (len(whole) - first) // 4
        plain = whole.replace(",", "")
        if (
            len(plain) == len(whole) - commas
            and whole[first::4] == "," * commas
            and plain.isdecimal()
        ):
            return Decimal(text.replace(",", ""))
    return None


def parse_money(text: str) -> tuple[Decimal, str | None, str]:
    """Value, currency (``USD`` / ``CNY`` / ``None`` when the text names none) and the rest
    of a price text: ``"$2.69/hr"`` → ``(2.69, "USD", "/hr")``; ``"¥1.96/时"`` →
    ``(1.96, "CNY", "/时")``; ``"7.75 元/卡时"`` → ``(7.75, "CNY", "/卡时")``.
    Placeholders ("面议", "Contact us") and non-positive values raise ``ParseError``."""
    raw = (text if text.isascii() else unicodedata.normalize("NFKC", text)).strip()  # _nfkc
    # Most cells hold a number alone, or after "$" / "¥": decided here without the regex.
    # (An error, or anything else, takes the long way below.)
    currency = _FAST_MARKS.get(raw[:1])
    value = _plain_number(raw[1:] if currency else raw)
    if value is not None and value > 0:
        return value, currency, ""
    if raw in _NO_PRICE or raw.lower() in _NO_MONEY:
        raise ParseError(f"no price given: {text!r} (placeholder instead of a number)")
    m = _MONEY.match(raw)
    if m is None:
        raise ParseError(f"not a price: {text!r}")
    num, pre_mark, post_mark, unit = m.group("num", "pre", "post", "unit")
    value = Decimal(num.replace(",", "") if "," in num else num)
    if value <= 0:
        raise ParseError(f"price must be positive, got {text!r}")
    pre = _CURRENCY_PREFIX[pre_mark.upper()] if pre_mark else None
    post = (
        _CURRENCY_SUFFIX[post_mark if post_mark == "元" else post_mark.upper()]
        if post_mark
        else None
    )
    if pre and post and pre != post:
        raise ParseError(f"price {text!r} names two currencies")
    # str.split() splits on exactly the whitespace re's \s matches, without a regex call.
    return value, pre or post, " ".join(unit.split())


_PERIOD_ALIASES = {"hourly": "/h", "daily": "/d", "monthly": "/mo"}
# Words that name a card or a machine in a unit ("/GPU/hr", "元/台/月").
_CARD_WORDS = ("卡", "gpu", "card")
_MACHINE_WORDS = ("台", "server", "machine", "node", "instance")


def _is_bare(word: str) -> bool:
    """Whether parse_period gives ``(hours, None)`` for "/" + ``word`` and "元/" + ``word``
    with the word as it is: nothing to normalise or strip, no "per", no card or machine."""
    return (
        word.isalpha()  # no whitespace, "/", "." or "·"
        and word == word.lower() == unicodedata.normalize("NFKC", word)
        and "per" not in word
        and _WHO.match(word) is None
        and not any(name in word for name in _CARD_WORDS + _MACHINE_WORDS)
    )


# The period words parse_period's first step decides alone ("/hr", "元/时"): most units.
_BARE_PERIODS = {word: hours for word, hours in _PERIOD_WORDS.items() if _is_bare(word)}


# Memoised: a page states the same few units on every row ("/hr", "元/时"), and this is pure.
# The bench clears it before every page, so its cold figures do not count on it.
@lru_cache(maxsize=512)
def parse_period(unit: str) -> tuple[int, Per | None]:
    """Hours in the billing period a unit names, and whom it says the price covers:
    ``"/hr"`` → ``(1, None)``; ``"/GPU/hr"`` or ``"/卡时"`` → ``(1, "card")``;
    ``"元/台/月"`` → ``(720, "machine")``. ``ParseError`` when no period is named."""
    # The same steps as regex substitutions would take, each skipped when a cheap test shows
    # it would change nothing: this runs once or more for every price row.
    lead, slash, word = unit.partition("/")
    if slash and (lead == "" or lead == "元"):  # what the steps below keep of either lead
        hours = _BARE_PERIODS.get(word)
        if hours is not None:
            return hours, None
    elif unit[:4].lower() == "per " and unit.isascii():  # "per hour": "/hour" below
        hours = _BARE_PERIODS.get(unit[4:].strip().lower())
        if hours is not None:
            return hours, None
    key = (unit if unit.isascii() else unicodedata.normalize("NFKC", unit)).strip().lower()
    if "per" in key:
        key = _PER_WORD.sub("/", key)
    key = "".join(key.split())  # str.split() and re's \s agree on what whitespace is
    if "." in key:
        key = key.replace(".", "")
    if "·" in key:
        key = key.replace("·", "")
    if not key.startswith("/"):
        if key.startswith(_LEADS):  # a currency mark before the "/": drop it
            key = key[1:] if key[0] in "元$¥" else key[3:]
        key = _PERIOD_ALIASES.get(key, key)
        if not key.startswith("/"):
            raise ParseError(f"unit {unit!r} names no billing period (expected e.g. /hr, /时, /月)")
    segments = [part for part in key.split("/") if part]
    last = segments[-1] if segments else ""
    if last[:1] in _WHO_FIRST:  # only then can _WHO match: skip the regex for "hr", "时"
        who = _WHO.match(last)
        if who is not None:
            last = last[who.end() :]
    hours = _PERIOD_WORDS.get(last)
    if hours is None:
        raise ParseError(f"unknown billing period in unit {unit!r} (known: hour, day, month)")
    if len(segments) == 1 and segments[0] in _BARE_PERIODS:
        return hours, None  # "per hour", "usd/hr": no card or machine named
    joined = "/".join(segments)
    per: Per | None = None
    if "卡" in joined or "gpu" in joined or "card" in joined:  # _CARD_WORDS
        per = "card"
    elif (  # _MACHINE_WORDS
        "台" in joined
        or "server" in joined
        or "machine" in joined
        or "node" in joined
        or "instance" in joined
    ):
        per = "machine"
    return hours, per


def per_card_hour(
    price: Decimal, currency: str, hours: int, gpu_count: int, per: Per
) -> tuple[str, Decimal]:
    """Normalised unit (``USD/card-hour``, ``CNY/server-month`` ...) and the price per
    card-hour in the listed currency (not rounded; the caller converts and rounds)."""
    if gpu_count < 1:
        raise ParseError(f"gpu_count must be at least 1, got {gpu_count}")
    if price <= 0:
        raise ParseError(f"price must be positive, got {price}")
    per_card = per == "card" or gpu_count == 1
    cards = 1 if per == "card" else gpu_count
    unit = f"{currency}/{'card' if per_card else 'server'}-{_PERIOD_NAME[hours]}"
    return unit, price / cards / hours
