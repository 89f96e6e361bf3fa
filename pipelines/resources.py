"""The one Dagster resource: where the settings, and the warehouse handle, come from."""

import os
from pathlib import Path

import dagster as dg
from pydantic import PrivateAttr

from configuration.settings import Settings, load_settings
from warehouse.store.handle import Warehouse

# Resource field -> the environment variable `gpuprice up` and the deployment set for it.
ENV_FIELDS = {
    "home": "GPUPRICE_HOME",
    "profile": "GPUPRICE_PROFILE",
    "config_path": "GPUPRICE_CONFIG",
}


class GpupriceResource(dg.ConfigurableResource):
    """Settings for a run; empty fields fall back to GPUPRICE_* and the TOML file.

    The settings are loaded once per resource instance (Dagster makes one per run, or per
    step process), when Dagster sets the resource up, so that a bad environment fails before
    any step runs; every step opens the warehouse through :meth:`warehouse`, the one handle
    built from them."""

    home: str | None = None
    profile: str | None = None
    config_path: str | None = None

    _settings: Settings | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        self._settings = self._load()

    def settings(self) -> Settings:
        # Lazily too: a resource handed to a test context directly may not have been set up.
        if self._settings is None:
            self._settings = self._load()
        return self._settings

    def warehouse(self) -> Warehouse:
        """The warehouse handle of these settings."""
        return self.settings().warehouse

    def _load(self) -> Settings:
        home, profile, config_path = (
            _value(v) for v in (self.home, self.profile, self.config_path)
        )
        overrides = {k: v for k, v in (("home", home), ("profile", profile)) if v}
        return load_settings(Path(config_path) if config_path else None, **overrides)


def _value(field: str | None) -> str | None:
    # Dagster resolves an EnvVar field when it sets the resource up for a run; the definition
    # object itself still holds the variable's name, so read it here if called on that.
    return field.get_value() if isinstance(field, dg.EnvVar) else field


def resource_from_environment() -> GpupriceResource:
    """The resource of the module-level definitions: each field the environment sets is a
    ``dg.EnvVar`` (the UI shows where it comes from, and a run resolves it where it runs);
    an unset one stays empty, so load_settings' own default applies instead of an error."""
    fields = {field: dg.EnvVar(var) for field, var in ENV_FIELDS.items() if os.environ.get(var)}
    return GpupriceResource(**fields)
