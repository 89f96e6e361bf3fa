"""Every page in both languages: no visible string left in the other language, every chart a
valid Vega-Lite spec, and money shown as numbers, never as DECIMAL text.

"Visible" is what a user reads as the interface: titles, headers, text and notices, widget
labels and help, radio choices, expander labels, KPI labels and help, table headers, and in
every chart its titles, axis and legend titles and tooltip titles (a field without a title
shows its name). Data is not interface: platform names, regions as the sites print them,
listed units and card names are the same in either language, and widget options that are
data (cards, platforms, regions) are left alone.

Chinese passes when a string holds Chinese, or nothing but the allowed technical terms,
numbers and data; English passes when it holds no Chinese but the seeds' section marks.
The pages come from app.py's navigation, so a new page is checked the day it is added.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
import vl_convert
from streamlit.testing.v1 import AppTest

from dashboard import i18n
from dashboard.i18n import HEADERS, HEADERS_EN, LANG_KEY, STRINGS
from tests.dashboard.conftest import APP, assert_clean, headers, table, trends_detail
from tests.dashboard.seeding import EXTRA_PLATFORMS, Seeded
from tests.dashboard.seeding import PAGES as DEMO_SOURCES
from warehouse.read.names import BILLING_NAMES, CARD_NAMES

NAVIGATION = re.findall(
    r'st\.Page\(\s*"app_pages/(\w+)\.py"', Path(APP).read_text(encoding="utf-8")
)

# English a Chinese page may show as is: units, formats, table and setting names, markers.
ALLOWED_TERMS = (
    "SIMULATED",
    "real",
    "USD",
    "CNY",
    "UTC",
    "GPU",
    "FP16",
    "FP8",
    "TFLOPS",
    "TFLOP",
    "TB/s",
    "GB",
    "id",
    "ids",
    "CSV",
    "Excel",
    "PNG",
    "fx_rate",
    "spot_quote",
    "gpuprice",
    "h",
)
# Chinese an English page may show: the seeds' section marks, quoted as the articles number them.
ALLOWED_CJK = ("§一", "§二", "§三", "§四", "§五", "§六", "§七")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_CODE = re.compile(r"`[^`]*`")
_NUMBERS = re.compile(r"[-+]?[¥$]?\d[\d,.:/\-]*\s*(%|h|GB|x)?")
_WORD = re.compile(r"[A-Za-z]{2,}")

# Data a page prints inside its interface text: platform, card and billing ids, card names.
DATA_WORDS = sorted(
    {*CARD_NAMES, *CARD_NAMES.values(), *BILLING_NAMES, *EXTRA_PLATFORMS, *DEMO_SOURCES}
    | {"testcloud", "jygpu-published", "smm-published", "cheapest"},
    key=len,
    reverse=True,
)


def _strip(text: str, words: list[str] | tuple[str, ...]) -> str:
    for word in sorted(words, key=len, reverse=True):
        text = re.sub(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", " ", text)
    return text


def untranslated(text: str, english: bool, where: str = "") -> bool:
    """Whether ``text`` is in the other language than the page's. A choice's label too:
    it was once in both languages at once ("按时计费 hourly"), and now follows the toggle
    (dashboard.i18n.keep_choices keeps the choice). Choices are often data (a region, a
    model, a platform, in their own names), so a choice fails when it holds one of the
    dashboard's own words in the other language."""
    if where.endswith("option"):
        return any(word.search(text) for word in _FOREIGN[english])
    if english:
        return bool(_CJK.search(_strip(text, ALLOWED_CJK)))
    if _CJK.search(text):
        return False
    rest = _strip(_CODE.sub(" ", text), [*DATA_WORDS, *ALLOWED_TERMS])
    return bool(_WORD.search(_NUMBERS.sub(" ", rest)))


def _words(side: int) -> set[str]:
    """The dashboard's own words in one language (0 Chinese, 1 English) that the other
    language says differently: labels of the catalogs, billing modes and column names."""
    pairs = [
        *STRINGS.values(),
        *BILLING_NAMES.values(),
        *((HEADERS[k], HEADERS_EN[k]) for k in HEADERS),
    ]
    return {
        pair[side]
        for pair in pairs
        if pair[0] != pair[1] and "{" not in pair[side] and 2 <= len(pair[side]) <= 40
    }


