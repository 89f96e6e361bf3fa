"""Loading a JSON document for the adapters, within the limits of :mod:`scrapers.limits`
(nesting, digit runs) checked before ``json`` reads it, and one JSON number read exactly.
The answers' fields are described by pydantic models (:mod:`scrapers.sources._models`)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from scrapers.limits import check_digits, check_json_depth
from scrapers.rows import ParseError
from scrapers.units import decimal_of


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
