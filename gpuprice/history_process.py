"""The process that seeds the first start's demo history (demo.history_seed) with this
entry point's job runner: `gpuprice up` starts it in the background so neither it nor the UI
waits for the 90 days."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from configuration.settings import ConfigError, Settings, load_settings
from demo.history_seed import HISTORY_DAYS, seed_history


def start_in_background(settings: Settings) -> subprocess.Popen:
    """Start the seeding as its own process, its progress lines on this terminal."""
    argv = [sys.executable, "-m", "gpuprice.history_process", str(settings.home.resolve())]
    if settings.config_path:
        argv.append(str(Path(settings.config_path).resolve()))
    return subprocess.Popen(argv, start_new_session=True)


def seed_with_jobs(settings: Settings, days: int = HISTORY_DAYS) -> int:
    """Seed the history in one run of the backfill job (Dagster: only this process pays for
    it), in the instance the Dagster UI reads; it reports each day as it is loaded."""
    from gpuprice.jobs import JobRunner
    from gpuprice.run_summary import failure_line

    # The seeding's own lines say what failed; the run log, the Dagster UI and the health
    # page keep the details.
    runner = JobRunner(
        settings, say=lambda line: print(f"history: {line}", flush=True), command="history-seed"
    )
    return seed_history(
        settings,
        runner.backfill,
        days,
        failure_line=lambda day, source: failure_line(settings, day.as_of, source),
    )


def main(argv: list[str]) -> int:
    home = Path(argv[0]) if argv else None
    config = Path(argv[1]) if len(argv) > 1 else None
    try:
        settings = load_settings(config, home=home, profile="demo")
    except ConfigError as exc:
        print(f"history: {exc}", file=sys.stderr)
        return 2
    # Real history first (seconds), then the SIMULATED 90 days; Dagster is imported here,
    # as in seed_with_jobs, so that `gpuprice up` does not pay for it.
    from gpuprice.history_jobs import import_demo_history

    import_demo_history(settings, lambda line: print(f"history: {line}", flush=True))
    return seed_with_jobs(settings)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
