"""The schema of ``gpuprice.toml``: one pydantic model per table, each value checked with a
message naming the bad key and what is allowed (configuration.settings turns pydantic's
errors into one ConfigError)."""

from __future__ import annotations

import ipaddress
import re
import zoneinfo
from datetime import date
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal
from urllib.parse import urlsplit

from croniter import croniter
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)
from selectolax.lexbor import LexborHTMLParser, SelectolaxError

from configuration.errors import ConfigError
from configuration.secrets import secrets_path
from scrapers.archive.cdx import WAYBACK
from scrapers.archive.github import GITHUB_API, GITHUB_RAW
from scrapers.archive.periods import Every
from scrapers.archive.tracker_csv import CsvMapping
from scrapers.gpu_names import CANONICAL_GPUS
from scrapers.rows import HOURS_PER_MONTH, ParseError
from scrapers.sources import ADAPTER_NAMES
from scrapers.sources.skypilot import DEFAULT_CATALOG_VERSION as SKYPILOT_CATALOG_VERSION
from scrapers.sources.skypilot import DEFAULT_CLOUDS as SKYPILOT_CLOUDS
from scrapers.sources.skypilot import LIVE_URL as SKYPILOT_URL
from scrapers.sources.skypilot import SkypilotOptions
from scrapers.units import parse_period
from warehouse.store.config import IndexGates

if TYPE_CHECKING:  # warehouse.ingest.quarantine loads DuckDB and Polars: only policy() needs it
    from warehouse.ingest.fx_rates import FxPolicy
    from warehouse.ingest.quarantine import QuarantinePolicy

Profile = Literal["demo", "live"]


class StrictModel(BaseModel):
    """A table of the file: unknown keys refused, frozen, no type coercion."""

    # strict: TOML has real numbers, booleans and dates, so "3" for a number or "false" for a
    # boolean is a mistake to name, not a value to convert (pydantic would turn "false" into
    # False and "yes" into True). allow_inf_nan: TOML's inf and nan are never a setting.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


def _not_text(value: Any) -> Any:
    # Decimal and Path fields are lax (TOML gives a float, a path is a string); a number
    # written as a string is still refused there.
    if isinstance(value, str | bool):
        raise ValueError("Input should be a number")
    return value


# TOML's float 7.1 becomes Decimal('7.1'); "7.1" (a string) is refused like every other number.
_Money = Annotated[Decimal, BeforeValidator(_not_text), Field(strict=False)]
# TOML has no path type: a path is a string.
_PathText = Annotated[Path, Field(strict=False)]

# RFC 1123 host names: labels of letters, digits and '-', not starting or ending with '-'.
_HOST_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


def valid_host(value: str) -> str:
    """An IP address or a host name to bind to or connect to (resolving it is left to the
    moment of use: DNS may be down at start)."""
    try:
        ipaddress.ip_address(value)
        return value
    except ValueError:
        pass
    labels = value.removesuffix(".").split(".")
    # a last label of digits only is an IP address that is not one (256.1.1.1, 999)
    if (
        len(value) <= 253
        and all(_HOST_LABEL.match(label) for label in labels)
        and not labels[-1].isdigit()
    ):
        return value
    raise ValueError(
        f"{value[:80]!r} is not an IP address or host name: use e.g. 127.0.0.1 (this machine "
        "only), 0.0.0.0 (every interface) or a name such as gpuprice.internal"
    )


def _http_url(value: str) -> str:
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 -- the property raises ValueError for a port that is not one
    except ValueError as exc:
        raise ValueError(f"{value[:80]!r} is not a URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"{value[:80]!r} is not an http:// or https:// URL with a host, "
            "e.g. https://www.jygpu.com or http://127.0.0.1:8701"
        )
    return value


def _header_text(value: str) -> str:
    # httpx sends header values as ASCII and refuses control characters mid-run
    if not re.fullmatch(r"[\x20-\x7e]{1,512}", value):
        raise ValueError("must be 1-512 printable ASCII characters (it is sent as a header)")
    return value


