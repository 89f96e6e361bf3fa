"""What a scrape run tells people on the console, in `gpuprice run`, `backfill`, `up` and the
history seeding: a table of the sources, and one line per failed source-day saying what
failed and what to do. The details (every error whole, stack traces) are in the run log
(``$GPUPRICE_HOME/logs/gpuprice.log``) and the Dagster UI, or on the terminal with
``--verbose``."""

from __future__ import annotations

import re
import traceback
from datetime import date
from typing import TYPE_CHECKING, Protocol

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from configuration.log_redaction import scrub_secrets
from configuration.settings import Settings
from gpuprice.run_log import LOG_FILE

if TYPE_CHECKING:
    from gpuprice.jobs import RunResult

# What a failure line quotes of the error; the rest is in the run log.
ERROR_CHARS = 160
DELIBERATE = "demo layout change, deliberate: the drift detector caught it"


class Outcome(Protocol):
    """One source's outcome (gpuprice.jobs.SourceResult is one)."""

    source: str
    status: str
    error: str | None
    reason: str | None


# A storage fault, by what the error says, and what to do about it ({home}: the home).
_STORAGE = (
    (
        re.compile(
            r"no space left|disk is full|database or disk is full|disk i/o error|"
            r"file too large|out of disk",
            re.I,
        ),
        "the disk of {home} is full or cannot be written: free space there, then run again",
    ),
    (
        re.compile(r"read-only file system|permission denied|readonly", re.I),
        "{home} cannot be written: check its permissions and that its disk is mounted read-write",
    ),
    (
        re.compile(r"corrupt|not a valid duckdb|invalidated|checksum|truncated", re.I),
        "the warehouse in {home} is damaged: restore from a backup: `gpuprice restore DIR`",
    ),
)


def _advice(settings: Settings, outcome: Outcome) -> str:
    """What to do about one failed (or partial) source."""
    name, error = outcome.source, outcome.error or ""
    reason = outcome.reason or ("drift" if outcome.status == "partial" else "")
    if reason in ("drift",):
        return (
            "its pages no longer parse into plausible prices: fix its adapter "
            f"(docs/SOURCES.md), then `gpuprice reparse --source {name}`"
        )
    if reason == "unreachable":
        return (
            f"the site did not answer: check [sources.{name}] in gpuprice.toml and the "
            "network; the next run tries again"
        )
    if reason == "timeout":
        return "the site was too slow ([http] timeouts); the next run tries again"
    if reason == "http_error":
        return "the site answered with an error; the next run tries again"
    if reason == "blocked":
        return f"its robots.txt forbids the pages: disable [sources.{name}] or ask the site"
    if reason == "too_large":
        return "the answer exceeded [http].max_page_bytes: raise it if the page is genuine"
    for pattern, advice in _STORAGE:
        if pattern.search(error):
            return advice.format(home=settings.home)
    return f"see {settings.home / 'logs' / LOG_FILE} and the Dagster UI"


def _short(error: str | None) -> str:
    """The first error of a snapshot, without the page URL it starts with (it is in
    raw_page), cut to ERROR_CHARS, saying how many more there were."""
    if not error:
        return ""
    errors = error.split("; http")
    first = re.sub(r"^\S+://\S+?: ", "", errors[0].strip())
    more = f" (+{len(errors) - 1} more page(s))" if len(errors) > 1 else ""
    first = " ".join(first.split())
    if len(first) > ERROR_CHARS:
        first = first[: ERROR_CHARS - 1] + "…"
    return first + more


def status_text(outcome: Outcome) -> str:
    reason = outcome.reason.replace("_", " ") if outcome.reason else ""
    return f"{outcome.status} ({reason})" if reason else outcome.status


def failure_line(settings: Settings, day: date | None, outcome: Outcome) -> str:
    """One line for one failed (or partial) source-day: what failed and what to do."""
    # Imported here: every command imports this module, only a failure needs the demo's.
    from demo.history_seed import deliberate_layout_change

    when = f"{day} " if day else ""
    if (
        outcome.status == "failed"
        and outcome.reason == "drift"
        and deliberate_layout_change(settings, outcome.source, day)
    ):
        return f"{when}{outcome.source}: {DELIBERATE} (nothing to do; other days load)"
    what = status_text(outcome)
    short = _short(outcome.error)
    return f"{when}{outcome.source}: {what}{': ' + short if short else ''} → {_advice(settings, outcome)}"


