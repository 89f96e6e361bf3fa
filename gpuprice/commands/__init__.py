"""Sub-commands that live in their own modules.

Each module here defines ``register(app: typer.Typer) -> None``; ``gpuprice.cli`` calls
every one of them, so a new command is a new file, not an edit to the CLI's core.
"""

from __future__ import annotations

import importlib
import pkgutil

import typer


def register_all(app: typer.Typer) -> None:
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        module.register(app)