def valid_archived_url(value: str) -> str:
    """A page URL the Internet Archive can look up (host and path, scheme optional)."""
    if not re.fullmatch(r"(https?://)?[A-Za-z0-9.-]+(:\d+)?(/[^\s]*)?", value) or len(value) > 500:
        raise ValueError(
            f"{value[:80]!r} is not a page URL the archive can look up, e.g. www.runpod.io/pricing"
        )
    return value


Host = Annotated[str, AfterValidator(valid_host)]
HttpUrl = Annotated[str, AfterValidator(_http_url)]
# Source names become Dagster asset names (<name>_snapshot) and `source` values.
_SOURCE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


def is_source_name(name: str) -> bool:
    """Lower-case letters, digits and _, starting with a letter (at most 40)."""
    return bool(_SOURCE_NAME.match(name))


@cache
def _time_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


class ScheduleConfig(StrictModel):
    cron: str = "0 * * * *"
    timezone: str = "Asia/Shanghai"
    running: bool = True

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        if value not in _time_zones():
            raise ValueError(
                f"{value[:80]!r} is not an IANA time zone: use e.g. Asia/Shanghai or UTC"
            )
        return value

    @field_validator("cron")
    @classmethod
    def _five_fields(cls, value: str) -> str:
        if len(value.split()) != 5 or not croniter.is_valid(value):
            raise ValueError(
                f"{value!r} is not a cron expression with five fields, e.g. '0 * * * *'"
            )
        return value


class HttpConfig(StrictModel):
    connect_timeout_s: Annotated[float, Field(gt=0, le=60)] = 5.0
    read_timeout_s: Annotated[float, Field(gt=0, le=300)] = 15.0
    retries: Annotated[int, Field(ge=0, le=10)] = 3
    # When no connection can be made at all (DNS failure, refused, unroutable): fewer retries,
    # so that an unreachable site fails fast (the next scheduled run tries again).
    connect_retries: Annotated[int, Field(ge=0, le=10)] = 1
    backoff_s: Annotated[float, Field(ge=0, le=60)] = 0.5
    max_retry_after_s: Annotated[float, Field(ge=0, le=600)] = 30.0
    min_interval_s: Annotated[float, Field(ge=0, le=600)] = 1.0
    max_page_bytes: Annotated[int, Field(gt=0, le=1_000_000_000)] = 8_000_000
    # One fetch (its robots.txt, redirects, retries and the waits between them) ends within
    # this, as kind "timeout"; the per-host pacing waits (min_interval_s) do not count.
    total_deadline_s: Annotated[float, Field(gt=0, le=3600)] = 60.0
    # A body arriving slower than this on average over any rate_window_s fails as "timeout"
    # (0: no minimum rate).
    min_bytes_per_s: Annotated[int, Field(ge=0, le=1_000_000_000)] = 1024
    rate_window_s: Annotated[float, Field(gt=0, le=600)] = 10.0
    user_agent: Annotated[str, AfterValidator(_header_text)] = (
        "gpuprice/0.1 (GPU rental price tracker; polite, hourly; +https://example.invalid/gpuprice)"
    )


