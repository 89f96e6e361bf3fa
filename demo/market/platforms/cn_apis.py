"""The Chinese GPU markets' APIs, SIMULATED: AutoDL, 矩池云 (matpool), 恒源云 (gpushare),
PPIO 派欧云 and 优云智算 (compshare), each in the exact format its adapter in
``scrapers/sources/`` reads (field names, price units and envelopes as documented there and in
``tests/fixtures/live/``).

Anchor-day prices (CNY per card-hour) are modelled around the seeds' published figures for
2026-09-04: 极智算 lists the RTX 4090 at ¥1.96/时, the 910B at ¥4.47/时, the H20 at ¥7.75/时,
its 8-card bare metal at ¥1.375 (4090), ¥2.43 (5090) and ¥14.67 (H100) per card-hour; SMM's
market averages are ¥1.26 (4090) and ¥7.47 (H20); seed 002 gives "单卡时租约2.45元" for a
4090 and "A100 80GB 8卡月租约6-7万". Each market sits a little above or below those, as
their own list prices do. 优云智算's 4090 is the real answer in
``tests/fixtures/real/compshare/`` (1.66 list, 1.58 paid per hour for the instance).
"""

from __future__ import annotations

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

__all__ = ["AUTODL", "COMPSHARE", "GPUSHARE", "MATPOOL", "PPIO"]

D = Decimal
GIB = 1024**3
CENT = D("0.01")


def _int(value: Decimal) -> int:
    return int(value.to_integral_value(ROUND_HALF_UP))


# -- AutoDL: POST /api/v1/machine/search, prices in 厘 (1/1000 yuan) per card ---------------

# (machine_id, alias, region, gpu_name, GiB per card, cards, cpu per card, GiB RAM per card,
#  payg price in 厘 per card-hour on the anchor day)
AUTODL_MACHINES = (
    ("2dd949a4cf", "063机", "西北B区", "RTX 4090", 24, 8, 16, 120, 1980),
    ("7a1c33e0b2", "207机", "重庆A区", "RTX 4090", 24, 8, 16, 120, 2080),
    ("463e49a218", "112机", "北京A区", "RTX 4090D", 24, 8, 22, 90, 1880),
    ("9b0e51c7d4", "318机", "西北B区", "RTX 5090", 32, 8, 25, 90, 2880),
    ("c5f1a8e602", "401机", "内蒙B区", "H20-NVLink", 96, 8, 20, 200, 6980),
    ("e13b7d9f45", "155机", "北京B区", "A800-80GB", 80, 8, 14, 110, 5880),
)
# sku type -> (hours, share of the payg price paid): AutoDL's prepaid terms cost less per hour.
AUTODL_SKUS = (("payg", 1, D("1")), ("daily", 24, D("0.95")), ("weekly", 168, D("0.88")),
               ("monthly", 720, D("0.74")))  # fmt: skip


