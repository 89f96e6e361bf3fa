"""Which column of a pricing table holds what, and the listing each of its rows describes.

The card column is the one whose cells name cards (:func:`~._table_columns.is_gpu_name`),
the header's GPU column first; failing that, the column the header calls the GPU column
("GPU型号"), whose cards need not be ones the extractor recognises. Price columns are named
by their headers, or hold prices with a currency or a period. The count is in the model
cell ("8x NVIDIA H100"), a count column, a cell listing the instance's parts ("GPUs: 8"), or
the tab the table sits in ("8x"); a card named only in a header ("GPU(Tesla M40)") is every
row's card, its column the count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from scrapers.rows import ParseError
from scrapers.sources.generic._table import Cell, Grid
from scrapers.sources.generic._table_columns import (
    Column,
    card_vram,
    count_in_parts,
    count_label,
    is_fraction,
    is_gpu_name,
    is_memory_column,
    is_money,
    names_no_gpu,
    price_text,
    read_header,
    read_model_cell,
    starts_like_price,
    vram_gb,
)

# Header names of the GPU column proper: a model cell under one of these is a listing even
# when its card is not one :func:`is_gpu_name` recognises (an unusual accelerator), unless it
# names a CPU or storage. ("Plan" or "Instance" columns must name a card to be listings.)
HEADER_GPU_KEYS = frozenset({
    "gpu", "gpu型号", "型号", "显卡", "显卡型号", "gpu类型", "卡型", "机型", "算力卡", "gpumodel",
    "model", "gputype", "card", "gpuname",
})  # fmt: skip


@dataclass(frozen=True, slots=True)
class Layout:
    """Which columns of a table hold what."""

    width: int
    model: Column
    model_by_header: bool  # the header calls it the GPU column ("GPU型号", "GPU Model")
    prices: list[Column]
    count: Column | None = None  # role "parts": a cell listing parts ("GPUs: 8 vCPUs: 224")
    vram: Column | None = None
    unit: Column | None = None
    region: Column | None = None
    card: str | None = None  # the card a header names for every row ("GPU(Tesla M40)")


@dataclass(frozen=True, slots=True)
class Listing:
    """What a page says of one listing, whichever of its prices."""

    name: str
    vram: int | None
    count: int
    region: str | None
    label: str = ""  # what the model cell says besides the card ("On-demand", "Spot")


def _titles(grid: Grid, width: int) -> list[str]:
    """Each column's title: the header's, else the name its cells carry (data-label)."""
    titles = []
    for i in range(width):
        title = grid.header[i] if grid.header and i < len(grid.header) else ""
        if not title:
            labels = Counter(row[i].label for row in grid.rows if len(row) == width)
            title = (labels.most_common(1)[0][0] if labels else None) or ""
        titles.append(title)
    return titles


def _share(texts: list[str], test: Callable[[str], object]) -> float:
    """The share of a column's non-empty cells that pass ``test``."""
    filled = [t for t in texts if t]
    return sum(1 for t in filled if test(t)) / len(filled) if filled else 0.0


def _is_count(text: str) -> bool:
    return count_label(text) is not None or is_fraction(text)


def _is_price(text: str) -> bool:
    return is_money(price_text(text))


