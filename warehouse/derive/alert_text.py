"""An alert's words, in English or Chinese, from its kind and parameters.

An alert stores what its message says as data (``alert.params``, JSON, migration 016): the
rule's card, line, usage and threshold, the old and new snapshot with their breakeven and
prices, the modes; for a broken scraper the source, profile, day and problem. The pipeline
writes the English message into ``alert.message`` for SQL users (and the notification
body); the dashboard's alerts page and `gpuprice alerts` render the same parameters in the
reader's language. One table of templates per language, here, so the stored message and
what a page shows cannot drift apart.

Card names come from warehouse.read.names (the one table every screen uses); source ids
(``jygpu``, ``runpod``) stay as they are: they are the platforms' own names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from warehouse.read.names import billing_name, card_name

Lang = Literal["en", "zh"]
# The kinds whose alerts keep their parameters (``alert.params``), rendered in any language.
KINDS = ("breakeven_shift", "mode_flip", "scraper_broken", "index_move")
LANGS: tuple[Lang, ...] = ("en", "zh")
CHEAPEST_LINE = "cheapest"  # warehouse.derive.metrics.CHEAPEST (not imported: no cycle)
Params = Mapping[str, Any]

MODES: dict[Lang, dict[str, str]] = {
    "en": {
        "bare_metal": "bare metal",
        "hourly": "hourly container",
        "monthly": "monthly-plan container",
    },
    "zh": {"bare_metal": "裸金属", "hourly": "按时容器", "monthly": "包月容器"},
}

_TEXT: dict[Lang, dict[str, str]] = {
    "en": {
        "tag": "[SIMULATED] ",
        "rule_title": "{card} on {line} at {usage:g} h/month",
        "cheapest": "the lowest line across platforms",
        "where": "{card} on {line}",
        "threshold_h": "{value:g} h",
        "threshold_pct": "{value:g} %",
        "money_month": "¥{value:,.2f}/card-month",
        "money_hour": "¥{value:,.2f}/card-hour",
        "n/a": "n/a",
        "prices": (
            "bare metal {bm}, {container} {ctr} (snapshot {at} UTC; "
            "before: {old_bm}, {old_ctr} at {old_at} UTC)"
        ),
        "mode_flip": (
            "{tag}{where}: at {usage:g} h/month the {cheaper} is now cheaper than the "
            "{dearer}; breakeven {old:.1f} h → {new:.1f} h per month; {prices}. Rule '{rule}'."
        ),
        "breakeven_shift": (
            "{tag}{where}: breakeven vs {container} moved {delta:+.1f} h ({old:.1f} h → "
            "{new:.1f} h per month; threshold {threshold}); {prices}. Rule '{rule}'."
        ),
        "summary.mode_flip": "{cheaper} now cheaper than the {dearer}",
        "line": "{what}: {summary}",
        "summary.breakeven_shift": (
            "breakeven {old:.1f} → {new:.1f} h/month ({delta:+.1f} h; threshold {threshold})"
        ),
        "broken_now": "is broken since {at:%Y-%m-%d %H:%M} UTC",
        "broken_then": "was broken on {at:%Y-%m-%d}",
        "scraper_broken": (
            "{tag}scraper for {source} ({profile} profile) {when}: {problem}. Nothing from the "
            "failing pages was loaded (they are kept in raw_page). Fix the adapter, then run "
            "`gpuprice reparse --source {source}` to repair the history."
        ),
        "summary.scraper_broken": "its pages stopped parsing ({when})",
        "scraper_title": "scraper of {source}",
        # ids, not names, in the stored English message: SQL users filter on them
        "index_move": (
            "{tag}{gpu} {billing} price index ({data}) moved {direction} {change:+.1f} % in "
            "{days} day(s): ¥{value:.4f} per card-hour on {day} (UTC), {before} on the day "
            "{days} day(s) before; over the {platforms} platform(s) quoting on both days "
            "(threshold ±{threshold:g} %). Rule '{rule}'."
        ),
        "summary.index_move": "{direction} {change:+.1f} % in {days} day(s), ¥{value:.4f}/card-hour",
        "index_title": "{card} · {billing_name} price index ({data})",
        "up": "up",
        "down": "down",
        "real": "real",
        "SIMULATED": "SIMULATED",
        "money_index": "¥{value:.4f}",
    },
    "zh": {
        "tag": "[SIMULATED 模拟] ",
        "rule_title": "{card}（{line}），每月 {usage:g} 小时",
        "cheapest": "跨平台最低价",
        "where": "{card}（{line}）",
        "threshold_h": "{value:g} 小时",
        "threshold_pct": "{value:g} %",
        "money_month": "¥{value:,.2f}/卡/月",
        "money_hour": "¥{value:,.2f}/卡时",
        "n/a": "无",
        "prices": (
            "裸金属 {bm}，{container} {ctr}（快照 {at} UTC；此前：{old_bm}，{old_ctr}，"
            "{old_at} UTC）"
        ),
        "mode_flip": (
            "{tag}{where}：每月使用 {usage:g} 小时，{cheaper}现在比{dearer}便宜；盈亏平衡点从每月 "
            "{old:.1f} 小时变为 {new:.1f} 小时；{prices}。规则“{rule}”。"
        ),
        "breakeven_shift": (
            "{tag}{where}：相对{container}的盈亏平衡点变动 {delta:+.1f} 小时（每月 {old:.1f} → "
            "{new:.1f} 小时；阈值 {threshold}）；{prices}。规则“{rule}”。"
        ),
        "summary.mode_flip": "{cheaper}现在比{dearer}便宜",
        "line": "{what}：{summary}",
        "summary.breakeven_shift": "盈亏平衡 {old:.1f} → {new:.1f} 小时/月（{delta:+.1f} 小时；阈值 {threshold}）",
        "broken_now": "自 {at:%Y-%m-%d %H:%M} UTC 起失效",
        "broken_then": "在 {at:%Y-%m-%d} 失效",
        "scraper_broken": (
            "{tag}{source} 的抓取程序（{profile} 配置）{when}：{problem}。失效页面的数据均未入库"
            "（页面保存在 raw_page）。请修复适配器，再运行 `gpuprice reparse --source {source}` "
            "修复历史数据。"
        ),
        "summary.scraper_broken": "页面无法解析（{when}）",
        "scraper_title": "{source} 的抓取程序",
        "index_move": (
            "{tag}{card} · {billing_name}价格指数（{data}）{days} 天内{direction} {change:+.1f} %："
            "{day}（UTC）每卡时 ¥{value:.4f}，{days} 天前 {before}；按两天都有报价的 "
            "{platforms} 个平台计算（阈值 ±{threshold:g} %）。规则“{rule}”。"
        ),
        "summary.index_move": "{days} 天内{direction} {change:+.1f} %，¥{value:.4f}/卡时",
        "index_title": "{card} · {billing_name}价格指数（{data}）",
        "up": "上涨",
        "down": "下跌",
        "real": "真实",
        "SIMULATED": "模拟",
        "money_index": "¥{value:.4f}",
    },
}


def _text(lang: Lang) -> dict[str, str]:
    return _TEXT[lang if lang in _TEXT else "en"]


def mode_name(mode: str | None, lang: Lang = "en") -> str:
    """A rent mode (``hourly``, ``monthly``, ``bare_metal``) in ``lang``; unknown as is."""
    return MODES[lang].get(mode or "", mode or "—")


def line_name(line: str | None, lang: Lang = "en") -> str:
    """A breakeven line: a platform id, or the lowest line across platforms by name."""
    return _text(lang)["cheapest"] if line in (None, CHEAPEST_LINE) else str(line)


def rule_title(gpu: str, line: str | None, usage_hours: float, lang: Lang = "en") -> str:
    """A watch rule as a reader names it: its card, line and usage, in ``lang``."""
    return _text(lang)["rule_title"].format(
        card=card_name(gpu), line=line_name(line, lang), usage=usage_hours
    )


# -- parameters ------------------------------------------------------------------------------


def point_params(
    at: datetime, value: float, bare_metal: Decimal | None, container: Decimal | None
) -> dict[str, Any]:
    """One snapshot of a watched line, as an alert's parameters keep it (money as exact
    text, CNY per card-month and per card-hour)."""
    return {
        "at": at.isoformat(),
        "value": value,
        "bare_metal": None if bare_metal is None else str(bare_metal),
        "container": None if container is None else str(container),
    }


def dumps(params: Params) -> str:
    return json.dumps(params, ensure_ascii=False, sort_keys=True)


def loads(text: str | None) -> dict[str, Any] | None:
    """An alert's stored parameters; None for an alert stored before migration 016 (or text
    that is not a JSON object)."""
    if not text:
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


# -- rendering -------------------------------------------------------------------------------


def _money(value: str | None, key: str, lang: Lang) -> str:
    text = _text(lang)
    return text["n/a"] if value is None else text[key].format(value=Decimal(value))


def _threshold(params: Params, lang: Lang) -> str:
    text = _text(lang)
    if params.get("threshold_hours") is not None:
        return text["threshold_h"].format(value=params["threshold_hours"])
    return text["threshold_pct"].format(value=params.get("threshold_pct") or 0)


def _price_values(params: Params, lang: Lang) -> dict[str, Any]:
    text, old, new = _text(lang), params["old"], params["new"]
    return {
        "tag": text["tag"] if params.get("simulated") else "",
        "where": text["where"].format(
            card=card_name(params["gpu"]), line=line_name(params.get("line"), lang)
        ),
        "rule": params.get("rule", ""),
        "usage": params["usage_hours"],
        "container": mode_name(params["against"], lang),
        "old": old["value"],
        "new": new["value"],
        "delta": new["value"] - old["value"],
        "threshold": _threshold(params, lang),
        "cheaper": mode_name(params.get("new_mode"), lang),
        "dearer": mode_name(params.get("old_mode"), lang),
    }


def _prices(params: Params, values: dict[str, Any], lang: Lang) -> str:
    old, new = params["old"], params["new"]
    return _text(lang)["prices"].format(
        bm=_money(new["bare_metal"], "money_month", lang),
        ctr=_money(new["container"], "money_hour", lang),
        old_bm=_money(old["bare_metal"], "money_month", lang),
        old_ctr=_money(old["container"], "money_hour", lang),
        at=f"{datetime.fromisoformat(new['at']):%Y-%m-%d %H:%M}",
        old_at=f"{datetime.fromisoformat(old['at']):%Y-%m-%d %H:%M}",
        container=values["container"],
    )


def _scraper_values(params: Params, lang: Lang) -> dict[str, Any]:
    text = _text(lang)
    at = datetime.fromisoformat(params["at"])
    when = text["broken_then" if params.get("history") else "broken_now"].format(at=at)
    return {
        "tag": text["tag"] if params.get("simulated") else "",
        "source": params["source"],
        "profile": params["profile"],
        "when": when,
        "problem": params["problem"],
    }


def _index_values(params: Params, lang: Lang) -> dict[str, Any]:
    """An index move's words (warehouse.derive.index_alerts): ids and names, the direction
    and the kind of data in ``lang``."""
    text, before = _text(lang), params.get("before")
    return dict(params) | {
        "tag": text["tag"] if params["data"] == "SIMULATED" else "",
        "card": card_name(params["gpu"]),
        "billing_name": billing_name(params["billing"], english=lang == "en"),
        "direction": text[params["direction"]],
        "data": text.get(params["data"], params["data"]),
        "before": text["n/a"] if before is None else text["money_index"].format(value=before),
    }


def message(kind: str, params: Params, lang: Lang = "en") -> str:
    """The whole message of an alert of ``kind`` in ``lang``."""
    text = _text(lang)
    if kind == "scraper_broken":
        return text[kind].format(**_scraper_values(params, lang))
    if kind == "index_move":
        return text[kind].format(**_index_values(params, lang))
    values = _price_values(params, lang)
    return text[kind].format(**values, prices=_prices(params, values, lang))


def summary(kind: str, params: Params, lang: Lang = "en") -> str:
    """What happened in a few words, for one line of a list."""
    text = _text(lang)
    if kind == "scraper_broken":
        return text["summary.scraper_broken"].format(**_scraper_values(params, lang))
    if kind == "index_move":
        return text["summary.index_move"].format(**_index_values(params, lang))
    return text[f"summary.{kind}"].format(**_price_values(params, lang))


def title(kind: str, params: Params, lang: Lang = "en") -> str:
    """What the alert is about: its rule as a reader names it, or the broken scraper."""
    if kind == "scraper_broken":
        return _text(lang)["scraper_title"].format(source=params["source"])
    if kind == "index_move":
        return _text(lang)["index_title"].format(**_index_values(params, lang))
    return rule_title(params["gpu"], params.get("line"), params["usage_hours"], lang)


def line(what: str, summary: str, lang: Lang = "en") -> str:
    """What an alert is about and what happened, as one line."""
    return _text(lang)["line"].format(what=what, summary=summary)


def render(row: Mapping[str, Any], lang: Lang = "en") -> tuple[str, str, str]:
    """(title, summary, message) of one stored alert (``kind``, ``params``, ``rule``,
    ``message``). An alert stored before its parameters were (migration 016) keeps its
    rule's name and its English message whatever ``lang``: that is all it holds."""
    params = loads(row.get("params"))
    kind = str(row.get("kind"))
    if params is None or kind not in KINDS:
        text = str(row.get("message") or "")
        return str(row.get("rule") or ""), text.split("; ", 1)[0], text
    return title(kind, params, lang), summary(kind, params, lang), message(kind, params, lang)


