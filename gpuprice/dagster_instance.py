"""The Dagster instance every entry point runs its jobs in: the one `gpuprice up`'s
webserver and daemon read ($GPUPRICE_HOME/dagster), so the Runs page and the assets'
materialisations show `gpuprice run`, `backfill`, the first start's seeding and the history
imports, not only the scheduled runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg

from configuration.secrets import PROJECT_ROOT
from configuration.settings import Settings


def prepare_home(settings: Settings) -> Path:
    """``$GPUPRICE_HOME/dagster`` with the project's dagster.yaml in it."""
    home = settings.dagster_home
    home.mkdir(parents=True, exist_ok=True)
    shutil.copy(PROJECT_ROOT / "dagster.yaml", home / "dagster.yaml")
    return home


def instance_for(settings: Settings) -> dg.DagsterInstance:
    """The persistent instance of this home (the caller closes it, or uses it in ``with``)."""
    return dg.DagsterInstance.from_config(str(prepare_home(settings)))
