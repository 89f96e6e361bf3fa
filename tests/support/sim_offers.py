"""Simulated demo-market offers for recommender tests, written straight into a warehouse."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from scrapers.rows import OfferRow

LATER = datetime(2026, 10, 1, 2, 0)  # after the seeds' 2026-09-04 published prices


def offer(gpu: str, billing: str, per_card_hour: str, **extra: Any) -> OfferRow:
    """A simulated demo-market listing: containers are 1 card, bare metal 8 per server."""
    bare = billing == "bare_metal_monthly"
    count = 8 if bare else 1
    price = Decimal(per_card_hour) * (8 * 720 if bare else 1)
    fields: dict[str, Any] = {
        "observed_at": LATER,
        "source": "jygpu",
        "offer_id": f"sim-{gpu}-{'bm' if bare else 'ctr'}",
        "gpu": gpu,
        "gpu_name_raw": gpu,
        "gpu_count": count,
        "vram_gb": None,
        "billing": billing,
        "price": price,
        "currency": "CNY",
        "unit": "CNY/server-month" if bare else "CNY/card-hour",
        "unit_raw": "元/月" if bare else "元/时",
        "per_card_hour": Decimal(per_card_hour),
        "cpu_cores": 64 if bare else 16,
        "ram_gb": 512 if bare else 64,
        "disk_gb": 7680 if bare else 200,
        "simulated": True,
    }
    return OfferRow(**(fields | extra))
