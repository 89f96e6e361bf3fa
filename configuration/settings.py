"""One typed configuration: environment (home, profile) plus a TOML file.

Validated once at start; an invalid file fails with a message naming the bad key
and what is allowed, never with a traceback deep inside a run.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import re
import tomllib
import zoneinfo
from datetime import date
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, get_args
from urllib.parse import urlsplit

from croniter import croniter
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict
from selectolax.lexbor import LexborHTMLParser, SelectolaxError

from scrapers.dated_market import DatedMarket
from scrapers.fx import CONFIGURED_DEFAULT, FxRate
from scrapers.gpu_names import CANONICAL_GPUS
from scrapers.rows import HOURS_PER_MONTH, ParseError
from scrapers.sources import ADAPTER_TYPES
from scrapers.sources.skypilot import DEFAULT_CATALOG_VERSION as SKYPILOT_CATALOG_VERSION
from scrapers.sources.skypilot import DEFAULT_CLOUDS as SKYPILOT_CLOUDS
from scrapers.sources.skypilot import LIVE_URL as SKYPILOT_URL
from scrapers.sources.skypilot import SkypilotOptions
from scrapers.units import parse_period
from warehouse.store.config import (
    DEFAULT_MEMORY_LIMIT,
    DEFAULT_S3_REGION,
    DUCKLAKE_DATA_PATH_ENV,
    DUCKLAKE_ENV,
    S3_ENDPOINT_ENV,
    LakeTarget,
    S3Access,
    WarehouseConfig,
    configure,
    s3_bucket,
)

Profile = Literal["demo", "live"]
PROJECT_ROOT = Path(__file__).resolve().parent.parent
# The demo market (demo.market) answers for any day asked, as of 10:00 Beijing time, and
# serves only SIMULATED prices.
DEMO_MARKET = DatedMarket(dt.time(10, 0), zoneinfo.ZoneInfo("Asia/Shanghai"), simulated=True)
DEFAULT_CONFIG = PROJECT_ROOT / "gpuprice.toml"
# Notification URLs are secrets: only from the environment or a file outside the repository.
NOTIFY_URLS_ENV = "GPUPRICE_NOTIFY_URLS"
NOTIFY_URLS_FILE_ENV = "GPUPRICE_NOTIFY_URLS_FILE"
# Between URLs: whitespace, or a comma that starts the next URL (a comma inside a URL, as in
# mailto://…?to=a@x,b@y, stays).
_URL_SEPARATOR = re.compile(r"\s+|,\s*(?=[A-Za-z][A-Za-z0-9+.-]*://)")


class ConfigError(ValueError):
    """The configuration is invalid; the message says which key and what is allowed."""


# DuckDB's buffer manager keeps what a connection read cached up to 80 % of RAM by default:
# over five years of history a pipeline run peaked at 0.6-1.3 GB. A bounded cache (DuckDB
# spills beyond it to <file>.tmp) keeps it near 430 MB, of which ~270 MB is Python and
# Dagster; 192MB gave 490 MB (docs/PERFORMANCE.md). Steps that need more for a backlog take
# it themselves (warehouse.store.db.with_more_memory).
MEMORY_LIMIT_ENV = "GPUPRICE_DUCKDB_MEMORY_LIMIT"
# DuckDB itself reads "-5MB" as 80 % of RAM and "1 TB x" as 1 TB, so the size is checked
# here: a number and a unit, at least 64 MB (below that DuckDB cannot even migrate).
_MEMORY = re.compile(r"^(\d+(?:\.\d+)?)\s*(KB|MB|GB|TB|KIB|MIB|GIB|TIB)$", re.IGNORECASE)
_UNIT_MB = {"KB": 1e-3, "MB": 1, "GB": 1e3, "TB": 1e6, "KIB": 1.024e-3, "MIB": 1.048576}
_UNIT_MB |= {"GIB": 1073.741824, "TIB": 1099511.627776}


def duckdb_memory_limit() -> str:
    """DuckDB's memory limit for every warehouse connection, from the environment."""
    value = os.environ.get(MEMORY_LIMIT_ENV, "").strip() or DEFAULT_MEMORY_LIMIT
    match = _MEMORY.match(value)
    if not match or float(match.group(1)) * _UNIT_MB[match.group(2).upper()] < 64:
        raise ConfigError(
            f"{MEMORY_LIMIT_ENV}={value!r} is not a memory limit DuckDB can work in: use a size "
            f"of at least 64MB such as 256MB or 1GB, or unset it for {DEFAULT_MEMORY_LIMIT}"
        )
    return value


