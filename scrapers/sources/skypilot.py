"""SkyPilot's public price catalogs: one ``vms.csv`` per cloud, USD per instance-hour.

``GET <base>/catalogs/<version>/<cloud>/vms.csv`` per configured cloud; the cloud is the
folder the file sits in, so a saved ``.../lambda/vms.csv`` parses like the live one. ``Price``
gives an ``hourly`` row, a ``SpotPrice`` above 0 a ``spot`` row (a catalog without that column
has no spot rows); one offer per instance type and region (``offer_id``
``<cloud>/<InstanceType>/<Region>``, zones collapsed, the lowest zone price kept; a line
without a region is an offer with none). CPU instances, TPUs and fractional GPUs are skipped.
A listing is the lines of one instance type and region: one that does not read is rejected
alone. The columns read, the cloud-by-cloud quirks, the errors and the real captures:
docs/SOURCES.md.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import urlsplit

from scrapers.gpu_names import canonical_gpu, nominal_vram_gb
from scrapers.limits import check_digits, check_json_depth
from scrapers.parse import Item, Page, excerpt_of
from scrapers.request import Request
from scrapers.rows import Billing, OfferRow, ParseError
from scrapers.sources._page import naive_utc
from scrapers.sources.base import Adapter
from scrapers.units import decimal_of, per_card_hour

__all__ = [
    "DEFAULT_CATALOG_VERSION",
    "DEFAULT_CLOUDS",
    "LIVE_URL",
    "SkypilotAdapter",
    "SkypilotOptions",
    "UnknownCloud",
    "catalog_url",
]

LIVE_URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master"
# The catalog SkyPilot's current clients read (CATALOG_SCHEMA_VERSION "v8" in
# sky/catalog/constants.py) and its fetchers refresh: hundreds of stored versions of v8's aws,
# runpod and verda catalogs, one or two of v9's. catalog_version = "v9" reads the newer schema.
DEFAULT_CATALOG_VERSION = "v8"
# GPU clouds whose vms.csv v8 keeps refreshed. vast is left out: the vastai source reads its
# offers directly, while this catalog holds SkyPilot's median of them.
DEFAULT_CLOUDS: tuple[str, ...] = ("aws", "gcp", "lambda", "runpod", "verda", "nebius")

REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price")
# Read where the catalog has them: a cloud with no spot market writes no SpotPrice column, and
# a line may leave Region, GpuInfo, vCPUs or MemoryGiB empty.
OPTIONAL_COLUMNS = ("vCPUs", "MemoryGiB", "GpuInfo", "SpotPrice", "Region")
USD_QUANTUM = Decimal("0.0001")
# fetch_vast.py writes the offer's gpu_total_ram as MemoryInfo.SizeInMiB.
_TOTAL_MEMORY_CLOUDS = frozenset({"vast"})
_MIB_PER_GIB = Decimal(1024)
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
_VERSION = re.compile(r"v\d+")
_JSON_WORDS = {"null": None, "true": True, "false": False}
# ".../catalogs/v8/aws/vms.csv": the version folder above the cloud's (a catalog states none).
_URL_VERSION = re.compile(r"/(v\d+)/[a-z0-9][a-z0-9_-]*/vms\.csv$", re.IGNORECASE)


class UnknownCloud(ParseError):
    """The catalog's path does not say which cloud it is for (no ``<cloud>/vms.csv``): the
    caller may say it (``gpuprice parse skypilot FILE --cloud aws``)."""


def catalog_url(base_url: str, version: str, cloud: str) -> str:
    """Where SkyPilot keeps one cloud's catalog: ``<base>/catalogs/<version>/<cloud>/vms.csv``."""
    return f"{base_url.rstrip('/')}/catalogs/{version}/{cloud}/vms.csv"


