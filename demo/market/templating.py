"""The one Jinja2 environment every demo-market page is rendered with (``templates/``)."""

from __future__ import annotations

from decimal import Decimal

import jinja2


def _yuan2(value: Decimal) -> str:
    return f"{value:.2f}"


def _yuan0(value: Decimal) -> str:
    return f"{value:,.0f}"


def _signed2(value: Decimal) -> str:
    return f"{value:+.2f}" if value else "0.00"


TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("demo.market", "templates"),
    autoescape=jinja2.select_autoescape(["html"]),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
TEMPLATES.filters.update(yuan2=_yuan2, yuan0=_yuan0, signed2=_signed2)
