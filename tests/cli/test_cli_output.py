"""What `gpuprice breakeven` prints when it is piped: whole table rows (no folding at 80
columns), the cross-platform line named as such with the platforms it came from (never a
made-up source `cheapest`), and a breakeven beyond a month as never paying off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from gpuprice.commands.breakeven_alerts import _hours
from tests.support.demo_days import insert, reference_warehouse
from tests.support.handles import warehouse_at
from tests.warehouse.derive.rows import listing
from warehouse.derive.metrics import derive

T0 = datetime(2026, 10, 1, 2)
GPUPRICE = Path(sys.executable).with_name("gpuprice")
ROOT = Path(__file__).resolve().parents[2]


def piped(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command with stdout a pipe, as `gpuprice breakeven | less` runs it."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env |= {"GPUPRICE_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [str(GPUPRICE), *args], capture_output=True, text=True, env=env, cwd=ROOT, check=False
    )


def test_a_piped_table_keeps_every_row_on_one_line_and_names_the_cheapest_line(
    tmp_path: Path,
) -> None:
    warehouse = reference_warehouse(tmp_path)
    insert(warehouse.path, listing(T0, "mk", "rtx4090-24g", hourly="2.00", bare_metal="8000"))
    insert(warehouse.path, listing(T0, "zz", "rtx4090-24g", hourly="1.60", bare_metal="9000"))
    derive(warehouse_at(warehouse.path))
    done = piped(warehouse.path.parent, "breakeven", "--gpu", "rtx4090-24g")
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if "rtx4090-24g" in line]
    assert len(rows) == 4  # published, cheapest, mk, zz: one line each, nothing folded
    cheapest = next(line for line in rows if "lowest across platforms" in line)
    assert "(bare metal: mk; hourly: zz" in cheapest
    assert not any(cell.strip() == "cheapest" for line in rows for cell in line.split("│"))
    assert max(len(line) for line in done.stdout.splitlines()) > 80
    data = json.loads(piped(warehouse.path.parent, "breakeven", "--json").stdout)
    line = next(r for r in data if r["source"] == "cheapest")
    assert line["platforms"] == {"bare metal": "mk", "hourly": "zz"}


def test_a_breakeven_beyond_a_month_never_pays_off() -> None:
    assert _hours(531.7) == "531.7" and _hours(720.0) == "720.0"
    assert _hours(1290.4) == "never (> 720 h)" and _hours(None) == "—"
