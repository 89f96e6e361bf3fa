"""The one Dagster resource: where the settings, the warehouse handle and the run's secret
redactor come from, and what holds the warehouse's lease for the whole run."""

import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import dagster as dg
from pydantic import PrivateAttr

from configuration.log_redaction import register_secrets
from configuration.settings import Settings, load_settings
from scrapers.redaction import Redactor
from warehouse.store.db import WarehouseBusy
from warehouse.store.handle import Warehouse
from warehouse.store.lease import in_use

# How long a run waits for a restore that holds the warehouse before it gives up (skipped).
LEASE_WAIT_S = 600.0

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
    # source -> the URL it reads in this run instead of its configured one (a command's own
    # demo market on free ports: demo.autostart); empty under the daemon
    source_urls: dict[str, str] = {}

    _settings: Settings | None = PrivateAttr(default=None)
    _redactor: Redactor | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        self._settings = self._load()
        self.redactor()  # before any step logs: every record of the run is masked

    @contextmanager
    def yield_for_execution(self, context: dg.InitResourceContext) -> Iterator["GpupriceResource"]:
        """The resource for one run, holding the warehouse's "in use" lease
        (warehouse.store.lease) from its first step to its last, whoever started it: the
        daemon (the schedule, the UI's launchpad) or a command. The jobs run in one process
        (pipelines.definitions: the in-process executor), so this is set up once per run.
        A restore is refused meanwhile; a run that starts during a restore waits for it,
        saying so in its log, and fails saying it was skipped if the restore outlasts
        :data:`LEASE_WAIT_S`."""
        self.setup_for_execution(context)
        log = context.log

        def waiting() -> None:
            if log is not None:
                log.warning(
                    f"a restore is replacing the warehouse {self.warehouse().path}: this run "
                    f"waits for it to finish (up to {LEASE_WAIT_S:.0f} s)"
                )

        lease = ExitStack()
        try:
            lease.enter_context(in_use(self.warehouse(), wait_s=LEASE_WAIT_S, on_wait=waiting))
        except WarehouseBusy as exc:
            raise dg.Failure(description=f"run skipped: {exc}") from None
        with lease:
            yield self

    def redactor(self) -> Redactor:
        """Masks every secret these settings can hand out (``Settings.secret_values``), in
        the snapshots this run loads and, registered with configuration.log_redaction, in
        every log record of the process."""
        if self._redactor is None:
            values = self.settings().secret_values()
            register_secrets(values)
            self._redactor = Redactor(values)
        return self._redactor

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
        settings = load_settings(Path(config_path) if config_path else None, **overrides)
        return with_source_urls(settings, self.source_urls) if self.source_urls else settings


def with_source_urls(settings: Settings, urls: dict[str, str]) -> Settings:
    """``settings`` whose sources in ``urls`` read there in the active profile."""
    field = "demo_url" if settings.profile == "demo" else "live_url"
    sources = dict(settings.file.sources)
    for name, url in urls.items():
        if name not in sources or urlsplit(url).scheme not in ("http", "https"):
            raise ValueError(f"source_urls: {name!r} → {url!r} is not a configured source's URL")
        sources[name] = sources[name].model_copy(update={field: url})
    return settings.model_copy(
        update={"file": settings.file.model_copy(update={"sources": sources})}
    )


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
