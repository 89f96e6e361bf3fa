"""Secrets (a source's cookie or token, the notification URLs): read when needed from the
environment or a file outside the repository, never kept in the settings, never logged.

:func:`read_secret` is the one lookup: ``$VAR``, else the file ``$VAR_FILE`` names, else the
file the TOML names. Each secret found is registered with configuration.log_redaction, so
that log records mask it from then on.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from configuration.errors import ConfigError
from configuration.log_redaction import register_secret, secret_parts

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# Notification URLs are secrets: only from the environment or a file outside the repository.
NOTIFY_URLS_ENV = "GPUPRICE_NOTIFY_URLS"
NOTIFY_URLS_FILE_ENV = "GPUPRICE_NOTIFY_URLS_FILE"
# Between URLs: whitespace, or a comma that starts the next URL (a comma inside a URL, as in
# mailto://…?to=a@x,b@y, stays).
_URL_SEPARATOR = re.compile(r"\s+|,\s*(?=[A-Za-z][A-Za-z0-9+.-]*://)")
# Credentials of what runs around the product (a CI token, a model hub's, the S3 keys of a
# DuckLake, Dagster's PostgreSQL password): not handed to a source, but an error or a page may
# still quote them, so they are masked like the sources' own.
DEPLOYMENT_SECRETS = (
    "GITHUB_TOKEN",
    "HF_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "DAGSTER_PG_PASSWORD",
)


@dataclass(frozen=True)
class Secret:
    """A secret's text and where it came from (None: the environment variable itself)."""

    text: str = field(repr=False)
    file: Path | None = None


def secrets_path(value: Path, what: str) -> Path:
    """``value`` as a secrets file: absolute and outside the repository; ValueError naming
    ``what`` (the key or variable that gave it) otherwise."""
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


def read_secret(
    env: str, *, file_env: str, configured_file: Path | None, unreadable: str
) -> Secret | None:
    """The secret in ``$env`` (stripped), else the text of the file ``$file_env`` names, else
    of ``configured_file`` (from the TOML, already checked); None when none is given.
    ConfigError for a file that is not a secrets file or cannot be read: ``unreadable`` says
    which (``{path}`` is filled in)."""
    inline = os.environ.get(env, "").strip()
    if inline:
        return Secret(inline)
    env_file = os.environ.get(file_env, "").strip()
    if env_file:
        try:
            path: Path | None = secrets_path(Path(env_file), file_env)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    else:
        path = configured_file
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"{unreadable.format(path=path)} cannot be read: {exc.strerror or exc}"
        ) from None
    return Secret(text, path)


def source_secret(name: str, env: str, configured_file: Path | None) -> str | None:
    """A source's secret (cookie, token): ``$env``, else the file ``$env_FILE`` or
    ``configured_file`` (``[sources.<name>].secret_file``). None when none is configured (the
    source is then "not configured")."""
    found = read_secret(
        env,
        file_env=f"{env}_FILE",
        configured_file=configured_file,
        unreadable=f"secret file {{path}} of source {name}",
    )
    secret = found.text.strip() if found else ""
    register_secret(secret)
    return secret or None


def notify_urls(configured_file: Path | None) -> list[str]:
    """The apprise URLs to deliver alerts to: ``GPUPRICE_NOTIFY_URLS`` (separated by
    whitespace or commas), else the file ``GPUPRICE_NOTIFY_URLS_FILE`` or ``configured_file``
    (``[notify].urls_file``: one or more per line, ``#`` comments)."""
    found = read_secret(
        NOTIFY_URLS_ENV,
        file_env=NOTIFY_URLS_FILE_ENV,
        configured_file=configured_file,
        unreadable="notification URLs file {path}",
    )
    if found is None:
        return []
    if found.file is None:
        urls = [u for u in _URL_SEPARATOR.split(found.text) if u and u.strip(",")]
    else:
        urls = [
            url
            for line in found.text.splitlines()
            if not line.lstrip().startswith("#")
            for url in _URL_SEPARATOR.split(line.strip())
            if url
        ]
    for url in urls:
        register_secret(url)
    return urls


# (source name, the variables of its secret or key pair, its [sources.<name>].secret_file)
SourceSecrets = tuple[str, tuple[str, ...], Path | None]


def secret_values(sources: Iterable[SourceSecrets], notify_file: Path | None) -> list[str]:
    """Every secret value configured: each source's (a key pair's two halves each, read like
    :func:`source_secret`), the notification URLs with the parts of them that carry tokens,
    and :data:`DEPLOYMENT_SECRETS`. One that cannot be read is left out: what this process
    cannot read it cannot leak either."""
    values: list[str] = []
    for name, envs, configured_file in sources:
        for env in envs:
            try:
                value = source_secret(name, env, configured_file if len(envs) == 1 else None)
            except ConfigError:
                continue
            values.append(value or "")
    try:
        urls = notify_urls(notify_file)
    except ConfigError:
        urls = []
    values += [part for url in urls for part in secret_parts(url)]
    values += [os.environ.get(env, "").strip() for env in DEPLOYMENT_SECRETS]
    return sorted({value for value in values if value})
