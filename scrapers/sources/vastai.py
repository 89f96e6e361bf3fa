"""vast.ai marketplace through its public offer search (``/api/v0/bundles/``), USD → CNY.

Request: ``POST https://console.vast.ai/api/v0/bundles/`` with the JSON query below as the
body and no API key. That is what vast.ai's own CLI sends for ``vastai search offers``
(vast-ai/vast-cli ``vastai/api/offers.py`` and ``vastai/cli/commands/offers.py`` at
55679830a2c2adcf5c7fad08bf08717a9591062a: ``client.post("/bundles/", json_data=q)``; its
``--new`` flag PUTs ``{"select_cols": ["*"], "q": ...}`` to ``/api/v0/search/asks/``
instead) and what dstack's gpuhunt sends, without a key (``requests.post(bundles_url,
json=filters)`` in ``src/gpuhunt/providers/vastai.py`` at 35841515de37). The older
``GET /api/v0/bundles/?q=<json>`` form (left commented out in the CLI) still answered
without a key in October 2026 (ewyluda/gpu-price-index's daily collector).

The answer is ``{"offers": [...]}``; ``vastai search offers --raw`` prints the bare list
(``json.dumps(rows, indent=1, sort_keys=True)``), and both are read. An answer with
``"success": false`` or without ``offers`` is an error carrying vast.ai's ``msg`` /
``error``. A well-formed empty list is a valid answer (nothing matched) and gives no rows;
the collector records a page of zero rows as failed, so it still alerts.

Per offer, with the evidence for each (the saved CLI answers are in
``tests/fixtures/real/vastai/``):

* ``id`` → ``offer_id`` (required: without it offers cannot be told apart);
* ``gpu_name`` ("RTX 4090", "RTX 3090", "H100 SXM"), ``num_gpus``;
* ``gpu_ram``: memory per card in MiB as nvidia-smi measures it, though vast.ai calls it MB
  (24576 for an RTX 3090 = 24 × 1024, 24564 for an RTX 4090; gpuhunt divides by 1024 in
  ``correct_gpu_memory_gib``); the card's marketed size comes from
  :func:`~scrapers.gpu_names.nominal_vram_gb`;
* ``dph_total``: what the renter pays per hour for the whole offer, USD → ``price``. It is
  the CLI's ``$/hr`` column (``displayable_fields`` in ``vastai/cli/display.py``), the price
  ewyluda/gpu-price-index reads, and equal to ``search.totalHour`` (SkyPilot's ``Price`` in
  ``sky/catalog/data_fetchers/fetch_vast.py``) and to ``discounted_dph_total`` in every saved
  answer. It is ``dph_base`` (the host's price of the GPUs) plus ``storage_total_cost`` (the
  storage the query allocates, ``storage_cost`` $/GB/month × ``allocated_storage`` / 720:
  0.2 × 5 / 720 = 0.0013889); gpuhunt computes the same sum with its own disk size.
  ``dph_base`` is required too and may not exceed ``dph_total``;
* ``min_bid``: the floor of an interruptible (bid) rental of the whole offer, USD per hour,
  storage not included (the CLI: "current minimum bid price in $/hr for interruptible";
  gpuhunt's spot offers and SkyPilot's ``SpotPrice`` and bid price are this field; a 2-card
  offer's is twice the 1-card one's in the saved answers);
* ``rentable``: false for a slice that cannot be rented now → ``stock = 0``, and no floor;
* ``geolocation`` ("South Africa, ZA", "Alberta, CA", or null) → ``region``;
* ``cpu_cores_effective`` (the offer's share), ``cpu_ram`` (the share's memory in MiB:
  257571 for a 256 GiB machine, 515605 for 512 GiB; the CLI and gpuhunt divide by 1000,
  SkyPilot by 1024, which the values fit) and ``disk_space`` (GB).

Rows: one ``hourly`` offer per vast.ai offer at ``dph_total`` rounded to 4 decimals (the
warehouse's scale; the CLI prints 4), ``currency = 'USD'``, per server-hour for more than one
card. And per card, memory size and location one ``interruptible_floor`` spot quote: the
lowest ``min_bid`` per card-hour among rentable offers (on a tie, the offer with fewer cards),
``price`` = that offer's ``min_bid``. USD is converted at the rate of the fetch day
(``scrapers.fx``). ``observed_at`` = fetch time (the API states none).
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

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
from scrapers.sources._limits import bounded
from scrapers.sources._page import naive_utc
from scrapers.units import per_card_hour

SEARCH_PATH = "/api/v0/bundles/"
# The CLI's default filters (verified, rentable, not rented, not external), on-demand,
# cheapest first, for the cards the warehouse knows, with the CLI's default 5 GB of storage
# priced into dph_total.
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
    "allocated_storage": 5.0,
}  # fmt: skip

USD_QUANTUM = Decimal("0.0001")
# dph_total is computed from dph_base in floating point: allow its rounding.
FLOAT_SLACK = Decimal("0.000001")
FLOOR_BASIS = "vast.ai interruptible min_bid floor"
NO_LOCATION = "unknown"


def _offers(doc: Any, url: str) -> list[Any]:
    """The list of offers of an answer: ``{"offers": [...]}`` or the CLI's bare list."""
    if isinstance(doc, list):
        return doc
    doc = obj(doc, f"{url}: answer")
    if doc.get("success") is False or "offers" not in doc:
        detail = doc.get("msg") or doc.get("error") or f"keys {sorted(doc)}"
        raise ParseError(f"{url}: vast.ai answered without offers: {detail}")
    offers = doc["offers"]
    if not isinstance(offers, list):
        raise ParseError(f"{url}: 'offers' is not a list: {type(offers).__name__}")
    return offers


