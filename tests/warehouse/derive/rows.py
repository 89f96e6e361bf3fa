"""Hand-made offer and quote rows for derived-metric tests."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from scrapers.rows import OfferRow, SpotQuoteRow


def offer(
    at: datetime,
    source: str,
    offer_id: str,
    gpu: str,
    billing: str,
    price: str,
    *,
    gpu_count: int = 1,
    list_price: str | None = None,
    stated: str | None = None,
    region: str | None = None,
    simulated: bool = True,
) -> OfferRow:
    value = Decimal(price)
    if billing == "bare_metal_monthly":
        unit, per_card_hour = "CNY/server-month", value / gpu_count / 720
    else:
        unit, per_card_hour = "CNY/card-hour", value / gpu_count
    return OfferRow(
        observed_at=at,
        source=source,
        offer_id=offer_id,
        gpu=gpu,
        gpu_name_raw=gpu,
        gpu_count=gpu_count,
        vram_gb=None,
        billing=billing,  # type: ignore[arg-type]
        price=value,
        currency="CNY",
        unit=unit,
        unit_raw="元/月" if billing == "bare_metal_monthly" else "元/时",
        per_card_hour=per_card_hour.quantize(Decimal("0.000001")),
        list_price=Decimal(list_price) if list_price else None,
        stated_discount=Decimal(stated) if stated else None,
        region=region,
        simulated=simulated,
    )


def listing(
    at: datetime,
    source: str,
    gpu: str,
    *,
    hourly: str | None = None,
    monthly: str | None = None,
    stated: str | None = None,
    bare_metal: str | None = None,
    region: str | None = None,
    simulated: bool = True,
    tag: str = "",
) -> list[OfferRow]:
    """A container listing (hourly and/or monthly rows) and/or an 8-card bare-metal server."""
    rows = []
    if hourly:
        rows.append(
            offer(
                at,
                source,
                f"ctr-{gpu}{tag}",
                gpu,
                "hourly",
                hourly,
                region=region,
                simulated=simulated,
            )
        )
    if monthly:
        rows.append(
            offer(
                at, source, f"ctr-{gpu}{tag}", gpu, "monthly", monthly,
                list_price=hourly, stated=stated, region=region, simulated=simulated,
            )
        )  # fmt: skip
    if bare_metal:
        rows.append(
            offer(
                at, source, f"bm-{gpu}{tag}", gpu, "bare_metal_monthly", bare_metal,
                gpu_count=8, region=region, simulated=simulated,
            )
        )  # fmt: skip
    return rows


def quote(
    at: datetime, source: str, gpu: str, region: str, price: str, *, simulated: bool = True
) -> SpotQuoteRow:
    return SpotQuoteRow(
        observed_at=at,
        source=source,
        gpu=gpu,
        gpu_name_raw=f"{gpu}@{region}",
        region=region,
        basis="整机包月均价",
        price=Decimal(price),
        unit_raw="元/卡时",
        per_card_hour=Decimal(price),
        simulated=simulated,
    )
