"""The one Dagster resource: where the settings come from."""

from pathlib import Path

import dagster as dg

from gpuprice.settings import Settings, load_settings


class GpupriceResource(dg.ConfigurableResource):
    """Settings for a run; empty fields fall back to GPUPRICE_* and the TOML file."""

    home: str | None = None
    profile: str | None = None
    config_path: str | None = None

    def settings(self) -> Settings:
        overrides = {k: v for k, v in (("home", self.home), ("profile", self.profile)) if v}
        return load_settings(Path(self.config_path) if self.config_path else None, **overrides)
