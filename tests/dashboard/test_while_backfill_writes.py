"""The dashboard keeps rendering while `gpuprice backfill` writes, and does not block it.

A real backfill (a subprocess running the Dagster job against the demo market on free
ports) writes the warehouse while this process renders pages through AppTest in a loop,
its query cache cleared before every render so each one really opens the file. DuckDB
lets one process write or many read, never both: the reads must wait out the writer's
short transactions (bounded retry), and the writer must get through between reads.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from dashboard.data import _cached
from demo.market import DemoMarket
from tests.dashboard.conftest import assert_clean, open_page, table, texts, trends_detail
from tests.dashboard.seeding import build
from warehouse.store.db import read_frame

pytestmark = pytest.mark.e2e

BACKFILL_DAYS = 5
END = "2026-09-15"  # the seeded history ends 2026-09-10: these days are new rows
BOUNDED_S = 120  # a deadline, not a measure: alone it takes well under 20 s
ROOT = Path(__file__).resolve().parents[2]


def test_pages_render_while_backfill_writes_and_backfill_finishes(
    tmp_path: Path, use: Callable[..., None]
) -> None:
    seeded = build(tmp_path / "home", days=20, live_days=4)
    before = read_frame(seeded.warehouse, "SELECT count(*) FROM offer").item()
    with DemoMarket().start() as market:
        config = tmp_path / "gpuprice.toml"
        config.write_text(
            "[http]\nmin_interval_s = 0\nretries = 0\nconnect_timeout_s = 1\n"
            f'[sources.jygpu]\ndemo_url = "{market.jygpu_url}"\n'
            f'[sources.smm]\ndemo_url = "{market.smm_url}"\n',
            encoding="utf-8",
        )
        use(seeded.home, config)
        gpuprice = Path(sys.executable).with_name("gpuprice")
        started = time.monotonic()
        backfill = subprocess.Popen(
            [str(gpuprice), "backfill", "--days", str(BACKFILL_DAYS), "--end", END],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=ROOT,
            # the same code as this test imports, whichever checkout it runs from
            env=os.environ | {"PYTHONPATH": str(ROOT)},
        )
        renders = 0
        try:
            while backfill.poll() is None and time.monotonic() - started < BOUNDED_S:
                for page in ("trends", "health", "breakeven"):
                    _cached.clear()  # every render reads the file, not the cache
                    app = open_page(page)  # asserts: no exception, no lock error
                    assert "仓库正在写入" not in texts(app), "a read gave up on the lock"
                    renders += 1
            # the writer got through between the reads: it ended on its own, the deadline
            # above is only there so a blocked writer fails the test instead of hanging it
            finished_while_rendering = backfill.poll() is not None
            output, _ = backfill.communicate(
                timeout=max(1, BOUNDED_S - (time.monotonic() - started))
            )
        finally:
            if backfill.poll() is None:
                backfill.kill()
                backfill.wait()
    assert backfill.returncode == 0, output
    assert finished_while_rendering, f"backfill did not finish within {BOUNDED_S} s"
    assert f"backfilled {BACKFILL_DAYS} day(s)" in output
    assert renders >= 3, "the dashboard rendered while the backfill ran"
    after = read_frame(seeded.warehouse, "SELECT count(*) FROM offer").item()
    assert after > before
    _cached.clear()
    app = open_page("trends")
    assert_clean(app)
    assert (
        str(table(trends_detail(app, "table"), "tr_table")["period"].max())[:10] == END
    )  # the new days are shown
