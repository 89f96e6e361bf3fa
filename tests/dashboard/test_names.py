"""Names people read beside the ids the warehouse keeps: every card and billing mode has one."""

from __future__ import annotations

from typing import get_args

from scrapers.gpu_names import CANONICAL_GPUS
from scrapers.rows import Billing
from warehouse.read.names import BILLING_NAMES, CARD_NAMES, billing_name, card_name


def test_every_canonical_card_and_billing_mode_has_a_name() -> None:
    assert set(CARD_NAMES) == set(CANONICAL_GPUS)
    assert len(set(CARD_NAMES.values())) == len(CARD_NAMES)  # two cards never read alike
    assert set(BILLING_NAMES) == set(get_args(Billing))
    assert card_name("rtx4090-24g") == "RTX 4090 24GB" and card_name("910b-64g").endswith("64GB")
    assert billing_name("bare_metal_monthly") == "bare metal, monthly"
    assert billing_name("bare_metal_monthly", english=False) == "裸金属包月"


def test_an_id_without_a_name_reads_as_itself() -> None:
    assert card_name("x9000-1g") == "x9000-1g" and billing_name("hire_purchase") == "hire_purchase"
    assert card_name(None) == "—"
