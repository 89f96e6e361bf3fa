"""Money, billing periods, sizes and text normalisation: the one place every adapter reads
them. Pure functions, no I/O.

Prices are kept exactly as listed (``Decimal``) together with their unit as shown; the
conversion to a price per card-hour is explicit about the billing period and about whether
the price is for one card or for the whole machine. A price, unit or size this module cannot
read is a :class:`~scrapers.rows.ParseError`, never a silent guess.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import Literal

from scrapers.rows import HOURS_PER_MONTH, HOURS_PER_WEEK, HOURS_PER_YEAR, NoPrice, ParseError

__all__ = [
    "CNY_PER_CARD_HOUR_QUANTUM",
    "MAX_NUMBER_DIGITS",
    "Per",
    "currency_in",
    "decimal_of",
    "hours_for",
    "nfkc",
    "parse_discount",
    "parse_gb",
    "parse_money",
    "parse_period",
    "per_card_hour",
    "size_gb",
]

CNY_PER_CARD_HOUR_QUANTUM = Decimal("0.000001")

Per = Literal["card", "machine"]


# -- text --------------------------------------------------------------------------------


def nfkc(text: str) -> str:
    """``text`` for matching: NFKC (full-width letters, digits and punctuation such as
    ＲＴＸ４０９０, ：, （ and ￥ become their ASCII forms), whitespace collapsed to single
    spaces, stripped."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


# -- numbers -------------------------------------------------------------------------------

# Digits a number a page states may have: a float prints with at most 17 significant digits
# and prices with a handful, while Decimal computes with 28, so a number within this limit
# (and below 10^20) leaves room for the arithmetic and rounding adapters do with it.
MAX_NUMBER_DIGITS = 20
_MAX_NUMBER_CHARS = 2 * MAX_NUMBER_DIGITS  # with sign, point, leading zeros and an exponent


def decimal_of(text: str, what: str) -> Decimal | None:
    """The exact Decimal of a number's text ("1.96", "-3", "2.5e-05", "NaN"), ``None`` when the
    text is not a number (the caller says what it expected). ``ParseError`` when it is one
    no real figure has: over :data:`MAX_NUMBER_DIGITS` significant digits, or 10^20 or more
    (the length is checked before Decimal reads it)."""
    raw = text.strip()
    if len(raw) > _MAX_NUMBER_CHARS:
        raise ParseError(f"{what}: a number of {len(raw):,} characters ({raw[:24]!r}...)")
    try:
        value = Decimal(raw)
    except InvalidOperation:
        return None
    if (
        value.is_finite()
        and value
        and (
            len(value.as_tuple().digits) > MAX_NUMBER_DIGITS
            or value.adjusted() >= MAX_NUMBER_DIGITS
        )
    ):
        raise ParseError(
            f"{what}: {raw!r} has more digits than any real figure "
            f"(at most {MAX_NUMBER_DIGITS}, below 10^{MAX_NUMBER_DIGITS})"
        )
    return value


# -- money ---------------------------------------------------------------------------------

# Placeholders sites show instead of a number (compared in lower case), besides dashes alone.
_NO_PRICE = frozenset({
    "", "面议", "咨询客服", "联系客服", "询价", "暂无报价", "敬请期待", "售罄", "n/a", "na", "tbd",
    "contact us", "contact sales", "sold out", "coming soon", "request access", "call us",
})  # fmt: skip
# "-", "--", "–", "——", "––", "−": any run of dashes (Unicode's dash punctuation and the minus).
_DASHES = re.compile(r"^[\s\-\u2010-\u2015\u2212_/]*$")


def is_placeholder(text: str) -> bool:
    """Whether a price cell holds a placeholder instead of a number (:data:`_NO_PRICE`, or
    dashes alone): the listing publishes no price."""
    raw = nfkc(text).strip()
    return raw.lower() in _NO_PRICE or bool(_DASHES.match(raw))


# Currency marks before or after the number. "$" alone is taken as US dollars (the sites that
# use it here are US-priced); "¥" / "￥" (NFKC: ¥) and 元 are yuan.
_CURRENCIES = {
    "US$": "USD", "$": "USD", "USD": "USD",
    "¥": "CNY", "RMB": "CNY", "CNY": "CNY", "元": "CNY",
}  # fmt: skip

