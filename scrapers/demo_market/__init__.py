"""The bundled demo market: simulated prices (``prices``) served as real HTML sites (``server``).

Everything it serves is labelled SIMULATED; on the anchor day 2026-09-04 it shows the
seeds' published prices exactly.
"""

from scrapers.demo_market.prices import ANCHOR_DAY, DEFAULT_SEED, PriceModel, price_model
from scrapers.demo_market.server import DemoMarket, render_page, serve_forever

__all__ = [
    "ANCHOR_DAY",
    "DEFAULT_SEED",
    "DemoMarket",
    "PriceModel",
    "price_model",
    "render_page",
    "serve_forever",
]
