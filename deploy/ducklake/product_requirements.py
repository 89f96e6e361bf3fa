"""Print the product's requirements for the DuckLake environment (``make ducklake-deps``):
pyproject.toml's dependencies without DuckDB (that environment pins the DuckDB its ducklake
extension is built for: requirements.txt) and the test runner's, so the product's own
warehouse tests run there against a DuckLake (tests/deploy/test_ducklake_product.py)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
FOR_TESTS = ("pytest", "hypothesis", "beautifulsoup4")
FOR_LAKE = ("psycopg2-binary",)  # a PostgreSQL-catalog lake's writer lock


def name(requirement: str) -> str:
    return re.split(r"[<>=!~ \[;]", requirement, maxsplit=1)[0].lower()


def main() -> None:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    wanted = [r for r in project["dependencies"] if name(r) != "duckdb"]
    wanted += [r for r in project["optional-dependencies"]["dev"] if name(r) in FOR_TESTS]
    wanted += [r for r in project["optional-dependencies"]["deploy"] if name(r) in FOR_LAKE]
    print("\n".join(wanted))


if __name__ == "__main__":
    main()
