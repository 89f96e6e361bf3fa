"""What a pricing table's headers and cells say: which column is which, what a model cell
holds besides the card ("On-demand 8x NVIDIA H100 SXM"), and what a header says of its prices
("PRICE/GPU/HR*": per GPU, per hour).

Headers are compared after NFKC, lower case, without spaces and punctuation, and without a
unit in parentheses (that unit applies to the column). Cells are recognised by what they
are: a card's name, a price with its currency or period, a small count.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol

from scrapers.gpu_names import MODELS, canonical_gpu
from scrapers.rows import UNKNOWN_GPU, ParseError
from scrapers.units import Per, currency_in, nfkc, parse_money, parse_period, size_gb

# Header synonyms, compared as :func:`header_key` makes them. Add a spelling here and every
# generic source understands it.
SYNONYMS: dict[str, frozenset[str]] = {
    "gpu": frozenset({
        "gpu", "gpu型号", "型号", "显卡", "显卡型号", "gpu类型", "卡型", "机型", "算力卡",
        "gpumodel", "model", "gputype", "card", "gpuname", "name", "产品", "产品名称", "plan",
        "instance", "instancetype", "instancename", "gpuinstance", "gpucomponent", "规格",
    }),
    "vram": frozenset({
        "显存", "显存容量", "单卡显存", "gpu显存", "vram", "gpumemory", "memory", "gpuram",
        "vrampergpu", "memorypergpu", "vramgb", "gpumemorygb",
    }),
    "count": frozenset({
        "gpu数量", "卡数", "显卡数量", "数量", "gpus", "gpucount", "#gpus", "count", "卡数量",
        "#ofgpus", "numberofgpus", "gpuspernode", "gpusperinstance", "gpusperserver",
        "gpusperdroplet", "gpuspervm",
    }),
    "price": frozenset({
        "价格", "单价", "租金", "费用", "按量价格", "按小时价格", "小时价格", "包月价格",
        "月付价格", "包日价格", "按量计费", "price", "hourlyprice", "monthlyprice",
        "on-demandprice", "ondemandprice", "price/hr", "priceperhour", "cost", "rate",
        "on-demand", "ondemand",
    }),
    "unit": frozenset({"单位", "计费单位", "价格单位", "unit", "billingunit"}),
    "region": frozenset({"地域", "区域", "地区", "机房", "region", "location", "zone"}),
}  # fmt: skip

# The price tier a column's header names (scrapers.rows.Tier), checked in this order: a
# member's price ("会员价", "VIP1", "SVIP 专享"), a promotion's or the current one ("现价",
# "活动价", "限时特惠", "Sale"), the list price ("原价", "日常单价", "官网价", "Regular"). A
# header that names none is the list price.
TIER_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("member", ("会员", "vip", "svip", "member", "plus价", "企业价", "学生", "青铜", "白银", "黄金",
                "铂金", "钻石", "至尊")),
    ("promo", ("现价", "活动", "特惠", "优惠", "折后", "限时", "秒杀", "促销", "团购", "sale",
               "promo", "discounted", "special", "limited")),
    ("list", ("原价", "日常", "官网价", "标准价", "刊例", "挂牌", "list", "regular", "original",
              "standard")),
)  # fmt: skip

# Words that make a header a price column wherever they stand in it ("GPU On-Demand Cost").
_PRICE_WORDS = ("price", "pricing", "cost", "价格", "单价", "租金", "费用")
_BILLING_WORDS = (
    "on-demand", "ondemand", "spot", "reserved", "reserve", "reservation", "竞价", "按量",
    "interruptible", "preemptible",
)  # fmt: skip
# A price column for something other than the card (storage, bandwidth, CPU).
_NOT_GPU_PRICE = ("storage", "disk", "ssd", "bandwidth", "network", "egress", "cpu", "存储",
                  "硬盘", "带宽", "内存")  # fmt: skip

# Columns that name only a billing period, and the unit they mean ("按量(元/时)" states its
# unit too; "包月" alone says the price is per month).
PERIOD_COLUMNS: dict[str, str] = {
    **dict.fromkeys(("按量", "按时", "按小时", "每小时", "时租", "hourly"), "/hour"),
    **dict.fromkeys(("包日", "包天", "按天", "按日", "日租", "天租", "daily"), "/day"),
    **dict.fromkeys(("包周", "按周", "周租", "weekly"), "/week"),
    **dict.fromkeys(("包月", "按月", "月租", "monthly"), "/month"),
    **dict.fromkeys(("包年", "按年", "年租", "yearly", "annual", "annually"), "/year"),
}

_HINT = re.compile(r"[(（\[](?P<hint>[^)）\]]*)[)）\]]")
_HEADER_NOISE = re.compile(r"[\s:：*,，†‡]")
# "PRICE/GPU/HR", "Price per GPU per hour", "Cost Per Hour": a name, then the unit it states.
_NAME_UNIT = re.compile(r"^(?P<name>[^/]*?)\s*(?P<unit>(?:/|\bper\b).*)$", re.IGNORECASE)
_FOOTNOTE = re.compile(r"[*†‡]+")


def header_key(title: str) -> tuple[str, str | None]:
    """A header's comparable name (NFKC, lower case, no spaces or punctuation, no unit in
    parentheses) and the unit hint in its parentheses: "价格(元/时)" → ("价格", "元/时")."""
    text = _FOOTNOTE.sub("", nfkc(title)).strip()
    hint = _HINT.search(text)
    name = _HINT.sub(" ", text) if hint else text
    return _HEADER_NOISE.sub("", name).lower(), (hint["hint"].strip() if hint else None)


def _name_and_unit(title: str) -> tuple[str, str | None]:
    """``title`` split into its name and the unit it writes after a "/" or "per": "PRICE/GPU/HR"
    → ("price", "/GPU/HR"), "Price per hour" → ("price", "per hour")."""
    key, _ = header_key(title)
    text = _HINT.sub(" ", _FOOTNOTE.sub("", nfkc(title))).strip()
    m = _NAME_UNIT.match(text)
    if m is None:
        return key, None
    return _HEADER_NOISE.sub("", m["name"]).lower(), m["unit"]


def period_unit(text: str | None) -> str | None:
    """``text`` when it names a billing period ("/GPU/HR", "per hour", "元/时"), else ``None``."""
    if not text:
        return None
    try:
        parse_period(text)
    except ParseError:
        return None
    return text


@dataclass(frozen=True, slots=True)
class Column:
    """One column: its title as shown, its comparable name, what it holds (``role``), and for
    a price column the currency, unit and coverage its header states."""

    index: int
    title: str
    key: str
    role: str | None
    hint: str | None = None  # what the header says in parentheses: "元/时", "Tesla M40"
    currency: str | None = None
    unit: str | None = None
    per: Per | None = None
    tier: str | None = None  # "list", "promo" or "member" where the header says which


def tier_named(key: str) -> str | None:
    """The price tier a header's comparable name states (:data:`TIER_WORDS`), or ``None``."""
    for tier, words in TIER_WORDS:
        if any(word in key for word in words):
            return tier
    return None


