"""Which offers are prices the public pays: the one rule every metric, alert, rollup and page
reads offers by (issue 36). A listing's public price is its 'list' or 'promo' row (one of
the two; a promotion keeps the list price it replaced in ``list_price``); a member's price
('member', named in ``tier_name``) is kept beside it and read only where a query asks for
tiers. Rows loaded before tiers existed are list prices."""

from __future__ import annotations

# A SQL condition on an offer row (``public("o")`` for an aliased table).
PUBLIC = "coalesce(tier, 'list') <> 'member'"


def public(alias: str = "") -> str:
    """:data:`PUBLIC` on the offer table called ``alias`` in a query."""
    return f"coalesce({alias}.tier, 'list') <> 'member'" if alias else PUBLIC