def _phrase(word: str) -> re.Pattern[str]:
    """``word`` standing alone: not a piece of an id ("published" in "jygpu-published")."""
    return re.compile(
        rf"(?<![\w-]){re.escape(word)}(?![\w-])" if word.isascii() else re.escape(word)
    )


# page in English -> the Chinese words it must not show, and the other way round
_FOREIGN = {english: [_phrase(w) for w in _words(0 if english else 1)] for english in (True, False)}


_SHOWN = {"x", "y", "color", "strokeDash", "shape", "size", "opacity", "fill", "stroke"}


def _chart_strings(spec: Any, channel: str | None = None) -> Iterator[str]:
    """The titles a chart shows (chart, axes, legends, tooltips), a field without a title
    shown under its own name."""
    if isinstance(spec, list):
        for item in spec:
            yield from _chart_strings(item, channel)
        return
    if not isinstance(spec, dict):
        return
    title = spec.get("title")
    if isinstance(title, dict):
        yield str(title.get("text", ""))
        subtitle = title.get("subtitle")
        yield from subtitle if isinstance(subtitle, list) else [str(subtitle or "")]
    elif isinstance(title, str):
        yield title
    elif "field" in spec and "title" not in spec and channel in _SHOWN | {"tooltip"}:
        hidden = spec.get("legend", 0) is None or spec.get("scale", 0) is None
        if not (channel in {"color", "strokeDash"} and hidden):
            yield str(spec["field"])
    for guide in ("axis", "legend", "header"):
        if isinstance(spec.get(guide), dict) and spec[guide].get("title"):
            yield str(spec[guide]["title"])
    for key, value in spec.items():
        if key in ("datasets", "data", "title"):
            continue
        if key == "encoding" and isinstance(value, dict):
            for name, encoding in value.items():
                yield from _chart_strings(encoding, name)
        else:
            yield from _chart_strings(value, channel if key not in ("layer", "spec") else None)


def visible(app: AppTest) -> Iterator[tuple[str, str]]:
    """(where, text) of every interface string on the page."""
    for kind in ("title", "header", "subheader", "markdown", "caption"):
        for element in getattr(app, kind):
            yield kind, str(element.value)
    for kind in ("info", "warning", "success", "error"):
        for element in getattr(app, kind):
            yield kind, str(element.value)
    widgets = (
        "selectbox",
        "multiselect",
        "radio",
        "checkbox",
        "toggle",
        "date_input",
        "slider",
        "button",
        "number_input",
        "text_input",
        "text_area",
        "select_slider",
    )
    for kind in widgets:
        for widget in getattr(app, kind):
            if widget.key == LANG_KEY:
                continue  # the toggle names the other language on purpose
            yield f"{kind} label", widget.label
            if getattr(widget, "help", None):
                yield f"{kind} help", widget.help
            placeholder = getattr(widget.proto, "placeholder", "")
            if placeholder:
                yield f"{kind} placeholder", placeholder
            if kind in ("selectbox", "multiselect", "radio"):
                yield from ((f"{kind} option", str(o)) for o in widget.options)
    for pills in app.button_group:
        yield from (("pills option", str(o)) for o in pills.options)
    for button in app.get("download_button"):
        yield "download button", button.proto.label
    for expander in app.expander:
        yield "expander", expander.label
    for metric in app.metric:
        yield "metric label", metric.label
        yield "metric help", metric.proto.help
    for frame in app.dataframe:
        yield from (("table header", label) for label in headers(frame))
    for chart in app.get("vega_lite_chart"):
        yield from (("chart", s) for s in _chart_strings(json.loads(chart.proto.spec)) if s)


def render(page: str, english: bool) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=120)
    app.session_state[LANG_KEY] = english
    app.switch_page(f"app_pages/{page}.py")  # before the first run: only that page runs
    app.run()
    assert_clean(app)
    return app