class ExtractConfig(StrictModel):
    """``[sources.<name>.extract]``: the generic extractor's settings (scrapers.sources.generic)."""

    paths: list[str] = Field(default_factory=lambda: [""])  # relative to the source's URL
    jsonld: bool = True  # schema.org Offer JSON-LD
    tables: bool = True  # HTML tables with GPU-model and price columns
    table_selector: str = "table"
    currency: Literal["CNY", "USD"] | None = None  # for prices that name none
    unit: str | None = None  # for prices whose cell, header and unit column name no period
    price_per: Literal["card", "machine"] = "machine"

    @field_validator("unit")
    @classmethod
    def _known_period(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                parse_period(value)
            except ParseError as exc:
                raise ValueError(str(exc)) from None
        return value

    @field_validator("table_selector")
    @classmethod
    def _css_selector(cls, value: str) -> str:
        try:
            LexborHTMLParser("<table></table>").css(value)
        except SelectolaxError:
            raise ValueError(f"{value[:80]!r} is not a CSS selector, e.g. 'table'") from None
        return value

    @model_validator(mode="after")
    def _something_to_extract(self) -> ExtractConfig:
        if not (self.jsonld or self.tables):
            raise ValueError("jsonld and tables are both off: nothing to extract")
        if not self.paths:
            raise ValueError('paths is empty: give at least one page ("" = the URL itself)')
        return self


class CatalogConfig(StrictModel):
    """``[sources.skypilot.catalog]``: which SkyPilot catalogs (``catalogs/<version>/<cloud>/
    vms.csv``) the skypilot source fetches (scrapers.sources.skypilot)."""

    clouds: list[str] = Field(default_factory=lambda: list(SKYPILOT_CLOUDS), min_length=1)
    catalog_version: str = SKYPILOT_CATALOG_VERSION

    @model_validator(mode="after")
    def _valid_names(self) -> CatalogConfig:
        SkypilotOptions(tuple(self.clouds), self.catalog_version)  # its ValueError says why
        return self


class SourceConfig(StrictModel):
    """One ``[sources.<name>]`` table. A source belongs to the profiles it has a URL for:
    ``demo_url`` → demo, ``live_url`` → live (a live-only source leaves ``demo_url`` out)."""

    enabled: bool = True
    adapter: str | None = None  # default: the adapter of the source's name; or "generic"
    demo_url: HttpUrl | None = None
    live_url: HttpUrl | None = None
    # A file (outside the repository) holding the source's secret (cookie or token), when it
    # is not in the environment variable the adapter names (e.g. GPUPRICE_SMM_COOKIE).
    secret_file: _PathText | None = None
    extract: ExtractConfig | None = None  # adapter = "generic" only
    catalog: CatalogConfig | None = None  # the skypilot source only
    # Follow redirects to loopback, link-local or private addresses (live profile; off: such
    # a redirect fails the fetch as "blocked").
    allow_private_redirects: bool = False
    # The source's pricing pages over the years, as the Internet Archive knows them (host and
    # path, e.g. "www.runpod.io/pricing"): what `gpuprice history wayback` reads by default.
    archived_urls: list[Annotated[str, AfterValidator(valid_archived_url)]] = Field(
        default_factory=list
    )

    @field_validator("secret_file")
    @classmethod
    def _secret_outside_repo(cls, value: Path | None) -> Path | None:
        return None if value is None else secrets_path(value, "secret_file")

    @model_validator(mode="after")
    def _has_a_url(self) -> SourceConfig:
        if self.demo_url is None and self.live_url is None:
            raise ValueError(
                "give demo_url and/or live_url (a source runs in the profiles it has a URL for)"
            )
        return self

    def adapter_options(self) -> dict[str, Any] | None:
        """What :func:`scrapers.sources.build_adapter` takes as ``options``: the generic
        extractor's ``extract`` table or the skypilot source's ``catalog`` table."""
        table = self.extract or self.catalog
        return None if table is None else table.model_dump()

    def url_for(self, profile: Profile) -> str | None:
        url = self.demo_url if profile == "demo" else self.live_url
        return None if url is None else url.rstrip("/")

    def url(self, profile: Profile) -> str:
        url = self.url_for(profile)
        if url is None:
            raise ConfigError(
                f"this source has no {profile}_url: it is not part of the {profile} profile"
            )
        return url


class FxConfig(StrictModel):
    """``[fx]``: USD → CNY. ``usd_cny`` is a *configured default*, stored in ``fx_rate`` under
    its date and labelled so; each USD figure is converted at the latest rate on or before its
    day, and a day older than every rate uses this default. ``source_url`` (optional) is a
    daily rate in the ``open.er-api.com`` JSON format, fetched at most once a day."""

    usd_cny: Annotated[_Money, Field(gt=0, le=100)] = Decimal("7.10")
    as_of: Annotated[date, Field(ge=date(2000, 1, 1), le=date(2100, 12, 31))] = date(2026, 9, 1)
    note: Annotated[str, Field(max_length=500)] = (
        "not a market rate; update usd_cny or set source_url for daily rates"
    )
    source_url: HttpUrl | None = None
    # The plausible band of CNY per USD: a rate outside it (999,999 or 0.000001; the JPY
    # figure for the USD one) is refused. The ECB's daily CNY/USD since 2005 lies between
    # about 6.0 and 8.3; the band leaves some 10% either side.
    usd_cny_min: Annotated[_Money, Field(gt=0, le=100)] = Decimal("5.5")
    usd_cny_max: Annotated[_Money, Field(gt=0, le=100)] = Decimal("9.5")
    # A rate that moves more than this share from the day before is held (fx_rate_held), as
    # a jump in a price is, until confirm_days rates in a row agree with it.
    max_daily_change: Annotated[float, Field(gt=0, le=1)] = 0.05
    confirm_days: Annotated[int, Field(ge=1, le=30)] = 3

    @model_validator(mode="after")
    def _default_within_band(self) -> FxConfig:
        if self.usd_cny_min >= self.usd_cny_max:
            raise ValueError(
                f"usd_cny_min ({self.usd_cny_min}) must be below usd_cny_max ({self.usd_cny_max})"
            )
        if not self.usd_cny_min <= self.usd_cny <= self.usd_cny_max:
            raise ValueError(
                f"usd_cny {self.usd_cny} lies outside the plausible band "
                f"{self.usd_cny_min} .. {self.usd_cny_max} (usd_cny_min, usd_cny_max)"
            )
        return self

    def policy(self) -> FxPolicy:
        """The bounds every stored rate is checked against (warehouse.ingest.fx_rates)."""
        from warehouse.ingest.fx_rates import FxPolicy

        return FxPolicy(
            {"USD": (self.usd_cny_min, self.usd_cny_max)},
            Decimal(str(self.max_daily_change)),
            self.confirm_days,
        )


class DemoMarketConfig(StrictModel):
    host: Host = "127.0.0.1"
    jygpu_port: Annotated[int, Field(ge=0, le=65535)] = 8701
    smm_port: Annotated[int, Field(ge=0, le=65535)] = 8702
    # every other simulated platform, each under its own path: http://host:port/<source>
    platforms_port: Annotated[int, Field(ge=0, le=65535)] = 8703
    seed: Annotated[int, Field(ge=0, le=2**63 - 1)] = 20260904


class ServicesConfig(StrictModel):
    host: Host = "127.0.0.1"
    dagster_port: Annotated[int, Field(gt=0, le=65535)] = 3000
    dashboard_port: Annotated[int, Field(gt=0, le=65535)] = 8501


class SqlConfig(StrictModel):
    """``[sql]``: limits of ad-hoc queries (`gpuprice sql`, warehouse.read.sql)."""

    max_rows: Annotated[int, Field(gt=0, le=10_000_000)] = 10_000
    timeout_s: Annotated[float, Field(gt=0, le=3600)] = 30.0


class QuarantineConfig(StrictModel):
    """``[quarantine]``: rows held back from the tables (warehouse.ingest.quarantine)."""

    # a price per card-hour more than this many times (or less than 1/this) the last
    # accepted value of the same listing is held
    jump_factor: Annotated[float, Field(gt=1, le=1000)] = 3.0
    # held jumps released when this many consecutive snapshots agree on the new level
    confirm_snapshots: Annotated[int, Field(ge=1, le=1000)] = 3


class ParseConfig(StrictModel):
    """``[parse]``: how much of a page may be rejected before the page itself fails
    (scrapers.parse: each listing that does not parse, or that the load refuses, is kept as a
    rejected row and the rest of the page loads)."""

    # a page whose share of rejected listings is above this fails whole (zero rows) and
    # counts for the drift detector: that many odd rows means the layout changed
    max_rejected_share: Annotated[float, Field(ge=0, le=1)] = 0.2


class RetentionConfig(StrictModel):
    """``[retention]``: raw pages older than ``raw_page_days`` lose their body (0: keep all).
    Parsed rows are never pruned."""

    raw_page_days: Annotated[int, Field(ge=0, le=36_500)] = 0


class Thresholds(StrictModel):
    # How old the newest successful scrape of a source may be before it counts as stale.
    stale_after_hours: Annotated[float, Field(gt=0, le=8760)] = 3.0


class WatchRuleConfig(StrictModel):
    """A procurement watch rule (see warehouse.derive.alerts and docs/METRICS.md)."""

    name: Annotated[str, Field(min_length=1, max_length=100)]
    gpu: str
    source: str | None = None  # a platform; omitted = the cheapest line across platforms
    usage_hours: Annotated[float, Field(gt=0, le=HOURS_PER_MONTH)]
    against: Literal["hourly", "monthly"] = "hourly"
    threshold_hours: Annotated[float, Field(gt=0, le=HOURS_PER_MONTH)] | None = None
    threshold_pct: Annotated[float, Field(gt=0, le=100)] | None = None
    hysteresis_hours: Annotated[float, Field(ge=0, le=HOURS_PER_MONTH)] = 10.0

    @field_validator("gpu")
    @classmethod
    def _known_gpu(cls, value: str) -> str:
        if value not in CANONICAL_GPUS:
            raise ValueError(
                f"{value!r} is not a card id; known: {', '.join(sorted(CANONICAL_GPUS))}"
            )
        return value

    @model_validator(mode="after")
    def _one_threshold(self) -> WatchRuleConfig:
        if (self.threshold_hours is None) == (self.threshold_pct is None):
            raise ValueError("give exactly one of threshold_hours, threshold_pct")
        return self


# The price index's rent modes and kinds (warehouse.derive.index_method: MODES, KINDS).
IndexMode = Literal["hourly", "daily", "weekly", "monthly", "bare_metal_monthly", "spot"]


class IndexMoveRuleConfig(StrictModel):
    """A watch rule on the price index (warehouse.derive.index_alerts, docs/INDEX.md): an
    alert when the card's index in ``billing`` moves ``move_pct`` percent or more over
    ``days`` days (its published matched-sample change), up or down."""

    name: Annotated[str, Field(min_length=1, max_length=100)]
    gpu: str
    billing: IndexMode = "hourly"
    data: Literal["real", "SIMULATED"] = "real"  # which series: never the two mixed
    move_pct: Annotated[float, Field(gt=0, le=1000)]
    days: Literal[1, 7, 30] = 30
    # once past the threshold, the move counts as over only this many points back inside it
    hysteresis_pct: Annotated[float, Field(ge=0, le=100)] = 2.0

    @field_validator("gpu")
    @classmethod
    def _known_gpu(cls, value: str) -> str:
        return WatchRuleConfig._known_gpu(value)  # the same card ids, the same message

    @model_validator(mode="after")
    def _hysteresis_inside(self) -> IndexMoveRuleConfig:
        if self.hysteresis_pct >= self.move_pct:
            raise ValueError("hysteresis_pct must be smaller than move_pct")
        return self


class AlertsConfig(StrictModel):
    rules: list[WatchRuleConfig] = Field(default_factory=list)
    # [[alerts.index_rules]]: moves of the price index
    index_rules: list[IndexMoveRuleConfig] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_across(self) -> AlertsConfig:
        names = [rule.name for rule in self.rules] + [rule.name for rule in self.index_rules]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"rule names must be unique; repeated: {', '.join(twice)}")
        return self

    @field_validator("rules")
    @classmethod
    def _unique_names(cls, rules: list[WatchRuleConfig]) -> list[WatchRuleConfig]:
        names = [rule.name for rule in rules]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"rule names must be unique; repeated: {', '.join(twice)}")
        return rules


