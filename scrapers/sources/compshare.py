"""优云智算 Compshare (UCloud's GPU rental platform): the ``GetCompShareInstancePrice`` API.

One JSON POST to ``/?Action=GetCompShareInstancePrice`` per machine of
:data:`DEFAULT_MACHINES`, without ``ChargeType`` so that every billing mode is listed; the
machine also rides in the URL's fragment (never sent), since the answer does not repeat it.
The plan holds *unsigned* requests: the adapter's ``key_pair`` tells the pipeline to add
``PublicKey`` and UCloud's ``Signature`` (:func:`sign`) at fetch time. ``Instance`` is the
whole instance's price in yuan per period; ``PriceDetails`` is the price paid,
``ListPriceDetails`` (else ``OriginalPriceDetails``) the list price. The answer's shape and
its evidence (one real answer, UCloud's docs and SDKs): docs/SOURCES.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from scrapers.gpu_names import canonical_gpu
from scrapers.parse import Item, Page, excerpt_of
from scrapers.request import Request
from scrapers.rows import HOURS_PER_MONTH, HOURS_PER_YEAR, Billing, OfferRow, ParseError
from scrapers.sources._json import load_json
from scrapers.sources._models import OptionalText, PositiveAmount, Record, Text, Whole
from scrapers.sources._page import naive_utc
from scrapers.sources.base import Adapter, KeyPairSpec
from scrapers.units import CNY_PER_CARD_HOUR_QUANTUM, per_card_hour

API_URL = "https://api.compshare.cn"
ACTION = "GetCompShareInstancePrice"
# GetCompShareInstanceUserPrice answers in the same shape (the user's own discounts).
ANSWERS = ("GetCompShareInstancePriceResponse", "GetCompShareInstanceUserPriceResponse")
CNY_QUANTUM = Decimal("0.0001")

# ChargeType → (billing mode, hours in one period). Enumerations from UCloud's docs
# (UCloudDoc-Team/api ucompshare-api/create_comp_share_instance.md): Dynamic 按小时预付费,
# Postpay 按小时后付费 (stopped instances are not charged), Day 按天, Month 按月, Year 按年,
# Spot 抢占式实例.
CHARGE_TYPES: dict[str, tuple[Billing, int]] = {
    "Postpay": ("hourly", 1),
    "Dynamic": ("hourly", 1),
    "Day": ("daily", 24),
    "Month": ("monthly", HOURS_PER_MONTH),
    "Year": ("yearly", HOURS_PER_YEAR),
    "Spot": ("spot", 1),
}
# InstanceDiscountType (UCloud's CompSharePriceDetail model): why the price paid is lower.
DISCOUNT_TYPES = {1: "夜间折扣", 2: "节日折扣"}

# GpuType as the API names it → the card's name and memory (GB). The live value is
# DescribeAvailableCompShareInstanceTypes' GraphicsMemory.Value; this table follows
# compshare-agent's internal/knowledge/gpu_specs.go.
GPU_TYPES: dict[str, tuple[str, int]] = {
    "2080Ti": ("RTX 2080 Ti", 11),
    "3080Ti": ("RTX 3080 Ti", 12),
    "3090": ("RTX 3090", 24),
    "4090": ("RTX 4090", 24),
    "4090_48G": ("RTX 4090 48G", 48),
    "5090": ("RTX 5090", 32),
    "P40": ("Tesla P40", 24),
    "V100S": ("Tesla V100S", 32),
    "A100": ("A100", 80),
    "A800": ("A800", 80),
    "H20": ("H20", 96),
}


@dataclass(frozen=True, slots=True)
class Machine:
    """One configuration to price: the API prices CPU and memory with the cards."""

    gpu_type: str
    gpu_count: int
    cpu: int
    memory_gb: int
    region: str = "cn-wlcb"
    zone: str = "cn-wlcb-01"

    def params(self) -> dict[str, str]:
        """The unsigned request parameters (UCloud's docs type Gpu, Cpu, Memory as strings;
        Memory in MB)."""
        return {
            "Action": ACTION,
            "Region": self.region,
            "Zone": self.zone,
            "GpuType": self.gpu_type,
            "Gpu": str(self.gpu_count),
            "Cpu": str(self.cpu),
            "Memory": str(self.memory_gb * 1024),
        }


# Configurations seen priced in cn-wlcb-01 by clients that ran against the live API:
# 4090 16C/64G (the UCloud SDK examples' 配比, compshare-docs getcompshareinstanceprice.md),
# 3090 16C/64G and 3080Ti 12C/32G (compshare-agent's real-account runs), 5090 16C/64G (a
# user's price probe). Other cards need their console configuration before they are added.
DEFAULT_MACHINES: tuple[Machine, ...] = (
    Machine("4090", 1, 16, 64),
    Machine("3090", 1, 16, 64),
    Machine("3080Ti", 1, 12, 32),
    Machine("5090", 1, 16, 64),
)


def sign(params: Mapping[str, str], public_key: str, private_key: str) -> dict[str, str]:
    """``params`` with ``PublicKey`` and UCloud's ``Signature`` added.

    UCloud's algorithm (ucloud-sdk-go ``ucloud/auth/credential.go`` and ``signature.go``;
    ucloud-sdk-python3 ``ucloud/core/auth/_cfg.py``): add ``PublicKey``, sort the parameters
    by name, concatenate name and value of each, append the private key, and take the SHA1
    hex digest. Values are the strings sent (nested lists flattened to ``Disks.0.Size``
    first, as the SDKs' form encoders do).
    """
    if "Signature" in params:
        raise ValueError("params are already signed")
    signed = {str(key): str(value) for key, value in params.items()}
    signed["PublicKey"] = public_key
    # sorted() orders by code point, which for UTF-8 is Go's byte order (sort.Strings).
    payload = "".join(key + signed[key] for key in sorted(signed)) + private_key
    signed["Signature"] = hashlib.sha1(payload.encode("utf-8")).hexdigest()
    return signed


def sign_request(request: Request, public_key: str, private_key: str) -> Request:
    """The request to send: its JSON body signed. The URL (and its fragment) is kept, so the
    fetched page, the archive and the logs never hold a key or a signature."""
    if not isinstance(request.json_body, dict):
        raise ValueError(f"{request.url}: not a UCloud API request (no JSON parameters)")
    return replace(request, json_body=sign(request.json_body, public_key, private_key))


class Detail(Record):
    """One entry of a price array: an instance's price for one ChargeType."""

    ChargeType: Text
    Instance: PositiveAmount  # yuan per period for the whole instance
    InstanceDiscountType: Whole | None = None


class Answer(Record):
    RetCode: int
    Message: OptionalText = None
    Action: OptionalText = None


@dataclass(frozen=True, slots=True)
class _Facts:
    asked: dict[str, Any]  # the machine priced, from the request in the URL's fragment
    listed: dict[str, Any]  # the list price entries, by ChargeType (raw)


class CompshareAdapter(Adapter):
    name = "compshare"
    key_pair = KeyPairSpec(
        public_env="GPUPRICE_UCLOUD_PUBLIC_KEY",
        private_env="GPUPRICE_UCLOUD_PRIVATE_KEY",
        what="UCloud API key pair (public and private key)",
        signer=sign_request,
    )

    def __init__(self, machines: tuple[Machine, ...] = DEFAULT_MACHINES) -> None:
        if not machines:
            raise ValueError("compshare: no machine to price")
        self.machines = machines

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        """One unsigned price request per machine; the pipeline signs each one."""
        base = base_url.rstrip("/")
        plan: list[str | Request] = []
        for machine in self.machines:
            params = machine.params()
            asked = urlencode({k: v for k, v in params.items() if k != "Action"})
            plan.append(Request(f"{base}/?Action={ACTION}#{asked}", "POST", json_body=params))
        return plan

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        doc = load_json(body, url)
        answer = Answer.model_validate(doc)
        if answer.RetCode != 0:
            message = answer.Message or "no message"
            raise ParseError(f"{url}: UCloud API error (RetCode {answer.RetCode}): {message}")
        if answer.Action is not None and answer.Action not in ANSWERS:
            raise ParseError(f"{url}: not a price answer: Action {answer.Action!r}")
        asked = _asked(url)
        name, paid = _array(doc, ("PriceDetails", "PriceDetail"), url, required=True)
        listed = (
            _array(doc, ("ListPriceDetails", "ListPriceDetail"), url)[1]
            or _array(doc, ("OriginalPriceDetails", "OriginalPriceDetail"), url)[1]
        )
        by_charge = {e.get("ChargeType"): e for e in listed if isinstance(e, dict)}
        items = [Item(f"{name}[{n}]", raw, excerpt_of(raw)) for n, raw in enumerate(paid)]
        return Page(url, naive_utc(fetched_at), items, facts=_Facts(asked, by_charge))

    def rows(self, item: Item, page: Page) -> Iterator[OfferRow]:
        facts: _Facts = page.facts
        entry = Detail.model_validate(item.data)
        charge = entry.ChargeType
        if charge not in CHARGE_TYPES:
            raise ParseError(f"unknown ChargeType {charge!r}")
        billing, hours = CHARGE_TYPES[charge]
        price = entry.Instance.quantize(CNY_QUANTUM, ROUND_HALF_UP)
        raw_list = facts.listed.get(charge)
        list_price = None
        if raw_list is not None:
            list_price = Detail.model_validate(raw_list).Instance.quantize(CNY_QUANTUM)
        if list_price is not None and list_price < price:
            raise ParseError(f"list price {list_price} is below the price paid {price}")
        label = None
        if entry.InstanceDiscountType not in (None, 0):
            label = DISCOUNT_TYPES.get(entry.InstanceDiscountType)
            if label is None:
                raise ParseError(f"unknown InstanceDiscountType {entry.InstanceDiscountType!r}")
        asked = facts.asked
        gpu_type, count = asked["GpuType"], asked["Gpu"]
        card, vram = GPU_TYPES[gpu_type]
        unit, native = per_card_hour(price, "CNY", hours, count, "machine")
        config = f"/{asked['Cpu']}C{asked['ram_gb']}G" if asked["Cpu"] is not None else ""
        # The price paid below the list price is what the platform shows everyone now (its
        # discount, or a night or holiday one): a promotional tier, the list price beside it.
        promo = list_price is not None and price < list_price
        yield OfferRow(
            observed_at=page.observed_at,
            source=self.name,
            offer_id=f"{gpu_type}x{count}{config}/{asked['Zone']}/{charge}",
            gpu=canonical_gpu(card, vram),
            gpu_name_raw=gpu_type,
            gpu_count=count,
            vram_gb=vram,
            billing=billing,
            price=price,
            currency="CNY",
            unit=unit,
            unit_raw=f"元/实例 per {CHARGE_NAMES[charge]} (Instance, {charge}; disks not included)",
            per_card_hour=native.quantize(CNY_PER_CARD_HOUR_QUANTUM, ROUND_HALF_UP),
            list_price=list_price,
            discount_label=label,
            region=asked["Zone"],
            cpu_cores=asked["Cpu"],
            ram_gb=asked["ram_gb"],
            tier="promo" if promo else "list",
            tier_name=(label or "PriceDetails below ListPriceDetails") if promo else None,
        )


CHARGE_NAMES = {
    "Postpay": "hour, postpaid",
    "Dynamic": "hour, prepaid",
    "Day": "day",
    "Month": "month",
    "Year": "year",
    "Spot": "hour, spot",
}


def _asked(url: str) -> dict[str, Any]:
    """The machine the answer prices, from the request's parameters in the URL fragment."""
    params = dict(parse_qsl(urlsplit(url).fragment))
    what = f"{url}: request"
    if "GpuType" not in params:
        raise ParseError(f"{what}: the URL does not say which machine was priced (no GpuType)")
    gpu_type = params["GpuType"].strip()
    if gpu_type not in GPU_TYPES:
        raise ParseError(f"{what}: unknown GpuType {gpu_type!r} (known: {', '.join(GPU_TYPES)})")
    if not params.get("Zone", "").strip():
        raise ParseError(f"{what}: no Zone")
    asked: dict[str, Any] = {
        "GpuType": gpu_type,
        "Gpu": _whole(params.get("Gpu", ""), f"{what}: Gpu", minimum=1),
        "Zone": params["Zone"].strip(),
        "Cpu": None,
        "ram_gb": None,
    }
    if "Cpu" in params:
        asked["Cpu"] = _whole(params["Cpu"], f"{what}: Cpu", minimum=1)
    if "Memory" in params:
        megabytes = _whole(params["Memory"], f"{what}: Memory", minimum=1024)
        if megabytes % 1024:
            raise ParseError(f"{what}: Memory {megabytes} MB is not whole GB")
        asked["ram_gb"] = megabytes // 1024
    return asked


def _whole(value: str, what: str, *, minimum: int) -> int:
    # the request's parameters are text in a URL fragment, not JSON: no model to read them
    if not value.strip().isdigit() or len(value.strip()) > 9 or int(value) < minimum:
        raise ParseError(f"{what}: not a whole number of at least {minimum}: {value!r}")
    return int(value)


def _array(
    doc: dict[str, Any], names: tuple[str, ...], url: str, *, required: bool = False
) -> tuple[str, list[Any]]:
    """One of the price arrays (its name and entries); none when absent and not required."""
    present = [name for name in names if doc.get(name) is not None]
    if not present:
        if required:
            raise ParseError(f"{url}: no {names[0]} in the answer (fields: {', '.join(doc)})")
        return names[0], []
    if len(present) > 1:
        raise ParseError(f"{url}: both {present[0]} and {present[1]} in the answer")
    name = present[0]
    entries = doc[name]
    if not isinstance(entries, list):
        raise ParseError(f"{url}: {name} is not a list")
    if required and not entries:
        raise ParseError(f"{url}: {name} is empty")
    return name, entries
