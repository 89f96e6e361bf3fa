"""vast.ai marketplace through its public offer search (``/api/v0/bundles``), USD → CNY.

Request: ``GET https://console.vast.ai/api/v0/bundles/?q=<JSON query>`` (the form the vast.ai
CLI has long used; it needs no API key). The answer is ``{"offers": [...]}``, one object per
rentable machine slice, with vast.ai's own field names:

* ``id`` (the offer), ``gpu_name`` ("RTX 4090", "H100 SXM", "A100 SXM4"), ``num_gpus``,
  ``gpu_ram`` (per card, MB as vast.ai documents it: measured, e.g. 24564 for a 24 GB card);
* ``dph_base``: the on-demand price of the whole offer in USD per hour;
  ``storage_total_cost``: USD per hour for the storage the query asked for (absent when it
  asked for none); ``dph_total`` = their sum plus bandwidth, used as a sanity check only;
* ``min_bid``: the interruptible (spot) floor for the whole offer, USD per hour;
* ``geolocation`` ("Texas, US", "Poland, PL", sometimes null), ``cpu_cores_effective``,
  ``cpu_ram`` (MB), ``disk_space`` (GB), ``reliability2`` and many more that are not used.

Rows: one ``hourly`` offer per vast.ai offer at ``dph_base`` (+ ``storage_total_cost`` where
given), price in USD as listed (rounded to 4 decimals, the warehouse's scale; the console
shows 3) with ``currency = 'USD'``; and per card, memory size and location one
``interruptible_floor`` spot quote: the lowest ``min_bid`` per card-hour. USD is converted at
the rate of the day the page was fetched (``scrapers.fx``). ``observed_at`` = fetch time
(the API states none).
"""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal
from urllib.parse import quote

from scrapers.fx import FxRates
from scrapers.gpu_names import canonical_gpu, nominal_vram_gb
from scrapers.http import Request
from scrapers.rows import OfferRow, ParseError, Row, SpotQuoteRow
from scrapers.sources._json import (
    field,
    integer,
    load_json,
    number,
    obj,
    optional_number,
    optional_text,
    text,
)
from scrapers.sources._page import naive_utc
from scrapers.units import per_card_hour

SEARCH_PATH = "/api/v0/bundles/"
# What vast.ai's CLI asks by default (verified, rentable, not rented), on-demand, cheapest
# first, for the cards the warehouse knows.
QUERY: dict[str, object] = {
    "verified": {"eq": True},
    "external": {"eq": False},
    "rentable": {"eq": True},
    "rented": {"eq": False},
    "gpu_name": {
        "in": ["RTX 4090", "RTX 5090", "A100 PCIE", "A100 SXM4", "H100 PCIE", "H100 SXM",
               "H200", "L40S"]
    },
    "type": "on-demand",
    "order": [["dph_total", "asc"]],
    "limit": 1000,
}  # fmt: skip

USD_QUANTUM = Decimal("0.0001")
FLOOR_BASIS = "vast.ai interruptible min_bid floor"
NO_LOCATION = "unknown"