@dataclass(frozen=True)
class SkypilotOptions:
    """Which catalogs to fetch: ``[sources.skypilot.catalog]`` in ``gpuprice.toml``."""

    clouds: tuple[str, ...] = DEFAULT_CLOUDS
    catalog_version: str = DEFAULT_CATALOG_VERSION

    def __post_init__(self) -> None:
        if isinstance(self.clouds, str):
            raise ValueError(f"clouds must be a list of cloud names, got {self.clouds!r}")
        clouds = tuple(self.clouds)  # gpuprice.toml gives a list
        if not clouds:
            raise ValueError("clouds is empty: name at least one cloud (e.g. 'aws')")
        for cloud in clouds:
            if not isinstance(cloud, str) or not _NAME.fullmatch(cloud):
                raise ValueError(f"not a SkyPilot cloud name: {cloud!r}")
        if len(set(clouds)) != len(clouds):
            raise ValueError(f"a cloud is listed twice in {list(clouds)}")
        if not isinstance(self.catalog_version, str) or not _VERSION.fullmatch(
            self.catalog_version
        ):
            raise ValueError(f"catalog_version must look like 'v9', got {self.catalog_version!r}")
        object.__setattr__(self, "clouds", clouds)


@dataclass
class _Group:
    """The rows of one instance type in one region (one per zone, or just one)."""

    hardware: tuple[object, ...]
    name: str
    count: int
    vram: int | None
    cpu_cores: int | None
    ram_gb: int | None
    attached: bool  # a GCP card row: the price of the cards without their VM
    prices: list[Decimal]
    spots: list[Decimal]


@dataclass(frozen=True, slots=True)
class _Line:
    number: int
    cells: dict[str, str]  # every column read, "" where the catalog has none


class SkypilotAdapter(Adapter):
    name = "skypilot"
    currency = "USD"

    def __init__(self, options: SkypilotOptions | None = None) -> None:
        self.options = options or SkypilotOptions()

    def fetch_plan(self, base_url: str, as_of: date | None = None) -> list[str | Request]:
        version = self.options.catalog_version
        return [catalog_url(base_url, version, cloud) for cloud in self.options.clouds]

    def generation(self, body: bytes, url: str) -> str:
        """Which catalog this is: the version its URL names (a catalog states none inside)
        and how its ``GpuInfo`` cells are written, the part that changed between clouds and
        versions. Never raises: a body that is no catalog says so."""
        match = _URL_VERSION.search(urlsplit(url).path if "://" in url else url)
        version = f"catalog {match[1]}" if match else "catalog of unknown version"
        try:
            cloud = _cloud(url)
            reader = csv.reader(io.StringIO(_text(body, url)))
            header = [name.strip() for name in next(reader, [])]
            column = header.index("GpuInfo")
            cells = (fields[column].strip() for fields in reader if len(fields) == len(header))
            sample = next((cell for cell in cells if cell), None)
        except (ParseError, csv.Error, ValueError):
            return f"SkyPilot vms.csv? not one this adapter reads ({version})"
        return f"SkyPilot vms.csv, {version} ({cloud}), GpuInfo {_notation(sample)}"

    def read(self, body: bytes, url: str, fetched_at: datetime) -> Page:
        """The catalog's GPU lines, one listing per instance type and region."""
        cloud = _cloud(url)
        reader = csv.reader(io.StringIO(_text(body, url)))
        try:
            header = next(reader, None)
            if header is None:
                raise ParseError(f"{url}: empty body")
            columns = _columns(header, url)
            groups: dict[tuple[str, str], list[_Line]] = {}
            for fields in reader:
                if fields:
                    line = _line(fields, columns, len(header), reader.line_num)
                    if _is_gpu_line(line):
                        groups.setdefault(_listing_key(line), []).append(line)
        except csv.Error as exc:
            raise ParseError(f"{url}: not a readable CSV ({exc})") from None
        if not groups:
            raise ParseError(
                f"{url}: no GPU instance rows (only a header, or CPU-only / TPU / fractional-GPU "
                "rows): not a SkyPilot vms.csv with GPU prices"
            )
        items = [
            Item(_where(lines), lines, excerpt_of(",".join(lines[0].cells.values())))
            for lines in groups.values()
        ]
        return Page(url, naive_utc(fetched_at), items, facts=cloud)

    def rows(self, item: Item, page: Page) -> Iterator[OfferRow]:
        cloud: str = page.facts
        lines: list[_Line] = item.data
        group = _group(lines, cloud)
        if group is None:
            return  # every line names a card but attaches none, or a fraction of one
        key, region = _listing_key(lines[0])
        for billing, prices in (("hourly", group.prices), ("spot", group.spots)):
            if prices:
                yield self._offer(page.observed_at, cloud, key, region, group, billing, prices)

    def _offer(
        self,
        observed: datetime,
        cloud: str,
        key: str,
        region: str,
        group: _Group,
        billing: Billing,
        prices: list[Decimal],
    ) -> OfferRow:
        what = "/".join(part for part in (cloud, key, region) if part)
        price = min(prices).quantize(USD_QUANTUM, ROUND_HALF_UP)
        try:
            # Price is the whole instance's (or, for GCP cards, all of its cards').
            unit, per_card = per_card_hour(price, "USD", 1, group.count, "machine")
        except ParseError as exc:
            raise ParseError(f"{what}: {exc}") from None
        if group.attached:
            unit_raw = (
                f"{cloud}: USD per hour for {group.count} attached {group.name} alone, "
                "the host VM billed separately (SkyPilot catalog)"
            )
        else:
            unit_raw = f"{cloud}: USD per instance-hour (SkyPilot catalog)"
        if billing == "spot":
            unit_raw += ", spot price"
        if len(set(prices)) > 1:
            unit_raw += f", the lowest of {len(prices)} zones' prices"
        return OfferRow(
            observed_at=observed,
            source=self.name,
            offer_id=what,
            gpu=canonical_gpu(group.name, group.vram),
            gpu_name_raw=group.name,
            gpu_count=group.count,
            vram_gb=group.vram,
            billing=billing,
            price=price,
            currency="USD",
            unit=unit,
            unit_raw=unit_raw,
            per_card_hour=per_card,
            list_price=price if billing == "hourly" else None,
            region=f"{cloud}/{region}" if region else None,
            cpu_cores=group.cpu_cores,
            ram_gb=group.ram_gb,
        )