def read_header(index: int, title: str) -> Column:
    """What a header names: its role, and for prices the currency, unit and coverage."""
    key, hint = header_key(title)
    name, after = _name_and_unit(title)
    role = _role(key) or _role(name)
    if role is None and _names_price(name, key, hint, after):
        role = "price"
    if role != "price":
        # a column of prices may be told by its cells alone: its header still names its tier
        return Column(index, title, key, role, hint, tier=tier_named(key))
    # "Per Hour Price": the unit is what is left of the title without its price word.
    bare = re.sub(r"(?i)pricing|price|cost", "", after or "").strip() or None
    unit = period_unit(hint) or period_unit(after) or period_unit(bare)
    unit = unit or PERIOD_COLUMNS.get(key) or _period_in_name(key) or _compound_period(title)
    per = (parse_period(unit)[1] if unit else None) or _per_in(title)
    currency = currency_in(hint) or currency_in(after) or _currency_named(name)
    return Column(index, title, key, "price", hint, currency, unit, per, tier_named(key))


def _role(key: str) -> str | None:
    for role, words in SYNONYMS.items():
        if key in words:
            return role
    if key.startswith(("vram", "显存", "gpumemory", "gpuram")):
        return "vram"
    return None


def _names_price(name: str, key: str, hint: str | None, after: str | None) -> bool:
    if any(word in key for word in _NOT_GPU_PRICE):
        return False
    if key in PERIOD_COLUMNS or any(p in key for p in _PRICE_WORDS + _BILLING_WORDS):
        return True
    if key.endswith("价") and tier_named(key):  # "原价", "现价", "会员价", "活动价"
        return True
    # A header that is only a unit: "(元/时)", "$/hr", "USD".
    if not name or name in ("$", "¥", "元", "usd", "cny", "rmb"):
        return bool(period_unit(hint) or period_unit(after) or currency_in(name or hint))
    return False