class NotifyConfig(StrictModel):
    # A file outside the repository holding apprise URLs, one per line ('#' comments).
    # The URLs themselves never go in this file; GPUPRICE_NOTIFY_URLS(_FILE) override.
    urls_file: _PathText | None = None
    # The delivery sensor's tick: pending alerts (new or failed before) are sent then.
    retry_interval_s: Annotated[int, Field(ge=30, le=86_400)] = 300

    @field_validator("urls_file")
    @classmethod
    def _outside_repo(cls, value: Path | None) -> Path | None:
        return None if value is None else secrets_path(value, "notify.urls_file")


DEFAULT_SOURCES: dict[str, dict[str, Any]] = {
    "jygpu": {"demo_url": "http://127.0.0.1:8701", "live_url": "https://www.jygpu.com"},
    "smm": {"demo_url": "http://127.0.0.1:8702", "live_url": "https://hq.smm.cn"},
    # live only (no demo_url): not part of the demo profile
    "vastai": {"live_url": "https://console.vast.ai"},
    # Archived pricing pages, cited in docs/SOURCES.md ("Archived pages"): the URLs the
    # captures of tests/fixtures/real/runpod and .../lambda are of, and those the
    # henryzhangpku/gpu-price-index backfill reads (src/gpuidx/backfill/sources.py).
    "runpod": {
        "live_url": "https://api.runpod.io",
        "archived_urls": ["www.runpod.io/gpu-instance/pricing", "www.runpod.io/pricing"],
    },
    "matpool": {"live_url": "https://matgo.cn"},
    "autodl": {"live_url": "https://www.autodl.com"},
    "gpushare": {"live_url": "https://api.gpushare.com"},
    "ppio": {"live_url": "https://api.ppinfra.com"},
    "compshare": {"live_url": "https://api.compshare.cn"},
    "lambda": {
        "live_url": "https://cloud.lambdalabs.com",
        "archived_urls": [
            "lambdalabs.com/service/gpu-cloud",
            "lambdalabs.com/service/gpu-cloud/pricing",
            "lambda.ai/service/gpu-cloud",
            "lambda.ai/pricing",
        ],
    },
    "skypilot": {"live_url": SKYPILOT_URL},
}
GENERIC_ADAPTER = "generic"
SKYPILOT = "skypilot"


