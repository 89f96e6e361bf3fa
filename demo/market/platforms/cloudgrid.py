"""云格算力 CloudGrid, SIMULATED: a GPU cloud with no adapter of its own, one HTML pricing
table (``/pricing``) that the generic extractor reads (``adapter = "generic"`` in
``gpuprice.toml``, with its ``[sources.cloudgrid.extract]`` table). A demo-only source: no
such company is meant. The page carries the SIMULATED banner and meta tag.

Prices are per listing (the row's card count), in yuan: 按量 per hour, 包月 per month.
Anchor-day levels sit near the seeds' 极智算 figures (4090 ¥1.96/时, 910B ¥4.47/时, H20
¥7.75/时) and seed 002's A100 80GB ("8卡月租约6-7万", ¥11–12 per card-hour).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from demo.market.platforms.base import Answer, Platform, PlatformRequest, route
from demo.market.platforms.model import Ctx
from demo.market.templating import TEMPLATES

__all__ = ["CLOUDGRID"]

D = Decimal
CENT = D("0.01")

# (model, VRAM, cards, region, ¥ per card-hour on the anchor day, monthly share of 720 h)
ROWS = (
    ("NVIDIA GeForce RTX 4090", "24GB", 1, "华东-杭州", "1.85", D("0.72")),
    ("NVIDIA GeForce RTX 4090", "24GB", 8, "华东-杭州", "1.79", D("0.70")),
    ("NVIDIA GeForce RTX 5090", "32GB", 1, "华东-上海", "2.69", D("0.74")),
    ("NVIDIA H20", "96GB", 8, "华北-乌兰察布", "7.35", D("0.78")),
    ("昇腾910B", "64GB", 1, "华南-深圳", "4.20", D("0.80")),
    ("A100-SXM4-80GB", "80GB", 8, "华北-北京", "11.30", D("0.82")),
)

HEADERS = ("按量价格(元/时)", "包月价格(元/月)")


def _pricing(ctx: Ctx, request: PlatformRequest) -> Answer:
    rows = []
    for model, vram, cards, region, per_card, monthly_share in ROWS:
        key = f"{model}:{cards}:{region}"
        hourly = ctx.price(key, D(per_card), CENT) * cards
        monthly = (hourly * 720 * monthly_share).quantize(D(10), ROUND_HALF_UP)
        rows.append({
            "model": model, "vram": vram, "cards": cards, "region": region,
            "hourly": f"{hourly:.2f}",
            "monthly": f"{monthly:,.0f}",
            "stock": "售罄" if ctx.sold_out(key) else "有货",
        })  # fmt: skip
    # On a layout-change day the redesigned table drops the units from its headers: a price
    # whose period is stated nowhere is an error for the extractor.
    headers = ("价格", "优惠价") if ctx.layout_changed else HEADERS
    html = TEMPLATES.get_template("cloudgrid_pricing.html").render(
        updated=ctx.moment.strftime("%Y-%m-%d %H:%M"), rows=rows, headers=headers
    )
    return Answer(200, "text/html; charset=utf-8", html.encode("utf-8"))


CLOUDGRID = Platform(
    "cloudgrid",
    "云格算力 CloudGrid pricing table (generic extractor)",
    (18, 45),
    (route("GET", "/pricing", _pricing),),
    "/pricing",
)
