"""A USD listing and an adapter that lists it, for the tests of converting at load
(tests/warehouse/test_fx_at_load.py, tests/cli/test_fx_import.py)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from scrapers.parse import Item, Page
from scrapers.rows import OfferRow
from scrapers.sources.base import Adapter


def usd_offer(at: datetime, per_card_hour: str = "2.5") -> OfferRow:
    return OfferRow(
        observed_at=at, source="examplecloud", offer_id="h100", gpu="h100-80g",
        gpu_name_raw="H100 80GB", gpu_count=1, vram_gb=80, billing="hourly",
        price=Decimal(per_card_hour), currency="USD", unit="USD/card-hour", unit_raw="$/hr",
        per_card_hour=Decimal(per_card_hour),
    )  # fmt: skip


class ListedAdapter(Adapter):
    """An adapter whose page is the figure it lists: ``b"2.5"`` is $2.5 a card-hour."""

    name = "examplecloud"
    currency = "USD"

    def fetch_plan(self, base_url, as_of=None):
        return [base_url]

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        return Page(url, fetched_at, [Item("the page", body.decode(), body.decode())])

    def rows(self, item: Item, page: Page) -> list[OfferRow]:
        return [usd_offer(page.observed_at, item.data)]
