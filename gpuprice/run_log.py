"""The run log, ``$GPUPRICE_HOME/logs/gpuprice.log``: where the console's one line per failure
sends people for the details (stack traces included), beside the Dagster UI's event log.

After each run a command copies the run's warnings and errors, with their stack traces, from
the Dagster instance into the file; errors of the command itself go there too. It is written
through Python logging, so the record factory of configuration.log_redaction masks every
secret in it like in any other log record.
"""

from __future__ import annotations

import logging
import traceback
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg

LOG_FILE = "gpuprice.log"


class RunLog:
    """Appends to ``folder/gpuprice.log``; a folder that cannot be written (a read-only or
    full disk) costs the details, never the command."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / LOG_FILE

    def _open(self) -> logging.Logger | None:
        # One logger (and one open file) per log file, however many commands of a process
        # write to it.
        logger = logging.getLogger(f"gpuprice.runlog.{abs(hash(str(self.path)))}")
        if not logger.handlers:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError:
                return None
            handler = _QuietFileHandler(self.path, encoding="utf-8", delay=True)
            handler.setFormatter(logging.Formatter("%(message)s"))
            logger.propagate = False  # to the file only, never the console
            logger.setLevel(logging.INFO)
            logger.addHandler(handler)
        return logger

    def _write(self, level: int, text: str) -> None:
        logger = self._open()
        if logger is not None:
            logger.log(level, text)

    def record(self, instance: dg.DagsterInstance, run_id: str) -> None:
        """Copy the run's WARNING and ERROR entries (and the stack trace of any step that
        failed) into the file."""
        for entry in instance.all_logs(run_id):
            if entry.level < logging.WARNING:
                continue
            when = datetime.fromtimestamp(entry.timestamp, UTC).strftime("%Y-%m-%d %H:%M:%S")
            step = f" {entry.step_key}" if entry.step_key else ""
            text = f"{when} {logging.getLevelName(entry.level)} run {run_id}{step}: "
            text += entry.user_message or entry.message
            error = _error_of(entry)
            if error:
                text += "\n" + error
            self._write(entry.level, text)

    def error(self, what: str, exc: BaseException) -> None:
        """A command's own failure, with its stack trace."""
        when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
        trace = "".join(traceback.format_exception(exc))
        self._write(logging.ERROR, f"{when} ERROR {what}: {type(exc).__name__}: {exc}\n{trace}")


class _QuietFileHandler(logging.FileHandler):
    def handleError(self, record: logging.LogRecord) -> None:
        # logging would print "--- Logging error ---" and a stack trace on stderr: the
        # console is for one line per failure, and a file that cannot be written (a full or
        # read-only disk) is not the command's failure.
        pass


def _error_of(entry: dg.EventLogEntry) -> str | None:
    event = entry.dagster_event
    data = event.event_specific_data if event is not None else None
    error = getattr(data, "error", None)
    return error.to_string() if error is not None else None
