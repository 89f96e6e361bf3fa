"""The international GPU clouds' APIs, SIMULATED, in USD: vast.ai's offer search, RunPod's
GraphQL ``gpuTypes`` and Lambda's instance-types API, in the exact formats their adapters in
``scrapers/sources/`` read.

Anchor-day prices are published list prices from the real captures in ``tests/fixtures/real/``:

* RunPod: ``runpod/runpod_graphql_20260928.json`` (securePrice / communityPrice per GPU-hour:
  RTX 4090 0.74 / 0.34, RTX 5090 0.99 / 0.69, H100 SXM 3.49 / 2.69, A100 SXM 1.59 / 1.39,
  H200 SXM 4.59 / 3.59, L40S 1.09 / 0.79, RTX 3090 0.5 placeholder (not on Secure Cloud) /
  0.22); spot and savings-plan prices as shares of them from
  ``runpod/runpod_graphql_gputypes_20250621.json`` (RTX 4090: secure spot 0.35 of 0.69,
  community spot 0.20 of 0.34, 3-month 0.649 and 6-month 0.60 of 0.69; RTX 5090 and H200 had
  no spot price).
* Lambda: ``lambda/lambda_20260109103934.html`` (per GPU-hour: B200 4.99, H100 SXM 2.99,
  A100 SXM 80 GB 1.79, A100 40 GB 1.29, V100 0.55) and ``lambda/lambda_20241103180910.html``
  (1x A10 0.75).
* vast.ai: per-GPU ``dph_base`` of real offers: RTX 4090 0.40 (``vastai/vastcli_search_
  2025-01-17.json``, Alberta); H100 SXM 2.27, A100 SXM4 0.60, H200 2.63, L40S 0.60
  (``vastai/ewyluda_vast.json``, 2026-09); the RTX 5090 has no capture and is modelled at
  0.60, under RunPod's Community Cloud 0.69. Each host prices around them by its own factor.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from demo.market.platforms.base import (
    Answer,
    Platform,
    PlatformRequest,
    json_answer,
    route,
)
from demo.market.platforms.model import Ctx

__all__ = ["LAMBDA", "RUNPOD", "VASTAI"]

D = Decimal
USD4 = D("0.0001")
CENT = D("0.01")

# -- vast.ai: POST /api/v0/bundles/, offers of hosts, USD per hour for the whole offer --------

# card -> (MiB per card as vast.ai reports it, anchor dph_base per GPU)
VAST_CARDS = {
    "RTX 4090": (24564, "0.40"),
    "RTX 5090": (32607, "0.60"),
    "H100 SXM": (81559, "2.27"),
    "A100 SXM4": (81920, "0.60"),
    "H200": (143771, "2.63"),
    "L40S": (46068, "0.60"),
}
# (offer id, card, GPUs, location, the host's price relative to the card's anchor)
VAST_HOSTS = (
    (21440112, "RTX 4090", 1, "Texas, US", "0.92"),
    (21440987, "RTX 4090", 1, "Alberta, CA", "1.00"),
    (21452310, "RTX 4090", 2, "Quebec, CA", "1.08"),
    (21466001, "RTX 4090", 4, "Sweden, SE", "1.15"),
    (21470315, "RTX 5090", 1, "Texas, US", "0.95"),
    (21470877, "RTX 5090", 2, "Taiwan, TW", "1.10"),
    (21481020, "H100 SXM", 1, "Iceland, IS", "1.00"),
    (21481554, "H100 SXM", 8, "Oregon, US", "1.12"),
    (21490230, "A100 SXM4", 1, "Czechia, CZ", "0.95"),
    (21490611, "A100 SXM4", 4, "Virginia, US", "1.10"),
    (21500442, "H200", 1, "Norway, NO", "1.00"),
    (21510090, "L40S", 2, "Texas, US", "1.00"),
)
STORAGE_COST = D("0.1")  # $/GB-month, as the modelled fixture's hosts
ALLOCATED_GB = D(5)  # the CLI's default storage, priced into dph_total


def _vast_bundles(ctx: Ctx, request: PlatformRequest) -> Answer:
    query = request.json_body()
    if not isinstance(query, dict):
        return json_answer({"success": False, "error": "invalid_request",
                            "msg": "the body must be a JSON query"}, 400)  # fmt: skip
    wanted = (query.get("gpu_name") or {}).get("in") if isinstance(query.get("gpu_name"), dict) \
        else None  # fmt: skip
    storage_gb = D(str(query.get("allocated_storage", 5)))
    offers = []
    for offer_id, card, gpus, where, factor in VAST_HOSTS:
        if wanted is not None and card not in wanted:
            continue
        if ctx.sold_out(str(offer_id), share=0.12):
            continue  # rented: a rented offer is not listed
        mib, anchor = VAST_CARDS[card]
        per_gpu = ctx.price(f"{card}:{offer_id}", D(anchor) * D(factor), D("0.001"))
        base = per_gpu * gpus
        storage = STORAGE_COST * storage_gb / 720
        total = base + storage
        if ctx.layout_changed:
            # A release that reports cents: 100× the price, rejected by the drift detector.
            base, total = base * 100, total * 100
        offers.append({
            "id": offer_id, "ask_contract_id": offer_id, "bundle_id": offer_id + 1000,
            "gpu_name": card, "num_gpus": gpus, "gpu_ram": mib, "gpu_total_ram": mib * gpus,
            "gpu_frac": 1.0, "cpu_cores_effective": float(8 * gpus),
            "cpu_ram": 64300 * gpus, "disk_space": float(200 * gpus),
            "dph_base": float(base), "dph_total": float(total),
            "storage_cost": float(STORAGE_COST), "storage_total_cost": float(storage),
            "min_bid": float((base * D("0.55")).quantize(USD4, ROUND_HALF_UP)),
            "geolocation": where, "rentable": True, "rented": False, "verified": True,
            "verification": "verified", "external": False, "reliability": 0.995,
            "inet_down": 2350.4, "inet_up": 1890.2, "cuda_max_good": 12.8,
        })  # fmt: skip
    offers.sort(key=lambda o: o["dph_total"])
    limit = query.get("limit")
    if isinstance(limit, int) and limit > 0:
        offers = offers[:limit]
    return json_answer({"offers": offers})


VASTAI = Platform(
    "vastai",
    "vast.ai offer search (bundles API)",
    (3, 9),
    (route("POST", "/api/v0/bundles/", _vast_bundles),),
    "/api/v0/bundles/ (POST)",
)


# -- RunPod: POST /graphql, gpuTypes, USD per GPU-hour ---------------------------------------

# (id, displayName, GB, secure price or None when not on Secure Cloud, community price,
#  has spot prices)
RUNPOD_TYPES = (
    ("NVIDIA GeForce RTX 4090", "RTX 4090", 24, "0.74", "0.34", True),
    ("NVIDIA GeForce RTX 5090", "RTX 5090", 32, "0.99", "0.69", False),
    ("NVIDIA H100 80GB HBM3", "H100 SXM", 80, "3.49", "2.69", True),
    ("NVIDIA A100-SXM4-80GB", "A100 SXM", 80, "1.59", "1.39", True),
    ("NVIDIA H200", "H200 SXM", 141, "4.59", "3.59", False),
    ("NVIDIA L40S", "L40S", 48, "1.09", "0.79", True),
    ("NVIDIA GeForce RTX 3090", "RTX 3090", 24, None, "0.22", True),
)
# Shares of the on-demand price (RTX 4090, 2025-06-21 capture).
SECURE_SPOT, COMMUNITY_SPOT = D("0.51"), D("0.59")
THREE_MONTHS, SIX_MONTHS = D("0.94"), D("0.87")
PLACEHOLDER = 0.5  # what RunPod puts in the price of a cloud that does not offer the card
GPU_TYPE_FIELDS = frozenset({
    "id", "displayName", "memoryInGb", "secureCloud", "communityCloud", "securePrice",
    "communityPrice", "secureSpotPrice", "communitySpotPrice", "oneWeekPrice", "oneMonthPrice",
    "threeMonthPrice", "sixMonthPrice", "maxGpuCount",
})  # fmt: skip
_SELECTION = re.compile(r"gpuTypes\s*(?:\([^)]*\))?\s*\{(?P<fields>[^{}]*)\}")
_NAME = re.compile(r"[A-Za-z_]\w*")


def _graphql_error(message: str) -> Answer:
    return json_answer({"errors": [{"message": message, "extensions": {
        "code": "GRAPHQL_VALIDATION_FAILED"}}], "data": None})  # fmt: skip


def _gpu_type(ctx: Ctx, entry: tuple[Any, ...]) -> dict[str, Any]:
    gid, name, gb, secure, community, spot = entry

    def usd(series: str, anchor: str) -> float:
        return float(ctx.price(f"{name}:{series}", D(anchor), CENT))

    on_secure = secure is not None
    secure_price = usd("secure", secure) if on_secure else PLACEHOLDER
    community_price = usd("community", community)
    share = D(str(secure_price)) if on_secure else D(0)
    return {
        "id": gid, "displayName": name, "memoryInGb": gb, "maxGpuCount": 8,
        "secureCloud": on_secure, "communityCloud": True,
        "securePrice": secure_price, "communityPrice": community_price,
        "secureSpotPrice": float((share * SECURE_SPOT).quantize(CENT)) if spot and on_secure
        else None,
        "communitySpotPrice": float((D(str(community_price)) * COMMUNITY_SPOT).quantize(CENT))
        if spot else None,
        "oneWeekPrice": None, "oneMonthPrice": None,
        "threeMonthPrice": float((share * THREE_MONTHS).quantize(D("0.001"))) if on_secure
        else None,
        "sixMonthPrice": float((share * SIX_MONTHS).quantize(D("0.001"))) if on_secure else None,
    }  # fmt: skip


def _runpod_graphql(ctx: Ctx, request: PlatformRequest) -> Answer:
    body = request.json_body()
    query = body.get("query") if isinstance(body, dict) else None
    if not isinstance(query, str):
        return json_answer({"errors": [{"message": "Must provide query string."}]}, 400)
    selection = _SELECTION.search(query)
    if selection is None:
        return _graphql_error("This demo serves only the gpuTypes query.")
    fields = _NAME.findall(selection["fields"])
    # On a layout-change day the schema has renamed securePrice: the query no longer validates.
    known = GPU_TYPE_FIELDS - {"securePrice"} if ctx.layout_changed else GPU_TYPE_FIELDS
    unknown = [f for f in fields if f not in known]
    if unknown:
        return _graphql_error(f'Cannot query field "{unknown[0]}" on type "GpuType".')
    types = [_gpu_type(ctx, entry) for entry in RUNPOD_TYPES]
    # RunPod's own placeholder type, every price 0 (as in the 2026-09-28 capture)
    types.append({"id": "unknown", "displayName": "unknown", "memoryInGb": 0,
                  "secureCloud": False, "communityCloud": False, "securePrice": 0,
                  "communityPrice": 0})  # fmt: skip
    return json_answer({"data": {"gpuTypes": [{f: t.get(f) for f in fields} for t in types]}})


RUNPOD = Platform(
    "runpod",
    "RunPod GraphQL API (gpuTypes)",
    (14, 40),
    (route("POST", "/graphql", _runpod_graphql),),
    "/graphql (POST)",
)


# -- Lambda: GET /api/v1/instance-types, US cents per instance-hour --------------------------

# (name, gpu_description, GPUs, per-GPU USD anchor, vcpus, memory GiB, storage GiB, regions)
LAMBDA_TYPES = (
    ("gpu_8x_b200_sxm6", "B200 (180 GB SXM6)", 8, "4.99", 208, 2900, 22528, ("us-east-1",)),
    ("gpu_8x_h100_sxm5", "H100 (80 GB SXM5)", 8, "2.99", 208, 1800, 22528, ("us-east-1",)),
    ("gpu_1x_h100_sxm5", "H100 (80 GB SXM5)", 1, "2.99", 26, 225, 2816, ("us-west-1",)),
    ("gpu_8x_a100_80gb_sxm4", "A100 (80 GB SXM4)", 8, "1.79", 240, 1800, 20480,
     ("us-east-1", "us-west-2")),
    ("gpu_8x_a100", "A100 (40 GB SXM4)", 8, "1.29", 124, 1800, 6144, ("us-west-1",)),
    ("gpu_8x_v100", "Tesla V100 (16 GB)", 8, "0.55", 88, 448, 6144, ("us-east-1",)),
    ("gpu_1x_a10", "A10 (24 GB PCIe)", 1, "0.75", 30, 200, 1400, ("us-west-1", "us-east-1")),
)  # fmt: skip
REGION_NAMES = {"us-east-1": "Virginia, USA", "us-west-1": "California, USA",
                "us-west-2": "Arizona, USA"}  # fmt: skip


def _lambda_types(ctx: Ctx, request: PlatformRequest) -> Answer:
    data: dict[str, Any] = {}
    for name, card, gpus, per_gpu, vcpus, memory, storage, regions in LAMBDA_TYPES:
        cents = ctx.price(f"{card}", D(per_gpu) * 100, D(1)) * gpus
        free = [] if ctx.sold_out(name, share=0.15) else [
            {"name": r, "description": REGION_NAMES[r]} for r in regions
        ]  # fmt: skip
        instance: dict[str, Any] = {
            "name": name, "description": f"{gpus}x {card}", "gpu_description": card,
            "specs": {"vcpus": vcpus, "memory_gib": memory, "storage_gib": storage,
                      "gpus": gpus},
        }  # fmt: skip
        if ctx.layout_changed:  # a new field name, in dollars
            instance["price_usd_per_hour"] = float(cents / 100)
        else:
            instance["price_cents_per_hour"] = int(cents)
        data[name] = {"instance_type": instance, "regions_with_capacity_available": free}
    data["cpu_4x_general"] = {"instance_type": {
        "name": "cpu_4x_general", "description": "4x vCPU", "gpu_description": "",
        "price_cents_per_hour": 12, "specs": {"vcpus": 4, "memory_gib": 16, "storage_gib": 100,
                                              "gpus": 0}},
        "regions_with_capacity_available": []}  # fmt: skip
    return json_answer({"data": data})


LAMBDA = Platform(
    "lambda",
    "Lambda Cloud instance-types API",
    (40, 120),
    (route("GET", "/api/v1/instance-types", _lambda_types),),
    "/api/v1/instance-types",
)
