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
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from scrapers.gpu_names import canonical_gpu
from scrapers.parse import Item, Page, excerpt_of
from scrapers.request import Request
from scrapers.rows import Billing, OfferRow, ParseError, Row
from scrapers.sources._json import load_json, looks_like_json
from scrapers.sources._models import OptionalText, Record, Text, Whole
from scrapers.sources._page import load_html, naive_utc, text_of
from scrapers.sources.base import Adapter, SecretSpec
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


def _cents(value: Any) -> Any:
    # Lambda's OpenAPI example writes cents as a string of digits ("80"): read as a number.
    return int(value.strip()) if isinstance(value, str) and value.strip().isdigit() else value


class Specs(Record):
    gpus: Whole | None = None
    vcpus: Whole | None = None
    memory_gib: Whole | None = None
    storage_gib: Whole | None = None


class InstanceType(Record):
    name: Text
    description: OptionalText = None
    gpu_description: OptionalText = None
    price_cents_per_hour: Whole
    specs: Specs

    @classmethod
    def read(cls, raw: Any) -> InstanceType:
        if isinstance(raw, dict) and "price_cents_per_hour" in raw:
            raw = raw | {"price_cents_per_hour": _cents(raw["price_cents_per_hour"])}
        return cls.model_validate(raw)


class Entry(Record):
    instance_type: dict[str, Any]
    regions_with_capacity_available: list[Any] | None = None


@dataclass(frozen=True, slots=True)
class _ApiEntry:
    key: str
    entry: Any


@dataclass(frozen=True, slots=True)
class _TermRow:
    cells: list[str]
    index: dict[str, int]


class LambdaAdapter(Adapter):
    name = "lambda"
    currency = "USD"
    secret = SecretSpec(
        env="GPUPRICE_LAMBDA_API_KEY", header="Authorization", what="API key", template="Bearer {}"
    )

    def __init__(self) -> None:
        self._page = GenericAdapter(self.name, PAGE_OPTIONS)

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        """With the API key: the instance-types API (the key goes in the headers)."""
        return [Request(f"{base_url.rstrip('/')}{API_PATH}")]

    def public_fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        """Without a key: the public pricing page (on lambda.ai, whatever the API's host)."""
        return [PRICING_URL]

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        """The API's instance types, or the pricing page's table rows and term rows."""
        if looks_like_json(body):
            return self._api_page(load_json(body, url), url, naive_utc(fetched_at))
        page = self._page.read(body, url, fetched_at)
        terms = _term_items(load_html(body, url), url)
        return Page(page.url, page.observed_at, [*page.items, *terms], page.simulated, page.facts)

    def rows(self, item: Item, page: Page) -> list[OfferRow]:
        if isinstance(item.data, _ApiEntry):
            row = self._instance_type(item.data, page.observed_at)
            return [] if row is None else [row]
        if isinstance(item.data, _TermRow):
            return [self._term_row(item.data, page)]
        return self._page.rows(item, page)

    def finish(self, rows: list[Row], page: Page) -> list[Row]:
        return self._page.finish(rows, page)

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

    def _term_row(self, term_row: _TermRow, page: Page) -> OfferRow:
        cells, index = term_row.cells, term_row.index
        if len(cells) <= max(index.values()):
            raise ParseError(f"{len(cells)} cells, too few for the header")
        kind, instance, term = cells[0], cells[index["instance type"]], cells[index["term"]]
        card, listed = cells[index["gpu"]], cells[index["per hour price"]]
        count = _DESCRIPTION_COUNT.match(instance)
        period = _TERM.match(term)
        if not kind or count is None or period is None:
            raise ParseError(
                "expected a cluster kind, an instance type '8x <card>' and a term "
                f"such as '3-years'; got {kind!r}, {instance!r}, {term!r}"
            )
        try:
            price, currency, unit = parse_money(listed)
            hours, per = parse_period(unit)
        except ParseError as exc:
            raise type(exc)(f"{listed!r} is not USD per GPU-hour ({exc})") from None
        names_card = any(
            part.strip().upper() in card.upper() for part in nfkc(unit).split("/")[1:-1]
        )
        if currency != "USD" or hours != 1 or not (per == "card" or names_card):
            raise ParseError(f"{listed!r} is not USD per GPU-hour")
        gpus = int(count[1])
        size = size_gb(cells[index["gpu memory"]])
        vram = int(size) if size is not None and size == size.to_integral_value() else None
        price = price.quantize(USD_QUANTUM, ROUND_HALF_UP)
        unit_name, native = per_card_hour(price, "USD", 1, gpus, "card")
        vcpus = cells[index["vcpus"]]
        return OfferRow(
            observed_at=page.observed_at,
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
            simulated=page.simulated,
        )

    # -- the instance-types API ----------------------------------------------------------

    def _api_page(self, doc: Any, url: str, observed: datetime) -> Page:
        if not isinstance(doc, dict):
            raise ParseError(f"{url}: not a Lambda API answer (a JSON {type(doc).__name__})")
        if isinstance(doc.get("error"), dict):
            error = doc["error"]
            code = error.get("code") or "no code"
            message = error.get("message") or "no message"
            tail = f" ({error['suggestion']})" if error.get("suggestion") else ""
            raise ParseError(f"{url}: Lambda API error {code}: {message}{tail}")
        data = doc.get("data")
        if not isinstance(data, dict):
            raise ParseError(f"{url}: no data object in the answer")
        if not data:
            raise ParseError(f"{url}: the API lists no instance types")
        items = [Item(str(key), _ApiEntry(str(key), entry), excerpt_of(entry))
                 for key, entry in data.items()]  # fmt: skip
        return Page(url, observed, items)

    def _instance_type(self, api: _ApiEntry, observed: datetime) -> OfferRow | None:
        entry = Entry.model_validate(api.entry)
        it = InstanceType.read(entry.instance_type)
        if it.name != api.key:
            raise ParseError(f"instance_type.name is {it.name!r}")
        in_description = _DESCRIPTION_COUNT.match(it.description or "")
        if it.specs.gpus is not None:
            gpus = it.specs.gpus
        elif in_description:
            gpus = int(in_description[1])
        else:
            raise ParseError("no specs.gpus and no count in the description")
        if gpus == 0:
            return None  # a CPU-only instance
        card = it.gpu_description or (in_description[2].strip() if in_description else "")
        if not card:
            raise ParseError("no gpu_description")
        if it.price_cents_per_hour == 0:
            raise ParseError("price_cents_per_hour is 0")
        price = (Decimal(it.price_cents_per_hour) / 100).quantize(USD_QUANTUM, ROUND_HALF_UP)
        size = size_gb(card)
        vram = int(size) if size is not None and size == size.to_integral_value() else None
        unit, native = per_card_hour(price, "USD", 1, gpus, "machine")
        return OfferRow(
            observed_at=observed,
            source=self.name,
            offer_id=it.name,
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
            cpu_cores=it.specs.vcpus,
            ram_gb=it.specs.memory_gib,
            disk_gb=it.specs.storage_gib,
            # No region has this type free right now: none in stock (a count is not given).
            stock=0 if entry.regions_with_capacity_available == [] else None,
        )


def _term_items(tree: LexborHTMLParser, url: str) -> list[Item]:
    """The Reserved / Sprint rows of every table with a Term column (the 2023 page's
    clusters under a term); none without one."""
    items = []
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
                term = _TermRow(cells, index)
                items.append(Item(f"table {n} row {r}", term, excerpt_of(" | ".join(cells))))
    return items