# The warehouse on DuckLake (docs/SCALING.md) instead of the DuckDB file: the ATTACH string of
# its catalog ("ducklake:postgres:dbname=lake host=pg ..." or "ducklake:/path/x.ducklake"),
# where its Parquet files go, and optionally the catalog's schema (several lakes in one
# PostgreSQL database). Environment only, like the memory limit: it is per deployment, and a
# PostgreSQL connection string may hold a password.
DUCKLAKE_SCHEMA_ENV = "GPUPRICE_DUCKLAKE_SCHEMA"
_SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
# An s3:// data path (AWS S3, or any S3-compatible store: MinIO, R2, GCS's interoperability
# API) reads its keys from the variables every AWS tool reads, and the store's address from
# GPUPRICE_S3_ENDPOINT when it is not AWS. Keys only: an IAM role's credential chain needs
# DuckDB's aws extension, which the product does not load.
S3_KEY_ENV, S3_SECRET_ENV, S3_TOKEN_ENV = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
)
S3_REGION_ENVS = ("AWS_REGION", "AWS_DEFAULT_REGION")
# A bucket name as the S3-compatible stores allow them (AWS: 3-63 of a-z 0-9 . -; older AWS
# buckets and GCS also upper case and _): catches "s3://", "s3:///x" and stray spaces.
_BUCKET = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{1,220}[A-Za-z0-9]$")
_REMOTE_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def _endpoint_problem(value: str) -> str | None:
    """What is wrong with ``value`` as an S3 endpoint URL, or None."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 -- the property raises ValueError for a port that is not one
    except ValueError as exc:
        return str(exc)
    if parts.scheme not in ("http", "https"):
        return "the scheme must be http:// or https://"
    if not parts.hostname:
        return "no host"
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return "a path, query or fragment: the bucket goes in the data path"
    if parts.username or parts.password:
        return f"user info: the keys go in {S3_KEY_ENV} and {S3_SECRET_ENV}"
    return None


def _s3_endpoint(value: str) -> tuple[str, bool]:
    """``GPUPRICE_S3_ENDPOINT`` (``http://host:port`` or ``https://host[:port]``) as DuckDB's
    ENDPOINT (host[:port]: DuckDB takes no scheme, but USE_SSL) and whether to use TLS."""
    problem = _endpoint_problem(value)
    if problem:
        shown = re.sub(r"//[^/@]*@", "//***@", value)  # a key written into the URL: not shown
        raise ConfigError(
            f"{S3_ENDPOINT_ENV}={shown!r} is not an S3 endpoint ({problem}): use the store's "
            "address such as http://127.0.0.1:9000 or https://minio.internal:9000, or unset "
            "it for AWS S3"
        )
    parts = urlsplit(value)
    return parts.netloc, parts.scheme == "https"


def _s3_access(data_path: str) -> S3Access:
    """The S3 settings of an s3:// ``data_path`` from the environment; ConfigError naming what
    is missing or malformed (never showing the secret)."""
    if not _BUCKET.match(s3_bucket(data_path)):
        raise ConfigError(
            f"{DUCKLAKE_DATA_PATH_ENV}={data_path!r} does not name an S3 bucket: use "
            "s3://bucket/prefix/ (the bucket: letters, digits, '.', '-' and '_')"
        )
    key_id = os.environ.get(S3_KEY_ENV, "").strip()
    secret = os.environ.get(S3_SECRET_ENV, "").strip()
    if not (key_id and secret):
        missing = " and ".join(
            n for n, v in ((S3_KEY_ENV, key_id), (S3_SECRET_ENV, secret)) if not v
        )
        raise ConfigError(
            f"{DUCKLAKE_DATA_PATH_ENV} is {data_path} but {missing} "
            f"{'is' if ' and ' not in missing else 'are'} not set: give the object store's "
            f"access key in {S3_KEY_ENV} and {S3_SECRET_ENV} (and {S3_ENDPOINT_ENV} for a store "
            "that is not AWS S3)"
        )
    region = next(
        (v for n in S3_REGION_ENVS if (v := os.environ.get(n, "").strip())), DEFAULT_S3_REGION
    )
    token = os.environ.get(S3_TOKEN_ENV, "").strip() or None
    endpoint_value = os.environ.get(S3_ENDPOINT_ENV, "").strip()
    endpoint, use_ssl = _s3_endpoint(endpoint_value) if endpoint_value else (None, True)
    return S3Access(key_id, secret, region, token, endpoint, use_ssl)


def ducklake_target() -> LakeTarget | None:
    """The configured DuckLake, or None for the DuckDB file (the default)."""
    catalog = os.environ.get(DUCKLAKE_ENV, "").strip()
    data_path = os.environ.get(DUCKLAKE_DATA_PATH_ENV, "").strip() or None
    schema = os.environ.get(DUCKLAKE_SCHEMA_ENV, "").strip() or None
    if not catalog:
        if data_path or schema:
            raise ConfigError(
                f"{DUCKLAKE_DATA_PATH_ENV} / {DUCKLAKE_SCHEMA_ENV} are set but {DUCKLAKE_ENV} "
                "is not: set it to the lake's catalog (ducklake:postgres:... or "
                "ducklake:/path/catalog.ducklake), or unset them to use the DuckDB file"
            )
        return None
    if not catalog.startswith("ducklake:") or catalog == "ducklake:":
        raise ConfigError(
            f"{DUCKLAKE_ENV}={catalog!r} is not a DuckLake catalog: use "
            "'ducklake:postgres:dbname=... host=...' or 'ducklake:/path/catalog.ducklake', "
            "or unset it to use the DuckDB file"
        )
    if schema is not None and not _SCHEMA_NAME.match(schema):
        raise ConfigError(
            f"{DUCKLAKE_SCHEMA_ENV}={schema!r} is not a schema name: letters, digits and _ "
            "(at most 63), not starting with a digit"
        )
    remote = _REMOTE_SCHEME.match(data_path or "")
    if remote and remote.group(1) != "s3":
        raise ConfigError(
            f"{DUCKLAKE_DATA_PATH_ENV}={data_path!r}: the data path is a local directory or "
            f"s3://bucket/prefix/ (any S3-compatible store, with {S3_ENDPOINT_ENV}); "
            f"{remote.group(1)}:// is not supported"
        )
    s3 = _s3_access(data_path) if remote else None
    return LakeTarget(catalog, data_path, schema, s3)


class _Strict(BaseModel):
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


Host = Annotated[str, AfterValidator(valid_host)]
HttpUrl = Annotated[str, AfterValidator(_http_url)]
# Source names become Dagster asset names (<name>_snapshot) and `source` values.
_SOURCE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


@cache
def _time_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


class ScheduleConfig(_Strict):
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


class HttpConfig(_Strict):
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
    user_agent: Annotated[str, AfterValidator(_header_text)] = (
        "gpuprice/0.1 (GPU rental price tracker; polite, hourly; +https://example.invalid/gpuprice)"
    )


class ExtractConfig(_Strict):
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


class CatalogConfig(_Strict):
    """``[sources.skypilot.catalog]``: which SkyPilot catalogs (``catalogs/<version>/<cloud>/
    vms.csv``) the skypilot source fetches (scrapers.sources.skypilot)."""

    clouds: list[str] = Field(default_factory=lambda: list(SKYPILOT_CLOUDS), min_length=1)
    catalog_version: str = SKYPILOT_CATALOG_VERSION

    @model_validator(mode="after")
    def _valid_names(self) -> CatalogConfig:
        SkypilotOptions(tuple(self.clouds), self.catalog_version)  # its ValueError says why
        return self


class SourceConfig(_Strict):
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

    @field_validator("secret_file")
    @classmethod
    def _secret_outside_repo(cls, value: Path | None) -> Path | None:
        return None if value is None else _secrets_path(value, "secret_file")

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


class FxConfig(_Strict):
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


class DemoMarketConfig(_Strict):
    host: Host = "127.0.0.1"
    jygpu_port: Annotated[int, Field(ge=0, le=65535)] = 8701
    smm_port: Annotated[int, Field(ge=0, le=65535)] = 8702
    # every other simulated platform, each under its own path: http://host:port/<source>
    platforms_port: Annotated[int, Field(ge=0, le=65535)] = 8703
    seed: Annotated[int, Field(ge=0, le=2**63 - 1)] = 20260904


class ServicesConfig(_Strict):
    host: Host = "127.0.0.1"
    dagster_port: Annotated[int, Field(gt=0, le=65535)] = 3000
    dashboard_port: Annotated[int, Field(gt=0, le=65535)] = 8501


class SqlConfig(_Strict):
    """``[sql]``: limits of ad-hoc queries (`gpuprice sql`, warehouse.read.sql)."""

    max_rows: Annotated[int, Field(gt=0, le=10_000_000)] = 10_000
    timeout_s: Annotated[float, Field(gt=0, le=3600)] = 30.0


class QuarantineConfig(_Strict):
    """``[quarantine]``: rows held back from the tables (warehouse.ingest.quarantine)."""

    # a price per card-hour more than this many times (or less than 1/this) the last
    # accepted value of the same listing is held
    jump_factor: Annotated[float, Field(gt=1, le=1000)] = 3.0
    # held jumps released when this many consecutive snapshots agree on the new level
    confirm_snapshots: Annotated[int, Field(ge=1, le=1000)] = 3

    def policy(self) -> Any:
        """A ``warehouse.ingest.quarantine.QuarantinePolicy`` (imported here only: settings stays
        free of the warehouse's dependencies)."""
        from warehouse.ingest.quarantine import QuarantinePolicy

        return QuarantinePolicy(self.jump_factor, self.confirm_snapshots)


class RetentionConfig(_Strict):
    """``[retention]``: raw pages older than ``raw_page_days`` lose their body (0: keep all).
    Parsed rows are never pruned."""

    raw_page_days: Annotated[int, Field(ge=0, le=36_500)] = 0


class Thresholds(_Strict):
    # How old the newest successful scrape of a source may be before it counts as stale.
    stale_after_hours: Annotated[float, Field(gt=0, le=8760)] = 3.0


class WatchRuleConfig(_Strict):
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


class AlertsConfig(_Strict):
    rules: list[WatchRuleConfig] = Field(default_factory=list)

    @field_validator("rules")
    @classmethod
    def _unique_names(cls, rules: list[WatchRuleConfig]) -> list[WatchRuleConfig]:
        names = [rule.name for rule in rules]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"rule names must be unique; repeated: {', '.join(twice)}")
        return rules


class NotifyConfig(_Strict):
    # A file outside the repository holding apprise URLs, one per line ('#' comments).
    # The URLs themselves never go in this file; GPUPRICE_NOTIFY_URLS(_FILE) override.
    urls_file: _PathText | None = None
    # The delivery sensor's tick: pending alerts (new or failed before) are sent then.
    retry_interval_s: Annotated[int, Field(ge=30, le=86_400)] = 300

    @field_validator("urls_file")
    @classmethod
    def _outside_repo(cls, value: Path | None) -> Path | None:
        return None if value is None else _secrets_path(value, "notify.urls_file")


def _secrets_path(value: Path, what: str) -> Path:
    try:
        path = value.expanduser()
        resolved = path.resolve()
    except (RuntimeError, OSError, ValueError) as exc:  # ~nobody, a loop of links, a NUL byte
        raise ValueError(f"{what} {str(value)[:80]!r} is not a usable path: {exc}") from None
    if not path.is_absolute():
        raise ValueError(f"{what} must be an absolute path (a secrets file outside the repository)")
    if resolved.is_relative_to(PROJECT_ROOT):
        raise ValueError(f"{what} {path} is inside the repository; keep secrets outside it")
    return path


DEFAULT_SOURCES: dict[str, dict[str, Any]] = {
    "jygpu": {"demo_url": "http://127.0.0.1:8701", "live_url": "https://www.jygpu.com"},
    "smm": {"demo_url": "http://127.0.0.1:8702", "live_url": "https://hq.smm.cn"},
    # live only (no demo_url): not part of the demo profile
    "vastai": {"live_url": "https://console.vast.ai"},
    "runpod": {"live_url": "https://api.runpod.io"},
    "matpool": {"live_url": "https://matgo.cn"},
    "autodl": {"live_url": "https://www.autodl.com"},
    "gpushare": {"live_url": "https://api.gpushare.com"},
    "ppio": {"live_url": "https://api.ppinfra.com"},
    "compshare": {"live_url": "https://api.compshare.cn"},
    "lambda": {"live_url": "https://cloud.lambdalabs.com"},
    "skypilot": {"live_url": SKYPILOT_URL},
}
GENERIC_ADAPTER = "generic"
SKYPILOT = "skypilot"


class FileConfig(_Strict):
    schedule: ScheduleConfig = ScheduleConfig()
    http: HttpConfig = HttpConfig()
    demo_market: DemoMarketConfig = DemoMarketConfig()
    services: ServicesConfig = ServicesConfig()
    thresholds: Thresholds = Thresholds()
    sql: SqlConfig = SqlConfig()
    quarantine: QuarantineConfig = QuarantineConfig()
    retention: RetentionConfig = RetentionConfig()
    sources: dict[str, SourceConfig] = Field(default_factory=dict)
    alerts: AlertsConfig = AlertsConfig()
    notify: NotifyConfig = NotifyConfig()
    fx: FxConfig = FxConfig()

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
            if kind not in ADAPTER_TYPES:
                known = ", ".join(sorted(ADAPTER_TYPES))
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


class EnvSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GPUPRICE_", extra="ignore")
    home: Path = Path("var")
    profile: Profile = "demo"
    config: Path | None = None


class Settings(_Strict):
    # built by load_settings from values already checked, or by tests from plain arguments
    model_config = ConfigDict(extra="forbid", frozen=True)
    home: Path
    profile: Profile
    config_path: Path | None
    file: FileConfig
    # how this process's warehouse connections open (environment only: per deployment)
    warehouse: WarehouseConfig = WarehouseConfig()

    @property
    def warehouse_path(self) -> Path:
        return self.home / "gpuprice.duckdb"

    @property
    def warehouse_label(self) -> str:
        """Where the warehouse is, for people: the file, or the DuckLake (no password)."""
        lake = self.warehouse.lake
        return f"DuckLake {lake.describe()}" if lake else str(self.warehouse_path)

    @property
    def dagster_home(self) -> Path:
        return self.home / "dagster"

    def fx_defaults(self) -> list[FxRate]:
        """The configured default rates, labelled as such (see ``[fx]``)."""
        fx = self.file.fx
        return [FxRate(fx.as_of, "USD", fx.usd_cny, f"{CONFIGURED_DEFAULT}: {fx.note}")]

    def enabled_sources(self) -> dict[str, SourceConfig]:
        """The sources of the active profile: enabled, with a URL for it. The bundled
        gpuprice.toml gives every source a demo_url on the demo market (one SIMULATED platform
        each); the built-in defaults give only jygpu and smm one, so a file that names no
        other source keeps the demo to those two."""
        return {
            name: src
            for name, src in self.file.sources.items()
            if src.enabled and src.url_for(self.profile) is not None
        }

    def dated_market(self) -> DatedMarket | None:
        """The market the profile reads when it answers for a day asked: the demo market in
        the demo profile (a backfill fetches past days, every row SIMULATED); None live."""
        return DEMO_MARKET if self.profile == "demo" else None

    def fetch_http(self) -> HttpConfig:
        """The HTTP settings snapshots fetch with: ``[http]``, except that the demo profile
        reads the bundled demo market, which is local and ours: no per-host pause."""
        if self.profile == "demo":
            return self.file.http.model_copy(update={"min_interval_s": 0})
        return self.file.http

    def source_url(self, name: str) -> str:
        try:
            return self.file.sources[name].url(self.profile)
        except ConfigError as exc:
            raise ConfigError(f"sources.{name}: {exc}") from None

    def source_secret(self, name: str, env: str, *, secret_file: bool = True) -> str | None:
        """A source's secret (cookie, token): ``$env``, else the file ``$env_FILE`` or
        ``[sources.<name>].secret_file`` (unless ``secret_file`` is False: a source with two
        secrets, a key pair, cannot keep both in one file). ``None`` when none is configured
        (the source is then "not configured"). Read when needed, never kept in the settings,
        never logged."""
        inline = os.environ.get(env, "").strip()
        if inline:
            from configuration.log_redaction import (
                register_secret,  # masked in log records from here on
            )

            register_secret(inline)
            return inline
        env_file = os.environ.get(f"{env}_FILE", "").strip()
        if env_file:
            try:
                path: Path | None = _secrets_path(Path(env_file), f"{env}_FILE")
            except ValueError as exc:
                raise ConfigError(str(exc)) from None
        else:
            source = self.file.sources.get(name) if secret_file else None
            path = source.secret_file if source is not None else None
        if path is None:
            return None
        try:
            secret = path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(
                f"secret file {path} of source {name} cannot be read: {exc.strerror or exc}"
            ) from None
        if secret:
            from configuration.log_redaction import (
                register_secret,  # masked in log records from here on
            )

            register_secret(secret)
        return secret or None

    def notify_urls(self) -> list[str]:
        """The apprise URLs to deliver alerts to: ``GPUPRICE_NOTIFY_URLS`` (separated by
        whitespace or commas), else the file ``GPUPRICE_NOTIFY_URLS_FILE`` or ``[notify].urls_file``.
        Secrets: read when needed, never kept in the settings, never logged."""
        urls = self._notify_urls()
        from configuration.log_redaction import (
            register_secret,  # masked in log records from here on
        )

        for url in urls:
            register_secret(url)
        return urls

    def _notify_urls(self) -> list[str]:
        inline = os.environ.get(NOTIFY_URLS_ENV, "").strip()
        if inline:
            return [u for u in _URL_SEPARATOR.split(inline) if u and u.strip(",")]
        env_file = os.environ.get(NOTIFY_URLS_FILE_ENV, "").strip()
        if env_file:
            try:
                path: Path | None = _secrets_path(Path(env_file), NOTIFY_URLS_FILE_ENV)
            except ValueError as exc:
                raise ConfigError(str(exc)) from None
        else:
            path = self.file.notify.urls_file
        if path is None:
            return []
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(
                f"notification URLs file {path} cannot be read: {exc.strerror or exc}"
            ) from None
        return [
            url
            for line in text.splitlines()
            if not line.lstrip().startswith("#")
            for url in _URL_SEPARATOR.split(line.strip())
            if url
        ]


# pydantic's errors for a value of the wrong type, where a quoted value is the likely slip
_WANTED = {
    "int_type": "numbers",
    "float_type": "numbers",
    "decimal_type": "numbers",
    "bool_type": "true or false",
}
_LINE_MAX = 300  # a huge bad value is not repeated whole


def _describe(error: ValidationError, model: type[BaseModel], origin: str) -> str:
    lines = [f"invalid configuration in {origin}:"]
    for err in error.errors():
        loc = ".".join(str(part) for part in err["loc"]) or "(top level)"
        message = err["msg"].removeprefix("Value error, ")  # our own validators' messages
        wanted = _WANTED.get(err["type"])
        if wanted is None and "Input should be a number" in message:  # _not_text
            wanted = "numbers"
        if wanted and isinstance(err.get("input"), str):
            message += f" (got the string {err['input'][:40]!r}: write {wanted} without quotes)"
        if err["type"] == "extra_forbidden":
            allowed = _allowed_keys(model, err["loc"][:-1])
            message = f"unknown key; allowed here: {', '.join(allowed)}"
            if err["loc"][0] == "notify":
                message += (
                    f" (notification URLs are secrets: set {NOTIFY_URLS_ENV}, or urls_file"
                    " to a file outside the repository)"
                )
        line = f"  {loc}: {message}"
        lines.append(line if len(line) <= _LINE_MAX else line[: _LINE_MAX - 1] + "…")
    return "\n".join(lines)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds: itself, or inside list[...], dict[str, ...], ... | None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _allowed_keys(model: type[BaseModel], parents: tuple[Any, ...]) -> list[str]:
    current: type[BaseModel] = model
    for part in parents:
        field = current.model_fields.get(str(part)) if isinstance(part, str) else None
        if field is None:
            # a list index or a dict key (e.g. a source's name): still the same element model
            continue
        current = _model_in(field.annotation) or current
    return sorted(current.model_fields)


def warehouse_config() -> WarehouseConfig:
    """How the warehouse opens, from the environment (ConfigError naming a bad value)."""
    return WarehouseConfig(memory_limit=duckdb_memory_limit(), lake=ducklake_target())


def _read_toml(path: Path) -> dict[str, Any]:
    """The TOML file as a dict; ConfigError saying what is wrong with the file itself."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"configuration file {path} does not exist") from None
    except (OSError, ValueError) as exc:  # a directory, no permission, a NUL byte in the name
        reason = getattr(exc, "strerror", None) or exc
        raise ConfigError(f"configuration file {path} cannot be read: {reason}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"configuration file {path} is not UTF-8 text (byte 0x{data[exc.start]:02x} on "
            f"line {line}): save it as UTF-8"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"configuration file {path} is not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(
            f"configuration file {path} nests arrays or tables too deeply to be a configuration"
        ) from None


def load_settings(config_path: Path | None = None, **env_overrides: Any) -> Settings:
    """Read the environment and the TOML file; raise ConfigError naming any bad key.

    Also hands the warehouse its configuration for this process
    (``warehouse.store.config.configure``), so every entry point that loads its settings opens
    the warehouse the way the environment says, and says what is wrong before it starts."""
    try:
        env = EnvSettings(**env_overrides)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, EnvSettings, "the environment (GPUPRICE_*)")) from None
    warehouse = warehouse_config()
    path = config_path or env.config
    if path is None and DEFAULT_CONFIG.exists():
        path = DEFAULT_CONFIG
    raw = _read_toml(Path(path)) if path is not None else {}
    try:
        file = FileConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, FileConfig, str(path))) from None
    home = env.home if env.home.is_absolute() else Path(os.getcwd()) / env.home
    configure(warehouse)
    return Settings(
        home=home, profile=env.profile, config_path=path, file=file, warehouse=warehouse
    )