class VastaiAdapter:
    name = "vastai"
    kind: Literal["offers", "quotes", "offers+quotes"] = "offers+quotes"
    currency = "USD"
    secret = None

    def __init__(self, fx: FxRates | None = None) -> None:
        self.fx = fx or FxRates()

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        return [Request(f"{base_url.rstrip('/')}{SEARCH_PATH}", method="POST", json_body=QUERY)]

    @bounded
    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[Row]:
        offers = _offers(load_json(body, url), url)
        observed = naive_utc(fetched_at)
        rate_day = observed.date()
        rows: list[Row] = []
        # (gpu, name, vram, region) -> (usd per card, cards, listed min_bid, offer id)
        floors: dict[tuple[str, str, int, str], tuple[Decimal, int, Decimal, str]] = {}
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
            vram_mib = number(field(offer, "gpu_ram", what), f"{what}: gpu_ram")
            vram = nominal_vram_gb(gpu_name, float(vram_mib))
            gpu = canonical_gpu(gpu_name, vram)
            total = number(field(offer, "dph_total", what), f"{what}: dph_total")
            base = number(field(offer, "dph_base", what), f"{what}: dph_base")
            if total + FLOAT_SLACK < base:
                raise ParseError(
                    f"{what}: dph_total {total} is below dph_base {base}: "
                    "the fields changed meaning"
                )
            rentable = offer.get("rentable")
            if rentable is not None and not isinstance(rentable, bool):
                raise ParseError(f"{what}: rentable is not true or false: {rentable!r}")
            price = total.quantize(USD_QUANTUM, ROUND_HALF_UP)
            # dph_total is the whole offer's price: all its GPUs, by the hour.
            try:
                unit, usd_per_card = per_card_hour(price, "USD", 1, gpus, "machine")
            except ParseError as exc:
                raise ParseError(f"{what}: {exc}") from None
            region = optional_text(offer, "geolocation", what)
            cores = optional_number(offer, "cpu_cores_effective", what)
            ram_mib = optional_number(offer, "cpu_ram", what)
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
                    unit_raw="$/hr (dph_total)",
                    cny_per_card_hour=self.fx.to_cny(usd_per_card, "USD", rate_day),
                    list_price=price,
                    region=region,
                    cpu_cores=None if cores is None else int(cores.to_integral_value()),
                    ram_gb=None if ram_mib is None else round(ram_mib / 1024),
                    disk_gb=None if disk is None else int(disk.to_integral_value()),
                    stock=0 if rentable is False else None,
                )
            )
            bid = optional_number(offer, "min_bid", what)
            if bid is None or rentable is False:
                continue  # no floor, or one nobody can bid on now
            listed = bid.quantize(USD_QUANTUM, ROUND_HALF_UP)
            if listed <= 0:
                continue
            _, per_card = per_card_hour(listed, "USD", 1, gpus, "machine")
            key = (gpu, gpu_name, vram, region or NO_LOCATION)
            if key not in floors or (per_card, gpus) < floors[key][:2]:
                floors[key] = (per_card, gpus, listed, offer_id)
        for (gpu, gpu_name, vram, region), (per_card, gpus, listed, offer_id) in sorted(
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
