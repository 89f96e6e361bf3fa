"""Every real capture under ``tests/fixtures/real`` names cards the catalog knows (issue 36).

Each capture goes through its adapter as ``test_real_captures.py`` runs it (RunPod, Lambda,
SkyPilot, vast.ai and generic pages, from their ``.expected.json``), and the tracker's CSV
through the bundled ``gpu_price_track`` mapping, as ``make up`` imports it. No row may come
out ``unknown`` except:

* a model sold in several memory sizes whose row states none (a Chinese price table's "A100",
  "H20", "3080"): scrapers/gpu_names.py never guesses the size (:func:`_size_not_stated`);
* the names listed in ``STAY_UNKNOWN``, each with the reason no id can be given without
  guessing;
* the cards listed in ``NOT_IN_THE_CATALOG``: real cards the captures list that
  scrapers/gpu_names.py does not know yet (each to be added with its ``gpu_spec`` row, and
  then removed from the list: the test fails once one is identified).
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from configuration.schema import GPU_PRICE_TRACK
from scrapers.archive.tracker_csv import CsvMapping, read_tracker_csv
from scrapers.gpu_names import MODELS, canonical_gpu
from scrapers.rows import UNKNOWN_GPU, OfferRow, Row
from scrapers.sources import build_adapter

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
CASES = sorted(p for p in REAL.rglob("*.expected.json") if not json.loads(p.read_text())
               .get("expect_error"))  # fmt: skip
TRACKER_CSVS = sorted((REAL / "trackers").glob("*.csv"))

# (capture, name as listed) -> why it cannot be identified
STAY_UNKNOWN: dict[tuple[str, str], str] = {
    ("generic/gcp.html", "Nvidia A100"): (
        "GCP's table names 'Nvidia A100' for both a2-highgpu (40 GB) and a2-ultragpu (80 GB) "
        "machine types and states only the host's memory ('Memory: 170GB')"
    ),
    ("generic/hyperstack_20240822101707.html", "NVIDIA RTX A6000/A40"): (
        "one row for two cards (RTX A6000 and A40, both 48 GB)"
    ),
    ("runpod/runpod_20260810082317.html", "A100 PCIe"): (
        "the 2026 JSON-LD page states no memory; the A100 PCIe was sold in 40 and 80 GB"
    ),
    ("runpod/runpod_20260810082317.html", "A100 SXM"): (
        "the 2026 JSON-LD page states no memory; the A100 SXM4 was sold in 40 and 80 GB"
    ),
    ("runpod/runpod_graphql_20260928.json", "PRO 6000 MIG 24GB"): (
        "a MIG slice (1g.24gb) of an RTX PRO 6000 Server Edition, not a whole card"
    ),
    ("runpod/runpod_graphql_20260928.json", "PRO 6000 MIG 48GB"): (
        "a MIG slice (2g.48gb) of an RTX PRO 6000 Server Edition, not a whole card"
    ),
    ("runpod/runpod_graphql_20260928.json", "RTX PRO 4500 SE"): (
        "the 165 W Server Edition (800 GB/s): NVIDIA publishes no tensor figure or clock for it, "
        "so it has no gpu_spec row, and it is not the 200 W workstation card"
    ),
    ("skypilot/v9/vast/vms.csv", "RTX3060"): (
        "SkyPilot's vast catalog drops 'Ti' (instance 1x-RTX_3060_Ti); with 8 GB it is either "
        "an RTX 3060 8GB or a 3060 Ti"
    ),
}

# name as listed -> the card it is; not in scrapers/gpu_names.MODELS yet (issue 36, item 5)
NOT_IN_THE_CATALOG: dict[str, str] = {
    "P40": "Tesla P40 (24 GB), 优云智算's activity pages",
    "2080": "GeForce RTX 2080 (8 GB), 优云智算 event0",
    "2080 Ti 常规机型": "GeForce RTX 2080 Ti (11 GB), Featurize",
    "1080 Ti 常规机型": "GeForce GTX 1080 Ti (11 GB), Featurize",
    "1660 常规机型": "GeForce GTX 1660 (6 GB), Featurize",
    "P106 常规机型": "P106 mining card (P106-100 6 GB or P106-090 3 GB: the page says neither)",
    "RTX3060Ti": "GeForce RTX 3060 Ti (8 GB), SkyPilot's simplepod catalog",
    "Quadro RTX 5000": "Quadro RTX 5000 (16 GB), CoreWeave 2023",
    "Quadro RTX 4000": "Quadro RTX 4000 (8 GB), CoreWeave 2023",
}
_SIZES = sorted({size for model in MODELS for size in model.sizes})


def _size_not_stated(row: Row) -> bool:
    """A row of a model sold in several sizes (no default size in scrapers/gpu_names.py)
    that states no memory: the name would be an id with a size, and the page gives none."""
    return (
        isinstance(row, OfferRow)
        and row.vram_gb is None
        and any(canonical_gpu(row.gpu_name_raw, size) != UNKNOWN_GPU for size in _SIZES)
    )


def _adapter_rows(expected_file: Path) -> list[Row]:
    spec = json.loads(expected_file.read_text(encoding="utf-8"))
    capture = expected_file.with_name(expected_file.name.removesuffix(".expected.json"))
    adapter = build_adapter(
        spec.get("source") or spec["adapter"], spec["adapter"], spec.get("options")
    )
    return adapter.parse(
        capture.read_bytes(), spec["url"], datetime.fromisoformat(spec["fetched_at"])
    )


def _case_id(path: Path) -> str:
    return str(path.relative_to(REAL)).removesuffix(".expected.json")


def _unknown_names(case: str, rows: list[Row]) -> Counter[tuple[str, str]]:
    return Counter((case, row.gpu_name_raw) for row in rows if row.gpu == UNKNOWN_GPU)


@pytest.mark.parametrize("expected_file", CASES, ids=_case_id)
def test_every_card_of_a_capture_is_known(expected_file: Path) -> None:
    case = _case_id(expected_file)
    rows = _adapter_rows(expected_file)
    assert rows, f"{case} gives no rows"
    unknown = _unknown_names(case, rows)
    no_size = {(case, row.gpu_name_raw) for row in rows if _size_not_stated(row)}
    unexplained = sorted(key for key in unknown if key not in STAY_UNKNOWN
                         and key not in no_size and key[1] not in NOT_IN_THE_CATALOG)  # fmt: skip
    assert not unexplained, f"cards that map to nothing: {unexplained}"
    listed_here = {key for key in STAY_UNKNOWN if key[0] == case}
    # an exception that no longer happens is removed from the list, not left to rot
    assert listed_here <= set(unknown), (
        f"listed as unknown but identified: {listed_here - set(unknown)}"
    )


@pytest.mark.parametrize("csv_file", TRACKER_CSVS, ids=lambda p: p.name)
def test_every_card_of_the_trackers_csv_is_known(csv_file: Path) -> None:
    mapping = CsvMapping(**GPU_PRICE_TRACK)
    snapshots = read_tracker_csv(csv_file.read_bytes(), mapping, csv_file.name)
    assert snapshots and all(s.error is None for s in snapshots)
    rows = [row for snapshot in snapshots for row in snapshot.rows]
    unknown = sorted({row.gpu_name_raw for row in rows if row.gpu == UNKNOWN_GPU})
    assert not unknown, f"cards that map to nothing: {unknown}"
    # Lambda's rows carry the page's next columns; they name the card all the same
    glued = {row.gpu_name_raw: row.gpu for row in rows if row.gpu_name_raw.endswith(" SSD")}
    assert glued["RTX 6000 24 GB 14 46 GiB 512 GiB SSD"] == "quadrortx6000-24g"
    assert glued["NVIDIA GH200 96 GB 64 432 GiB 4 TiB SSD"] == "gh200-96g"


def test_the_exceptions_are_few_and_explained() -> None:
    assert len(STAY_UNKNOWN) <= 8
    assert all(len(reason) > 30 for reason in STAY_UNKNOWN.values())
    captures = {case for case, _ in STAY_UNKNOWN}
    assert captures <= {_case_id(p) for p in CASES}, "an exception names no capture"


def test_the_cards_missing_from_the_catalog_are_still_missing_and_listed() -> None:
    """Each name of NOT_IN_THE_CATALOG is still unknown (once its card is added, remove it
    here) and is met in a capture; none of them is a model whose size only is not stated."""
    met = {row.gpu_name_raw for path in CASES for row in _adapter_rows(path)}
    for name, card in NOT_IN_THE_CATALOG.items():
        assert canonical_gpu(name) == UNKNOWN_GPU, f"{name!r} is identified now: remove it"
        assert all(canonical_gpu(name, size) == UNKNOWN_GPU for size in _SIZES), card
        assert name in met, f"{name!r} ({card}) is in no capture"


def test_the_demos_real_history_has_no_unknown_card_but_runpods_a100s() -> None:
    """The captures `make up` imports (demo/real_history.py): RunPod's and Lambda's pages,
    SkyPilot's Lambda catalog, the tracker's CSV. Only the two A100s of RunPod's 2026 page,
    which states no memory, stay unknown."""
    imported = [p for p in CASES if _case_id(p).startswith(("runpod/runpod_2", "lambda/",
                                                            "skypilot/v5/lambda/"))]  # fmt: skip
    assert len(imported) == 3 + 3 + 5
    unknown: Counter[tuple[str, str]] = Counter()
    for path in imported:
        unknown += _unknown_names(_case_id(path), _adapter_rows(path))
    assert sorted(unknown) == [
        ("runpod/runpod_20260810082317.html", "A100 PCIe"),
        ("runpod/runpod_20260810082317.html", "A100 SXM"),
    ]
