"""What a source adapter is: a fetch plan plus a pure parser.

An adapter may also declare the secret its live site needs (a login cookie, an API token)
and the currency it lists prices in. An adapter whose secret only opens a better door (an
API beside a public page) also has ``public_fetch_plan``: what to fetch without it. The secret's *value* never reaches the adapter: the
pipeline reads it (``configuration.settings``) and adds it to the request headers at fetch time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal, Protocol

from scrapers.http import Request
from scrapers.rows import Row

Kind = Literal["offers", "quotes", "offers+quotes"]


@dataclass(frozen=True, slots=True)
class SecretSpec:
    """A secret a source needs in the ``live`` profile, and where it goes in the request.

    Read from ``env`` (e.g. ``GPUPRICE_SMM_COOKIE``), else from the file named by
    ``env + "_FILE"`` or ``[sources.<name>].secret_file`` (outside the repository). Without it
    the source is *not configured*: its run is recorded as ``skipped``, not ``failed``.
    """

    env: str
    header: str
    what: str  # e.g. "login cookie", "developer token"
    template: str = "{}"  # e.g. "Bearer {}"

    def headers(self, secret: str) -> dict[str, str]:
        return {self.header: self.template.format(secret.strip())}


class SourceAdapter(Protocol):
    name: str
    kind: Kind
    currency: str  # the currency prices are listed in ("CNY", "USD")
    secret: SecretSpec | None

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        """The requests to send for one snapshot, in order. No I/O."""
        ...

    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[Row]:
        """Rows of one page. Pure; raises ``ParseError`` on anything it does not recognise."""
        ...


def public_fetch_plan(
    adapter: SourceAdapter, base_url: str, as_of: date | None = None
) -> list[str | Request] | None:
    """What to fetch when the adapter's secret is not configured: the plan of its public
    pages if it has one (Lambda's pricing page beside its keyed API), else ``None`` (the
    source is then "not configured")."""
    public = getattr(adapter, "public_fetch_plan", None)
    return None if public is None else public(base_url, as_of)


def produces_offers(adapter: SourceAdapter) -> bool:
    return adapter.kind in ("offers", "offers+quotes")


def produces_quotes(adapter: SourceAdapter) -> bool:
    return adapter.kind in ("quotes", "offers+quotes")
