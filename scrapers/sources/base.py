"""What a source adapter is: a fetch plan plus a pure parser, and :class:`Adapter`, the base
every adapter is built on (its defaults, and ``parse`` through the shared parse path).

An adapter reads a page in two steps that :func:`scrapers.parse.read_page` runs: ``read``
splits the page into listings (a failure refuses the page), ``rows`` makes one listing's rows
(a failure refuses that listing only); ``finish`` may combine the rows of the page (vast.ai's
floor quotes, the generic extractor's numbering).

An adapter also declares the currency it lists prices in and the secrets its live site needs:
``secret`` (one value sent in a header: a login cookie, an API token) or ``key_pair`` (a public
and a private key its requests are signed with). An adapter whose secret only opens a better
door (an API beside a public page) also has ``public_fetch_plan``: what to fetch without it.
Secret *values* never reach the adapter: the pipeline reads them (``configuration.settings``)
and adds them to the requests at fetch time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import ClassVar, Literal, Protocol

from scrapers.parse import Item, Page, read_page
from scrapers.request import Request
from scrapers.rows import Row

# What an adapter's rows are: offers, spot quotes, or both (vast.ai).
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

    @property
    def envs(self) -> tuple[str]:
        """The variable to read (one: ``secret_file`` may hold it)."""
        return (self.env,)

    def headers(self, secret: str) -> dict[str, str]:
        return {self.header: self.template.format(secret.strip())}


@dataclass(frozen=True, slots=True)
class KeyPairSpec:
    """A public and a private key a source's requests are signed with (UCloud's for 优云智算).

    Nothing goes into a header: the pipeline reads both values, each from ``<env>`` or
    ``<env>_FILE`` (one ``secret_file`` cannot hold two keys), and sends
    ``sign(request, public, private)`` for every request of the plan, so the plan itself holds
    unsigned requests. Either key missing: the source is *not configured*.
    """

    public_env: str
    private_env: str
    what: str  # e.g. "UCloud API key pair (public and private key)"
    signer: Callable[[Request, str, str], Request]

    @property
    def envs(self) -> tuple[str, str]:
        """(public key variable, private key variable)."""
        return (self.public_env, self.private_env)

    def sign(self, request: Request, public_key: str, private_key: str) -> Request:
        """The request to send, signed with the two keys."""
        return self.signer(request, public_key, private_key)


class SourceAdapter(Protocol):
    name: str
    kind: Kind
    currency: str  # the currency prices are listed in ("CNY", "USD")
    secret: SecretSpec | None  # one value sent in a header
    key_pair: KeyPairSpec | None  # two keys the requests are signed with

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        """The requests to send for one snapshot, in order. No I/O."""
        ...

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        """The page's listings and facts. Pure; ``ParseError`` on a page it does not know."""
        ...

    def rows(self, item: Item, page: Page) -> Iterable[Row]:
        """The rows of one listing; any failure refuses that listing alone."""
        ...

    def finish(self, rows: list[Row], page: Page) -> list[Row]: ...

    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[Row]:
        """Rows of one page through the shared parse path; ``ParseError`` when it fails."""
        ...


class Adapter:
    """The base of every adapter: what most sources are (offers, listed in CNY, no secret),
    and ``parse`` through the shared parse path. A subclass sets ``name`` (and what differs)
    and writes ``fetch_plan``, ``read`` and ``rows``."""

    name: str
    kind: ClassVar[Kind] = "offers"
    currency: ClassVar[str] = "CNY"
    secret: ClassVar[SecretSpec | None] = None
    key_pair: ClassVar[KeyPairSpec | None] = None

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        raise NotImplementedError

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        raise NotImplementedError

    def rows(self, item: Item, page: Page) -> Iterable[Row]:
        raise NotImplementedError

    def finish(self, rows: list[Row], page: Page) -> list[Row]:
        """The page's rows together; as they are unless an adapter combines them."""
        return rows

    def parse(self, body: bytes, url: str, fetched_at: datetime) -> list[Row]:
        """The rows of one page the shared path accepts; ``ParseError`` when the page fails
        (:meth:`scrapers.parse.PageRead.failure`)."""
        return read_page(self, body, url, fetched_at).accepted()


def public_fetch_plan(
    adapter: SourceAdapter, base_url: str, as_of: date | None = None
) -> list[str | Request] | None:
    """What to fetch when the adapter's secret is not configured: the plan of its public
    pages if it has one (Lambda's pricing page beside its keyed API), else ``None`` (the
    source is then "not configured")."""
    public = getattr(adapter, "public_fetch_plan", None)
    return None if public is None else public(base_url, as_of)


def format_generation(adapter: SourceAdapter, body: bytes, url: str) -> str | None:
    """Which of its formats ``adapter`` reads ``body`` as, decided by content like its parser
    (its optional ``generation(body, url)``: RunPod's API and page generations, Lambda's API
    and pages, SkyPilot's catalog versions); ``None`` for an adapter with one format."""
    detect = getattr(adapter, "generation", None)
    return None if detect is None else detect(body, url)


def produces_offers(adapter: SourceAdapter) -> bool:
    return adapter.kind in ("offers", "offers+quotes")


def produces_quotes(adapter: SourceAdapter) -> bool:
    return adapter.kind in ("quotes", "offers+quotes")