class CsvMappingConfig(StrictModel):
    """``[history.csv.<name>]``: which column of a tracker's CSV holds what
    (scrapers.archive.tracker_csv.CsvMapping); constants where the file has no column."""

    time: str
    provider: str
    gpu: str
    price: str
    vram: str | None = None
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")] = "USD"
    currency_column: str | None = None
    unit: str = "/hr"
    price_per: Literal["card", "machine"] = "card"
    gpu_count: str | None = None
    billing: Literal["hourly", "daily", "weekly", "monthly", "yearly", "spot"] = "hourly"
    billing_column: str | None = None
    billing_values: dict[str, str] = Field(default_factory=dict)
    market: str | None = None
    sources: dict[str, Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")]] = Field(
        default_factory=dict
    )
    citation: Annotated[str, Field(max_length=500)] = ""

    @field_validator("unit")
    @classmethod
    def _known_period(cls, value: str) -> str:
        try:
            parse_period(value)
        except ParseError as exc:
            raise ValueError(str(exc)) from None
        return value

    def mapping(self) -> CsvMapping:
        return CsvMapping(**self.model_dump())


# krisjiang-matrix/gpu_price_track, data/gpu_prices.csv (docs/SOURCES.md, "Trackers"): the
# tracker's raw_label names the card with its memory for Lambda; for RunPod the memory is in
# notes ("80 GB VRAM, …"). Prices are USD per GPU-hour, on demand.
GPU_PRICE_TRACK = {
    "time": "observed_at_utc",
    "provider": "provider",
    "gpu": "raw_label",
    "vram": "notes",
    "price": "price_usd_per_gpu_hour",
    "currency": "USD",
    "unit": "/hr",
    "price_per": "card",
    "billing": "hourly",
    "market": "market",
    "citation": "krisjiang-matrix/gpu_price_track, data/gpu_prices.csv "
    "(https://github.com/krisjiang-matrix/gpu_price_track)",
}


