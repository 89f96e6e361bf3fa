"""AutoDL: GPU machines rented per card by the hour (按量计费), in CNY; needs a token.

Request: ``POST https://www.autodl.com/api/v1/user/machine/list`` with the JSON body below and
the header ``Authorization: <token>`` (the developer token from the console; from
``GPUPRICE_AUTODL_TOKEN`` or the secrets file). The answer is AutoDL's usual envelope
``{"code": "Success", "msg": "", "data": {"list": [...], "page_index": 1, "max_page": N,
...}}``; per machine ``machine_id``, ``machine_alias``, ``region_name`` ("西北B区"),
``gpu_name`` ("RTX 4090"), ``gpu_number``, ``gpu_idle_num``, ``cpu_per_gpu``,
``mem_per_gpu`` (bytes), ``payg`` and ``payg_price``: the price per card-hour in
thousandths of a yuan (÷ 1000 = ¥; 1980 = ¥1.98/时). Field names follow AutoDL's console
API as public clients use it; the request body and the envelope's paging are *modelled*
(docs/SOURCES.md). Only the first page (``page_size`` 100) is read.

Any ``code`` other than "Success" (e.g. an expired token) is a parse error carrying
AutoDL's message. One ``hourly`` row per machine that offers pay-as-you-go, ``offer_id`` =
``machine_id``, ``stock`` = idle cards, ``observed_at`` = fetch time.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from scrapers.gpu_names import canonical_gpu
from scrapers.http import Request
from scrapers.rows import OfferRow, ParseError
from scrapers.sources._json import (
    field,
    integer,
    load_json,
    number,
    obj,
    optional_text,
    text,
)
from scrapers.sources._page import naive_utc
from scrapers.sources.base import SecretSpec
from scrapers.units import CNY_PER_CARD_HOUR_QUANTUM, per_card_hour

LIST_PATH = "/api/v1/user/machine/list"
QUERY: dict[str, object] = {
    "charge_type": "payg",
    "page_index": 1,
    "page_size": 100,
    "gpu_type_name": [],
    "region_sign_list": [],
    "gpu_idle_num": 0,
}
MILLI_PER_YUAN = Decimal(1000)


class AutodlAdapter:
    name = "autodl"
    kind: Literal["offers", "quotes", "offers+quotes"] = "offers"
    currency = "CNY"
    secret = SecretSpec(env="GPUPRICE_AUTODL_TOKEN", header="Authorization", what="developer token")

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        return [Request(f"{base_url.rstrip('/')}{LIST_PATH}", method="POST", json_body=QUERY)]

    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[OfferRow]:
        doc = obj(load_json(body, url), f"{url}: answer")
        code = doc.get("code")
        if code != "Success":
            raise ParseError(f"{url}: AutoDL answered {code!r}: {doc.get('msg')!r}")
        data = obj(field(doc, "data", url), f"{url}: data")
        machines = field(data, "list", f"{url}: data")
        if not isinstance(machines, list):
            raise ParseError(f"{url}: data.list is not a list")
        observed = naive_utc(fetched_at)
        rows = []
        seen: set[str] = set()
        for n, raw in enumerate(machines, 1):
            what = f"{url}: machine {n}"
            machine = obj(raw, what)
            machine_id = text(machine, "machine_id", what)
            what = f"{url}: machine {machine_id}"
            if machine_id in seen:
                raise ParseError(f"{what}: listed twice")
            seen.add(machine_id)
            if machine.get("payg") is False:
                continue  # not rentable by the hour: no hourly price to record
            gpu_name = text(machine, "gpu_name", what)
            milli = integer(field(machine, "payg_price", what), f"{what}: payg_price", minimum=1)
            price = Decimal(milli) / MILLI_PER_YUAN  # exact: three decimals at most
            unit, per_card = per_card_hour(price, "CNY", 1, 1, "card")  # priced per card-hour
            mem = machine.get("mem_per_gpu")
            cores = machine.get("cpu_per_gpu")
            idle = machine.get("gpu_idle_num")
            rows.append(
                OfferRow(
                    observed_at=observed,
                    source=self.name,
                    offer_id=machine_id,
                    gpu=canonical_gpu(gpu_name),
                    gpu_name_raw=gpu_name,
                    gpu_count=1,
                    vram_gb=None,
                    billing="hourly",
                    price=price,
                    currency="CNY",
                    unit=unit,
                    unit_raw="元/卡时 (payg_price ÷ 1000)",
                    cny_per_card_hour=per_card.quantize(CNY_PER_CARD_HOUR_QUANTUM, ROUND_HALF_UP),
                    list_price=price,
                    region=optional_text(machine, "region_name", what),
                    cpu_cores=None if cores is None else integer(cores, f"{what}: cpu_per_gpu"),
                    ram_gb=None
                    if mem is None
                    else round(number(mem, f"{what}: mem_per_gpu") / 10**9),
                    stock=None if idle is None else integer(idle, f"{what}: gpu_idle_num"),
                )
            )
        if machines and not rows:
            raise ParseError(f"{url}: no machine offers pay-as-you-go (payg) pricing")
        return rows
