"""The bundled demo market: simulated prices (``prices``, ``platforms``) served as real sites
(``server``): 极智算's and SMM's HTML, and every other source's format, one platform each.

Everything it serves is labelled SIMULATED; on the anchor day 2026-09-04 it shows the
seeds' published prices exactly.
"""

from demo.market.prices import ANCHOR_DAY, DEFAULT_SEED, PriceModel, price_model
from demo.market.server import PLATFORM_SOURCES, DemoMarket, render_page, serve_forever

__all__ = [
    "ANCHOR_DAY",
    "DEFAULT_SEED",
    "PLATFORM_SOURCES",
    "DemoMarket",
    "PriceModel",
    "price_model",
    "render_page",
    "serve_forever",
]
