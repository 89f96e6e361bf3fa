"""dashboard.data.page_query on its own, with stand-in read functions: the cache key (which
function, which warehouse, which parameters) and the not-ready states it reports. The pages'
tests cover the same on real warehouses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
from streamlit.testing.v1 import AppTest

from dashboard.data import _cached, page_query
from warehouse.store.handle import Warehouse


def test_the_cache_tells_functions_warehouses_and_parameters_apart(
    tmp_path: Path, use: Callable[..., None]
) -> None:
    calls: list[tuple[str, Path, int]] = []

    def first(warehouse: Warehouse, n: int = 0) -> pl.DataFrame:
        calls.append(("first", warehouse.path, n))
        return pl.DataFrame({"query": ["first"], "n": [n]})

    def second(warehouse: Warehouse, n: int = 0) -> pl.DataFrame:
        calls.append(("second", warehouse.path, n))
        return pl.DataFrame({"query": ["second"], "n": [n]})

    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    _cached.clear()
    cached_first, cached_second = page_query(first), page_query(second)
    use(one)
    frame = cached_first(n=1)
    assert frame is not None and frame["query"].item() == "first"
    frame = cached_second(n=1)  # same parameters, another function: not the first's frame
    assert frame is not None and frame["query"].item() == "second"
    assert cached_first(n=1) is not None  # cached: not read again
    assert cached_first(n=2) is not None  # other parameters: read
    use(two)
    assert cached_first(n=1) is not None  # other warehouse: read
    assert [(name, path.parent.name, n) for name, path, n in calls] == [
        ("first", "one", 1),
        ("second", "one", 1),
        ("first", "one", 2),
        ("first", "two", 1),
    ]
    assert cached_first.__name__ == "first"
    _cached.clear()


def _not_ready_page() -> None:
    # Run by AppTest as a script of its own: everything it needs is imported here, the
    # annotations' names too (the script has no `from __future__ import annotations`).
    from pathlib import Path  # noqa: F401

    import duckdb
    import polars as pl  # noqa: F401

    from dashboard.data import page_query
    from warehouse.store.db import WarehouseBusy, WarehouseMissing

    def missing(path: Path) -> pl.DataFrame:
        raise WarehouseMissing(str(path))

    def busy(path: Path) -> pl.DataFrame:
        raise WarehouseBusy(str(path))

    def no_table(path: Path) -> pl.DataFrame:
        raise duckdb.CatalogException("Table with name card_value does not exist!")

    def broken(path: Path) -> pl.DataFrame:
        raise duckdb.IOException("disk on fire")

    results = [
        page_query(missing)(),
        page_query(busy)(),
        page_query(no_table)(),
        page_query(no_table, quiet=True)(),
        page_query(broken)(),
    ]
    assert results == [None] * 5


def test_not_ready_states_become_messages_not_tracebacks(
    tmp_path: Path, use: Callable[..., None]
) -> None:
    use(tmp_path)
    app = AppTest.from_function(_not_ready_page, default_timeout=30)
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    infos = [str(m.value) for m in app.info]
    assert len(infos) == 2  # the missing warehouse, and the missing table once (not quiet)
    assert "仓库还是空的" in infos[0]
    assert "尚未计算" in infos[1] and "`card_value`" in infos[1]
    assert ["仓库正在写入" in str(m.value) for m in app.warning] == [True]
    assert [str(m.value) for m in app.error] == ["IOException: disk on fire"]
