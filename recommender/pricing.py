"""Rent modes and their monthly cost, and the hourly-vs-bare-metal breakeven."""

from __future__ import annotations

import math
from dataclasses import dataclass

from recommender.cards import CardPrice

# A monthly plan is paid for the whole month whether used or not. 30 days x 24 h is the
# convention seed 000's table uses (H20 2 cards x ¥6.20 x 720 h = ¥8,928).
MONTH_HOURS = 720.0

HOURLY = "hourly"
MONTHLY_PLAN = "monthly_plan"
BARE_METAL = "bare_metal"

MODE_LABELS = {
    HOURLY: "hourly container",
    MONTHLY_PLAN: "monthly-plan container",
    BARE_METAL: "bare-metal server, monthly",
}


@dataclass(frozen=True)
class ModeCost:
    mode: str
    monthly_cny: float
    cards_rented: int
    servers: int
    formula: str  # the arithmetic, with units, so the figure can be checked by hand

    @property
    def label(self) -> str:
        return MODE_LABELS[self.mode]


def rent_modes(price: CardPrice, cards: int, hours_per_month: float) -> list[ModeCost]:
    """Monthly cost of `cards` cards in every mode the listing offers, cheapest first."""
    out: list[ModeCost] = []
    if price.hourly_cny is not None:
        cost = price.hourly_cny * cards * hours_per_month
        out.append(
            ModeCost(
                HOURLY,
                cost,
                cards,
                0,
                f"¥{price.hourly_cny:.2f}/card-h x {cards} card(s) x {hours_per_month:g} h",
            )
        )
    if price.monthly_plan_cny_per_hour is not None:
        billed = max(MONTH_HOURS, hours_per_month)
        cost = price.monthly_plan_cny_per_hour * cards * billed
        out.append(
            ModeCost(
                MONTHLY_PLAN,
                cost,
                cards,
                0,
                f"¥{price.monthly_plan_cny_per_hour:.2f}/card-h x {cards} card(s) x "
                f"{billed:g} h billed whether used or not",
            )
        )
    if price.bare_metal_cny_per_server_month is not None:
        # Bare metal is rented as whole servers: a 3-card need still pays for 8.
        servers = math.ceil(cards / price.cards_per_server)
        cost = price.bare_metal_cny_per_server_month * servers
        out.append(
            ModeCost(
                BARE_METAL,
                cost,
                servers * price.cards_per_server,
                servers,
                f"{servers} server(s) x ¥{price.bare_metal_cny_per_server_month:,.0f}/month "
                f"({price.cards_per_server} cards each)",
            )
        )
    return sorted(out, key=lambda m: (m.monthly_cny, m.mode))


@dataclass(frozen=True)
class Breakeven:
    """Seed 003 §六: bare-metal per-card month / hourly price = hours above which a
    fully used bare-metal card is cheaper. 4090: ¥7,920 / 8 = ¥990 -> 990 / 1.96 ~ 505 h
    vs hourly, 990 / 1.57 ~ 630 h vs the monthly-plan rate."""

    bare_metal_cny_per_card_month: float
    hours_vs_hourly: float | None
    hours_vs_monthly_plan: float | None


def breakeven(price: CardPrice) -> Breakeven | None:
    if price.bare_metal_cny_per_server_month is None:
        return None
    per_card = price.bare_metal_cny_per_server_month / price.cards_per_server
    vs_hourly = per_card / price.hourly_cny if price.hourly_cny else None
    monthly = price.monthly_plan_cny_per_hour
    vs_monthly = per_card / monthly if monthly else None
    return Breakeven(per_card, vs_hourly, vs_monthly)