def _period_in_name(key: str) -> str | None:
    """The period a price column's name holds ("按量价格", "包月价格", "Monthly Price")."""
    for word, unit in PERIOD_COLUMNS.items():
        if key.startswith(word):
            return unit
    return None


# "On-demand, GPU-hour", "Spot (node-hour)": whom and the period as one word, no "/" or "per".
_COMPOUND = re.compile(
    r"\b(?P<who>gpu|card|server|machine|node|instance)[-\s]?(?P<period>hour|hr|day|week|month|year)s?\b",
    re.IGNORECASE,
)


def _compound_period(title: str) -> str | None:
    """The unit a header writes as one compound word ("GPU-hour" → "/gpu-hour"), or None."""
    m = _COMPOUND.search(nfkc(title))
    return f"/{m['who'].lower()}-{m['period'].lower()}" if m else None


def _currency_named(key: str) -> str | None:
    return "USD" if key in ("$", "usd") else "CNY" if key in ("¥", "元", "cny", "rmb") else None


_PER_CARD_WORDS = re.compile(
    r"per\s*gpu|/\s*gpu|gpu[- ]?(?:hr|hour|h)\b|每卡|单卡|per\s*card", re.I
)
_PER_MACHINE_WORDS = re.compile(r"per\s*(?:instance|server|node|machine)|每台|整机", re.I)


def _per_in(text: str) -> Per | None:
    """Whom a header says its prices cover: "per GPU" → card, "per instance" → machine."""
    low = nfkc(text)
    if _PER_CARD_WORDS.search(low):
        return "card"
    if _PER_MACHINE_WORDS.search(low):
        return "machine"
    return None


# -- cells -----------------------------------------------------------------------------------

_SPOT = re.compile(r"spot|interruptible|preemptible|竞价|抢占", re.IGNORECASE)


def is_spot(label: str) -> bool:
    """Whether a column or model-cell label names an interruptible price ("Current Spot")."""
    return bool(_SPOT.search(label))


