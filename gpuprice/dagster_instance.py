"""The Dagster instance every entry point runs its jobs in: the one `gpuprice up`'s
webserver and daemon read ($GPUPRICE_HOME/dagster), so the Runs page and the assets'
materialisations show `gpuprice run`, `backfill`, the first start's seeding and the history
imports, not only the scheduled runs.

Its storage is Dagster's default, SQLite files under ``$GPUPRICE_HOME/dagster/storage``, which
several processes may write at once (Dagster opens them in WAL mode, waits up to 30 s for a
lock and retries a concurrent first creation): the webserver, the daemon, and any number of
commands.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg

from configuration.secrets import PROJECT_ROOT
from configuration.settings import Settings


def prepare_home(settings: Settings) -> Path:
    """``$GPUPRICE_HOME/dagster`` with the project's dagster.yaml in it. Replaced atomically
    and only when it differs: another command may be reading it at this moment."""
    home = settings.dagster_home
    home.mkdir(parents=True, exist_ok=True)
    wanted = (PROJECT_ROOT / "dagster.yaml").read_bytes()
    target = home / "dagster.yaml"
    try:
        if target.read_bytes() == wanted:
            return home
    except FileNotFoundError:
        pass
    fd, temporary = tempfile.mkstemp(dir=home, prefix=".dagster.yaml.")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(wanted)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return home


@contextmanager
def _alone(home: Path) -> Iterator[None]:
    """Held while this process opens the instance: the first opening creates its SQLite
    tables, and two commands doing that at once fail ("table alembic_version already
    exists"); once created, opening is safe in parallel."""
    with (home / ".open.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def instance_for(settings: Settings) -> dg.DagsterInstance:
    """The persistent instance of this home (the caller may close it, or use it in ``with``).
    `gpuprice up` opens it once before it starts the webserver and the daemon, which do not
    take the lock."""
    home = prepare_home(settings)
    with _alone(home):
        instance = dg.DagsterInstance.from_config(str(home))
        instance.get_runs(limit=1)  # every storage opened (and created) under the lock
        return instance