def failure_lines(settings: Settings, result: RunResult) -> list[str]:
    """One line per source of ``result`` that failed or loaded only part of its pages."""
    return [
        failure_line(settings, result.as_of, s)
        for s in result.sources
        if s.status in ("failed", "partial")
    ]


def print_failures(
    settings: Settings, result: RunResult, console: Console, *, verbose: bool = False
) -> None:
    """The failure lines (red; a deliberate demo day dim), and with ``verbose`` each
    error whole under its line."""
    for source, line in zip(
        [s for s in result.sources if s.status in ("failed", "partial")],
        failure_lines(settings, result),
        strict=True,
    ):
        style = "dim" if DELIBERATE in line else ("red" if source.status == "failed" else "yellow")
        console.print(f"[{style}]{escape(line)}[/{style}]", soft_wrap=True)
        if verbose and source.error:
            console.print(escape(source.error), soft_wrap=True)
    if not result.dagster_success:
        when = f"{result.as_of} " if result.as_of else ""
        console.print(
            f"[red]{when}a step after the snapshots failed (derive, serving copy or alerts): "
            f"they run again with the next run; the reason is in "
            f"{escape(str(settings.home / 'logs' / LOG_FILE))} and the Dagster UI[/red]",
            soft_wrap=True,
        )


def print_run_summary(
    result: RunResult, settings: Settings, console: Console, *, verbose: bool = False
) -> None:
    """Print ``result`` on the caller's console (the CLI's, or `gpuprice up`'s): a row per
    source, then one line per failure."""
    label = f"as of {result.as_of}" if result.as_of else "latest pages"
    table = Table(title=f"gpuprice run ({settings.profile} profile, {label})")
    for column in ("source", "status", "pages", "new rows"):
        table.add_column(column)
    for s in result.sources:
        colour = {"ok": "green", "partial": "yellow", "failed": "red"}.get(s.status, "blue")
        table.add_row(
            s.source,
            f"[{colour}]{escape(status_text(s))}[/{colour}]",
            str(s.pages),
            str(s.rows_added),
        )
    console.print(table)
    print_failures(settings, result, console, verbose=verbose)
    for s in result.sources:
        if s.status == "skipped":  # "not configured: … set GPUPRICE_…": whole, it says what to do
            console.print(
                f"[blue]{escape(s.source)}: {escape(s.error or '')}[/blue]", soft_wrap=True
            )
    if settings.profile == "demo":
        console.print(
            "[yellow]SIMULATED: demo-market prices are simulated, not real quotes.[/yellow]"
        )
    console.print(f"warehouse: {escape(settings.warehouse.describe())}")
    if result.failed or not result.dagster_success:
        console.print(
            f"details: {escape(str(settings.home / 'logs' / LOG_FILE))} and the Dagster UI (Runs)",
            soft_wrap=True,
        )


def command_failed(
    settings: Settings, what: str, exc: BaseException, console: Console, *, verbose: bool = False
) -> int:
    """A command stopped by something other than a source (the home cannot be written, the
    warehouse is damaged): one line saying what to do, the stack trace to the run log (and
    to the terminal with ``verbose``); returns the exit code, 2."""
    from gpuprice.run_log import RunLog

    log = RunLog(settings.home / "logs")
    log.error(what, exc)
    outcome = _Fault(what, f"{type(exc).__name__}: {exc}")
    console.print(
        f"[red]{escape(what)} failed: {escape(_short(outcome.error))} → "
        f"{escape(_advice(settings, outcome))}[/red]",
        soft_wrap=True,
    )
    if verbose:
        trace = "".join(traceback.format_exception(exc))
        console.print(escape(scrub_secrets(trace)), soft_wrap=True)
    return 2


class _Fault:
    def __init__(self, source: str, error: str) -> None:
        self.source, self.error = source, error
        self.status, self.reason = "failed", "internal_error"