def layout_of(grid: Grid, url: str) -> Layout | None:
    """Which column holds the card, the prices, the count ...; ``None`` when the table has
    no column of cards or none of prices (it is not a table of GPU prices)."""
    if grid.header:
        width = len(grid.header)
    elif grid.rows:
        width = Counter(len(row) for row in grid.rows).most_common(1)[0][0]
    else:
        return None
    columns = [read_header(i, title) for i, title in enumerate(_titles(grid, width))]
    rows = [row for row in grid.rows if len(row) == width]
    texts = [[row[i].text for row in rows] for i in range(width)]
    prices = [[row[i].price_text for row in rows] for i in range(width)]

    card = None
    named = [c for c in columns if _share(texts[c.index], is_gpu_name) >= 0.5]
    by_header = [c for c in columns if c.role == "gpu"]
    in_header = [c for c in columns if c.role in ("gpu", "count") and is_gpu_name(c.hint or "")]
    if not named and in_header:  # "GPU(Tesla M40)" over "1 颗": the card is the header's
        model = count = in_header[0]
        card = model.hint
    else:
        proper = [c for c in by_header if c.key in HEADER_GPU_KEYS]
        model = next((c for c in [*proper, *by_header] if c in named), None)
        model = model or (named[0] if named else None)
        if model is None:  # the header's GPU column, unless it holds counts
            model = next((c for c in by_header if _share(texts[c.index], _is_count) < 1), None)
        if model is None:
            return None
        count = _count_column(columns, texts, model)
    price_columns = [
        c for c in columns
        if c is not model and c is not count
        and (c.role == "price" or (c.role is None and _share(prices[c.index], _is_price) >= 0.5))
    ]  # fmt: skip
    if not price_columns:
        return None
    if len(price_columns) > 1 and not all(c.title for c in price_columns):
        raise ParseError(
            f"{url}: table {grid.id} has {len(price_columns)} price columns and no header to "
            "tell them apart"
        )
    roles = {c.role: c for c in reversed(columns) if c.role and c is not model}
    # Without a header naming it, the memory column is the one whose sizes fit the cards.
    vram = roles.get("vram") or next(
        (c for c in columns if c.role is None and c is not model and c not in price_columns
         and is_memory_column(texts[model.index], texts[c.index])),
        None,
    )  # fmt: skip
    return Layout(
        width,
        model,
        card is not None or (model.role == "gpu" and model.key in HEADER_GPU_KEYS),
        price_columns,
        count=count,
        vram=vram,
        unit=roles.get("unit"),
        region=roles.get("region"),
        card=card,
    )


def _count_column(columns: list[Column], texts: list[list[str]], model: Column) -> Column | None:
    """The column of GPU counts: a count (or GPU) column of counts only, else a column whose
    every cell lists the instance's parts with its GPUs ("GPUs: 8 vCPUs: 224")."""
    counts = [
        c for c in columns
        if c is not model and c.role in ("count", "gpu") and _share(texts[c.index], _is_count) == 1
    ]  # fmt: skip
    count = next((c for c in counts if c.role == "count"), None) or (counts[0] if counts else None)
    if count is not None:
        return count
    parts = [c for c in columns if c is not model and _share(texts[c.index], count_in_parts) == 1]
    return replace(parts[0], role="parts") if parts else None


def is_section_row(layout: Layout, cells: list[Cell]) -> bool:
    """A heading row inside a table ("A3 High" over the A3 machines): no card, no price."""
    if layout.card is None and cells[layout.model.index].text:
        return False
    return not any(starts_like_price(cells[c.index].price_text) for c in layout.prices)


def listing_of(layout: Layout, grid: Grid, cells: list[Cell], where: str) -> Listing | None:
    """The listing a row describes; ``None`` for a row that is not a GPU listing (CPU-only,
    storage, a share of one card)."""
    if layout.card is not None:
        name, count, label = layout.card, None, ""
    else:
        model = read_model_cell(cells[layout.model.index].text)
        name, count, label = model.name, model.count, model.label or ""
        if not name:
            raise ParseError(f"{where}: empty GPU model")
        if not is_gpu_name(name) and (names_no_gpu(name) or not layout.model_by_header):
            return None
    if layout.count is not None:
        text = cells[layout.count.index].text
        if layout.count.role == "parts":
            text = count_in_parts(text) or ""
        if is_fraction(text):
            return None  # a share of one card: there is no whole-card price to be had
        stated = count_label(text)
        if stated is None:
            raise ParseError(f"{where}: unreadable GPU count {text!r}")
        if count is not None and stated != count:
            raise ParseError(
                f"{where}: the model cell says {count} GPUs, the count column {stated}"
            )
        count = stated
    if count == 0:
        return None  # no GPU: a CPU-only instance
    count = count or grid.count or 1
    vram = vram_gb(cells[layout.vram.index].text) if layout.vram else None
    region = cells[layout.region.index].text if layout.region else ""
    return Listing(name, card_vram(name, vram, count), count, region or None, label)
