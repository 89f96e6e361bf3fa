"""OfferRow and SpotQuoteRow: frozen, slotted dataclasses with a fixed field order (positional
construction relies on it) and defaults, equality, hashing, repr, ``to_dict``, copies with a
change (``dataclasses.replace``), pickling and immutability."""

from __future__ import annotations

import dataclasses
import pickle
from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest

from scrapers.rows import OfferRow, SpotQuoteRow

REQUIRED = object()  # a field without a default

FIELDS: dict[type, list[tuple[str, Any]]] = {
    OfferRow: [
        ("observed_at", REQUIRED),
        ("source", REQUIRED),
        ("offer_id", REQUIRED),
        ("gpu", REQUIRED),
        ("gpu_name_raw", REQUIRED),
        ("gpu_count", REQUIRED),
        ("vram_gb", REQUIRED),
        ("billing", REQUIRED),
        ("price", REQUIRED),
        ("currency", REQUIRED),
        ("unit", REQUIRED),
        ("unit_raw", REQUIRED),
        ("per_card_hour", REQUIRED),
        ("list_price", None),
        ("stated_discount", None),
        ("discount_label", None),
        ("region", None),
        ("cpu_cores", None),
        ("ram_gb", None),
        ("disk_gb", None),
        ("interconnect", None),
        ("stock", None),
        ("simulated", False),
        ("tier", "list"),
        ("tier_name", None),
        ("tier_from", None),
        ("tier_to", None),
    ],
    SpotQuoteRow: [
        ("observed_at", REQUIRED),
        ("source", REQUIRED),
        ("gpu", REQUIRED),
        ("gpu_name_raw", REQUIRED),
        ("region", REQUIRED),
        ("basis", REQUIRED),
        ("price", REQUIRED),
        ("unit_raw", REQUIRED),
        ("per_card_hour", REQUIRED),
        ("simulated", False),
        ("currency", "CNY"),
        ("quote_kind", "market_average"),
    ],
}

OFFER = OfferRow(
    datetime(2026, 9, 10), "runpod", "H100 SXM/Secure Cloud", "h100-80g", "H100 SXM", 1, 80,
    "hourly", Decimal("2.99"), "USD", "USD/card-hour", "$/hr per GPU (Secure Cloud)",
    Decimal("21.229000"), list_price=Decimal("2.99"), cpu_cores=16,
)  # fmt: skip
QUOTE = SpotQuoteRow(
    datetime(2026, 9, 10), "smm", "h20-96g", "H20 8卡", "华东", "整机包月均价",
    Decimal("75000"), "元/台/月", Decimal("13.020833"),
)  # fmt: skip
ROWS = {OfferRow: OFFER, SpotQuoteRow: QUOTE}
ROW_TYPES = (OfferRow, SpotQuoteRow)


def _name(row_type: type) -> str:
    return row_type.__name__


@pytest.mark.parametrize("row_type", ROW_TYPES, ids=_name)
def test_fields_order_and_defaults(row_type: type) -> None:
    fields = dataclasses.fields(row_type)
    expected = FIELDS[row_type]
    assert [f.name for f in fields] == [name for name, _ in expected]
    for field, (name, default) in zip(fields, expected, strict=True):
        if default is REQUIRED:
            assert field.default is dataclasses.MISSING, name
        else:
            assert field.default == default and type(field.default) is type(default), name
    with pytest.raises(TypeError):
        row_type(datetime(2026, 9, 10))  # the required fields are required


@pytest.mark.parametrize("row_type", ROW_TYPES, ids=_name)
def test_positional_and_keyword_construction_agree(row_type: type) -> None:
    row = ROWS[row_type]
    keywords = {f.name: getattr(row, f.name) for f in dataclasses.fields(row_type)}
    required = [name for name, default in FIELDS[row_type] if default is REQUIRED]
    positional = row_type(*[keywords[n] for n in required])
    assert row_type(**keywords) == row
    assert positional == dataclasses.replace(row, **_defaults(row_type))


def _defaults(row_type: type) -> dict[str, Any]:
    return {name: default for name, default in FIELDS[row_type] if default is not REQUIRED}


@pytest.mark.parametrize("row_type", ROW_TYPES, ids=_name)
def test_equality_hash_repr_and_to_dict(row_type: type) -> None:
    row = ROWS[row_type]
    same = dataclasses.replace(row)
    assert same == row and same is not row and hash(same) == hash(row)
    changed = dataclasses.replace(row, source="x")
    assert changed != row and changed.source == "x"
    assert {row, same, changed} == {row, changed}
    names = [name for name, _ in FIELDS[row_type]]
    assert repr(row) == (
        f"{row_type.__name__}(" + ", ".join(f"{n}={getattr(row, n)!r}" for n in names) + ")"
    )
    assert row.to_dict() == {n: getattr(row, n) for n in names}
    assert list(row.to_dict()) == names


@pytest.mark.parametrize("row_type", ROW_TYPES, ids=_name)
def test_rows_pickle_and_are_immutable(row_type: type) -> None:
    row = ROWS[row_type]
    assert pickle.loads(pickle.dumps(row)) == row
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.source = "x"  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        row.extra = 1  # type: ignore[attr-defined]  # slotted: no other attributes
    assert row.source == ROWS[row_type].source