def _cloud(url: str) -> str:
    """The cloud a catalog is for: the folder its ``vms.csv`` is in (URL or local path)."""
    path = urlsplit(url).path if "://" in url else url
    parts = [part for part in path.replace("\\", "/").split("/") if part]
    cloud = parts[-2].lower() if len(parts) >= 2 and parts[-1] == "vms.csv" else ""
    if not _NAME.fullmatch(cloud) or _VERSION.fullmatch(cloud):
        raise UnknownCloud(
            f"{url}: cannot tell which cloud this catalog is for: name the file "
            "<cloud>/vms.csv (as in .../catalogs/v9/aws/vms.csv)"
        )
    return cloud


def _notation(cell: str | None) -> str:
    """How a ``GpuInfo`` cell is written, in words."""
    if cell is None:
        return "empty on every line"
    if not cell.startswith("{"):
        return "as the card's name only"
    try:
        json.loads(cell)
        notation = "as JSON"
    except ValueError:
        notation = "as a Python literal"
    return notation + (", lower-case keys" if "'gpus'" in cell or '"gpus"' in cell else "")


def _text(body: bytes, url: str) -> str:
    if not body or body.isspace():
        raise ParseError(f"{url}: empty body")
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(f"{url}: body is not UTF-8 ({exc})") from None
    if "\x00" in text:
        raise ParseError(f"{url}: body is binary, not a CSV (it holds NUL bytes)")
    check_digits(text, url)
    start = text.lstrip()[:1]
    if start == "<":
        raise ParseError(f"{url}: body is HTML, not a CSV catalog (starts {text[:40]!r})")
    if start in ("{", "["):
        raise ParseError(f"{url}: body is JSON, not a CSV catalog (starts {text[:40]!r})")
    return text


def _columns(header: list[str], url: str) -> dict[str, int]:
    """Where each column read is; a required one missing means this is no vms.csv."""
    names = [name.strip() for name in header]
    if len(set(names)) != len(names):
        raise ParseError(f"{url}: a column is named twice in the header {names}")
    missing = [name for name in REQUIRED_COLUMNS if name not in names]
    if missing:
        raise ParseError(
            f"{url}: not a SkyPilot vms.csv: no column {', '.join(missing)} "
            f"(header: {', '.join(names)[:200]})"
        )
    wanted = REQUIRED_COLUMNS + OPTIONAL_COLUMNS
    return {name: names.index(name) for name in wanted if name in names}