class VastaiAdapter:
    name = "vastai"
    kind: Literal["offers", "quotes", "offers+quotes"] = "offers+quotes"
    currency = "USD"
    secret = None

    def __init__(self, fx: FxRates | None = None) -> None:
        self.fx = fx or FxRates()

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        query = quote(json.dumps(QUERY, separators=(",", ":")))
        return [f"{base_url.rstrip('/')}{SEARCH_PATH}?q={query}"]

    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[Row]:
        doc = obj(load_json(body, url), f"{url}: answer")
        if "offers" not in doc:
            detail = doc.get("msg") or doc.get("error") or sorted(doc)
            raise ParseError(f"{url}: no 'offers' in the answer ({detail})")
        offers = doc["offers"]
        if not isinstance(offers, list):
            raise ParseError(f"{url}: 'offers' is not a list")
        observed = naive_utc(fetched_at)
        rate_day = observed.date()
        rows: list[Row] = []
        floors: dict[tuple[str, str, int, str], tuple[Decimal, Decimal, int, str]] = {}
        seen: set[str] = set()
        for n, raw in enumerate(offers, 1):
            what = f"{url}: offer {n}"
            offer = obj(raw, what)
            offer_id = str(integer(field(offer, "id", what), f"{what}: id"))
            what = f"{url}: offer {offer_id}"
            if offer_id in seen:
                raise ParseError(f"{what}: listed twice")
            seen.add(offer_id)
            gpu_name = text(offer, "gpu_name", what)
            gpus = integer(field(offer, "num_gpus", what), f"{what}: num_gpus", minimum=1)
            vram = nominal_vram_gb(gpu_name, float(number(field(offer, "gpu_ram", what), what)))
            gpu = canonical_gpu(gpu_name, vram)
            base = number(field(offer, "dph_base", what), f"{what}: dph_base")
            storage = optional_number(offer, "storage_total_cost", what)
            total = optional_number(offer, "dph_total", what)
            hourly = base + (storage or 0)
            if total is not None and total + Decimal("0.000001") < hourly:
                raise ParseError(
                    f"{what}: dph_total {total} is below dph_base + storage {hourly}: "
                    "the fields changed meaning"
                )
            price = hourly.quantize(USD_QUANTUM, ROUND_HALF_UP)
            # dph_base is the whole offer's price: all its GPUs, by the hour.
            try:
                unit, usd_per_card = per_card_hour(price, "USD", 1, gpus, "machine")
            except ParseError as exc:
                raise ParseError(f"{what}: {exc}") from None
            region = optional_text(offer, "geolocation", what)
            cores = optional_number(offer, "cpu_cores_effective", what)
            ram_mb = optional_number(offer, "cpu_ram", what)
            disk = optional_number(offer, "disk_space", what)
            rows.append(
                OfferRow(
                    observed_at=observed,
                    source=self.name,
                    offer_id=offer_id,
                    gpu=gpu,
                    gpu_name_raw=gpu_name,
                    gpu_count=gpus,
                    vram_gb=vram,
                    billing="hourly",
                    price=price,
                    currency="USD",
                    unit=unit,
                    unit_raw="$/hr (dph_base + storage_total_cost)"
                    if storage is not None
                    else "$/hr (dph_base)",
                    cny_per_card_hour=self.fx.to_cny(usd_per_card, "USD", rate_day),
                    list_price=price,
                    region=region,
                    cpu_cores=None if cores is None else int(cores.to_integral_value()),
                    ram_gb=None if ram_mb is None else round(ram_mb / 1000),
                    disk_gb=None if disk is None else int(disk.to_integral_value()),
                )
            )
            bid = optional_number(offer, "min_bid", what)
            if bid is not None and bid > 0:
                listed = bid.quantize(USD_QUANTUM, ROUND_HALF_UP)
                if listed <= 0:
                    continue
                key = (gpu, gpu_name, vram, region or NO_LOCATION)
                _, per_card = per_card_hour(listed, "USD", 1, gpus, "machine")
                if key not in floors or per_card < floors[key][0]:
                    floors[key] = (per_card, listed, gpus, offer_id)
        for (gpu, gpu_name, vram, region), (per_card, listed, gpus, offer_id) in sorted(
            floors.items()
        ):
            rows.append(
                SpotQuoteRow(
                    observed_at=observed,
                    source=self.name,
                    gpu=gpu,
                    # One vast.ai name can cover two sizes (A100 SXM4 40 / 80 GB).
                    gpu_name_raw=f"{gpu_name} {vram}GB",
                    region=region,
                    basis=FLOOR_BASIS,
                    price=listed,
                    unit_raw=f"$/hr for {gpus} GPU(s) (min_bid of offer {offer_id})",
                    cny_per_card_hour=self.fx.to_cny(per_card, "USD", rate_day),
                    currency="USD",
                    quote_kind="interruptible_floor",
                )
            )
        return rows
