"""One typed configuration: environment (home, profile) plus a TOML file.

Validated once at start; an invalid file fails with a message naming the bad key
and what is allowed, never with a traceback deep inside a run. The file's schema is
configuration.schema, the environment configuration.environment, the secrets
configuration.secrets.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import tomllib
import zoneinfo
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, ValidationError

from configuration import secrets
from configuration.environment import DEFAULT_CONFIG, EnvSettings, warehouse_config
from configuration.errors import ConfigError
from configuration.schema import FileConfig, HttpConfig, Profile, SourceConfig, StrictModel
from configuration.secrets import NOTIFY_URLS_ENV
from scrapers.dated_market import DatedMarket
from scrapers.fx import CONFIGURED_DEFAULT, FxRate
from warehouse.store.config import WarehouseConfig
from warehouse.store.handle import Warehouse

__all__ = ["ConfigError", "Settings", "load_settings"]

# The demo market (demo.market) answers for any day asked, as of 10:00 Beijing time, and
# serves only SIMULATED prices.
DEMO_MARKET = DatedMarket(dt.time(10, 0), zoneinfo.ZoneInfo("Asia/Shanghai"), simulated=True)


class Settings(StrictModel):
    # built by load_settings from values already checked, or by tests from plain arguments
    model_config = ConfigDict(extra="forbid", frozen=True)
    home: Path
    profile: Profile
    config_path: Path | None
    file: FileConfig
    # how the warehouse opens (environment only: per deployment)
    warehouse_config: WarehouseConfig = WarehouseConfig()

    @property
    def warehouse(self) -> Warehouse:
        """The warehouse handle every entry point builds once and passes on: the DuckDB
        file in the home (which also places the serving copy and spill files on a DuckLake)
        and how it opens."""
        # the environment says how it opens; [index] gives the price index's gates
        config = dataclasses.replace(self.warehouse_config, index=self.file.index.gates())
        return Warehouse(self.home / "gpuprice.duckdb", config)

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
        source = self.file.sources.get(name) if secret_file else None
        return secrets.source_secret(name, env, source.secret_file if source else None)

    def notify_urls(self) -> list[str]:
        """The apprise URLs to deliver alerts to: ``GPUPRICE_NOTIFY_URLS`` (separated by
        whitespace or commas), else the file ``GPUPRICE_NOTIFY_URLS_FILE`` or ``[notify].urls_file``.
        Secrets: read when needed, never kept in the settings, never logged."""
        return secrets.notify_urls(self.file.notify.urls_file)

    def secret_values(self) -> list[str]:
        """Every secret value this configuration can hand out, whatever the profile: each
        source's secret or both halves of its key pair (from its variable or file), the
        notification URLs and the parts of them that carry tokens, and the deployment's own
        credentials (``secrets.DEPLOYMENT_SECRETS``). A run masks each of them by value
        (scrapers.redaction) before anything it writes, prints, logs or sends. Read when
        called, never kept in the settings."""
        # Imported here: only a run needs the adapters; the dashboard loads settings too.
        from scrapers.sources import build_adapter

        needs: list[secrets.SourceSecrets] = []
        for name, src in self.file.sources.items():
            adapter = build_adapter(name, src.adapter, src.adapter_options())
            spec = adapter.key_pair or adapter.secret
            if spec is not None:
                needs.append((name, tuple(spec.envs), src.secret_file))
        return secrets.secret_values(needs, self.file.notify.urls_file)


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
    if len(lines) == 2:  # one bad key: one line, as every other error of the CLI
        return f"{lines[0]} {lines[1].strip()}"
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
    """Read the environment and the TOML file; raise ConfigError naming any bad key (also of
    the warehouse's environment, so that an entry point says what is wrong before it starts;
    ``Settings.warehouse`` is then the handle it passes on)."""
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
    return Settings(
        home=home, profile=env.profile, config_path=path, file=file, warehouse_config=warehouse
    )
