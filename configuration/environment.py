"""The ``GPUPRICE_*`` environment: the home directory, the profile, the configuration file,
and how the warehouse opens (DuckDB's memory limit, the DuckLake; parsed by
warehouse.store.environment from the environment given here)."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

from configuration.errors import ConfigError
from configuration.schema import Profile
from configuration.secrets import PROJECT_ROOT
from warehouse.store import environment as warehouse_environment
from warehouse.store.config import WarehouseConfig

DEFAULT_CONFIG = PROJECT_ROOT / "gpuprice.toml"
MEMORY_LIMIT_ENV = warehouse_environment.MEMORY_LIMIT_ENV


class EnvSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GPUPRICE_", extra="ignore")
    home: Path = Path("var")
    profile: Profile = "demo"
    config: Path | None = None


def warehouse_config() -> WarehouseConfig:
    """How the warehouse opens, from this process's environment (ConfigError naming a bad
    value)."""
    try:
        return warehouse_environment.warehouse_config(os.environ)
    except warehouse_environment.WarehouseEnvironmentError as exc:
        raise ConfigError(str(exc)) from None
