"""The dashboard's words in Chinese (default) and English: the tables, one lookup each.

The words themselves are data: dashboard/locales/zh.toml and en.toml. ``STRINGS`` holds
the prose (titles, labels, empty states, banners, axis titles, choices), looked up by key
with ``t``; every visible string, a choice's label too, is in the page's language alone
(``keep_choices`` keeps the choice across the toggle). ``[headers]`` names the columns of
the tables and the fields of the charts' legends and tooltips: pages and charts name them
in snake_case (the key, the frame's own column name) and ``header`` gives the name in the
page's language (dashboard.tables.show makes it the column's column_config label). Cards
and billing modes are named by warehouse.read.names (``card_label``, ``billing_label``,
``named``), their ids kept beside the names in the tables and exports and in every
tooltip. tests/dashboard/test_i18n.py
opens every page in both languages and fails on a visible string left in the other one.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl
import streamlit as st

from warehouse.read.filters import NO_REGION
from warehouse.read.names import BILLING_NAMES, CARD_NAMES, billing_name, card_name

LANG_KEY = "lang_en"  # the sidebar toggle's key: on = English


# The words live in data files (dashboard/locales/zh.toml, en.toml), one per language, so a
# translator edits text, not Python. Loaded once, at import.
_LOCALES = Path(__file__).with_name("locales")


def _catalog(lang: str) -> dict[str, dict[str, str]]:
    with (_LOCALES / f"{lang}.toml").open("rb") as handle:
        return tomllib.load(handle)


_ZH, _EN = _catalog("zh"), _catalog("en")
# snake_case column / legend / tooltip name -> its header in Chinese, and in English.
HEADERS: dict[str, str] = _ZH["headers"]
HEADERS_EN: dict[str, str] = _EN["headers"]
# key -> (Chinese, English)
STRINGS: dict[str, tuple[str, str]] = {
    key: (zh, _EN["strings"][key]) for key, zh in _ZH["strings"].items()
}


def header(name: str) -> str:
    """The header of a column, legend or tooltip field in the page's language (``name``: its
    snake_case key; a name missing from the locales is shown as is, and test_i18n fails
    on it)."""
    return (HEADERS_EN if english() else HEADERS).get(name, name)


def card_label(gpu: str | None) -> str:
    """A card's name (the same in both languages: model names are not translated)."""
    return card_name(gpu)


def billing_label(billing: str | None) -> str:
    """A billing mode's name in the page's language."""
    return billing_name(billing, english())


def region_label(region: str) -> str:
    """A region as its source names it (data, not translated); the rows without one under
    words of the page's language (they were "(none)" in the Chinese UI)."""
    return t("region.none") if region == NO_REGION else region


def named(frame: pl.DataFrame, gpu: str = "gpu", billing: str = "billing") -> pl.DataFrame:
    """``frame`` with ``card_name`` and ``billing_name`` beside its ids (those it has)."""
    names = []
    if gpu in frame.columns:
        names.append(pl.col(gpu).replace(CARD_NAMES).alias("card_name"))
    if billing in frame.columns:
        side = 1 if english() else 0
        modes = {mode: pair[side] for mode, pair in BILLING_NAMES.items()}
        names.append(pl.col(billing).replace(modes).alias("billing_name"))
    return frame.with_columns(names) if names else frame


def relabel(frame: pl.DataFrame, column: str, name: Callable[[Any], str | None]) -> pl.Expr:
    """``column`` of ``frame`` through ``name``, each label made here, on the script's thread:
    polars may run a Python function (``map_elements``) on a worker thread, where the page's
    language cannot be read (the English page showed Chinese alert kinds). Nulls stay null."""
    mapping = {v: name(v) for v in frame[column].drop_nulls().unique().to_list()}
    return pl.col(column).replace_strict(mapping, default=None, return_dtype=pl.String)


def labels(values: Iterable[Any], name: Callable[[Any], str]) -> Callable[[Any], str]:
    """A widget's ``format_func``: each value's label computed now, in the page's language
    (Streamlit and AppTest may format a choice again after the script ran, outside the
    session). The widget needs a ``key``: ``keep_choices`` carries its choice across the
    language toggle by that key."""
    table = {value: name(value) for value in values}
    return lambda value: table.get(value, str(value))


def keep_choices() -> None:
    """The language toggle's ``on_change``. The browser keeps a selectbox's, radio's,
    multiselect's or pills' choice by its label, and the labels change with the language:
    without this, each choice was lost on the toggle (so labels were once in both languages
    at once, "按时计费 hourly"). Setting each keyed value again makes Streamlit send it in the
    new labels. Booleans (toggles, checkboxes, buttons, whose state cannot be set) and
    selection dicts have no labels and are left alone."""
    for key in list(st.session_state.keys()):
        value = st.session_state[key]
        if key != LANG_KEY and not isinstance(value, bool | dict) and _plain(value):
            st.session_state[key] = value


def _plain(value: Any) -> bool:
    """A value a choice widget holds: a string, number or date, a list or tuple of them, None."""
    if isinstance(value, list | tuple):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, str | int | float | date)


def english() -> bool:
    return bool(st.session_state.get(LANG_KEY, False))


def t(key: str, **values: Any) -> str:
    """The string for ``key`` in the chosen language, formatted with ``values``."""
    zh, en = STRINGS[key]
    text = en if english() else zh
    return text.format(**values) if values else text
