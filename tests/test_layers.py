"""The layers of ../shared/DESIGN.md, checked on the source: imports run one way, and no two
files import each other, directly or around a circle (imports inside functions count).

A small AST walk rather than import-linter: its contracts say which package may import
which, but none of them forbids a cycle of files that crosses packages."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "scrapers",
    "recommender",
    "warehouse",
    "configuration",
    "pipelines",
    "dashboard",
    "demo",
    "gpuprice",
)
_BELOW_CONFIG = {"scrapers", "warehouse", "recommender"}
# What each package may import of the project (itself included): docs/ARCHITECTURE.md's table.
ALLOWED = {
    "scrapers": {"scrapers"},
    "recommender": {"recommender"},
    "warehouse": {"warehouse", "scrapers"},
    "configuration": {"configuration", *_BELOW_CONFIG},
    "pipelines": {"pipelines", "configuration", *_BELOW_CONFIG},
    "dashboard": {"dashboard", "configuration", *_BELOW_CONFIG},
    # the demo's seeding runs the pipeline's job; nothing of the demo reaches the dashboard
    "demo": {"demo", "pipelines", "configuration", *_BELOW_CONFIG},
    "gpuprice": set(PACKAGES),
}
CLI = ("gpuprice.cli", "gpuprice.commands", "gpuprice.main")  # imported by nothing but itself


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the packages under ``root``."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            dotted = ".".join(path.relative_to(root).with_suffix("").parts)
            modules[dotted.removesuffix(".__init__")] = path
    return modules


def imported_modules(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``module`` imports, anywhere in the file (relative ones resolved)."""
    found = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            for alias in node.names:
                # `from a.b import c` imports the module a.b.c when there is one, else from a.b
                name = f"{base}.{alias.name}"
                found.add(name if name in modules else base)
    return {name for name in found if name in modules and name != module}


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports."""
    return {module: imported_modules(module, path, modules) for module, path in modules.items()}


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    found = []
    for module, targets in graph.items():
        package = module.split(".")[0]
        for target in targets:
            into_cli = target.startswith(CLI) and not module.startswith(CLI)
            if target.split(".")[0] not in ALLOWED[package] or into_cli:
                found.append(f"{module} imports {target}")
    return sorted(found)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that reach each other (strongly connected, Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while (member := stack.pop()) != module:
                group.append(member)
            if group:
                groups.append(sorted([module, *group]))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return groups


def test_imports_run_one_way() -> None:
    assert upward_imports(import_graph(project_modules())) == []


def test_no_files_import_each_other() -> None:
    assert cycles(import_graph(project_modules())) == []


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Top-level package -> the other top-level packages any of its files imports."""
    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        top = module.split(".")[0]
        packages.setdefault(top, set()).update(t.split(".")[0] for t in targets)
    return {top: targets - {top} for top, targets in packages.items()}


def test_no_two_packages_import_each_other() -> None:
    assert cycles(package_graph(import_graph(project_modules()))) == []


def test_the_warehouse_loads_without_parsers_or_settings() -> None:
    graph = import_graph(project_modules())
    reached, todo = set(), ["warehouse.store.db"]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo.extend(graph[module])
    assert not any(
        m.startswith(("gpuprice", "configuration", "scrapers.sources")) for m in reached
    ), reached


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small project with an upward import, a cycle across packages and one in a function."""
    files = {
        "scrapers/__init__.py": "",
        "scrapers/rows.py": "from warehouse.db import x\n",
        "warehouse/__init__.py": "",
        "warehouse/db.py": "def f():\n    from . import load\n",
        "warehouse/load.py": "import warehouse.db\nfrom scrapers import rows\n",
        "dashboard/__init__.py": "",
        "dashboard/app.py": "from gpuprice.cli import app\n",
        "gpuprice/__init__.py": "",
        "gpuprice/cli.py": "from dashboard import app\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    for package in ("recommender", "pipelines", "configuration", "demo"):
        (tmp_path / package).mkdir()
    return tmp_path


def test_the_checks_find_what_they_forbid(tree: Path) -> None:
    graph = import_graph(project_modules(tree))
    assert upward_imports(graph) == [
        "dashboard.app imports gpuprice.cli",
        "scrapers.rows imports warehouse.db",
    ]
    assert cycles(graph) == [
        ["dashboard.app", "gpuprice.cli"],
        ["scrapers.rows", "warehouse.db", "warehouse.load"],
    ]
    assert cycles(package_graph(graph)) == [
        ["dashboard", "gpuprice"],
        ["scrapers", "warehouse"],
    ]