# "$2.69/hr", "¥7,920/月", "7.75 元/卡时", "US$ 0.44 per hour". Thousands separators must be
# well-formed: "1,96" reads as 1 followed by the text ",96", which no unit starts with.
_MONEY = re.compile(
    r"^(?P<pre>US\$|\$|USD|¥|RMB|CNY)?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*"
    r"(?P<post>USD|CNY|RMB|元)?\s*"
    r"(?P<unit>.*)$",
    re.IGNORECASE,
)


def parse_money(text: str) -> tuple[Decimal, str | None, str]:
    """Value, currency and unit text of a price as a page shows it.

    ``"$2.69/hr"`` → ``(2.69, "USD", "/hr")``; ``"¥1.96/时"`` → ``(1.96, "CNY", "/时")``;
    ``"7.75 元/卡时"`` → ``(7.75, "CNY", "/卡时")``; ``"1.89"`` → ``(1.89, None, "")``. The
    currency is ``None`` when the text names none; the unit is what follows the number and
    currency, whitespace collapsed. Raises ``ParseError`` for placeholders ("面议",
    "Contact us"), zero or negative values, text that does not start with a number, and two
    different currencies.
    """
    raw = nfkc(text)
    if is_placeholder(raw):
        raise NoPrice(f"no price given: {text!r} (placeholder instead of a number)")
    m = _MONEY.match(raw)
    if m is None:
        raise ParseError(f"not a price: {text!r}")
    value = decimal_of(m["num"].replace(",", ""), f"price {text!r}")
    if value is None or value <= 0:
        raise ParseError(f"price must be positive, got {text!r}")
    pre = _CURRENCIES[m["pre"].upper()] if m["pre"] else None
    post = _CURRENCIES[m["post"].upper()] if m["post"] else None
    if pre and post and pre != post:
        raise ParseError(f"price {text!r} names two currencies")
    return value, pre or post, m["unit"]


def currency_in(text: str | None) -> str | None:
    """The currency a unit or header text names anywhere in it ("$/hr", "价格(元/时)",
    "USD"), or ``None``."""
    if not text:
        return None
    low = nfkc(text).lower()
    if "$" in low or "usd" in low:
        return "USD"
    if "¥" in low or "元" in low or "cny" in low or "rmb" in low:
        return "CNY"
    return None


# -- billing periods -----------------------------------------------------------------------

# The billing period a unit names (its last "/" segment, lower case, no spaces) → hours.
_PERIOD_WORDS: dict[str, int] = {
    **dict.fromkeys(("小时", "时", "hour", "hours", "hr", "hrs", "h"), 1),
    **dict.fromkeys(("天", "日", "day", "days", "d"), 24),
    **dict.fromkeys(("周", "星期", "week", "weeks", "wk", "w"), HOURS_PER_WEEK),
    **dict.fromkeys(("月", "month", "months", "mo", "mon"), HOURS_PER_MONTH),
    **dict.fromkeys(("年", "year", "years", "yr", "y"), HOURS_PER_YEAR),
}
_PERIOD_NAMES = {
    1: "hour", 24: "day", HOURS_PER_WEEK: "week", HOURS_PER_MONTH: "month", HOURS_PER_YEAR: "year",
}  # fmt: skip
_PERIOD_ALIASES = {
    "hourly": "/h", "daily": "/d", "weekly": "/w", "monthly": "/mo", "yearly": "/y",
}  # fmt: skip
# Whom a unit's last segment may name before its period ("卡时", "gpu-hr", "server_month").
_WHO = re.compile(r"^(卡|台|gpu|card|server|machine|node|instance)[-_]?")
_CARD = re.compile(r"卡|gpu|card")
_MACHINE = re.compile(r"台|server|machine|node|instance")


def parse_period(unit: str) -> tuple[int, Per | None]:
    """Hours in the billing period a unit names, and whom it says the price covers:
    ``"/hr"`` → ``(1, None)``; ``"/GPU/hr"`` or ``"元/卡时"`` → ``(1, "card")``;
    ``"元/台/月"`` → ``(720, "machine")``; ``"per GPU per hour"`` → ``(1, "card")``. A
    currency mark before the first "/" (元, $, USD ...) is ignored. ``ParseError`` when no
    known period (hour, day, week, month, year) is named."""
    key = re.sub(r"\bper\s+", "/", nfkc(unit).lower())
    key = re.sub(r"[\s.·]", "", key)
    key = re.sub(r"^(usd|cny|rmb|元|\$|¥)", "", key)
    key = _PERIOD_ALIASES.get(key, key)
    if not key.startswith("/"):
        raise ParseError(
            f"unknown unit {unit!r}: it names no billing period (expected e.g. /hr, /时, /月)"
        )
    segments = [part for part in key.split("/") if part]
    last = _WHO.sub("", segments[-1]) if segments else ""
    if last not in _PERIOD_WORDS:
        raise ParseError(
            f"unknown unit {unit!r}: unknown billing period (known: hour, day, week, month, year)"
        )
    joined = "/".join(segments)
    per: Per | None = None
    if _CARD.search(joined):
        per = "card"
    elif _MACHINE.search(joined):
        per = "machine"
    return _PERIOD_WORDS[last], per