def _line(fields: list[str], columns: dict[str, int], width: int, number: int) -> _Line:
    """One CSV line's cells by column ("" for a column the catalog lacks). A line of the wrong
    width keeps its raw fields, and is refused when its listing is read."""
    if len(fields) != width:
        return _Line(number, {"_raw": ",".join(fields), "_width": f"{len(fields)}/{width}"})
    cells = dict.fromkeys(REQUIRED_COLUMNS + OPTIONAL_COLUMNS, "")
    cells.update({name: fields[i].strip() for name, i in columns.items()})
    return _Line(number, cells)


def _is_gpu_line(line: _Line) -> bool:
    """Whether a line may be a GPU listing: not a CPU instance (no accelerator, or a count of
    0) and not a TPU. A line of the wrong width may be anything: it is read, and refused."""
    if "_raw" in line.cells:
        return True
    name, count = line.cells["AcceleratorName"], line.cells["AcceleratorCount"]
    if name.lower().startswith("tpu-"):
        return False
    return bool(name) or count not in ("", "0", "0.0")


def _listing_key(line: _Line) -> tuple[str, str]:
    """(instance type, region): the zones of one region are one listing."""
    if "_raw" in line.cells:
        return f"line {line.number}", ""
    cells = line.cells
    instance = cells["InstanceType"] or f"{cells['AcceleratorName']}:{cells['AcceleratorCount']}"
    return instance, cells["Region"]


def _where(lines: list[_Line]) -> str:
    numbers = [line.number for line in lines]
    if len(numbers) == 1:
        return f"line {numbers[0]}"
    return f"lines {', '.join(map(str, numbers[:5]))}" + (", …" if len(numbers) > 5 else "")


def _group(lines: list[_Line], cloud: str) -> _Group | None:
    """The lines of one instance type and region (one per zone, or just one) as one listing;
    ``None`` when none attaches a whole card."""
    group: _Group | None = None
    for line in lines:
        what = f"line {line.number}"
        if "_raw" in line.cells:
            fields, width = line.cells["_width"].split("/")
            raise ParseError(f"{what}: {fields} fields where the header has {width}")
        group = _fold(group, line.cells, cloud, what)
    return group


def _fold(group: _Group | None, row: dict[str, str], cloud: str, what: str) -> _Group | None:
    """``group`` with one more zone's line; ``None`` while no line attaches a whole card."""
    name, count_text = row["AcceleratorName"], row["AcceleratorCount"]
    if not name:
        raise ParseError(f"{what}: AcceleratorCount {count_text} without AcceleratorName")
    if not count_text:
        raise ParseError(f"{what}: {name} without an AcceleratorCount")
    count = _number(count_text, "AcceleratorCount", what)
    if count == 0 or count != count.to_integral_value():
        return group  # named but not attached, or a fraction of one card
    cards = int(count)
    price = _number(row["Price"], "Price", what)
    spot = _number(row["SpotPrice"], "SpotPrice", what)
    if price == 0:
        raise ParseError(f"{what}: Price 0 is not a price (expected USD per hour)")
    if spot == 0:
        spot = None  # vast writes 0.00 for "no spot price"
    if price is None and spot is None:
        raise ParseError(f"{what}: {name} with neither a Price nor a SpotPrice")
    mib = _card_mib(row["GpuInfo"], name, cards, cloud, what)
    vram = None if mib is None else nominal_vram_gb(name, float(mib))
    vcpus = _number(row["vCPUs"], "vCPUs", what)
    memory = _number(row["MemoryGiB"], "MemoryGiB", what)
    hardware = (name, cards, vram, vcpus, memory)
    if group is None:
        return _Group(
            hardware=hardware,
            name=name,
            count=cards,
            vram=vram,
            cpu_cores=_whole(vcpus),
            ram_gb=None if not memory else int(memory.to_integral_value(ROUND_HALF_UP)),
            attached=not row["InstanceType"],
            prices=[] if price is None else [price],
            spots=[] if spot is None else [spot],
        )
    if group.hardware != hardware:
        raise ParseError(
            f"{what}: listed again with different hardware "
            f"({_describe(hardware)} after {_describe(group.hardware)})"
        )
    group.prices += [] if price is None else [price]
    group.spots += [] if spot is None else [spot]
    return group