# -- why an alert is not sent, or no longer stands; where its delivery is -------------------
# Stored in English (``alert.not_sent``, ``alert.superseded``: SQL users read them), rendered
# in the reader's language by matching the stored text against the same templates.

_NOTES: dict[Lang, dict[str, str]] = {
    "en": {
        "history": (
            "about {day}, a day of history loaded on {loaded} (seeding, backfill or import): "
            "kept, not sent"
        ),
        "rewalk": (
            "found when the rule walked its line again (past days loaded later): kept, not sent"
        ),
        "superseded": (
            "older days loaded on {loaded} changed the rule's line: walked again, it gives "
            "this alert no more (kept because it was raised as news; never sent from now on)"
        ),
        "delivered": "delivered {at:%Y-%m-%d %H:%M}",
        "pending": "pending",
        "retrying": "pending, {n} attempt(s)",
        "not_sent": "not sent (history)",
        "stale": "superseded",
    },
    "zh": {
        "history": "关于 {day} 的历史数据，于 {loaded} 载入（初始填充、回填或导入）：保留，不发送",
        "rewalk": "规则重新检查其数据线时发现（较早的日期后来才载入）：保留，不发送",
        "superseded": (
            "{loaded} 载入的更早日期改变了规则的数据线：重新检查后不再得出此预警"
            "（作为当时的新消息保留；此后不再发送）"
        ),
        "delivered": "已投递 {at:%Y-%m-%d %H:%M}",
        "pending": "待投递",
        "retrying": "待投递，已尝试 {n} 次",
        "not_sent": "不发送（历史）",
        "stale": "已被取代",
    },
}
_HISTORY = re.compile(r"^about (\d{4}-\d{2}-\d{2}), a day of history loaded on (\d{4}-\d{2}-\d{2})")
_SUPERSEDED = re.compile(r"^older days loaded on (\d{4}-\d{2}-\d{2}) ")
REWALK_NOTE = _NOTES["en"]["rewalk"]


