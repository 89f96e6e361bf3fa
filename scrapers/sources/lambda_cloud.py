"""Lambda Cloud (Lambda Labs) GPU instances, in USD; one parser tells two formats apart.

* With an API key: ``GET /api/v1/instance-types`` (``Authorization: Bearer <key>``); one
  ``hourly`` row per instance type with GPUs, ``price_cents_per_hour`` ÷ 100 for the whole
  instance. The answer is modelled on Lambda's OpenAPI description and its clients.
* Without one: the public pricing page (``public_fetch_plan``), read by the generic table
  extractor as USD per hour, per instance or per GPU as the table says. The 2023 page's
  Reserved and Sprint clusters (a table with a Term column: "$1.89/H100/hour", "3-years") are
  prepaid terms, read here: one row per GPU-hour with the term in ``discount_label``, billed
  ``yearly`` / ``monthly`` / ``weekly`` by the term's unit, as RunPod's commitments are.
  Real captures of 2023, 2024 and 2026: ``tests/fixtures/real/lambda/``.

Fields and evidence: docs/SOURCES.md.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from scrapers.gpu_names import canonical_gpu
from scrapers.request import Request
from scrapers.rows import Billing, OfferRow, ParseError
from scrapers.sources._json import field, load_json, looks_like_json, obj, optional_text, text
from scrapers.sources._limits import bounded
from scrapers.sources._page import is_simulated, load_html, naive_utc, text_of
from scrapers.sources.base import Kind, SecretSpec
from scrapers.sources.generic.adapter import GenericAdapter, GenericOptions
from scrapers.units import nfkc, parse_money, parse_period, per_card_hour, size_gb

API_PATH = "/api/v1/instance-types"
PRICING_URL = "https://lambda.ai/pricing"
USD_QUANTUM = Decimal("0.0001")
UNIT_RAW = "USD/instance-hour (price_cents_per_hour ÷ 100)"
# The pricing page's knowledge: USD, per hour; a price that says nothing of GPUs is the
# instance's. Reserved / Sprint rows are clusters under a term, not instances: the table
# extractor skips them, and _term_rows reads them where the page states their term.
PAGE_OPTIONS = GenericOptions(
    jsonld=False,
    currency="USD",
    unit="/hr",
    price_per="machine",
    skip_rows=(r"^(?:Reserved|Sprint)\b",),
)
# "8x H100 (80 GB SXM5)": the count before the card in an instance type's description.
_DESCRIPTION_COUNT = re.compile(r"^\s*(\d{1,9})\s*x\s+(.+)$", re.IGNORECASE)
# The 2023 page's cluster table: its columns (compared in lower case) and its terms.
TERM_COLUMNS = ("instance type", "gpu", "gpu memory", "vcpus", "per hour price", "term")
_TERM = re.compile(r"^(\d{1,2})\s*-?\s*(week|month|year)s?$", re.IGNORECASE)
_TERM_BILLING: dict[str, Billing] = {"week": "weekly", "month": "monthly", "year": "yearly"}


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
        rows = self._page.parse(body, url, fetched_at)
        return rows + self._term_rows(load_html(body, url), url, naive_utc(fetched_at))

    def generation(self, body: bytes, url: str) -> str:
        """Which of Lambda's formats ``body`` is, by what it holds (never by the URL)."""
        if looks_like_json(body):
            return "instance-types API answer (JSON)"
        text = body.decode("utf-8", "replace")
        if "data-label=" in text:
            return "lambda.ai pricing page (2026: tabbed table, data-label cells, price per GPU)"
        if re.search(r"/\s*GPU\s*/\s*hr", text, re.IGNORECASE):
            return "lambdalabs.com gpu-cloud page (2024: '$X / GPU / hr' cells)"
        if re.search(r">\s*Term\s*<", text):
            return (
                "lambdalabs.com gpu-cloud page (2023: per-instance prices, Reserved/Sprint terms)"
            )
        return "a pricing page of tables (no known Lambda generation: read as tables)"

    # -- the 2023 page's clusters under a term -------------------------------------------

    def _term_rows(self, tree: LexborHTMLParser, url: str, observed: datetime) -> list[OfferRow]:
        """The Reserved / Sprint rows of every table with a Term column; none without one."""
        rows = []
        for n, table in enumerate(tree.css("table"), 1):
            header = [text_of(th).casefold() for th in table.css("thead th")]
            if "term" not in header:
                continue
            missing = [name for name in TERM_COLUMNS if name not in header]
            if missing:
                raise ParseError(
                    f"{url}: table {n} has a Term column but no {', '.join(missing)} "
                    f"(header: {' | '.join(header)})"
                )
            index = {name: header.index(name) for name in TERM_COLUMNS}
            for r, tr in enumerate(table.css("tbody tr"), 1):
                cells = [text_of(td) for td in tr.css("td")]
                if any(cells):
                    rows.append(self._term_row(cells, index, f"{url}: table {n} row {r}", observed))
        simulated = is_simulated(tree)
        return [replace(row, simulated=simulated) for row in rows]

    def _term_row(
        self, cells: list[str], index: dict[str, int], what: str, observed: datetime
    ) -> OfferRow:
        if len(cells) <= max(index.values()):
            raise ParseError(f"{what}: {len(cells)} cells, too few for the header")
        kind, instance, term = cells[0], cells[index["instance type"]], cells[index["term"]]
        card, listed = cells[index["gpu"]], cells[index["per hour price"]]
        count = _DESCRIPTION_COUNT.match(instance)
        period = _TERM.match(term)
        if not kind or count is None or period is None:
            raise ParseError(
                f"{what}: expected a cluster kind, an instance type '8x <card>' and a term "
                f"such as '3-years'; got {kind!r}, {instance!r}, {term!r}"
            )
        try:
            price, currency, unit = parse_money(listed)
            hours, per = parse_period(unit)
        except ParseError as exc:
            raise ParseError(f"{what}: {listed!r} is not USD per GPU-hour ({exc})") from None
        names_card = any(
            part.strip().upper() in card.upper() for part in nfkc(unit).split("/")[1:-1]
        )
        if currency != "USD" or hours != 1 or not (per == "card" or names_card):
            raise ParseError(f"{what}: {listed!r} is not USD per GPU-hour")
        gpus = int(count[1])
        size = size_gb(cells[index["gpu memory"]])
        vram = int(size) if size is not None and size == size.to_integral_value() else None
        price = price.quantize(USD_QUANTUM, ROUND_HALF_UP)
        unit_name, native = per_card_hour(price, "USD", 1, gpus, "card")
        vcpus = cells[index["vcpus"]]
        return OfferRow(
            observed_at=observed,
            source=self.name,
            offer_id=f"{kind}|{instance}|{term}",
            gpu=canonical_gpu(card, vram),
            gpu_name_raw=card,
            gpu_count=gpus,
            vram_gb=vram,
            billing=_TERM_BILLING[period[2].lower()],
            price=price,
            currency="USD",
            unit=unit_name,
            unit_raw=f"{listed}, term {term}",
            per_card_hour=native,
            discount_label=f"{kind} ({term})",
            cpu_cores=int(vcpus) if vcpus.isdigit() and len(vcpus) < 7 else None,
        )

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