# The recommend page is another change's (issue 30 item 4 there): in Chinese it still shows
# the number input "LoRA rank" and the radio choices "inference" / "training". Strict: the
# day it is translated this case passes and the mark must go.
KNOWN: dict[tuple[str, bool], str] = {}  # (page, english) -> why it is known to fail
CASES = [
    pytest.param(
        page,
        english,
        id=f"{page}-{'en' if english else 'zh'}",
        marks=[pytest.mark.xfail(reason=KNOWN[page, english], strict=True)]
        if (page, english) in KNOWN
        else [],
    )
    for page in NAVIGATION
    for english in (False, True)
]


@pytest.mark.parametrize(("page", "english"), CASES)
def test_no_untranslated_string(use_multi: Seeded, page: str, english: bool) -> None:
    app = render(page, english)
    wrong = sorted(
        {(where, text) for where, text in visible(app) if untranslated(text, english, where)}
    )
    assert not wrong, "\n".join(f"{where}: {text!r}" for where, text in wrong)


def test_the_check_catches_both_ways() -> None:
    assert untranslated("cheapest_platform", english=False)
    assert untranslated("Price basis: lowest listing", english=False)
    assert not untranslated("最便宜的平台", english=False)
    assert not untranslated("RTX 4090 24GB · autodl ¥1.24, 2026-09-10 UTC", english=False)
    assert untranslated("平台 platform", english=True)
    assert not untranslated("As seed article 003 §六 counts it", english=True)
    assert set(HEADERS) and all(_CJK.search(v) for v in HEADERS.values())
    assert len(set(HEADERS.values())) == len(HEADERS)  # no two columns read alike
    prose = [re.sub(r"\{[^}]*\}", " ", zh) for zh, en in STRINGS.values() if zh != en]
    assert all(_CJK.search(zh) or not _WORD.search(zh) for zh in prose)


def test_the_catalogs_are_data_files_with_the_same_keys_and_placeholders() -> None:
    """dashboard/locales/zh.toml and en.toml: a key missing from one language, or a
    ``{placeholder}`` one language forgot, would show a raw key or raise on the page."""
    catalogs = {}
    for lang in ("zh", "en"):
        path = Path(i18n.__file__).with_name("locales") / f"{lang}.toml"
        catalogs[lang] = tomllib.loads(path.read_text(encoding="utf-8"))["strings"]
    assert set(catalogs["zh"]) == set(catalogs["en"])
    assert catalogs["zh"] == {key: zh for key, (zh, _) in STRINGS.items()}
    assert set(HEADERS) == set(HEADERS_EN)
    fields = re.compile(r"\{(\w*)[^}]*\}")
    for key, zh in catalogs["zh"].items():
        assert set(fields.findall(zh)) == set(fields.findall(catalogs["en"][key])), key


_SNAKE = re.compile(r"[a-z][a-z0-9_]*")


@pytest.mark.parametrize(("page", "english"), CASES)
def test_tables_keep_snake_case_columns_labelled_in_the_page_language(
    use_multi: Seeded, page: str, english: bool
) -> None:
    """A table's frame keeps its own column names (snake_case, the locales' [headers]
    keys) and each header is its column_config label in the page's language: no frame is
    renamed to display names and back."""
    app = render(page, english)
    catalog = HEADERS_EN if english else HEADERS
    for frame in app.dataframe:
        columns = [str(c) for c in frame.value.columns]
        assert all(_SNAKE.fullmatch(c) for c in columns), columns
        assert not [c for c in columns if c not in catalog], columns
        assert headers(frame) == [catalog[c] for c in columns]


