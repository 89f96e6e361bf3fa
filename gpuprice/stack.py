"""`gpuprice up`: the whole product on this machine, stopped together with Ctrl-C."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from configuration.secrets import PROJECT_ROOT
from configuration.settings import Settings
from demo.autostart import port_answers
from demo.history_seed import HISTORY_DAYS, needs_history
from gpuprice.dagster_instance import instance_for
from gpuprice.history_process import start_in_background

console = Console()


def _wait_for_port(host: str, port: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if port_answers(host, port):
            return True
        time.sleep(0.3)
    return False


def _environment(settings: Settings) -> dict[str, str]:
    env = dict(os.environ)
    env["GPUPRICE_HOME"] = str(settings.home)
    env["GPUPRICE_PROFILE"] = settings.profile
    if settings.config_path:
        env["GPUPRICE_CONFIG"] = str(Path(settings.config_path).resolve())
    env["DAGSTER_HOME"] = str(settings.dagster_home)
    return env


def _stop_on_signals() -> None:
    # Ctrl-C and `kill` both end in the same clean shutdown; SIGINT is set explicitly
    # because a shell that starts us in the background leaves it ignored.
    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def _wanted_ports(settings: Settings) -> list[tuple[str, int, str]]:
    """The (host, port, service) of everything `up` serves."""
    services = settings.file.services
    demo = settings.file.demo_market
    wanted = [
        (services.host, services.dagster_port, "Dagster"),
        (services.host, services.dashboard_port, "dashboard"),
    ]
    if settings.profile == "demo":
        wanted += [
            (demo.host, demo.jygpu_port, "demo market"),
            (demo.host, demo.smm_port, "demo market"),
            (demo.host, demo.platforms_port, "demo market"),
        ]
    return wanted


def _cannot_start(wanted: list[tuple[str, int, str]]) -> str | None:
    """Why `up` cannot serve on these ports (a host it cannot resolve, a port in use), if so."""
    for host in sorted({host for host, _, _ in wanted}):
        try:
            socket.getaddrinfo(host, None)
        except OSError as exc:
            return (
                f"cannot serve on {host}: {exc.strerror or exc}. Set [services] host / "
                "[demo_market] host in gpuprice.toml to an address of this machine."
            )
    busy = [f"{name} port {host}:{port}" for host, port, name in wanted if port_answers(host, port)]
    if busy:
        return (
            f"already in use: {', '.join(busy)}. Stop what holds them or change "
            "[services]/[demo_market] ports in gpuprice.toml."
        )
    return None


def _commands(settings: Settings) -> list[tuple[str, list[str]]]:
    """Each service child's name and command line, in the order they start."""
    bin_dir = Path(sys.executable).parent
    services = settings.file.services
    commands: list[tuple[str, list[str]]] = []
    if settings.profile == "demo":
        commands.append(("demo-market", [str(bin_dir / "gpuprice"), "demo-market"]))
    commands.append(
        (
            "dagster",
            [
                str(bin_dir / "dagster"),
                "dev",
                "-m",
                "pipelines.definitions",
                "-h",
                services.host,
                "-p",
                str(services.dagster_port),
            ],
        )
    )
    commands.append(
        (
            "dashboard",
            [
                str(bin_dir / "streamlit"),
                "run",
                str(PROJECT_ROOT / "dashboard" / "app.py"),
                "--server.address",
                services.host,
                "--server.port",
                str(services.dashboard_port),
                "--server.headless",
                "true",
                "--browser.gatherUsageStats",
                "false",
            ],
        )
    )
    return commands


def _what(name: str, settings: Settings) -> str:
    """What a service child is, for someone starting gpuprice for the first time."""
    if name == "demo-market":
        demo = settings.file.demo_market
        return (
            f"the demo market, SIMULATED: 极智算 (jygpu) at http://{demo.host}:{demo.jygpu_port}, "
            f"SMM quotes at :{demo.smm_port}, the other platforms at "
            f":{demo.platforms_port}/<source>; the hourly schedule scrapes it, and you can open "
            "it in a browser"
        )
    if name == "dagster":
        return "Dagster: its UI, and the daemon that runs the hourly scrape and sends alerts"
    return "the dashboard"