# What sits in a model cell besides the card: a billing label, and the card count before or
# after it ("On-demand 8x NVIDIA H100 SXM", "1 × H200 SXM", "8卡 A100", "NVIDIA H100x8").
_LABEL = re.compile(
    r"^(?P<label>on[- ]?demand|spot|reserved|interruptible|preemptible|按量|竞价)\s+", re.I
)
_COUNT_BEFORE = re.compile(r"^(?P<n>\d{1,3})\s*(?:[x×*]|卡|张)\s*(?=\S)", re.IGNORECASE)
_COUNT_AFTER = re.compile(
    r"\s*(?:[x×*]\s*(?P<a>\d{1,3})|(?P<b>\d{1,3})\s*(?:卡|张)"
    r"|[(（]\s*(?P<c>\d{1,3})\s*(?:卡|张|[x×]|gpus?|cards?)\s*[)）])$",
    re.IGNORECASE,
)
# "PCIe x16", "Gen4 x16": lanes, not cards.
_LANES = re.compile(r"(?:pcie|gen\s*\d)\s*$", re.IGNORECASE)
_COUNT_ONLY = re.compile(
    r"^(?:[x×]\s*)?(?P<n>\d{1,3})\s*(?:[x×]|gpus?|cards?|卡|张|块|颗)?$", re.IGNORECASE
)
# A fraction of a card ("1/8", "1/4 颗"): a shared GPU, no whole-card count.
_FRACTION = re.compile(
    r"^(?P<n>\d{1,9})\s*/\s*(?P<d>\d{1,9})\s*(?:gpus?|cards?|卡|张|块|颗)?$", re.I
)
# The count in a cell that lists an instance's parts: "GPUs: 8 vCPUs: 224 Memory: 3,968GB".
_COUNT_IN_PARTS = re.compile(
    r"(?<![a-z])(?:gpus?|gpu数量|显卡|卡数)\s*[:：]\s*(?P<n>\d{1,9}(?:\s*/\s*\d{1,9})?)(?!\d)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ModelCell:
    """What a model cell says."""

    name: str  # the card as the cell names it, without label and count
    count: int | None  # the count the cell states, if any
    label: str | None  # "On-demand", "Reserved" ...


def read_model_cell(text: str) -> ModelCell:
    name = nfkc(text)
    label = None
    m = _LABEL.match(name)
    if m is not None:
        label, name = m["label"], name[m.end() :]
    count = None
    m = _COUNT_BEFORE.match(name)
    if m is not None:
        count, name = int(m["n"]), name[m.end() :]
    else:
        m = _COUNT_AFTER.search(name)
        if m is not None and m.start() > 0 and not _LANES.search(name[: m.start()]):
            count, name = int(m["a"] or m["b"] or m["c"]), name[: m.start()]
    return ModelCell(name.strip(" -·,"), count, label)


def count_label(text: str) -> int | None:
    """The count a cell or tab that holds only a count names: "8", "8x", "x8", "8 GPUs", "8卡"."""
    m = _COUNT_ONLY.match(nfkc(text))
    return None if m is None else int(m["n"])


def is_fraction(text: str) -> bool:
    """Whether a count is a fraction of a card ("1/8", "1/4 颗")."""
    m = _FRACTION.match(nfkc(text))
    return m is not None and int(m["n"]) < int(m["d"])


def count_in_parts(text: str) -> str | None:
    """The GPU count a cell listing an instance's parts states ("GPUs: 8" → "8", "GPUs: 1/8"
    → "1/8"), as text for :func:`count_label` or :func:`is_fraction`."""
    m = _COUNT_IN_PARTS.search(nfkc(text))
    return None if m is None else m["n"]


# Vendor and family words, and model numbers (A100, H200, L40S, MI300X, RTX 4090, 910B).
_GPU_WORDS = re.compile(
    r"(?<![A-Z])(NVIDIA|GEFORCE|QUADRO|TESLA|RTX|GTX|RADEON|INSTINCT|ASCEND|GAUDI|TITAN)(?![A-Z])"
    r"|昇腾|寒武纪|昆仑芯|摩尔线程|沐曦|海光|燧原|壁仞"
)
_GPU_MODEL = re.compile(
    r"(?<![A-Z0-9.])(?:(?:A|H|L|B|T|V|P|K|M|GH|GB|MI|S|R)\d{1,4}[A-Z]{0,3}"
    r"|(?:[2-5]0[5-9]0|10[5-8]0|16[56]0)(?:TI|D|S)?"
    r"|910[ABC]\d?)(?![A-Z0-9])"
)
_NOT_GPU = re.compile(
    r"cpu|storage|disk|ssd|nvme|bandwidth|egress|snapshot|backup|存储|硬盘|云盘|带宽|流量|无卡",
    re.IGNORECASE,
)


def is_gpu_name(text: str) -> bool:
    """Whether a cell names a card: one :mod:`scrapers.gpu_names` knows, or one that looks
    like a GPU (a vendor or family word, a model number such as A100 or MI300X)."""
    if not text:
        return False
    upper = nfkc(text).upper()
    if canonical_gpu(upper) != UNKNOWN_GPU or _GPU_WORDS.search(upper):
        return True
    return bool(_GPU_MODEL.search(upper)) and not _NOT_GPU.search(upper)


def names_no_gpu(text: str) -> bool:
    """Whether a model cell names something other than a card (CPU-only, storage)."""
    return bool(_NOT_GPU.search(nfkc(text))) and not is_gpu_name(text)


def is_money(text: str) -> bool:
    """Whether a cell is a price: a number with a currency or with a billing period."""
    try:
        _, currency, unit = parse_money(text)
    except ParseError:
        return False
    return currency is not None or period_unit(unit) is not None


# "Starts from $0.18/hour", "From 13.86 CNY/hour", "13.86 元/小时起", "as low as $2.00": the
# price a listing starts at, which is the price the page lists for it.
_FROM_BEFORE = re.compile(
    r"^(?:starts?\s+(?:from|at)|starting\s+(?:from|at)|from|as\s+low\s+as|低至)\s*", re.I
)
_FROM_AFTER = re.compile(r"\s*起$")
# A number a page splits with a space ("$2 .0000"), and "/ 1 hour" for "/hour".
_SPLIT_NUMBER = re.compile(r"(?<=\d)\s+(?=\.\d)")
_ONE_PERIOD = re.compile(r"/\s*1\s+(?=[^\W\d_])")


def price_text(text: str) -> str:
    """A price cell's text ready for :func:`scrapers.units.parse_money`: without "from" /
    "起", footnote marks, a space inside the number, or the "1" of "/ 1 hour"."""
    text = _FOOTNOTE.sub("", nfkc(text)).strip()
    text = _FROM_AFTER.sub("", _FROM_BEFORE.sub("", text))
    return _ONE_PERIOD.sub("/", _SPLIT_NUMBER.sub("", text)).strip()


_PRICE_START = re.compile(r"^(?:US\$|\$|USD|¥|RMB|CNY)?\s*\d", re.IGNORECASE)


def starts_like_price(text: str) -> bool:
    """Whether a cell starts as a price does (a currency mark or a number): one that does not
    ("g2-standard-24-spot", "Coming soon") lists no price; one that does must parse."""
    return bool(_PRICE_START.match(price_text(text)))


class _HasText(Protocol):
    @property
    def text(self) -> str: ...


def is_label_row(cells: Sequence[_HasText]) -> bool:
    """Whether a row is a header: some text, no price, no card."""
    texts = [c.text for c in cells]
    if not any(texts):
        return False
    for text in texts:
        if is_money(text) or canonical_gpu(text) != UNKNOWN_GPU:
            return False
        if _GPU_WORDS.search(nfkc(text).upper()):
            return False
    return True


# -- memory ----------------------------------------------------------------------------------

_NUMBER = re.compile(r"\d+(?:\.\d+)?\b")


def vram_gb(text: str) -> int | None:
    """A card's memory in whole GB: "24GB", "80 GB", else the first number ("48": a memory
    column or property is in GB); ``None`` when unreadable, fractional or zero."""
    size = size_gb(text)
    if size is None:
        found = _NUMBER.search(nfkc(text).replace(",", ""))
        size = None if found is None else Decimal(found[0])
    if size is None or size != size.to_integral_value() or size <= 0:
        return None
    return int(size)


def card_vram(name: str, vram: int | None, count: int) -> int | None:
    """One card's memory from a memory column that may give the whole machine's (8 × 141 =
    1128 GB for "8 × H200"): the per-card figure when the total is the name's own size times
    the count, or when only that figure makes the card a known one."""
    if vram is None or count == 1:
        return vram
    in_name = size_gb(name)
    if in_name is not None and in_name * count == vram:
        return int(in_name)
    whole_fits = canonical_gpu(name, vram) != UNKNOWN_GPU
    if not whole_fits and vram % count == 0 and canonical_gpu(name, vram // count) != UNKNOWN_GPU:
        return vram // count
    return vram


def _known_family(name: str) -> bool:
    upper = nfkc(name).upper()
    return any(m.pattern.search(upper) for m in MODELS)


_MEMORY_CELL = re.compile(r"^\d{1,3}(?:,\d{3})*(?:\.\d+)?\s*(?:GB|GIB|G)?$", re.IGNORECASE)


def is_memory_column(model_cells: Sequence[str], cells: Sequence[str]) -> bool:
    """Whether a column with no header is the cards' memory: every cell a size, and each size
    one that its row's card (where :mod:`scrapers.gpu_names` knows the card) comes in. Sizes
    written without "GB" need two such rows to tell them from other numbers."""
    fitting = 0
    with_unit = True
    for model_text, text in zip(model_cells, cells, strict=True):
        if not text:
            continue
        size = vram_gb(text)
        if size is None or not _MEMORY_CELL.match(nfkc(text)):
            return False
        with_unit = with_unit and size_gb(text) is not None
        model = read_model_cell(model_text)
        if not _known_family(model.name):
            continue
        if canonical_gpu(model.name, card_vram(model.name, size, model.count or 1)) == UNKNOWN_GPU:
            return False
        fitting += 1
    return fitting >= (1 if with_unit else 2)
