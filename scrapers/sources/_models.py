"""The small pydantic vocabulary the JSON adapters describe their answers with (gpuhunt's
``providers/oci.py`` shape: a model per answer, the adapter a plain mapping from it).

A listing's model is validated inside the adapter's ``rows``, so a listing that does not fit
is rejected alone; the envelope's model inside ``read``, so an answer that is no price list
refuses the page. :func:`scrapers.parse.reason_of` turns either ``ValidationError`` into one
line. The JSON text itself is checked against the parse limits before it is decoded
(:func:`scrapers.sources._json.load_json`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict, StringConstraints

from scrapers.units import MAX_NUMBER_DIGITS


def _no_bool(value: Any) -> Any:
    # pydantic's lax mode reads true as 1; in a price or a count it is a changed field.
    if isinstance(value, bool):
        raise ValueError("a true/false where a number belongs")
    return value


def _text_or_none(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip() or None
    return value  # None, or something pydantic refuses as no text


# A whole, non-negative number (an integral float such as 5.0 too), below 10^20: no real
# count or price in 1/1000 yuan has more digits.
Whole = Annotated[int, BeforeValidator(_no_bool), Field(ge=0, lt=10**MAX_NUMBER_DIGITS)]
# A non-negative amount, exact: a JSON float is read through its text (0.1 stays 0.1).
Amount = Annotated[
    Decimal, BeforeValidator(_no_bool), Field(ge=0, lt=10**MAX_NUMBER_DIGITS, allow_inf_nan=False)
]
# true or false as JSON writes them ("yes" or 1 is a changed field, not a flag).
Flag = Annotated[bool, Strict()]
# A non-empty text, trimmed.
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
# A text that may be absent or blank (then None).
OptionalText = Annotated[str | None, BeforeValidator(_text_or_none)]


class Record(BaseModel):
    """A JSON object of an answer: unknown fields ignored (APIs add fields), read-only."""

    model_config = ConfigDict(extra="ignore", frozen=True)


# An amount above 0, and a count of at least one.
PositiveAmount = Annotated[
    Decimal, BeforeValidator(_no_bool), Field(gt=0, lt=10**MAX_NUMBER_DIGITS, allow_inf_nan=False)
]
Count = Annotated[int, BeforeValidator(_no_bool), Field(ge=1, lt=10**MAX_NUMBER_DIGITS)]