def _number(text: str, column: str, what: str) -> Decimal | None:
    """A non-negative number, ``None`` for an empty cell."""
    if not text:
        return None
    value = decimal_of(text, f"{what}: {column}")
    if value is None:
        raise ParseError(f"{what}: {column} {text!r} is not a number")
    if not value.is_finite() or value < 0:
        raise ParseError(f"{what}: {column} {text!r} is not a non-negative number")
    return value


class _JsonWords(ast.NodeTransformer):
    """JSON's null / true / false as constants, for literals that mix both notations."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in _JSON_WORDS:
            return ast.copy_location(ast.Constant(_JSON_WORDS[node.id]), node)
        return node


def _literal(text: str, what: str) -> object:
    """``GpuInfo`` text as data: JSON, else a Python literal (never ``eval``)."""
    check_json_depth(text, f"{what}: GpuInfo")
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return ast.literal_eval(_JsonWords().visit(ast.parse(text, mode="eval")))
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        raise ParseError(f"{what}: GpuInfo {text[:80]!r} is neither JSON nor a literal") from None


def _same_card(text: str, name: str) -> bool:
    """Whether a bare ``GpuInfo`` names the card ``name`` does: the same letters and digits,
    or the same model ahead of what follows it ("H100_80GB_SXM5" and "H100-80GB-HBM3")."""
    bare, named = (re.sub(r"[^0-9a-z]", "", t.casefold()) for t in (text, name))
    model = re.match(r"[0-9a-z]+", name.casefold())
    return bare == named or (model is not None and bare.startswith(model[0]) and len(model[0]) > 2)


def _card_mib(text: str, name: str, cards: int, cloud: str, what: str) -> Decimal | None:
    """Memory of one card in MiB as ``GpuInfo`` states it, ``None`` when it states none."""
    if not text:
        return None
    if not text.startswith("{"):
        # fetch_gcp.py and older fetch_runpod.py write the bare name when they know no memory,
        # in their own spelling ("RTX_A6000" for RTXA6000, "H100_80GB_SXM5" for H100-80GB-HBM3)
        if _same_card(text, name):
            return None
        raise ParseError(f"{what}: GpuInfo {text[:80]!r} is neither a dict nor {name!r}")
    info = _literal(text, what)
    gpus = _key(info, "Gpus", what, text) if isinstance(info, dict) else None
    if not isinstance(gpus, list) or not gpus or not isinstance(gpus[0], dict):
        raise ParseError(f"{what}: GpuInfo has no 'Gpus' list: {text[:80]!r}")
    memory = _key(gpus[0], "MemoryInfo", what, text)
    if memory is None:
        return None
    if not isinstance(memory, dict):
        raise ParseError(f"{what}: GpuInfo MemoryInfo is not a dict: {text[:80]!r}")
    size = _key(memory, "SizeInMiB", what, text)
    if size is None:
        return None
    if isinstance(size, bool) or not isinstance(size, int | float) or size < 0:
        raise ParseError(f"{what}: GpuInfo MemoryInfo.SizeInMiB {size!r} is not a size")
    mib = Decimal(str(size))
    if cloud in _TOTAL_MEMORY_CLOUDS:
        mib /= cards
    return mib if mib >= _MIB_PER_GIB else None


def _key(mapping: dict[object, object], key: str, what: str, text: str) -> object:
    """``mapping[key]`` in any letter case: the v6 DigitalOcean catalog writes every GpuInfo
    key in lower case (``{'gpus': [{'memoryinfo': {'sizeinmib': 81559}}]}``), as SkyPilot's
    own fetchers quote its documentation; ``None`` when absent."""
    wanted = key.casefold()
    found = [v for k, v in mapping.items() if isinstance(k, str) and k.casefold() == wanted]
    if len(found) > 1:
        raise ParseError(f"{what}: GpuInfo gives {key!r} twice, in two cases: {text[:80]!r}")
    return found[0] if found else None


def _whole(value: Decimal | None) -> int | None:
    """A count of vCPUs as an int; ``None`` when absent, 0 or fractional."""
    if not value or value != value.to_integral_value():
        return None
    return int(value)


def _describe(hardware: tuple[object, ...]) -> str:
    name, cards, vram, vcpus, memory = hardware
    return f"{cards}× {name} {vram or '?'} GB, {vcpus} vCPUs, {memory} GiB"
