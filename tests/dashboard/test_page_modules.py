"""Every module in dashboard/app_pages/ is a page of the navigation, written one way: a
``main()`` that draws it, called once at the end, its words looked up in dashboard/i18n.py."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from dashboard.i18n import STRINGS

ROOT = Path(__file__).resolve().parents[2] / "dashboard"
PAGES = sorted(p for p in (ROOT / "app_pages").glob("*.py") if p.name != "__init__.py")


def test_every_module_in_app_pages_is_registered_in_the_navigation() -> None:
    app = (ROOT / "app.py").read_text(encoding="utf-8")
    registered = set(re.findall(r'st\.Page\(\s*"app_pages/(\w+)\.py"', app))
    assert registered == {p.stem for p in PAGES}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_a_page_is_a_main_called_once_at_the_end(page: Path) -> None:
    tree = ast.parse(page.read_text(encoding="utf-8"))
    calls = [
        node
        for node in tree.body
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
    ]
    assert [ast.unparse(c) for c in calls] == ["main()"]
    assert tree.body[-1] is calls[0]
    assert any(isinstance(n, ast.FunctionDef) and n.name == "main" for n in tree.body)
    # Nothing else runs at import: only imports, definitions and constants.
    allowed = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign)
    body = [n for n in tree.body[:-1] if not isinstance(n, ast.Expr | ast.AnnAssign)]
    assert all(isinstance(n, allowed) for n in body)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_a_page_looks_its_words_up_in_i18n(page: Path) -> None:
    source = page.read_text(encoding="utf-8")
    keys = set(re.findall(r'\bt\(\s*"([\w.]+)"', source))
    assert keys, "no translated string"
    assert keys <= set(STRINGS), keys - set(STRINGS)


def test_no_dashboard_module_keeps_words_of_its_own() -> None:
    """The words are in dashboard/locales/*.toml only: breakeven and value each kept a
    dictionary of their own in Python ({"zh": {...}, "en": {...}})."""
    kept = [
        p.relative_to(ROOT).as_posix()
        for p in ROOT.rglob("*.py")
        if re.search(r'["\']zh["\']\s*:\s*\{', p.read_text(encoding="utf-8"))
    ]
    assert kept == []
