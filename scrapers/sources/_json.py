"""Helpers shared by the JSON-API adapters (vast.ai, 矩池云, AutoDL): loading a document and
reading typed fields, each failure a :class:`~scrapers.rows.ParseError` naming the field.
A document is checked against the limits of :mod:`scrapers.sources._limits` (nesting, digit
runs) before ``json`` reads it."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from scrapers.rows import ParseError
from scrapers.sources._limits import check_digits, check_json_depth
from scrapers.units import MAX_NUMBER_DIGITS, decimal_of


def load_json(body: bytes, url: str) -> Any:
    """The JSON document of a body; an empty, non-UTF-8 or non-JSON body (say, an HTML login
    or error page) is an error that says what came instead."""
    if not body or not body.strip():
        raise ParseError(f"{url}: empty body")
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(f"{url}: body is not UTF-8 ({exc})") from None
    return loads(text, url)


def loads(text: str, what: str) -> Any:
    """``json.loads`` of a text within the limits (nesting, digit runs); ParseError else."""
    check_json_depth(text, what)  # before json recurses into it
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        start = text.lstrip()[:40]
        raise ParseError(f"{what}: body is not JSON ({exc.msg}; starts {start!r})") from None
    except ValueError as exc:  # valid JSON json will not convert: an integer of 4,301+ digits
        raise ParseError(f"{what}: body cannot be read as JSON ({exc})") from None
    check_digits(text, what)  # after: json names its own refusal of a 4,301-digit number
    return doc


def looks_like_json(body: bytes) -> bool:
    """Whether a body starts as a JSON object or array (after a BOM and blanks): how the
    adapters that take both an API answer and a saved page (RunPod, Lambda) tell them apart."""
    start = body.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return start in (b"{", b"[")


def obj(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ParseError(f"{what}: expected an object, got {type(value).__name__}")
    return value


def field(record: dict[str, Any], key: str, what: str) -> Any:
    if key not in record or record[key] is None:
        raise ParseError(f"{what}: field {key!r} missing")
    return record[key]


def data_list(doc: dict[str, Any], url: str) -> list[Any]:
    """``doc["data"]["list"]``, the envelope several Chinese markets answer in (AutoDL,
    恒源云); a missing level or a ``list`` that is not a list is an error."""
    data = obj(field(doc, "data", url), f"{url}: data")
    items = field(data, "list", f"{url}: data")
    if not isinstance(items, list):
        raise ParseError(f"{url}: data.list is not a list")
    return items


def text(record: dict[str, Any], key: str, what: str) -> str:
    value = field(record, key, what)
    if not isinstance(value, str) or not value.strip():
        raise ParseError(f"{what}: {key} is not a non-empty string: {value!r}")
    return value.strip()


def optional_text(record: dict[str, Any], key: str, what: str) -> str | None:
    value = record.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ParseError(f"{what}: {key} is not a string: {value!r}")
    return value.strip() or None


def number(value: Any, what: str, *, positive: bool = True) -> Decimal:
    """A JSON number (or a numeric string) as an exact Decimal of its printed form."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ParseError(f"{what}: not a number: {value!r}")
    result = decimal_of(str(value), what)  # refuses more than MAX_NUMBER_DIGITS digits
    if result is None:
        raise ParseError(f"{what}: not a number: {value!r}")
    if not result.is_finite():
        raise ParseError(f"{what}: not a finite number: {value!r}")
    if positive and result <= 0:
        raise ParseError(f"{what}: must be positive, got {value!r}")
    if not positive and result < 0:
        raise ParseError(f"{what}: must not be negative, got {value!r}")
    return result


def integer(value: Any, what: str, *, minimum: int = 0) -> int:
    if isinstance(value, bool):
        raise ParseError(f"{what}: not an integer: {value!r}")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or value < minimum:
        raise ParseError(f"{what}: expected an integer ≥ {minimum}, got {str(value)[:40]!r}")
    if value >= 10**MAX_NUMBER_DIGITS:
        raise ParseError(f"{what}: integer of {len(str(value))} digits is not a real figure")
    return value


def optional_number(record: dict[str, Any], key: str, what: str) -> Decimal | None:
    value = record.get(key)
    return None if value is None else number(value, f"{what}: {key}", positive=False)