class HistoryConfig(StrictModel):
    """``[history]``: `gpuprice history wayback | skypilot | csv` (docs/SOURCES.md)."""

    # Between two requests to one host: at most one a second by default (the archive and
    # GitHub are shared public services).
    min_interval_s: Annotated[float, Field(ge=0, le=600)] = 1.0
    every: Every = "week"  # one capture per day | week | month
    archive_url: HttpUrl = WAYBACK
    github_api_url: HttpUrl = GITHUB_API
    github_raw_url: HttpUrl = GITHUB_RAW
    # A file (outside the repository) holding a GitHub token, when GITHUB_TOKEN is not set.
    github_token_file: _PathText | None = None
    csv: dict[str, CsvMappingConfig] = Field(
        default_factory=lambda: {"gpu_price_track": CsvMappingConfig(**GPU_PRICE_TRACK)}
    )

    @field_validator("github_token_file")
    @classmethod
    def _token_outside_repo(cls, value: Path | None) -> Path | None:
        return None if value is None else secrets_path(value, "history.github_token_file")

    @model_validator(mode="before")
    @classmethod
    def _keep_bundled_mappings(cls, data: Any) -> Any:
        # A file that names its own mappings keeps the bundled one (unless it redefines it).
        if isinstance(data, dict) and isinstance(data.get("csv"), dict):
            return data | {"csv": {"gpu_price_track": GPU_PRICE_TRACK} | data["csv"]}
        return data


