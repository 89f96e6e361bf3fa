"""Lambda Cloud (Lambda Labs) GPU instances, USD → CNY.

Two ways in, one parser that tells them apart by content:

* With an API key: ``GET https://cloud.lambdalabs.com/api/v1/instance-types`` with
  ``Authorization: Bearer <key>`` (what dstack's gpuhunt and SkyPilot send; Lambda's API also
  takes the key as HTTP Basic user). The answer is ``{"data": {"<type>": {"instance_type":
  {"name", "description", "gpu_description", "price_cents_per_hour", "specs": {"vcpus",
  "memory_gib", "storage_gib", "gpus"}}, "regions_with_capacity_available": [{"name",
  "description"}]}}}``; an error is ``{"error": {"code", "message", "suggestion"}}``. Field
  names as in Lambda's OpenAPI description and the clients that read it; no real answer was
  seen (the fixture is modelled). ``price_cents_per_hour`` is the whole instance's price in
  US cents: one ``hourly`` row per instance type, ``price`` = cents ÷ 100 for
  ``specs.gpus`` cards; a type without GPUs (CPU-only) gives no row.
* Without a key: the public pricing page (``public_fetch_plan``), read by the generic table
  extractor with what Lambda's pages have always said: prices in USD, per hour. Whether a
  table's prices are per instance ("$20.72 / hr" for "8x NVIDIA H100 SXM") or per GPU
  ("$2.99 / GPU / hr", a "PRICE/GPU/HR" header) is read from the table. Reserved and Sprint
  clusters (multi-month contracts of 64+ GPUs, or "Contact sales") are not instance
  listings and give no row. Real page captures of 2023, 2024 and 2026 are in
  ``tests/fixtures/real/lambda/``.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from scrapers.fx import FxRates
from scrapers.gpu_names import canonical_gpu
from scrapers.http import Request
from scrapers.rows import OfferRow, ParseError
from scrapers.sources._json import field, load_json, looks_like_json, obj, optional_text, text
from scrapers.sources._limits import bounded
from scrapers.sources._page import naive_utc
from scrapers.sources.base import SecretSpec
from scrapers.sources.generic import GenericAdapter, GenericOptions
from scrapers.units import per_card_hour, size_gb

API_PATH = "/api/v1/instance-types"
PRICING_URL = "https://lambda.ai/pricing"
USD_QUANTUM = Decimal("0.0001")
UNIT_RAW = "USD/instance-hour (price_cents_per_hour ÷ 100)"
# The pricing page's knowledge: USD, per hour; a price that says nothing of GPUs is the
# instance's. Reserved / Sprint rows are clusters under contract, not instances.
PAGE_OPTIONS = GenericOptions(
    jsonld=False,
    currency="USD",
    unit="/hr",
    price_per="machine",
    skip_rows=(r"^(?:Reserved|Sprint)\b",),
)
# "8x H100 (80 GB SXM5)": the count before the card in an instance type's description.
_DESCRIPTION_COUNT = re.compile(r"^\s*(\d{1,9})\s*x\s+(.+)$", re.IGNORECASE)


def _whole(value: Any, what: str) -> int:
    """A whole, non-negative JSON number (Lambda's OpenAPI example writes cents as a string
    of digits, "80"; that is read too)."""
    if isinstance(value, bool):
        raise ParseError(f"{what}: expected a whole number, got {value!r}")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())
    else:
        raise ParseError(f"{what}: expected a whole number, got {value!r}")
    if number < 0:
        raise ParseError(f"{what}: negative: {value!r}")
    return number


class LambdaAdapter:
    name = "lambda"
    kind: Literal["offers", "quotes", "offers+quotes"] = "offers"
    currency = "USD"
    secret = SecretSpec(
        env="GPUPRICE_LAMBDA_API_KEY", header="Authorization", what="API key", template="Bearer {}"
    )

    def __init__(self, fx: FxRates | None = None) -> None:
        self.fx = fx or FxRates()
        self._page = GenericAdapter(self.name, PAGE_OPTIONS, self.fx)

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        """With the API key: the instance-types API (the key goes in the headers)."""
        return [Request(f"{base_url.rstrip('/')}{API_PATH}")]

    def public_fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        """Without a key: the public pricing page (on lambda.ai, whatever the API's host)."""
        return [PRICING_URL]

    @bounded
    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[OfferRow]:
        if looks_like_json(body):
            return self._from_api(load_json(body, url), url, naive_utc(fetched_at))
        return self._page.parse(body, url, fetched_at)

    # -- the instance-types API ----------------------------------------------------------

    def _from_api(self, doc: Any, url: str, observed: datetime) -> list[OfferRow]:
        doc = obj(doc, url)
        if "error" in doc:
            error = obj(doc["error"], f"{url}: error")
            code = optional_text(error, "code", f"{url}: error") or "no code"
            message = optional_text(error, "message", f"{url}: error") or "no message"
            suggestion = optional_text(error, "suggestion", f"{url}: error")
            tail = f" ({suggestion})" if suggestion else ""
            raise ParseError(f"{url}: Lambda API error {code}: {message}{tail}")
        data = obj(field(doc, "data", url), f"{url}: data")
        if not data:
            raise ParseError(f"{url}: the API lists no instance types")
        rows = []
        for key, entry in data.items():
            row = self._instance_type(str(key), obj(entry, f"{url}: {key}"), url, observed)
            if row is not None:
                rows.append(row)
        if not rows:
            raise ParseError(f"{url}: no instance type has a GPU")
        return rows

    def _instance_type(
        self, key: str, entry: dict[str, Any], url: str, observed: datetime
    ) -> OfferRow | None:
        what = f"{url}: {key}"
        it = obj(field(entry, "instance_type", what), f"{what}: instance_type")
        name = text(it, "name", what)
        if name != key:
            raise ParseError(f"{what}: instance_type.name is {name!r}")
        specs = obj(field(it, "specs", what), f"{what}: specs")
        description = optional_text(it, "description", what) or ""
        in_description = _DESCRIPTION_COUNT.match(description)
        if specs.get("gpus") is not None:
            gpus = _whole(specs["gpus"], f"{what}: specs.gpus")
        elif in_description:
            gpus = int(in_description[1])
        else:
            raise ParseError(f"{what}: no specs.gpus and no count in the description")
        if gpus == 0:
            return None  # a CPU-only instance
        card = optional_text(it, "gpu_description", what) or (
            in_description[2].strip() if in_description else ""
        )
        if not card:
            raise ParseError(f"{what}: no gpu_description")
        cents = _whole(field(it, "price_cents_per_hour", what), f"{what}: price_cents_per_hour")
        if cents == 0:
            raise ParseError(f"{what}: price_cents_per_hour is 0")
        price = (Decimal(cents) / 100).quantize(USD_QUANTUM, ROUND_HALF_UP)
        size = size_gb(card)
        vram = int(size) if size is not None and size == size.to_integral_value() else None
        regions = entry.get("regions_with_capacity_available")
        if regions is not None and not isinstance(regions, list):
            raise ParseError(f"{what}: regions_with_capacity_available is not a list")
        unit, native = per_card_hour(price, "USD", 1, gpus, "machine")
        return OfferRow(
            observed_at=observed,
            source=self.name,
            offer_id=name,
            gpu=canonical_gpu(card, vram),
            gpu_name_raw=card,
            gpu_count=gpus,
            vram_gb=vram,
            billing="hourly",
            price=price,
            currency="USD",
            unit=unit,
            unit_raw=UNIT_RAW,
            cny_per_card_hour=self.fx.to_cny(native, "USD", observed.date()),
            list_price=price,
            cpu_cores=_optional_whole(specs, "vcpus", what),
            ram_gb=_optional_whole(specs, "memory_gib", what),
            disk_gb=_optional_whole(specs, "storage_gib", what),
            # No region has this type free right now: none in stock (a count is not given).
            stock=0 if regions == [] else None,
        )


def _optional_whole(specs: dict[str, Any], key: str, what: str) -> int | None:
    value = specs.get(key)
    return None if value is None else _whole(value, f"{what}: specs.{key}")