def hours_for(unit: str, per: Per) -> int:
    """Hours in the billing period of ``unit``, for a price the page says covers ``per``
    (one card, or the whole machine); a unit that says it covers the other (元/卡时 for a
    machine's price) is an error."""
    hours, stated = parse_period(unit)
    if stated is not None and stated != per:
        raise ParseError(f"unit {unit!r} is per {stated}, but the price was said to be per {per}")
    return hours


def per_card_hour(
    price: Decimal, currency: str, hours: int, gpu_count: int, per: Per
) -> tuple[str, Decimal]:
    """Normalised unit (``USD/card-hour``, ``CNY/server-month`` ...) and the price per
    card-hour in the listed currency, not rounded (the caller converts and rounds).

    ``per`` says whom the price covers: one card, or the whole machine of ``gpu_count``
    cards (then it is divided by ``gpu_count``). A month is ``HOURS_PER_MONTH`` (720) hours.

    >>> per_card_hour(Decimal("7920"), "CNY", 720, 8, "machine")
    ('CNY/server-month', Decimal('1.375'))
    """
    if gpu_count < 1:
        raise ParseError(f"gpu_count must be at least 1, got {gpu_count}")
    if price <= 0:
        raise ParseError(f"price must be positive, got {price}")
    # A one-card machine's hour is a card-hour, so it is reported in card units either way.
    per_card = per == "card" or gpu_count == 1
    cards = 1 if per == "card" else gpu_count
    unit = f"{currency}/{'card' if per_card else 'server'}-{_PERIOD_NAMES[hours]}"
    return unit, price / cards / hours


# -- sizes ---------------------------------------------------------------------------------

# "60GB", "80 GB VRAM", "24G", "80 GiB", "2×3.84TB NVMe"; not "24GDDR6X" (that G starts a
# memory type).
_SIZE = re.compile(
    r"(?:(?P<count>\d+)\s*[×xX*]\s*)?(?P<size>\d+(?:\.\d+)?)\s*(?P<unit>TB|GB|GIB|T|G)(?![A-Z])",
    re.IGNORECASE,
)


def size_gb(text: str) -> Decimal | None:
    """The first size in ``text``, in GB (10^9 bytes, as the seeds count; a GiB figure is
    taken as the GB figure sites mean by it): "60GB" → 60, "80 GB VRAM" → 80,
    "2×3.84TB NVMe" → 7680. ``None`` when the text states no size with its unit."""
    m = _SIZE.search(nfkc(text))
    if m is None:
        return None
    count = decimal_of(m["count"], f"size {text!r}") if m["count"] else 1
    size = decimal_of(m["size"], f"size {text!r}")
    if count is None or size is None:  # not reached: the pattern matched digits
        return None
    scale = 1000 if m["unit"].upper().startswith("T") else 1
    return size * scale * count


def parse_gb(text: str, what: str) -> int:
    """A size that must be there and be whole GB: "60GB" → 60, "2×3.84TB NVMe" → 7680."""
    size = size_gb(text)
    if size is None:
        raise ParseError(f"{what}: expected a size like '60GB' or '2×3.84TB', got {text!r}")
    if size != size.to_integral_value() or size <= 0:
        raise ParseError(f"{what}: size {text!r} is not a whole number of GB")
    return int(size)


# -- discounts -----------------------------------------------------------------------------

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
    raw = re.sub(r"[\s()()]", "", nfkc(label))
    if raw in _NO_DISCOUNT:
        return None
    m = _DISCOUNT.match(raw.translate(_CN_DIGITS))
    if m is None:
        raise ParseError(f"not a discount label: {label!r}")
    if m["two"]:
        return (Decimal(m["two"]) / 100).quantize(Decimal("0.01"))
    tenths = Decimal(m["one"] + ("." + m["dec"] if m["dec"] else ""))
    return (tenths / 10).quantize(Decimal("0.01"))