@pytest.mark.parametrize("page", NAVIGATION)
def test_every_chart_compiles_and_money_is_numbers(use_multi: Seeded, page: str) -> None:
    app = render(page, english=False)
    for chart in app.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        datasets = {}
        for data in chart.proto.datasets:
            table = pa.ipc.open_stream(data.data.data).read_all()
            assert not [f for f in table.schema if pa.types.is_decimal(f.type)], table.schema
            datasets[data.name] = json.loads(table.to_pandas().to_json(orient="records"))
        if chart.proto.data.data:
            table = pa.ipc.open_stream(chart.proto.data.data).read_all()
            assert not [f for f in table.schema if pa.types.is_decimal(f.type)], table.schema
            spec["data"] = {"values": json.loads(table.to_pandas().to_json(orient="records"))}
        spec["datasets"] = datasets | spec.get("datasets", {})
        vl_convert.vegalite_to_vega(json.dumps(spec))  # raises on a spec Vega-Lite rejects
    for frame in app.dataframe:
        for column in frame.value.columns:
            values = frame.value[column].dropna().tolist()
            assert not any(type(v).__name__ == "Decimal" for v in values), column
            assert not any(re.fullmatch(r"\d+\.\d{5,}0", str(v)) for v in values), column


def test_labels_made_from_the_data_follow_the_language(use_multi: Seeded) -> None:
    """Kinds, modes, verdicts and comparisons are made per row: on a polars worker thread
    the page's language cannot be read, and the English page showed Chinese kinds."""
    alerts = table(render("alerts", english=True), "al_feed")
    assert set(alerts["kind"]) <= {"breakeven shift", "rent-mode flip", "scraper broken"}
    assert any("on the lowest line across platforms at" in what for what in alerts["what"])
    changes = table(trends_detail(render("trends", english=True), "changes"), "tr_changes")
    assert all(c.startswith("month to date") for c in changes["compared"])
    app = render("report", english=True)
    verdicts = set(table(app, "rp_breakeven")["breakeven_vs_hourly"]) - {"—"}
    assert verdicts and all(v.startswith("pays off above") for v in verdicts)
    zh = table(render("alerts", english=False), "al_feed")
    assert set(zh["kind"]) <= {"盈亏平衡移动", "租用方式翻转", "抓取失效"}
    assert any("（跨平台最低价）" in what for what in zh["what"])


def test_a_lang_en_link_opens_in_english_and_the_toggle_still_switches(
    use_multi: Seeded,
) -> None:
    app = AppTest.from_file(APP, default_timeout=60)
    app.query_params["lang"] = "en"
    app.switch_page("app_pages/compare.py")
    app.run()
    assert_clean(app)
    assert (
        app.title[0].value == "Which platform is cheapest for each card?"
        and app.toggle(key=LANG_KEY).value
    )
    app.toggle(key=LANG_KEY).set_value(False).run()
    assert app.title[0].value == "每张卡哪个平台最便宜？"  # the reader's choice wins over the link
    plain = AppTest.from_file(APP, default_timeout=60)
    plain.switch_page("app_pages/compare.py")
    plain.run()
    assert plain.title[0].value == "每张卡哪个平台最便宜？"  # Chinese without the link


def test_choices_survive_the_language_toggle_named_in_the_new_language(use_multi: Seeded) -> None:
    """The browser keeps a choice by its label and the labels follow the language: the
    toggle's ``keep_choices`` sends each keyed choice again in the new words (without it
    the pills fell back to their default and the selections to raw labels)."""
    app = render("trends", english=False)
    app.button_group(key="tr_range").set_value("year").run()
    app.multiselect(key="tr_billing").set_value(["monthly"]).run()
    app.radio(key="tr_grain").set_value("week").run()
    assert "按时计费" in app.multiselect(key="tr_billing").options
    app.toggle(key=LANG_KEY).set_value(True).run()
    assert_clean(app)
    assert app.button_group(key="tr_range").value == "year"
    assert app.button_group(key="tr_range").options == ["Last 90 days", "This year", "All history"]
    assert app.multiselect(key="tr_billing").value == ["monthly"]
    assert "hourly" in app.multiselect(key="tr_billing").options
    assert app.radio(key="tr_grain").value == "week"
    app.toggle(key=LANG_KEY).set_value(False).run()
    assert app.button_group(key="tr_range").value == "year"
    assert app.multiselect(key="tr_billing").value == ["monthly"]