def history_note(observed_at: datetime, raised_at: datetime) -> str:
    """Why an alert about ``observed_at`` raised at ``raised_at`` is not sent (stored)."""
    return _NOTES["en"]["history"].format(
        day=f"{observed_at:%Y-%m-%d}", loaded=f"{raised_at:%Y-%m-%d}"
    )


def superseded_note(at: datetime) -> str:
    """Why an alert raised as news no longer stands (stored)."""
    return _NOTES["en"]["superseded"].format(loaded=f"{at:%Y-%m-%d}")


def note_text(note: str | None, lang: Lang = "en") -> str | None:
    """A stored ``not_sent`` or ``superseded`` note in ``lang`` (one this module did not
    write, as stored)."""
    if not note or lang == "en":
        return note
    notes = _NOTES[lang]
    if note == REWALK_NOTE:
        return notes["rewalk"]
    if found := _HISTORY.match(note):
        return notes["history"].format(day=found[1], loaded=found[2])
    if found := _SUPERSEDED.match(note):
        return notes["superseded"].format(loaded=found[1])
    return note


def delivery_text(row: Mapping[str, Any], lang: Lang = "en") -> str:
    """Where an alert's delivery stands, in a few words."""
    notes = _NOTES[lang]
    if row.get("superseded"):
        return notes["stale"]
    if row.get("not_sent"):
        return notes["not_sent"]
    if row.get("delivered_at") is not None:
        return notes["delivered"].format(at=row["delivered_at"])
    if row.get("attempts"):
        return notes["retrying"].format(n=row["attempts"])
    return notes["pending"]