def _start(
    name: str, argv: list[str], env: dict[str, str], logs: Path, settings: Settings
) -> subprocess.Popen:
    log = (logs / f"{name}.log").open("ab")
    child = subprocess.Popen(
        argv,
        env=env,
        cwd=PROJECT_ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    console.print(
        f"started {_what(name, settings)} (log: {logs / f'{name}.log'})",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    return child


def _say_first_scrape(line: str) -> None:
    console.print(f"first scrape: {line}", markup=False, highlight=False, soft_wrap=True)


def _first_scrape(settings: Settings) -> subprocess.Popen | None:
    """Scrape once now, and start seeding the history in the background when there is none:
    the seeder's process, which may end any time."""
    console.print("first scrape, so the warehouse is not empty while the hourly schedule waits...")
    # Imported here: Dagster is heavy and only this step of `up` needs it in this process.
    from gpuprice.jobs import JobRunner
    from gpuprice.run_summary import command_failed, print_run_summary

    try:
        result = JobRunner(settings, say=_say_first_scrape, command="up").run()
    except Exception as exc:  # the home or the warehouse: said in one line, the UI still starts
        command_failed(settings, "the first scrape", exc, console)
        return None
    print_run_summary(result, settings, console)
    if not needs_history(settings):
        return None
    console.print(
        f"no history yet: in the background, importing real prices of the past from public "
        f"archives, then seeding {HISTORY_DAYS} days of SIMULATED demo history (the dashboard "
        "says how far it is; the UI is usable meanwhile)"
    )
    return start_in_background(settings)


def _print_addresses(settings: Settings) -> None:
    services = settings.file.services
    console.print(
        f"\n[bold]Dagster UI[/bold]  http://{services.host}:{services.dagster_port}   "
        f"[bold]Dashboard[/bold]  http://{services.host}:{services.dashboard_port}\n"
        f"schedule: {settings.file.schedule.cron} ({settings.file.schedule.timezone})   "
        "Ctrl-C stops everything."
    )


def _until_one_stops(names: list[str], children: list[subprocess.Popen], logs: Path) -> int:
    """Wait while every child runs; say which stopped (exit 1)."""
    while all(child.poll() is None for child in children):
        time.sleep(1)
    dead = [name for name, child in zip(names, children, strict=True) if child.poll() is not None]
    console.print(f"[red]{', '.join(dead)} stopped unexpectedly; see {logs}[/red]")
    return 1


def run_stack(settings: Settings) -> int:
    problem = _cannot_start(_wanted_ports(settings))
    if problem is not None:
        console.print(f"[red]{escape(problem)}[/red]", soft_wrap=True)
        return 2

    # The instance's storage is created before the webserver and the daemon start: they
    # and the first scrape would otherwise create it at once.
    try:
        instance_for(settings).dispose()
    except Exception as exc:  # a home that cannot be written: one line, exit 2
        from gpuprice.run_summary import command_failed

        return command_failed(settings, "gpuprice up", exc, console)
    env = _environment(settings)
    logs = settings.home / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    commands = _commands(settings)
    demo = settings.file.demo_market

    children: list[subprocess.Popen] = []
    seeder: subprocess.Popen | None = None  # the first start's history; it may end any time
    _stop_on_signals()
    try:
        for name, argv in commands:
            children.append(_start(name, argv, env, logs, settings))
        if settings.profile == "demo" and not _wait_for_port(demo.host, demo.jygpu_port, 30):
            console.print("[red]demo market did not come up; see its log[/red]")
            return 1
        seeder = _first_scrape(settings)
        _print_addresses(settings)
        return _until_one_stops([name for name, _ in commands], children, logs)
    except KeyboardInterrupt:
        console.print("stopping...")
        return 0
    finally:
        stopping = [(child, signal.SIGINT) for child in children]
        if seeder is not None:
            # The seeder ends after the day it is loading and records where it stopped.
            stopping.append((seeder, signal.SIGTERM))
        _stop_children(stopping)


def _stop_children(stopping: list[tuple[subprocess.Popen, signal.Signals]]) -> None:
    # SIGINT is the shutdown every service child documents (dagster dev stops its webserver,
    # daemon and code servers on it); SIGKILL only for what is still there after 20 s.
    children = [child for child, _ in stopping]
    for child, signum in stopping:
        if child.poll() is None:
            os.killpg(child.pid, signum)
    deadline = time.monotonic() + 20
    for child in children:
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