class IndexConfig(StrictModel):
    """``[index]``: the price index's gates (docs/INDEX.md, "Withholding")."""

    # a day's value is published when at least this many platforms quote that day
    min_platforms: Annotated[int, Field(ge=1, le=100)] = 3

    def gates(self) -> IndexGates:
        return IndexGates(min_platforms=self.min_platforms)


class FileConfig(StrictModel):
    schedule: ScheduleConfig = ScheduleConfig()
    http: HttpConfig = HttpConfig()
    demo_market: DemoMarketConfig = DemoMarketConfig()
    services: ServicesConfig = ServicesConfig()
    thresholds: Thresholds = Thresholds()
    sql: SqlConfig = SqlConfig()
    quarantine: QuarantineConfig = QuarantineConfig()
    parse: ParseConfig = ParseConfig()
    retention: RetentionConfig = RetentionConfig()
    sources: dict[str, SourceConfig] = Field(default_factory=dict)
    alerts: AlertsConfig = AlertsConfig()
    notify: NotifyConfig = NotifyConfig()
    fx: FxConfig = FxConfig()
    history: HistoryConfig = HistoryConfig()
    index: IndexConfig = IndexConfig()

    def load_policy(self) -> QuarantinePolicy:
        """How the load screens a page's rows: ``[quarantine]`` and ``[parse]``
        (warehouse.ingest.quarantine, warehouse.ingest.load)."""
        from warehouse.ingest.quarantine import QuarantinePolicy

        q = self.quarantine
        return QuarantinePolicy(q.jump_factor, q.confirm_snapshots, self.parse.max_rejected_share)

    @field_validator("sources")
    @classmethod
    def _source_names(cls, sources: dict[str, SourceConfig]) -> dict[str, SourceConfig]:
        for name in sources:
            if not _SOURCE_NAME.match(name):
                raise ValueError(
                    f"{name[:80]!r} is not a source name: lower-case letters, digits and _, "
                    "starting with a letter (at most 40)"
                )
        return sources

    @model_validator(mode="after")
    def _adapters_exist(self) -> FileConfig:
        for name, src in self.sources.items():
            kind = src.adapter or name
            if src.catalog is not None and kind != SKYPILOT:
                raise ValueError(f"sources.{name}.catalog: only for the {SKYPILOT} source")
            if kind == GENERIC_ADAPTER:
                continue
            if kind not in ADAPTER_NAMES:
                known = ", ".join(sorted(ADAPTER_NAMES))
                raise ValueError(
                    f"sources.{name}: no adapter named {kind!r}; built-in sources: {known}; "
                    f"a site without one sets adapter = {GENERIC_ADAPTER!r}"
                )
            if kind != name:
                raise ValueError(
                    f"sources.{name}.adapter: {kind!r} belongs to the source of that name; "
                    f"use adapter = {GENERIC_ADAPTER!r} for another site"
                )
            if src.extract is not None:
                raise ValueError(f"sources.{name}.extract: only for adapter = {GENERIC_ADAPTER!r}")
        return self

    @model_validator(mode="before")
    @classmethod
    def _merge_default_sources(cls, data: Any) -> Any:
        # A file that mentions one source, or one key of it, keeps the other defaults.
        if not isinstance(data, dict):
            return data
        given = data.get("sources", {})
        if not isinstance(given, dict):
            return data
        merged = {name: dict(values) for name, values in DEFAULT_SOURCES.items()}
        for name, values in given.items():
            merged[name] = (merged.get(name, {}) | values) if isinstance(values, dict) else values
        return data | {"sources": merged}
