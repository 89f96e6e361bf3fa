"""One typed configuration: environment (home, profile) plus a TOML file.

Validated once at start; an invalid file fails with a message naming the bad key
and what is allowed, never with a traceback deep inside a run.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from croniter import croniter
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

Profile = Literal["demo", "live"]
PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = PROJECT_ROOT / "gpuprice.toml"


class ConfigError(ValueError):
    """The configuration is invalid; the message says which key and what is allowed."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScheduleConfig(_Strict):
    cron: str = "0 * * * *"
    timezone: str = "Asia/Shanghai"
    running: bool = True

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
    backoff_s: Annotated[float, Field(ge=0, le=60)] = 0.5
    max_retry_after_s: Annotated[float, Field(ge=0, le=600)] = 30.0
    min_interval_s: Annotated[float, Field(ge=0, le=600)] = 1.0
    max_page_bytes: Annotated[int, Field(gt=0)] = 8_000_000
    user_agent: str = (
        "gpuprice/0.1 (GPU rental price tracker; polite, hourly; +https://example.invalid/gpuprice)"
    )


class SourceConfig(_Strict):
    enabled: bool = True
    demo_url: str
    live_url: str

    def url(self, profile: Profile) -> str:
        return (self.demo_url if profile == "demo" else self.live_url).rstrip("/")


class DemoMarketConfig(_Strict):
    host: str = "127.0.0.1"
    jygpu_port: Annotated[int, Field(ge=0, le=65535)] = 8701
    smm_port: Annotated[int, Field(ge=0, le=65535)] = 8702
    seed: int = 20260904


class ServicesConfig(_Strict):
    host: str = "127.0.0.1"
    dagster_port: Annotated[int, Field(gt=0, le=65535)] = 3000
    dashboard_port: Annotated[int, Field(gt=0, le=65535)] = 8501


class Thresholds(_Strict):
    # How old the newest successful scrape of a source may be before it counts as stale.
    stale_after_hours: Annotated[float, Field(gt=0)] = 3.0


DEFAULT_SOURCES: dict[str, dict[str, Any]] = {
    "jygpu": {"demo_url": "http://127.0.0.1:8701", "live_url": "https://www.jygpu.com"},
    "smm": {"demo_url": "http://127.0.0.1:8702", "live_url": "https://hq.smm.cn"},
}


class FileConfig(_Strict):
    schedule: ScheduleConfig = ScheduleConfig()
    http: HttpConfig = HttpConfig()
    demo_market: DemoMarketConfig = DemoMarketConfig()
    services: ServicesConfig = ServicesConfig()
    thresholds: Thresholds = Thresholds()
    sources: dict[str, SourceConfig] = Field(default_factory=dict)

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
    home: Path
    profile: Profile
    config_path: Path | None
    file: FileConfig

    @property
    def warehouse_path(self) -> Path:
        return self.home / "gpuprice.duckdb"

    @property
    def dagster_home(self) -> Path:
        return self.home / "dagster"

    def enabled_sources(self) -> dict[str, SourceConfig]:
        return {name: src for name, src in self.file.sources.items() if src.enabled}

    def source_url(self, name: str) -> str:
        return self.file.sources[name].url(self.profile)


def _describe(error: ValidationError, model: type[BaseModel], origin: str) -> str:
    lines = [f"invalid configuration in {origin}:"]
    for err in error.errors():
        loc = ".".join(str(part) for part in err["loc"]) or "(top level)"
        message = err["msg"]
        if err["type"] == "extra_forbidden":
            allowed = _allowed_keys(model, err["loc"][:-1])
            message = f"unknown key; allowed here: {', '.join(allowed)}"
        lines.append(f"  {loc}: {message}")
    return "\n".join(lines)


def _allowed_keys(model: type[BaseModel], parents: tuple[Any, ...]) -> list[str]:
    current: Any = model
    for part in parents:
        field = current.model_fields.get(str(part)) if isinstance(current, type) else None
        if field is None:
            # inside dict[str, SourceConfig]: the key is a source name
            current = SourceConfig
            continue
        annotation = field.annotation
        current = annotation if isinstance(annotation, type) else SourceConfig
    return sorted(current.model_fields) if isinstance(current, type) else []


def load_settings(config_path: Path | None = None, **env_overrides: Any) -> Settings:
    """Read the environment and the TOML file; raise ConfigError naming any bad key."""
    try:
        env = EnvSettings(**env_overrides)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, EnvSettings, "the environment (GPUPRICE_*)")) from None
    path = config_path or env.config
    if path is None and DEFAULT_CONFIG.exists():
        path = DEFAULT_CONFIG
    raw: dict[str, Any] = {}
    if path is not None:
        try:
            raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"configuration file {path} does not exist") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"configuration file {path} is not valid TOML: {exc}") from None
    try:
        file = FileConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, FileConfig, str(path))) from None
    home = env.home if env.home.is_absolute() else Path(os.getcwd()) / env.home
    return Settings(home=home, profile=env.profile, config_path=path, file=file)
