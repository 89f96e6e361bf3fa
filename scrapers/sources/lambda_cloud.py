"""Lambda Cloud (Lambda Labs) GPU instances, in USD; one parser tells two formats apart.

* With an API key: ``GET /api/v1/instance-types`` (``Authorization: Bearer <key>``); one
  ``hourly`` row per instance type with GPUs, ``price_cents_per_hour`` ÷ 100 for the whole
  instance. The answer is modelled on Lambda's OpenAPI description and its clients.
* Without one: the public pricing page (``public_fetch_plan``), read by the generic table
  extractor as USD per hour, per instance or per GPU as the table says; Reserved and Sprint
  clusters give no row. Real captures of 2023, 2024 and 2026: ``tests/fixtures/real/lambda/``.

Fields and evidence: docs/SOURCES.md.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from scrapers.gpu_names import canonical_gpu
from scrapers.http import Request
from scrapers.rows import OfferRow, ParseError
from scrapers.sources._json import field, load_json, looks_like_json, obj, optional_text, text
from scrapers.sources._limits import bounded
from scrapers.sources._page import naive_utc
from scrapers.sources.base import Kind, SecretSpec
from scrapers.sources.generic.adapter import GenericAdapter, GenericOptions
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
    kind: Kind = "offers"
    currency = "USD"
    secret = SecretSpec(
        env="GPUPRICE_LAMBDA_API_KEY", header="Authorization", what="API key", template="Bearer {}"
    )
    key_pair = None

    def __init__(self) -> None:
        self._page = GenericAdapter(self.name, PAGE_OPTIONS)

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
            per_card_hour=native,
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
