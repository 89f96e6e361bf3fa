"""OfferRow and SpotQuoteRow are msgspec Structs (scrapers/rows.py says why). They must behave
as the frozen dataclasses they replaced: same fields, order and defaults, equality, hashing,
repr, ``to_dict``, copies with a change, pickling, immutability; and, because the collector
does not track them (``gc=False``), no field may hold anything that could form a cycle."""

from __future__ import annotations

import dataclasses
import gc
import pickle
import random
import types
import typing
from datetime import datetime
from decimal import Decimal
from typing import Any

import msgspec
import msgspec.structs
import pytest

from scrapers.rows import OfferRow, SpotQuoteRow

ROW_TYPES = (OfferRow, SpotQuoteRow)
# What a field may hold with gc=False: immutable values that refer to no other object.
SCALARS = {str, int, bool, Decimal, datetime, type(None)}


def _as_dataclass(row_type: type) -> type:
    """The frozen, slotted dataclass the row type was: its fields, order and defaults."""
    specs = [
        (f.name, f.type) if f.required else (f.name, f.type, dataclasses.field(default=f.default))
        for f in msgspec.structs.fields(row_type)
    ]
    return dataclasses.make_dataclass(row_type.__name__, specs, frozen=True, slots=True)


def _values(name: str, rnd: random.Random) -> Any:
    choices: dict[str, list[Any]] = {
        "observed_at": [datetime(2026, 9, 10), datetime(2026, 9, 10, 8, 30)],
        "gpu_count": [1, 8],
        "vram_gb": [None, 24, 80],
        "price": [Decimal("2.69"), Decimal("7920")],
        "cny_per_card_hour": [Decimal("19.099"), Decimal("1.375000")],
        "simulated": [False, True],
    }
    return rnd.choice(choices.get(name, [None, f"{name}-{rnd.randrange(3)}"]))


@pytest.mark.parametrize("row_type", ROW_TYPES, ids=lambda t: t.__name__)
def test_rows_behave_as_the_frozen_dataclasses_they_were(row_type: type) -> None:
    reference_type = _as_dataclass(row_type)
    fields = msgspec.structs.fields(row_type)
    names = [f.name for f in fields]
    required = [f.name for f in fields if f.required]
    assert names == [f.name for f in dataclasses.fields(reference_type)]
    assert row_type.__match_args__ == reference_type.__match_args__
    rnd = random.Random(20261130)
    for _ in range(200):
        kwargs = {n: _values(n, rnd) for n in names if n in required or rnd.random() < 0.8}
        row = row_type(**kwargs)
        positional = row_type(
            *[kwargs[n] for n in required], **{n: v for n, v in kwargs.items() if n not in required}
        )
        reference = reference_type(**kwargs)
        as_values = [getattr(reference, n) for n in names]
        assert [getattr(row, n) for n in names] == as_values
        assert [getattr(positional, n) for n in names] == as_values
        assert row == positional and hash(row) == hash(positional)
        assert repr(row) == repr(reference)
        assert row.to_dict() == dataclasses.asdict(reference)
        changed = msgspec.structs.replace(row, source="x")
        assert changed == row_type(**(kwargs | {"source": "x"})) and changed != row
        assert pickle.loads(pickle.dumps(row)) == row
        with pytest.raises(AttributeError):
            row.source = "x"  # type: ignore[misc]
        assert row.source == kwargs["source"]
    with pytest.raises(TypeError):
        row_type(datetime(2026, 9, 10))


@pytest.mark.parametrize("row_type", ROW_TYPES, ids=lambda t: t.__name__)
def test_rows_hold_only_scalars_so_the_collector_may_skip_them(row_type: type) -> None:
    """gc=False is safe only while no field can hold a container: a list or dict field would
    let a row be part of a cycle the collector can no longer free. Add one, and drop
    gc=False."""
    assert row_type.__struct_config__.gc is False
    for field in msgspec.structs.fields(row_type):
        allowed = field.type
        kinds = typing.get_args(allowed) if isinstance(allowed, types.UnionType) else (allowed,)
        for kind in kinds:
            if typing.get_origin(kind) is typing.Literal:  # Billing: a Literal of strings
                assert all(type(v) is str for v in typing.get_args(kind)), field.name
            else:
                assert kind in SCALARS, f"{row_type.__name__}.{field.name}: {kind}"


def test_rows_are_not_tracked_by_the_collector() -> None:
    offer = OfferRow(
        datetime(2026, 9, 10), "runpod", "H100 SXM/Secure Cloud", "H100", "H100 SXM", 1, 80,
        "hourly", Decimal("2.99"), "USD", "USD/card-hour", "$/hr per GPU (Secure Cloud)",
        Decimal("21.229000"),
    )  # fmt: skip
    quote = SpotQuoteRow(
        datetime(2026, 9, 10), "smm", "H20", "H20 8卡", "华东", "整机包月均价",
        Decimal("75000"), "元/台/月", Decimal("13.020833"),
    )  # fmt: skip
    assert not gc.is_tracked(offer) and not gc.is_tracked(quote)