def _autodl_search(ctx: Ctx, request: PlatformRequest) -> Answer:
    query = request.json_body()
    if not isinstance(query, dict):
        return json_answer({"code": "InvalidParams", "msg": "参数错误", "data": None}, 400)
    # On a layout-change day the sku price field is renamed: the adapter stops on it.
    price_key = "now_price" if ctx.layout_changed else "current_price"
    machines = []
    for mid, alias, region, gpu, vram, cards, cpu, ram, payg in AUTODL_MACHINES:
        milli = ctx.price(f"{gpu}:{region}", D(payg), D(10))
        skus: list[dict[str, Any]] = []
        for kind, hours, share in AUTODL_SKUS:
            origin = milli * hours
            current = origin if kind == "payg" else _int(origin * share / 100) * 100
            skus.append({"type": kind, "origin_price": 0 if kind == "payg" else _int(origin),
                         price_key: _int(D(current)),
                         "level_config": [{"discounted_price": _int(D(current))}]})  # fmt: skip
        idle = 0 if ctx.sold_out(mid) else 1 + int(ctx.unit("idle", mid) * (cards - 1))
        machines.append({
            "machine_id": mid, "machine_name": f"agent-{mid}", "machine_alias": alias,
            "region_name": region, "gpu_name": gpu, "gpu_memory": vram * GIB,
            "gpu_number": cards, "gpu_idle_num": idle, "gpu_order_num": idle,
            "cpu_per_gpu": cpu, "mem_per_gpu": ram * GIB, "highest_cuda_version": "12.8",
            "machine_sku_info": skus,
        })  # fmt: skip
    page_size = query.get("page_size", 10)
    if not isinstance(page_size, int) or page_size < 1:
        page_size = 10
    shown = machines[:page_size]
    data = {"list": shown, "page_index": 1, "page_size": page_size,
            "max_page": -(-len(machines) // page_size), "offset": 0,
            "result_total": len(machines)}  # fmt: skip
    return json_answer({"code": "Success", "msg": "", "data": data})


AUTODL = Platform(
    "autodl",
    "AutoDL 算力市场 (machine search API)",
    (10, 30),
    (route("POST", "/api/v1/machine/search", _autodl_search),),
    "/api/v1/machine/search (POST)",
)


# -- 矩池云: GET /api/machine_pools, prices in millicents (1/100000 yuan) per 份-hour ---------

# (pool id, gpu_model, domain, MiB per card, cards, 份 (units), cpu, RAM MiB, disk GB,
#  list price per 份-hour in millicents, the share of it paid when discounted or None)
MATPOOL_POOLS = (
    ("pool-119", "NVIDIA GeForce RTX 4090", 0, 24564, 8, 8, 128, 63488, 100, 220000, None),
    ("pool-133", "NVIDIA GeForce RTX 4090", 1, 24564, 8, 4, 128, 126976, 200, 420000,
     D("0.95")),
    ("pool-402", "NVIDIA GeForce RTX 5090", 0, 32607, 8, 8, 128, 94208, 100, 310000, None),
    ("pool-207", "NVIDIA A100-PCIE-40GB", 0, 40960, 8, 8, 96, 117760, 200, 580000, D("0.90")),
    ("pool-311", "NVIDIA H100 80GB HBM3", 1, 81559, 8, 8, 192, 245760, 500, 1580000, None),
)  # fmt: skip


def _matpool_pools(ctx: Ctx, request: PlatformRequest) -> Answer:
    pools = []
    for pid, model, domain, mib, cards, units, cpu, ram, disk, listed, paid in MATPOOL_POOLS:
        price = _int(ctx.price(f"{model}:{pid}", D(listed), D(1000)))
        discount = None if paid is None else _int(price * paid / 1000) * 1000
        # A release that sends 厘 (1/1000 yuan) in the millicent fields on a layout-change
        # day: 100× too small, which the drift detector rejects as implausible.
        scale = 100 if ctx.layout_changed else 1
        free = 0 if ctx.sold_out(pid) else 1 + int(ctx.unit("free", pid) * (units - 1))
        hardware: dict[str, Any] = {
            "gpu": {"gpuIds": [0], "gpuName": model, "gpuRamMB": mib},
            "machine": {"cpuName": "Intel(R) Xeon(R) Platinum 8358P", "ramMB": ram,
                        "diskGB": disk},
            "priceMillicent": price // scale,
        }  # fmt: skip
        if discount is not None:
            hardware["discountPriceMillicent"] = discount // scale
        pools.append({
            "resource_pool_id": pid, "gpu_model": model, "domain": domain,
            "driver_version": "550.54.15", "max_available_units": free,
            "machine": {
                "gpu": {"available": free * cards // units, "total": cards, "max": cards},
                "cpu": {"available": cpu, "total": cpu, "max": cpu},
                "unit": {"available": free, "total": units, "max": units},
                "domain": domain, "hardware": hardware,
            },
        })  # fmt: skip
    pagination = {"page": 1, "per_page": 100, "num_pages": 1, "total": len(pools)}
    return json_answer({"pools": pools, "pagination": pagination})


MATPOOL = Platform(
    "matpool",
    "矩池云 machine pools (public market API)",
    (12, 35),
    (route("GET", "/api/machine_pools", _matpool_pools),),
    "/api/machine_pools?machine_category=0&page=1&per_page=100",
)


# -- 恒源云: GET /app/api/market/machine/list, yuan per card for each sku's period -----------

# (id, machineName, baseInfo.gpuName, cards, payg ¥ per card-hour, skus offered)
GPUSHARE_MACHINES = (
    (10231, "重庆一区-4090-07", "NVIDIA GeForce RTX 4090", 8, "1.88", ("payg", "day", "week", "month")),
    (10562, "宁夏二区-4090-12", "NVIDIA GeForce RTX 4090", 8, "1.98", ("payg", "day", "month")),
    (10455, "重庆一区-5090-02", "NVIDIA GeForce RTX 5090", 8, "2.78", ("payg", "day", "week", "month")),
    (10877, "宁夏二区-A100-02", "A100-SXM4-80GB", 8, "7.50", ("payg", "month", "year")),
    (11020, "内蒙一区-H20-03", "NVIDIA H20 96GB", 8, "7.20", ("payg", "week", "month")),
)  # fmt: skip
# sku -> (hours, share of the payg price per hour)
GPUSHARE_SKUS = {"payg": (1, D("1")), "day": (24, D("0.92")), "week": (168, D("0.85")),
                 "month": (720, D("0.70")), "year": (8760, D("0.62"))}  # fmt: skip


def _gpushare_list(ctx: Ctx, request: PlatformRequest) -> Answer:
    machines = []
    for mid, name, gpu, cards, payg, offered in GPUSHARE_MACHINES:
        hourly = ctx.price(f"{gpu}:{mid}", D(payg), CENT)
        skus = []
        for sku in offered:
            hours, share = GPUSHARE_SKUS[sku]
            price = (hourly * hours * share).quantize(CENT if hours == 1 else D(1), ROUND_HALF_UP)
            skus.append({"skuName": sku, "price": f"{price:.2f}"})
        used = cards if ctx.sold_out(str(mid)) else int(ctx.unit("used", mid) * cards)
        machine: dict[str, Any] = {
            "id": mid, "machineName": name, "isOnline": True, "gpuNum": cards, "gpuUsed": used,
            "baseInfo": {"gpuName": gpu, "gpuToolkitVersion": "12.8",
                         "gpuDriverVersion": "570.124.04"},
        }  # fmt: skip
        # On a layout-change day the sku list comes under another name.
        machine["skus" if ctx.layout_changed else "skuList"] = skus
        machines.append(machine)
    return json_answer(
        {"code": 200, "msg": "success", "data": {"total": len(machines), "list": machines}}
    )


GPUSHARE = Platform(
    "gpushare",
    "恒源云 云市场 (machine list API)",
    (15, 40),
    (route("GET", "/app/api/market/machine/list", _gpushare_list),),
    "/app/api/market/machine/list?models=-1&gpuName=&priceOrder=asc&pn=1&ps=50",
)


# -- PPIO 派欧云: GET /gpu-instance/openapi/v1/products, 1/100000 yuan per card-hour ---------

# (id, name, cpuPerGpu, memoryPerGpu, regions, price ¥/card-hour, spot ¥ or None, promo)
PPIO_PRODUCTS = (
    ("2b7c1e0f-rtx4090", "RTX 4090 24GB", 16, 62, ("华东-上海一区", "华南-广州二区"), "1.89", "0.95", False),
    ("4c2d9e11-rtx5090", "RTX 5090 32GB", 16, 90, ("华东-上海一区",), "2.59", "1.39", False),
    ("9d41aa02-h100", "H100 SXM 80GB", 20, 240, ("华东-上海一区",), "15.90", None, False),
    ("6a3f0b27-h20", "H20 96GB", 16, 200, ("华北-北京一区",), "6.90", None, False),
    ("5e0f7c33-a6000", "RTX A6000 48GB", 10, 100, ("华南-广州二区",), "0.99", None, False),
    ("77aa10c9-4090-promo", "RTX 4090 24GB", 16, 62, ("华东-上海一区",), "0.99", None, True),
)  # fmt: skip
PPIO_SCALE = D(100000)


def _ppio_products(ctx: Ctx, request: PlatformRequest) -> Answer:
    products = []
    for pid, name, cpu, mem, regions, price, spot, promo in PPIO_PRODUCTS:
        hourly = ctx.price(f"{name}:{pid}", D(price), CENT)
        # On a layout-change day prices come in yuan, not 1/100000 yuan: the adapter refuses them.
        scale = D(1) if ctx.layout_changed else PPIO_SCALE
        product: dict[str, Any] = {
            "id": pid, "name": name, "cpuPerGpu": cpu, "memoryPerGpu": mem, "diskPerGpu": 50,
            "availableDeploy": not ctx.sold_out(pid), "regions": list(regions),
            "price": float(hourly) if ctx.layout_changed else _int(hourly * scale),
            "monthlyPrice": [], "billingMethods": ["onDemand"],
        }  # fmt: skip
        if spot is not None:
            spot_price = ctx.price(f"{name}:{pid}:spot", D(spot), CENT)
            product["billingMethods"].append("spot")
            product["spotPrice"] = str(_int(spot_price * scale))
        if promo:
            product["activityProduct"] = True
        products.append(product)
    return json_answer({"data": products})


PPIO = Platform(
    "ppio",
    "PPIO 派欧云 GPU products (open API)",
    (10, 30),
    (route("GET", "/gpu-instance/openapi/v1/products", _ppio_products),),
    "/gpu-instance/openapi/v1/products?available=true",
)


# -- 优云智算: POST /?Action=GetCompShareInstancePrice, yuan per instance and period -----------

# GpuType -> list price of one card per hour, ¥ (without CPU and memory). 4090: the real answer
# (1.66 for the instance) less 16 cores and 64 GB at the rates below.
COMPSHARE_CARDS = {"4090": "1.40", "4090_48G": "2.30", "5090": "2.66", "3090": "0.95",
                   "3080Ti": "0.72", "2080Ti": "0.45", "A100": "4.60", "A800": "4.40",
                   "H20": "6.30", "P40": "0.40", "V100S": "1.10"}  # fmt: skip
CPU_PER_CORE_HOUR = D("0.01")
MEMORY_PER_GB_HOUR = D("0.0016")
# ChargeType -> list price of that period as a multiple of the hourly list price, from the real
# answer (Day 36.73 / 1.66, Month 1001.95 / 1.66, Spot 1.16 / 1.66); Postpay and Dynamic are
# the hourly price.
COMPSHARE_PERIODS = (("Postpay", D(1)), ("Dynamic", D(1)), ("Day", D("22.13")),
                     ("Month", D("603.6")), ("Spot", D("0.70")))  # fmt: skip
PAID_SHARE = D("0.95")  # the real answer: 1.58 paid of 1.66 listed, 34.9 of 36.73 ...


def _ucloud_error(code: int, message: str) -> Answer:
    return json_answer(
        {"Action": "GetCompShareInstancePriceResponse", "RetCode": code, "Message": message}
    )


def _whole(params: dict[str, Any], key: str, default: int) -> int | None:
    value = params.get(key, str(default))
    text = str(value)
    return int(text) if text.isdigit() else None


def _compshare_price(ctx: Ctx, request: PlatformRequest) -> Answer:
    actions = request.query.get("Action", [])
    params = request.json_body()
    if not isinstance(params, dict):
        return _ucloud_error(160, "Params not JSON")
    action = params.get("Action") or (actions[0] if actions else None)
    if action != "GetCompShareInstancePrice":
        return _ucloud_error(161, f"Action [{action}] not found")
    gpu_type = params.get("GpuType")
    if gpu_type not in COMPSHARE_CARDS:
        return _ucloud_error(8040, f"GpuType [{gpu_type}] is not available in this zone")
    gpus, cpu, memory = (
        _whole(params, "Gpu", 1),
        _whole(params, "Cpu", 16),
        _whole(params, "Memory", 65536),
    )
    if not gpus or not cpu or not memory:
        return _ucloud_error(230, "Params [Gpu/Cpu/Memory] should be positive integers")
    card = ctx.price(f"card:{gpu_type}", D(COMPSHARE_CARDS[gpu_type]), D("0.001"))
    hourly = card * gpus + CPU_PER_CORE_HOUR * cpu + MEMORY_PER_GB_HOUR * memory / 1024
    listed = [(charge, (hourly * times).quantize(CENT, ROUND_HALF_UP))
              for charge, times in COMPSHARE_PERIODS]  # fmt: skip
    paid = [{"ChargeType": c, "Instance": float((p * PAID_SHARE).quantize(CENT, ROUND_HALF_UP))}
            for c, p in listed]  # fmt: skip
    listing = [{"ChargeType": c, "Instance": float(p)} for c, p in listed]
    # On a layout-change day the paid prices come under another name: no PriceDetails.
    return json_answer({
        "Action": "GetCompShareInstancePriceResponse", "RetCode": 0,
        "PriceSet" if ctx.layout_changed else "PriceDetails": paid,
        "OriginalPriceDetails": listing, "ListPriceDetails": listing,
    })  # fmt: skip


COMPSHARE = Platform(
    "compshare",
    "优云智算 GetCompShareInstancePrice (UCloud API)",
    (20, 45),
    (route("POST", "/", _compshare_price),),
    "/?Action=GetCompShareInstancePrice (POST)",
)
