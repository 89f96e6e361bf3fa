"""While the pipeline holds the warehouse (the first start's seeding writes for seconds at a
time), a page that reads the warehouse itself draws everything else at once, says the held
part is coming, and reruns itself until the read gets through (dashboard.data: ``brief``
queries, ``retry_when_busy``). Another process really holds DuckDB's write lock here."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from dashboard.data import _cached
from tests.dashboard.conftest import assert_clean, copy_of, has_table, open_page, texts
from tests.dashboard.seeding import Seeded

HOLD = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
print("locked", flush=True)
sys.stdin.readline()
"""


@contextmanager
def write_lock(path: Path) -> Iterator[None]:
    """Another process with the warehouse open for writing, until the block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield
    finally:
        holder.communicate("\n", timeout=30)


@pytest.mark.parametrize(
    ("page", "table", "shown"),
    [
        ("alerts", "al_feed", "采购需要知道哪些变化？"),
        ("health", "he_sources", "各来源的数据新鲜、完整吗？"),
        ("report", "rp_medians", "本月 GPU 租金行情如何？（财务月报）"),
    ],
)
def test_a_held_warehouse_delays_one_part_not_the_page(
    use: Callable[..., None], seeded: Seeded, tmp_path: Path, page: str, table: str, shown: str
) -> None:
    copy = copy_of(seeded, tmp_path)
    use(copy.home, copy.config)
    _cached.clear()
    with write_lock(copy.warehouse.path):
        app = open_page(page)  # returns after a short wait, not the 15 s a read may take
        assert app.title[0].value == shown and not has_table(app, table)
        assert "流水线正在写入：这部分几秒后自动显示。" in texts(app)
        assert "仓库正在写入" not in texts(app)  # not given up: it is retried
        assert app.session_state["_gpuprice_retry_ticks"] == 1  # the rerun is scheduled
    app.run()  # the rerun the page scheduled, the lock released meanwhile
    assert_clean(app)
    assert has_table(app, table) and "流水线正在写入" not in texts(app)
