"""The dashboard's words in Chinese (default) and English: the tables, one lookup each.

``STRINGS`` holds the prose (titles, labels, empty states, banners, axis titles), looked up
by key with ``t``. ``HEADERS`` names the columns of the tables and the fields of the charts'
legends and tooltips: pages and charts name them in English (the key) and ``header`` gives
the name in the page's language. Cards and billing modes are named by
warehouse.read.names (``card_label``, ``billing_label``, ``named``), their ids kept beside
the names in the tables and exports and in every tooltip. tests/dashboard/test_i18n.py
opens every page in both languages and fails on a visible string left in the other one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import polars as pl
import streamlit as st

from warehouse.read.names import BILLING_NAMES, CARD_NAMES, billing_name, card_name

LANG_KEY = "lang_en"  # the sidebar toggle's key: on = English

# English column / legend / tooltip name -> Chinese. Units stay in the header, in Chinese.
HEADERS: dict[str, str] = {
    "card": "显卡",
    "card id": "显卡 id",
    "billing": "计费方式",
    "billing id": "计费方式 id",
    "ids": "id（显卡 · 平台 · 计费）",
    "card · billing": "显卡 · 计费方式",
    "platform": "平台",
    "line": "线路",
    "region": "地区",
    "period": "日期",
    "period (UTC)": "日期 (UTC)",
    "day (UTC)": "日 (UTC)",
    "layer": "图层",
    "data": "数据",
    "origin": "出处",
    "origin (whole)": "出处（完整）",
    "n": "数量",
    "min": "最低 元/卡时",
    "max": "最高 元/卡时",
    "low": "区间最低 元/卡时",
    "high": "区间最高 元/卡时",
    "rank": "排名",
    "listings": "挂牌数",
    "currency": "挂牌币种",
    "listed price": "挂牌价",
    "listed in": "挂牌所用币种",
    "cards": "卡数",
    "observed (UTC)": "观测时间 (UTC)",
    "snapshot (UTC)": "快照 (UTC)",
    "month": "月份",
    "compared": "比较区间",
    "observations": "观测数",
    "platforms": "平台数",
    "days": "天数",
    "snapshots": "快照数",
    "CNY per card-hour": "元/卡时",
    "CNY per card-hour (mean)": "元/卡时（均值）",
    "CNY per card-hour (month mean)": "元/卡时（月均值）",
    "previous month": "上月 元/卡时",
    "year ago": "去年同期 元/卡时",
    "MoM %": "环比 %",
    "YoY %": "同比 %",
    "MoM % (same days)": "环比 %（同期天数）",
    "× cheapest": "× 最低价",
    "cheapest platform": "最便宜的平台",
    "cheapest CNY per card-hour": "最便宜 元/卡时",
    "dearest platform": "最贵的平台",
    "dearest CNY per card-hour": "最贵 元/卡时",
    "spread max/min": "价差 最高÷最低",
    "spread CNY per card-hour": "价差 最高−最低 元/卡时",
    "change in month %": "本月变化 %",
    "first day": "首日",
    "last day": "末日",
    "first CNY per card-hour": "首日 元/卡时",
    "last CNY per card-hour": "末日 元/卡时",
    "change %": "变化 %",
    "month to date CNY per card-hour": "本月至今日均 元/卡时",
    "same days last month CNY per card-hour": "上月同期日均 元/卡时",
    "median CNY per card-hour": "中位数 元/卡时",
    "cheapest median CNY per card-hour": "最低中位数 元/卡时",
    "cheapest MoM %": "最低价环比 %",
    "runner-up": "第二便宜",
    "CNY per TFLOP-hour": "元/TFLOP·时",
    "CNY per GB-hour": "元/GB·时",
    "CNY per TB/s-hour": "元/(TB/s)·时",
    "VRAM GB": "显存 GB",
    "FP16 TFLOPS (dense)": "FP16 TFLOPS（稠密）",
    "bandwidth TB/s": "带宽 TB/s",
    "memory": "显存类型",
    "interconnect": "互联",
    "domestic": "国产",
    "bare metal CNY per card-month": "裸金属 元/卡/月",
    "hourly CNY per card-hour": "按时 元/卡时",
    "monthly plan CNY per card-hour": "包月 元/卡时",
    "breakeven vs hourly": "盈亏平衡（对按时）",
    "breakeven vs monthly": "盈亏平衡（对包月）",
    "bare metal listing": "裸金属挂牌",
    "hourly listing": "按时挂牌",
    "monthly plan listing": "包月挂牌",
    "breakeven": "盈亏平衡",
    "bare metal vs": "裸金属对比",
    "h / month": "小时/月",
    "verdict": "结论",
    "mode": "租用方式",
    "created (UTC)": "产生时间 (UTC)",
    "kind": "类型",
    "rule": "规则",
    "from h/month": "原值 小时/月",
    "to h/month": "新值 小时/月",
    "from mode": "原方式",
    "to mode": "新方式",
    "delivered (UTC)": "投递时间 (UTC)",
    "delivery attempts": "投递次数",
    "last delivery error": "最近投递错误",
    "resolved (UTC)": "解除时间 (UTC)",
    "resolution": "解除说明",
    "not sent": "未发送原因",
    "message": "内容",
    "usage h/month": "用量 小时/月",
    "against": "对比",
    "threshold": "阈值",
    "hysteresis h": "回差 小时",
    "cheaper mode now": "当前更便宜的方式",
    "breakeven now h": "当前盈亏平衡 小时",
    "as of (UTC)": "截至 (UTC)",
    "source": "来源",
    "status": "状态",
    "parser": "解析",
    "parser since (UTC)": "解析状态起始 (UTC)",
    "parser problem": "解析问题",
    "last success (UTC)": "最近成功 (UTC)",
    "hours since success": "距最近成功 小时",
    "last run (UTC)": "最近一次 (UTC)",
    "last run status": "最近一次状态",
    "last run error": "最近一次错误",
    "runs": "抓取次数",
    "failed": "失败",
    "partial": "部分失败",
    "last success from": "最近成功来自",
    "loaded (UTC)": "载入时间 (UTC)",
    "newest data (UTC)": "最新数据 (UTC)",
    "newest data from": "最新数据来自",
    "newest data status": "最新数据状态",
    "newest data error": "最新数据错误",
    "what": "预警对象",
    "summary": "摘要",
    "delivery": "投递",
    "name in gpuprice.toml": "gpuprice.toml 中的名称",
    "where it stands (UTC)": "当前：更便宜的方式 · 盈亏平衡 · 快照 (UTC)",
    "finished (UTC)": "结束时间 (UTC)",
    "error": "错误",
    "day asked for": "回填日期",
    "pages": "页数",
    "rows": "行数",
    "unknown cards": "未识别卡行数",
    "name as listed": "原始 GPU 名称",
    "first seen (UTC)": "首次出现 (UTC)",
    "last seen (UTC)": "最近出现 (UTC)",
    "table": "表",
    "rows held": "隔离中的行",
    "fetched (UTC)": "抓取时间 (UTC)",
    "where on the page": "页面位置",
    "as listed": "原文",
    "refused by": "拒收环节",
    "id": "编号",
    "held since (UTC)": "隔离时间 (UTC)",
    "why": "类别",
    "last accepted ¥/card-hour": "上次接受的元/卡时",
    # data coverage and history imports (dashboard/app_pages/coverage.py, history_data.py)
    "first day (UTC)": "首日 (UTC)",
    "last day (UTC)": "末日 (UTC)",
    "days with data": "有数据的天数",
    "of which imported history": "其中导入的历史天数",
    "week from (UTC)": "周起始 (UTC)",
    "started (UTC)": "开始时间 (UTC)",
    "archived URLs / catalog / file": "存档网址 / 价格目录 / 文件",
    "listed": "列出",
    "kept": "保留",
    "fetched": "抓取",
    "already archived": "已存档",
    "parsed": "已解析",
    "rows added": "新增行数",
    "fx": "汇率",
    "Dagster run": "Dagster 运行",
    "recorded (UTC)": "记录时间 (UTC)",
    "captured (UTC)": "快照时间 (UTC)",
    "archive URL / origin": "存档网址 / 出处",
    "reason": "原因",
    "retried next": "下次重试",
    # market index (dashboard/app_pages/market_index.py)
    "withheld because": "未发布原因",
    "figure": "外部报价",
    "figure CNY per card-hour": "外部报价 元/卡时",
    "index CNY per card-hour": "指数 元/卡时",
    "spread vs index CNY per card-hour": "与指数价差 元/卡时",
    "spread vs index %": "与指数价差 %",
    "index note": "指数说明",
    "month's index CNY per card-hour": "本月指数 元/卡时",
    "last value CNY per card-hour": "月末指数 元/卡时",
    "last published day (UTC)": "月末发布日 (UTC)",
    "month change %": "月变化 %",
    "published days": "发布天数",
    "withheld days": "未发布天数",
}

STRINGS: dict[str, tuple[str, str]] = {
    # market index, the front page (dashboard/app_pages/market_index.py, docs/INDEX.md)
    "nav.index": ("市场指数", "Market index"),
    "ix.title": ("GPU 租赁市场指数", "GPU rental market index"),
    "ix.caption": (
        "每张卡、每种计费方式一个数：各平台当日最后一次快照中挂牌价的中位数，再取各平台的中位数"
        "（一平台一票），元/卡时，按 UTC 日；报价平台少于 {n} 个的日子不发布。",
        "One number per card and rent mode: the median across platforms (one vote each) of "
        "each platform's median listed price in its last snapshot of the day, CNY per "
        "card-hour, by UTC day; a day with fewer than {n} platforms quoting is withheld.",
    ),
    "ix.method": ("方法 v1", "Method v1"),
    "ix.method.text": (
        "- **键**：显卡 × 计费方式（按时、包日、包周、包月、裸金属包月、竞价）× UTC 日 × 数据种类"
        "（real 或 SIMULATED，从不混合）。\n"
        "- **每个平台**：当日最后一次快照中该卡该计费方式挂牌价（元/卡时）的中位数；库存为 0 "
        "的挂牌不计，库存未知的计入；隔离中的和被拒绝的行从不计入；只计公开价（不含会员价）。\n"
        "- **指数值**：各平台中位数的中位数，一平台一票。\n"
        "- **不发布**：报价平台少于 {n} 个时该日不发布，并记下未通过的门槛"
        "（gpuprice.toml 的 [index]）。\n"
        "- **变化**：1 日、7 日、30 日变化只比两天都报价的平台（配对样本），并给出平台数；"
        "平台集合变了的日子会标出。\n"
        "- **指数水平**：链式指数，首个发布日 = 100，按逐日配对比率连乘。\n"
        "- **供给**：每个值旁给出当日售罄挂牌（库存 = 0）的占比，只算报告库存的平台，并给出"
        "平台数。\n"
        "- **修订**：过去的值变了就追加一个修订，不覆盖；`gpuprice index --as-of` 查当时的值。",
        "- **Key**: card × rent mode (hourly, daily, weekly, monthly, bare metal monthly, "
        "spot) × UTC day × kind (real or SIMULATED, never mixed).\n"
        "- **Per platform**: the median CNY per card-hour of its listings of the card and mode "
        "in its last snapshot of the day; stock = 0 left out, unknown stock counts; "
        "quarantined and rejected rows never enter; only the tier the public pays.\n"
        "- **Value**: the median across platforms, one vote each.\n"
        "- **Withheld** when fewer than {n} platforms quote, the failing gate stored "
        "([index] in gpuprice.toml).\n"
        "- **Changes** over 1, 7 and 30 days, over the platforms quoting on both days only "
        "(a matched sample), with their number; a day whose platform set changed is marked.\n"
        "- **Level**: chain-linked, 100 on the first published day, moved by matched "
        "day-over-day ratios.\n"
        "- **Availability**: the share of the day's listings sold out (stock = 0), over the "
        "platforms that report stock, with how many do.\n"
        "- **Revisions**: a changed past value is appended, never overwritten; "
        "`gpuprice index --as-of` gives what it said then.",
    ),
    "ix.method.more": (
        "完整方法和可复现它的 SQL 查询：docs/INDEX.md；开放数据集：`gpuprice index export DIR`。",
        "The whole method and a SQL query that reproduces it: docs/INDEX.md; the open dataset: "
        "`gpuprice index export DIR`.",
    ),
    "ix.empty": (
        "还没有指数：流水线派生快照时计算（`gpuprice run` 或 `make up`）。",
        "No index yet: the pipeline computes it as it derives snapshots (`gpuprice run` or "
        "`make up`).",
    ),
    "ix.tab.simulated": ("SIMULATED 模拟数据", "SIMULATED data"),
    "ix.tab.real": ("真实数据 real", "real data"),
    "ix.simulated": (
        "这一栏的指数由演示市场的 SIMULATED 模拟价格算出，不是真实市场。",
        "This tab's index is computed from the demo market's SIMULATED prices, not a real market.",
    ),
    "ix.tile.help": (
        "各平台中位数的中位数（元/卡时），取当日最后一次快照；7 日和 30 日变化只比两天都报价的"
        "平台；迷你图：最近 90 天，未发布的日子留空。",
        "The median across platforms of each one's median (CNY per card-hour), last snapshot "
        "of the day; the 7- and 30-day changes compare only the platforms quoting on both "
        "days; sparkline: the last 90 days, withheld days left empty.",
    ),
    "ix.d7": ("7 日变化", "7-day change"),
    "ix.tile": (
        "{day} (UTC) · 30 日变化 {d30} · {platforms} 个平台",
        "{day} (UTC) · 30-day change {d30} · {platforms} platforms",
    ),
    "ix.tile.withheld": ("{day} (UTC) 未发布：{reason}", "{day} (UTC) withheld: {reason}"),
    "ix.gate.min_platforms": (
        "{n} 个平台报价，至少需要 {need} 个",
        "{n} platform(s) quoted, at least {need} needed",
    ),
    "ix.no_index": ("当日没有该种类的指数", "no index of this kind that day"),
    "ix.quiet": (
        "近 90 天没有发布值（每天报价平台少于 {n} 个）：{cards}。",
        "No value published in the last 90 days (fewer than {n} platforms quoting each "
        "day): {cards}.",
    ),
    "ix.lines": ("指数走势", "Index lines"),
    "ix.none_published": (
        "近 90 天没有发布值。下图是已计算的 {days} 天（{first} 至 {last}，UTC），每天一个点，"
        "灰色为未发布；把鼠标移到点上看原因。`gpuprice index` 列出每一天。",
        "Nothing published in the last 90 days. Below: the {days} days computed ({first} to "
        "{last}, UTC), a dot a day, grey where withheld; hover a dot for the reason. "
        "`gpuprice index` lists every day.",
    ),
    "ix.strip": (
        "{kind} 指数已计算的日子，{first} 至 {last} (UTC)",
        "{kind} index, the days computed, {first} to {last} (UTC)",
    ),
    "ix.status": ("状态", "status"),
    "ix.published": ("已发布", "published"),
    "ix.withheld": ("未发布", "withheld"),
    "ix.cards": ("显卡（各取主要计费方式）", "Cards (each in its main rent mode)"),
    "ix.measure": ("纵轴", "Axis"),
    "ix.value": ("元/卡时", "CNY per card-hour"),
    "ix.level": ("指数水平", "level"),
    "ix.pick": ("至少选择一张卡。", "Pick at least one card."),
    "ix.chart": (
        "{kind} 市场指数，{first} 至 {last} (UTC)",
        "{kind} market index, {first} to {last} (UTC)",
    ),
    "ix.y.value": ("指数 元/卡时", "index, CNY per card-hour"),
    "ix.y.level": (
        "指数水平（首个发布日 = 100，对数刻度）",
        "level (first published day = 100, log scale)",
    ),
    "ix.gaps": (
        "线断开处：该日未发布（报价平台不足）或没有报价；把鼠标移到灰色叉号上看原因。每条线在末端标注。",
        "A break in a line: that day was withheld (too few platforms quoting) or had no "
        "quote; hover a grey cross for the reason. Each line is labelled at its end.",
    ),
    "ix.spreads": ("与外部报价对照", "Against outside figures"),
    "ix.spreads.caption": (
        "种子文章公布的价格（极智算挂牌价、SMM 报价，real）和 SMM 报价板，对照同日同计费方式同种类的"
        "指数：价差 = 外部报价 − 指数（元/卡时），价差 % = 外部报价 ÷ 指数 − 1。SMM 的整机包月对应"
        "裸金属包月。",
        "The seeds' published prices (JYGPU's list prices and SMM's quotes, real) and SMM's "
        "quote board, against the index of the same day, mode and kind: spread = figure − "
        "index (CNY per card-hour), spread % = figure ÷ index − 1. SMM's whole-server monthly "
        "basis is bare metal, monthly.",
    ),
    "ix.spreads.none": ("这一种类没有外部报价。", "No outside figure of this kind."),
    # navigation and shared
    "nav.trends": ("价格趋势", "Price trends"),
    "nav.value": ("性价比", "Value board"),
    "nav.breakeven": ("盈亏平衡", "Breakeven"),
    "nav.alerts": ("预警", "Alerts"),
    "nav.health": ("数据健康", "Data health"),
    "nav.recommend": ("选卡推荐", "GPU recommender"),
    "nav.compare": ("平台比价", "Platform comparison"),
    "nav.report": ("月度报告", "Monthly report"),
    "backfill.filling": (
        "历史数据正在回填：已载入 {done} / {total} 天（自 {since} 起）。图表会随回填逐步补全。",
        "History is filling: {done} of {total} days loaded (since {since}). The charts fill "
        "in as it runs.",
    ),
    "lang.toggle": ("English", "English"),
    "simulated": (
        "**模拟数据 SIMULATED** — 演示配置：价格来自内置的演示市场（以种子文章 2026-09-04 "
        "公布价为锚）。`*-published` 来源的行是真实公布价；从公开存档导入的历史（data = real，"
        "注明出处）也是真实价格。",
        "**SIMULATED** — demo profile: prices come from the bundled demo market (anchored on "
        "the seeds' published 2026-09-04 prices). Rows from `*-published` sources are real, and "
        "so is the history imported from public archives (data = real, its origin cited).",
    ),
    "simulated.rows": (
        "所示数据含模拟行（data = SIMULATED）。",
        "Some rows shown are simulated (data = SIMULATED).",
    ),
    "empty.warehouse": (
        "仓库还是空的。运行 `make up`（启动时会抓取一次）或 `gpuprice run`，然后刷新本页。",
        "The warehouse is empty. Run `make up` (it scrapes once at start) or `gpuprice run`, "
        "then reload this page.",
    ),
    "empty.busy": (
        "仓库正在写入，稍后几秒刷新。",
        "The pipeline is writing; reload in a few seconds.",
    ),
    "empty.writing": (
        "流水线正在写入：这部分几秒后自动显示。",
        "The pipeline is writing: this part appears by itself in a few seconds.",
    ),
    "empty.not_computed": (
        "{what} 尚未计算：派生指标在每次抓取加载后由流水线计算（`gpuprice run`，或等待每小时调度）。",
        "{what} not computed yet: the pipeline derives it after each load (`gpuprice run`, or "
        "wait for the hourly schedule).",
    ),
    "empty.no_prices": (
        "还没有价格：运行 `gpuprice run` 或等待每小时调度。",
        "No prices yet: run `gpuprice run` or wait for the hourly schedule.",
    ),
    "empty.filters": ("所选条件没有数据，请放宽筛选。", "Nothing matches these filters."),
    "filters": ("筛选", "Filters"),
    "choose": ("请选择", "Choose options"),
    "f.cards": ("显卡", "Cards"),
    "f.platforms": ("平台", "Platforms"),
    "f.billing": ("计费方式", "Billing mode"),
    "f.regions": ("地区", "Regions"),
    "f.dates": ("日期范围 (UTC)", "Date range (UTC)"),
    "f.grain": ("粒度", "Grain"),
    "f.card": ("显卡", "Card"),
    "f.domestic": ("仅国产卡", "Domestic cards only"),
    "f.window": ("走势区间 (UTC)", "Window (UTC)"),
    "f.month": ("月份 (UTC)", "Month (UTC)"),
    "f.platform": ("平台 / 线路", "Platform / line"),
    "grain.day": ("日", "day"),
    "grain.week": ("周", "week"),
    "grain.month": ("月", "month"),
    "unit.card_hour": ("元/卡时 (CNY per card-hour)", "CNY per card-hour"),
    "unit.card_month": ("元/卡/月 (CNY per card-month)", "CNY per card-month"),
    "axis.date": ("日期 (UTC)", "date (UTC)"),
    "axis.usage": ("每卡每月使用小时 (h)", "usage, hours per card per month (h)"),
    "axis.breakeven": ("盈亏平衡小时 (h/月)", "breakeven (hours per month)"),
    "axis.tflop_hour": (
        "元/稠密 FP16 TFLOP·时 (CNY per TFLOP-hour)",
        "CNY per dense-FP16 TFLOP-hour",
    ),
    "layer.price": ("平台价格", "price"),
    "layer.band": ("平台区间", "band"),
    "layer.market quote": ("市场报价", "market quote"),
    "mom.whole": ("整月 {month} 对比 {previous}", "whole months, {month} vs {previous}"),
    "mom.same_days": (
        "月初至今 {start} 至 {end}，对比上月同期 {pstart} 至 {pend}",
        "month to date {start} to {end} vs the same days {pstart} to {pend}",
    ),
    "export.csv": ("导出 CSV", "Export CSV"),
    "export.xlsx": ("导出 Excel", "Export Excel"),
    # trends
    "trends.title": ("GPU 租赁价格趋势", "GPU rental price trends"),
    "trends.kpi": (
        "元/卡时，各平台均值的中位数；环比：{compared}",
        "CNY per card-hour, the median across platforms of their means; month over month: "
        "{compared}",
    ),
    "trends.kpi.help": (
        "{compared}；{platforms} 个平台的中位数；最新观测 {seen} UTC；id：{ids}",
        "{compared}; median of {platforms} platform(s); newest observation {seen} UTC; ids: {ids}",
    ),
    "trends.lines": ("画线的平台", "Platforms drawn as lines"),
    "trends.lines.help": (
        "每幅小图最多 6 条线：先画这里选的平台，再画每种计费方式最便宜和最贵的，其余按价格从低到高；"
        "没画出的仍在灰色区间和表中。",
        "At most 6 lines a panel: the platforms picked here first, then the cheapest and the "
        "dearest of each billing mode, then the next cheapest; the rest stay in the grey band "
        "and the table.",
    ),
    "trends.hidden": (
        "每幅最多 {limit} 条线：{n} 条未画出（在灰色区间内），可在「画线的平台」中选择",
        "at most {limit} lines a panel: {n} not drawn (inside the grey band); pick them under "
        "'Platforms drawn as lines'",
    ),
    "trends.band.platform": ("所选平台（中位数）", "all selected (median)"),
    "trends.kpi.yoy": ("环比 · 同比 {yoy}", "MoM · YoY {yoy}"),
    "trends.chart": (
        "元/卡时，{start} 至 {end}，按{grain}均值",
        "CNY per card-hour, {start} to {end}, {grain} mean",
    ),
    "trends.band": (
        "带状区 = 各平台最低–最高，线 = 中位数",
        "band = min–max across platforms, line = median",
    ),
    "trends.quotes": ("市场报价", "Market quotes"),
    "trends.quotes.note": (
        "虚线为市场报价：各地区均值，整机包月均价折算为元/卡时；地区筛选只作用于平台挂牌。",
        "Dashed lines are market quotes: mean over regions, whole-server monthly average as "
        "CNY per card-hour; the region filter applies to platform listings only.",
    ),
    "trends.changes": (
        "环比与同比（月均值，截至 {end}）",
        "Month over month and year over year (monthly means, to {end})",
    ),
    "trends.freshness": (
        "趋势数据截至 {watermark} UTC（汇总副本更新于 {synced_at} UTC，每次抓取后的派生步骤更新）",
        "Trend data through {watermark} UTC (aggregate copy refreshed {synced_at} UTC, by the "
        "derive step after every scrape)",
    ),
    "trends.table": ("图表数据（导出内容即此表）", "Chart data (the export is exactly this table)"),
    "trends.latest": (
        "最新挂牌价（最新观测 {at} UTC）",
        "Latest listed prices (newest observation {at} UTC)",
    ),
    "trends.kinds": (
        "实线加圆点 = 真实价格（悬停圆点看出处：存档快照、提交或引文），浅色线 = SIMULATED 模拟价格",
        "solid line with dots = real prices (hover a dot for its origin: archived capture, "
        "commit or citation), pale line = SIMULATED prices",
    ),
    "trends.range.all": ("全部历史", "All history"),
    "trends.range.recent": ("最近 {days} 天", "Last {days} days"),
    "trends.range.real": (
        "默认从第一条真实价格（{day}）开始，让导入的真实历史和 SIMULATED 模拟数据并排显示；"
        "「最近 90 天」只看近期。",
        "The range starts at the first real price ({day}) so the imported real history shows "
        "beside the SIMULATED days; 'Last 90 days' narrows it.",
    ),
    "trends.kpi.mixes": (
        "混合真实与 SIMULATED 价格：{what}；",
        "mixes real and SIMULATED prices: {what}; ",
    ),
    "trends.kpi.mixed": (
        "本月两种都有（环比、同比也因此混合）",
        "this month holds both (so do its month-over-month and year-over-year changes)",
    ),
    "list.sep": ("；", "; "),
    "trends.kpi.mom_mixed": (
        "环比一边真实一边模拟",
        "month over month compares one kind with the other",
    ),
    "trends.kpi.yoy_mixed": (
        "同比一边真实一边模拟",
        "year over year compares one kind with the other",
    ),
    "trends.kpi.mixed_note": (
        "{mark} 标记的指标混合了真实价格与 SIMULATED 模拟价格（悬停看是哪一项）。",
        "{mark} marks a figure that mixes real and SIMULATED prices (hover it to see which).",
    ),
    "trends.changes.kinds": (
        "同一平台的真实价格与 SIMULATED 模拟价格各占一行，只与同类比较。",
        "A platform's real and SIMULATED prices are rows of their own, each compared only "
        "with its own kind.",
    ),
    "legend.real": ("real 真实（圆点）", "real (dots)"),
    "legend.simulated": ("SIMULATED 模拟（浅色）", "SIMULATED (pale)"),
    "origin.simulated": ("演示市场（SIMULATED）", "demo market (SIMULATED)"),
    "origin.live": ("实时抓取（页面存于 raw_page）", "live scrape (its page in raw_page)"),
    "trends.facets": (
        "每张卡一幅小图，各自的纵轴；颜色 = 平台，线型 = 计费方式；悬停看完整名称",
        "one panel per card, each with its own y-axis; colour = platform, dash = billing "
        "mode; hover for full names",
    ),
    # compare
    "compare.title": ("平台比价", "Platform comparison"),
    "compare.view": ("查看", "Show"),
    "compare.view.heatmap": ("热力图", "Heatmap"),
    "compare.view.ranked": ("各卡排名", "Ranked per card"),
    "compare.view.summary": ("价差汇总", "Spread summary"),
    "compare.view.month": ("本月各平台", "This month per platform"),
    "compare.view.moves": ("走势", "Moves over a window"),
    "compare.view.prices": ("全部挂牌价", "Every listed price"),
    "compare.basis": ("价格口径", "Price basis"),
    "compare.basis.help": (
        "最低挂牌价：各平台最新快照里最便宜的一条挂牌（走势按每日最低）；挂牌中位数：该平台所有挂牌的"
        "中位数（走势按每日中位数）。整页都按同一口径。",
        "Lowest listing: each platform's cheapest listing in its newest snapshot (the moves: "
        "each day's lowest); median listing: the median of all its listings (the moves: each "
        "day's median). The whole page uses this one basis.",
    ),
    "basis.cheapest": ("最低挂牌价", "lowest listing"),
    "basis.median": ("挂牌中位数", "median listing"),
    "compare.headlines": (
        "今天哪里最便宜，本月怎样变化",
        "Where it is cheapest today, and how that moved this month",
    ),
    "compare.cheapest": (
        "最便宜 cheapest: {platform} {price}/卡时, {day}",
        "cheapest: {platform} {price} per card-hour, {day}",
    ),
    "compare.headline": (
        "**{row}** — {cheapest}（{basis}）\n{month}",
        "**{row}** — {cheapest} ({basis})\n{month}",
    ),
    "compare.month": (
        "本月最低价 {first}（{first_day}）→ {last}（{last_day}）{change}；本月至今日均较上月同期"
        "（{pfrom} 至 {pthrough}）{mom}",
        "this month the lowest went {first} ({first_day}) → {last} ({last_day}) {change}; "
        "month-to-date daily mean vs the same days of last month ({pfrom} to {pthrough}) {mom}",
    ),
    "compare.month.none": ("本月还没有价格。", "No price yet this month."),
    "compare.month_table": (
        "本月各平台变化（{basis}，{start} 至 {end}，与上月同期 {pfrom} 至 {pthrough} 相比，元/卡时）",
        "This month per platform ({basis}, {start} to {end}, against the same days "
        "{pfrom} to {pthrough} of last month, CNY per card-hour)",
    ),
    "compare.lines": ("走势图中画线的平台", "Platforms drawn as lines"),
    "compare.lines.help": (
        "每幅最多 8 条线：先画这里选的平台，再画最便宜和最贵的，其余按价格从低到高。全部平台见下表。",
        "At most 8 lines a panel: the platforms picked here first, then the cheapest and the "
        "dearest, then the next cheapest. Every platform is in the table below.",
    ),
    "compare.hidden": (
        "每幅最多 {limit} 条线：{n} 条未画出，可在「走势图中画线的平台」中选择",
        "at most {limit} lines a panel: {n} not drawn; pick them under 'Platforms drawn as lines'",
    ),
    "compare.prices": (
        "每个平台的价格（{billing}，{basis}，截至 {at} UTC）",
        "Every platform's price ({billing}, {basis}, as of {at} UTC)",
    ),
    "compare.caption": (
        "价格口径：{basis}，元/卡时，各平台最新快照（所选地区内）；截至 {at} UTC。"
        "只含最新快照在最新观测 {hours} 小时内的平台；种子文章公布价见价格趋势页。",
        "Price basis: {basis}, CNY per card-hour, each platform's newest snapshot (within the "
        "chosen regions); as of {at} UTC. Only platforms whose newest snapshot is within "
        "{hours} h of the newest observation; the seeds' published prices are on the trends "
        "page.",
    ),
    "compare.heatmap": (
        "元/卡时：卡 × 平台（{billing}，{basis}，截至 {at} UTC），颜色 = 最低价的倍数",
        "CNY per card-hour: card × platform ({billing}, {basis}, as of {at} UTC), colour = × "
        "the cheapest",
    ),
    "compare.ranked": (
        "各平台排名（{billing}，{basis}，截至 {at} UTC），★ = 最便宜",
        "Platforms ranked ({billing}, {basis}, as of {at} UTC), ★ = cheapest",
    ),
    "compare.summary": (
        "每卡最便宜的平台与价差（最高 ÷ 最低，最高 − 最低 元/卡时）",
        "Cheapest platform per card and the spread (max ÷ min, max − min CNY per card-hour)",
    ),
    "compare.fx": (
        "美元平台（{platforms}）按当日汇率折算：1 USD = ¥{rate:.4f}（fx_rate {day}，来源：{source}）。",
        "USD platforms ({platforms}) are converted at the day's rate: 1 USD = ¥{rate:.4f} "
        "(fx_rate of {day}, source: {source}).",
    ),
    "compare.fx_missing": (
        "美元平台（{platforms}）已在解析时按当日汇率折算，但仓库中没有 fx_rate 记录可显示。",
        "USD platforms ({platforms}) were converted at the day's rate when parsed, but the "
        "warehouse holds no fx_rate row to show.",
    ),
    "compare.moves": (
        "各平台价格走势（元/卡时，{start} 至 {end} UTC，每日{basis}）",
        "How each platform moved (CNY per card-hour, {start} to {end} UTC, each day's {basis})",
    ),
    "compare.moves_table": (
        "区间首日与末日（元/卡时，每日{basis}）及变化",
        "First and last day of the window (CNY per card-hour, each day's {basis}) and the change",
    ),
    "compare.none": (
        "今天没有平台报价：运行 `gpuprice run` 或等待每小时调度。",
        "No platform quotes today: run `gpuprice run` or wait for the hourly schedule.",
    ),
    # report
    "report.index": (
        "本月市场指数（每张卡、每种计费方式）",
        "The month's market index (per card and mode)",
    ),
    "report.index.caption": (
        "方法 v1（docs/INDEX.md）：本月指数 = 各发布日指数值的中位数（元/卡时）；月变化 = 本月最后"
        "发布日的链式指数水平 ÷ 此前最后发布日的水平 − 1（此前没有发布日时比本月第一个发布日；"
        "配对样本）；real 与 SIMULATED 分开。",
        "Method v1 (docs/INDEX.md): the month's index = the median of its published days' "
        "values (CNY per card-hour); month change = the chain-linked level of the month's last "
        "published day ÷ that of the last published day before the month − 1 (the month's "
        "first published day when there is none before; matched samples); real and "
        "SIMULATED apart.",
    ),
    "report.index.none": ("这个月没有指数。", "No index this month."),
    "report.title": ("月度报告（财务）", "Monthly report (finance)"),
    "report.caption": (
        "{month} 月（UTC 日历月）：各卡各平台的中位价与环比、每卡最便宜的平台、盈亏平衡、当月预警。"
        "点击按钮下载 Excel 工作簿或图表 PNG（点击时生成）。",
        "{month} (a calendar month, UTC): each card's median price and month over month per "
        "platform, the cheapest platform per card, the breakeven, the alerts raised. The "
        "buttons download the Excel workbook or the chart as PNG (built on click).",
    ),
    "report.xlsx": ("下载 Excel 月报", "Download Excel report"),
    "report.png": ("下载图表 PNG", "Download chart PNG"),
    "report.medians": (
        "各卡各平台中位价（元/卡时）与环比",
        "Median CNY per card-hour per card and platform, month over month",
    ),
    "report.cheapest": ("每卡最便宜的平台", "Cheapest platform per card"),
    "report.breakeven": ("盈亏平衡（月中位数）", "Breakeven (monthly medians)"),
    "report.alerts": ("当月预警：{n} 条", "Alerts raised in the month: {n}"),
    "report.empty": ("该月没有价格。", "No prices in this month."),
    "report.mom": ("环比：{compared}", "Month over month: {compared}"),
    "report.fx": (
        "汇率：本月 {n} 条 {currency} 挂牌观测（{platforms}）按各自当日的 fx_rate 折算为人民币："
        "1 {currency} = ¥{low:.4f}–{high:.4f}（最新为 {day} 的汇率；来源：{sources}）。",
        "FX: {n} {currency}-listed observations this month ({platforms}) were converted to CNY "
        "at each one's day's fx_rate: 1 {currency} = ¥{low:.4f}–{high:.4f} (newest: the rate "
        "of {day}; source: {sources}).",
    ),
    "report.fx.none": (
        "汇率：本月所有价格都以人民币挂牌，没有折算。",
        "FX: every price this month was listed in CNY; nothing was converted.",
    ),
    # value
    "value.title": ("性价比看板", "Value board"),
    "value.caption": (
        "每个平台最新快照中每卡最便宜的挂牌（{billing}）；算力为稠密 FP16 TFLOPS，GB = 10^9 字节。"
        "截至 {at} UTC。",
        "The cheapest listing per card in each platform's newest snapshot ({billing}); compute "
        "is dense FP16 TFLOPS, GB = 10^9 bytes. As of {at} UTC.",
    ),
    "value.sort": ("排序", "Sort by"),
    "value.specs": (
        "各卡规格（gpu_spec，引用见仓库）",
        "Card specs (gpu_spec, cited in the repository)",
    ),
    "value.vram": (
        "每卡时价格，按卡与显存（{billing}，截至 {at} UTC），一点 = 一个平台",
        "Price per card-hour by card and VRAM ({billing}, as of {at} UTC), a dot = a platform",
    ),
    "value.tflops": (
        "每 TFLOP·时价格，按卡与算力（{billing}，截至 {at} UTC），一点 = 一个平台",
        "Price per TFLOP-hour by card and compute ({billing}, as of {at} UTC), a dot = a platform",
    ),
    "axis.vram": ("显存 (GB)", "VRAM (GB)"),
    "axis.tflops": ("稠密 FP16 算力 (TFLOPS)", "dense FP16 (TFLOPS)"),
    # breakeven
    "be.title": (
        "盈亏平衡：按时 vs 包月 vs 裸金属",
        "Breakeven: hourly vs monthly plan vs bare metal",
    ),
    "be.lines": (
        "{gpu} · {line}：每卡每月成本，快照 {at} UTC",
        "{gpu} · {line}: cost per card per month, snapshot {at} UTC",
    ),
    "be.caption": (
        "按种子 003 §六：容器 = 使用小时 × 单价（包月价按其每小时单价计），裸金属 = 每卡月价，与使用无关。",
        "As seed 003 §六 counts it: a container costs usage × its hourly rate (the monthly plan "
        "at its per-hour rate), bare metal its per-card month whatever the usage.",
    ),
    "be.beyond": (
        "对{mode}：裸金属永远不划算（> 720 h；交点在 {hours:,.0f} h，超过一个月的小时数）。",
        "Against {mode}: bare metal never pays off (> 720 h; the lines would meet at "
        "{hours:,.0f} h, more hours than a month has).",
    ),
    "be.pays_off": ("超过 {hours:,.1f} h 划算", "pays off above {hours:,.1f} h"),
    "be.never": ("永远不划算 (> 720 h)", "never pays off (> 720 h)"),
    "be.cheapest.from": (
        "跨平台最低线路：每种方式取所有平台中最便宜的挂牌，本快照来自 {platforms}。",
        "The lowest line across platforms: each mode at the cheapest listing of any platform; "
        "in this snapshot from {platforms}.",
    ),
    "mode.0": ("按时容器", "hourly container"),
    "mode.1": ("包月容器", "monthly-plan container"),
    "mode.2": ("裸金属", "bare metal"),
    "be.missing": ("无法计算 {mode}：{reason}", "No breakeven vs {mode}: {reason}"),
    "be.usage": ("每卡每月使用小时", "Usage, hours per card per month"),
    "be.verdict": (
        "每月 {usage:g} h 时最便宜的是 **{mode}**：每卡 ¥{cost:,.2f}/月，比 {other} 每月省 ¥{saving:,.2f}。",
        "At {usage:g} h per month the cheapest is **{mode}**: ¥{cost:,.2f} per card-month, "
        "¥{saving:,.2f} per month less than {other}.",
    ),
    "be.only": (
        "每月 {usage:g} h：只有 {mode} 有价格，每卡 ¥{cost:,.2f}/月。",
        "At {usage:g} h per month only {mode} has a price: ¥{cost:,.2f} per card-month.",
    ),
    "be.history": (
        "盈亏平衡历史（h/月，{start} 至 {end} UTC），◆ = 预警",
        "Breakeven history (hours per month, {start} to {end} UTC), ◆ = alert",
    ),
    "be.daily": ("，日均值", ", daily means"),
    "be.no_line": (
        "该卡在此线路没有盈亏平衡数据。",
        "No breakeven data for this card on this line.",
    ),
    "be.cheapest": ("跨平台最低", "lowest across platforms"),
    # alerts
    "alerts.title": ("采购预警", "Procurement alerts"),
    "alerts.feed": ("预警记录（{n} 条，时间为 UTC）", "Alert feed ({n} alerts, times UTC)"),
    "alerts.kind": ("类型", "Kind"),
    "alerts.rule": ("监控规则", "Watch rule"),
    "alerts.since": ("起始日期 (UTC)", "Created since (UTC)"),
    "alerts.delivery": ("投递状态", "Delivery"),
    "alerts.all": ("全部", "all"),
    "alerts.no_card": ("— 来源", "— source"),
    "kind.breakeven_shift": ("盈亏平衡移动", "breakeven shift"),
    "kind.mode_flip": ("租用方式翻转", "rent-mode flip"),
    "kind.scraper_broken": ("抓取失效", "scraper broken"),
    "kind.index_move": ("价格指数变动", "price index move"),
    "alerts.targets": (
        "通知目标：已配置 {n} 个（URL 属于密钥，不显示）。",
        "Notification targets: {n} configured (the URLs are secrets and are not shown).",
    ),
    "alerts.no_target": (
        "没有配置通知目标：预警只记录在这里（状态为待投递），不会发送给任何人。添加方法：设置环境变量 "
        "`GPUPRICE_NOTIFY_URLS`（一个或多个 apprise URL，如 `dingtalk://…`、`lark://…`、"
        "`mailto://…`），或在 gpuprice.toml 的 `[notify]` 中把 `urls_file` 指向仓库外的一个文件"
        "（每行一个 URL），然后重启。",
        "No notification target is configured: alerts are only listed here (pending) and sent "
        "to no one. To add one, set the environment variable `GPUPRICE_NOTIFY_URLS` (one or "
        "more apprise URLs such as `dingtalk://…`, `lark://…`, `mailto://…`), or point "
        "`urls_file` under `[notify]` in gpuprice.toml at a file outside the repository (one "
        "URL a line), then restart.",
    ),
    "alerts.targets_unreadable": (
        "无法读取通知目标：{error}",
        "The notification targets cannot be read: {error}",
    ),
    "alerts.details": ("预警详情", "Alert details"),
    "alerts.resolved_short": ("{at} UTC 已恢复", "resolved {at} UTC"),
    "alerts.pick": (
        "在上表中点选一行查看该预警的完整内容（默认显示最新一条）。",
        "Select a row above to read that alert in full (the newest is shown until you do).",
    ),
    "alerts.snapshots": (
        "快照：{new} UTC（对比 {old} UTC）",
        "Snapshot: {new} UTC (compared with {old} UTC)",
    ),
    "alerts.offers": ("依据的挂牌：{offers}", "Listings behind the prices: {offers}"),
    "alerts.state": ("投递：{state}", "Delivery: {state}"),
    "alerts.why_not_sent": ("不发送的原因：{why}", "Why not sent: {why}"),
    "alerts.resolved": (
        "已于 {at} UTC 解除：{source} 重新成功载入。",
        "Resolved {at} UTC: {source} loaded again.",
    ),
    "alerts.superseded_note": ("已被取代：{why}", "Superseded: {why}"),
    "alerts.show_superseded": (
        "同时显示 {n} 条已被取代的预警（规则重新检查其数据线后不再得出）",
        "Also show {n} superseded alert(s) (no longer given once the rule walked its line again)",
    ),
    "alerts.delivered": ("已投递", "delivered"),
    "alerts.pending": ("待投递", "pending"),
    "alerts.none": (
        "还没有预警。预警在盈亏平衡移动超过阈值或更便宜的租用方式翻转时产生。",
        "No alerts yet. An alert is raised when a breakeven moves past a rule's threshold or "
        "the cheaper rent mode flips.",
    ),
    "alerts.rules": (
        "生效的监控规则（gpuprice.toml [[alerts.rules]]）",
        "Watch rules in force (gpuprice.toml [[alerts.rules]])",
    ),
    "alerts.no_rules": (
        "没有配置监控规则：在 gpuprice.toml 中添加 `[[alerts.rules]]`（示例见文件注释）。",
        "No watch rules configured: add `[[alerts.rules]]` to gpuprice.toml (an example is "
        "in the file's comments).",
    ),
    # health
    "health.title": ("数据健康", "Data health"),
    "health.sources": (
        "各来源最近一次成功抓取（现在 {now} UTC；超过 {hours:g} h 视为过期）",
        "Last successful scrape per source (now {now} UTC; stale after {hours:g} h)",
    ),
    "health.stale": ("过期来源：{names}", "Stale sources: {names}"),
    "health.all_fresh": (
        "所有来源都在 {hours:g} h 内成功抓取过。",
        "Every source scraped successfully within {hours:g} h.",
    ),
    "health.failures": (
        "失败与部分失败的抓取（最新在前）",
        "Failed and partial scrapes, newest first",
    ),
    "health.no_failures": ("没有失败的抓取。", "No failed scrapes."),
    "health.rows": (
        "每个快照的行数（最近 {n} 个快照，UTC）",
        "Rows per snapshot (last {n} snapshots, UTC)",
    ),
    "health.unknown": ("未识别的 GPU 名称：{n} 行", "Unknown GPU names: {n} rows"),
    "health.no_unknown": ("没有未识别的 GPU 名称。", "No unknown GPU names."),
    "health.no_runs": ("还没有抓取记录。", "No scrape runs recorded yet."),
    "health.rejected": (
        "被拒收的条目（最近 {n} 条；页面其余条目已入库）",
        "Rejected listings (newest {n}; the rest of each page loaded)",
    ),
    "health.no_rejected": ("没有被拒收的条目。", "No rejected listings."),
    "health.rejected_by_source": ("各来源累计：{counts}", "Per source, in all: {counts}"),
    "health.held": ("隔离中的价格：{n} 行", "Prices held in quarantine: {n} rows"),
    "health.no_held": ("没有隔离中的价格。", "No prices held in quarantine."),
    "health.held_how": (
        "隔离的价格不进入指标和告警。接受：`gpuprice quarantine accept 编号`；"
        "拒绝：`gpuprice quarantine reject 编号`；或由后续快照确认"
        "（[quarantine].confirm_snapshots）。",
        "Held prices stay out of metrics and alerts. Accept one with `gpuprice quarantine "
        "accept ID`, reject it with `gpuprice quarantine reject ID`, or let the next "
        "snapshots confirm it ([quarantine].confirm_snapshots).",
    ),
    "health.live": ("实时抓取", "live run"),
    "health.broken": (
        "{source} 的页面无法解析（自 {since} UTC 起）：{problem}",
        "{source}'s pages no longer parse (since {since} UTC): {problem}",
    ),
    "health.backfill": ("回填", "backfill"),
    "health.by_day": (
        "“最近成功”与“最新数据”按数据所属的时间判断（实时抓取为抓取时间，回填为所回填的日期），"
        "载入时间另列：后载入的较早日期不会盖过更新的数据。",
        "Last success and newest data go by the moment the data is about (a live run's time, "
        "the day a backfill asked for), with the load time beside it: a past day loaded later "
        "never overrules newer data.",
    ),
    "axis.rows": ("行数", "rows"),
    # recommend
    "rec.title": ("选卡推荐", "GPU recommender"),
    "rec.caption": (
        "说明要跑的模型、上下文长度和并发，得到卡型、张数、租用方式、每月花费和每百万 token "
        "的成本。GB = 10^9 字节；金额为元。",
        "Say which model, how long a context and how many users at once; get the card, how "
        "many, how to rent them, the monthly bill and the cost of a million tokens. GB = 10^9 "
        "bytes; money in CNY.",
    ),
    "rec.caption.source": (
        "依据：种子 000 §四与种子 003 §五的五步决策树（任务 → 显存 → 卡型与数量 → 租用方式 → "
        "预算），价格取仓库中每张卡的最新报价。",
        "Basis: the five-step decision tree of seed 000 §四 and seed 003 §五 (task → memory → "
        "cards and count → rent mode → budget), at the warehouse's latest price per card.",
    ),
    "rec.objective": ("按什么选", "Choose by"),
    "rec.objective.monthly": ("每月花费最低", "lowest monthly bill"),
    "rec.objective.tokens": ("每百万 token 成本最低", "lowest cost per million tokens"),
    "rec.objective.help": (
        "每百万输出 token 成本按各方案 KV 能容纳的最大并发估算（最理想情况的估算）。",
        "Cost per million output tokens at the largest batch each layout's KV holds (a "
        "best-case estimate).",
    ),
    "rec.api": (
        "对比 API 价格，元/百万输出 token（0 = 不对比）",
        "Compare with an API, CNY per million output tokens (0 = none)",
    ),
    "rec.api.help": (
        "给出 API 每百万输出 token 的价格，回答每天多少 token 起自建更便宜。",
        "An API's price per million output tokens: from what daily volume self-hosting is cheaper.",
    ),
    "rec.answer.tokens": (
        "每 token 成本（最理想情况的估算，{date} 的价格{sim}）：1 条序列 ¥{one:,.2f}/百万输出 "
        "token；{seqs:,} 条序列 ¥{full:,.2f}/百万（{tps:,.0f} token/s，KV 能容纳的最大并发）；"
        "输入（预填充）¥{prefill:,.2f}/百万",
        "Per token (best-case estimate, price of {date}{sim}): ¥{one:,.2f}/M output tokens at "
        "1 sequence; ¥{full:,.2f}/M at {seqs:,} sequences ({tps:,.0f} tokens/s, the most the "
        "KV holds); input (prefill) ¥{prefill:,.2f}/M",
    ),
    "rec.answer.tokens.sim": ("，模拟价格", ", SIMULATED price"),
    "rec.answer.tokens.help": (
        "¥/百万 = 月费 ÷（token/s × 3600 × 每月小时）× 10^6。解码速度是上限：每步读一次权重加"
        "每条序列的 KV，按显存带宽的 60%，并受算力上限约束；所以成本是下限。方法见 "
        "recommender/README.md。",
        "¥/M = monthly bill ÷ (tokens/s x 3600 x hours per month) x 10^6. Decode speed is an "
        "upper bound: each step reads the weights once plus every sequence's KV at 60% of the "
        "memory bandwidth, capped by compute; so the cost is a lower bound. Method: "
        "recommender/README.md.",
    ),
    "rec.answer.api": (
        "对比 API（¥{api:,.2f}/百万输出 token）：每天超过 {even:,.1f} 百万 token 时自建更便宜；"
        "该方案每天最多产出 {cap:,.1f} 百万 token（最理想情况）。",
        "vs an API at ¥{api:,.2f}/M output tokens: self-hosting is cheaper above {even:,.1f} M "
        "tokens a day; this layout makes at most {cap:,.1f} M a day (best case).",
    ),
    "rec.answer.api.never": (
        "对比 API（¥{api:,.2f}/百万输出 token）：需每天 {even:,.1f} 百万 token 才划算，但该方案"
        "每天最多只能产出 {cap:,.1f} 百万（最理想情况）：这个价格下 API 更便宜。",
        "vs an API at ¥{api:,.2f}/M output tokens: self-hosting would need {even:,.1f} M tokens "
        "a day to pay, but this layout makes at most {cap:,.1f} M a day (best case): at this "
        "price the API is cheaper.",
    ),
    "rec.answer.why_pcie": (
        "为什么不选更便宜的 {count} × {gpu}（¥{cost:,.2f}/月）：它要跨 PCIe 拆分模型（{layout}，"
        "没有 NVLink/HCCS），多卡扩展差；推荐方案单卡或走高速互联。",
        "Why not the cheaper {count} x {gpu} (¥{cost:,.2f}/month): it splits the model over "
        "PCIe ({layout}, no NVLink/HCCS), which scales badly; the pick keeps it on one card or "
        "a fast link.",
    ),
    "rec.answer.why_pcie.source": (
        "依据：种子 000 §6.3、种子 003 §五第 3 步（多卡优先 NVLink/HCCS）。",
        "Basis: seed 000 §6.3, seed 003 §五 step 3 (multi-card prefers NVLink/HCCS).",
    ),
    "rec.levers.source": (
        "依据：种子 000 §四第 5 步（FP16→INT8、减卡、换卡）与种子 003 §二（改用 LoRA）。",
        "Basis: seed 000 §四 step 5 (FP16 -> INT8, fewer cards, a cheaper card) and seed 003 §二 "
        "(LoRA instead).",
    ),
    "rec.answer.why_tokens": (
        "为什么不选更便宜的 {count} × {gpu}（¥{cost:,.2f}/月）：按 token 算它更贵，¥{other:,.2f}/"
        "百万输出 token，推荐方案 ¥{pick:,.2f}/百万。",
        "Why not the cheaper {count} x {gpu} (¥{cost:,.2f}/month): per token it costs more, "
        "¥{other:,.2f}/M output tokens against the pick's ¥{pick:,.2f}/M.",
    ),
    "rec.task": ("任务", "Task"),
    "rec.method": ("方法", "Method"),
    "rec.model": ("模型", "Model"),
    "rec.model.help": (
        "预设模型带有真实架构（引用其 config.json）；自定义规模按说明的估算；也可粘贴 "
        "config.json，或填写 Hugging Face id。",
        "Presets carry their real architecture (config.json cited); custom sizes use a stated "
        "estimate; or paste a config.json, or give a Hugging Face id.",
    ),
    "rec.model.custom": ("custom (parameter count)", "custom (parameter count)"),
    "rec.model.paste": ("config.json (paste)", "config.json (paste)"),
    "rec.model.hf": ("Hugging Face id", "Hugging Face id"),
    "rec.config": ("config.json 内容", "Paste a config.json"),
    "rec.config.help": (
        "随权重发布的模型 config.json；从中读取参数量、注意力头、KV 头、MLA 秩、专家、滑动窗口"
        "和量化。",
        "The model's config.json as published with its weights; parameters, heads, KV heads, "
        "MLA ranks, experts, sliding window and quantization are read from it.",
    ),
    "rec.hf": ("Hugging Face id（如 Qwen/Qwen3-8B）", "Hugging Face id (e.g. Qwen/Qwen3-8B)"),
    "rec.hf.help": (
        "从本地 Hugging Face 缓存（HF_HUB_CACHE）读取；联网时用 huggingface_hub 下载。",
        "Read from the local Hugging Face cache (HF_HUB_CACHE); fetched with huggingface_hub "
        "when online.",
    ),
    "rec.params": ("参数量（十亿，自定义时）", "Parameters (billions, for custom)"),
    "rec.precision": ("精度", "Precision"),
    "rec.precision.help": (
        "default：bf16（QLoRA 为 int4）。全参微调只能用 bf16 / fp16。",
        "default: bf16 (int4 for QLoRA). Full fine-tune takes bf16 / fp16 only.",
    ),
    "rec.context": ("上下文（每条序列的 token 数）", "Context (tokens per sequence)"),
    "rec.batch": ("每卡 micro-batch", "micro-batch per card"),
    "rec.concurrency": ("并发序列数", "Concurrent sequences"),
    "rec.hours": ("每卡每月使用小时", "Hours per month per card"),
    "rec.hours.help": (
        "720 = 全天候。决定按时、包月还是裸金属（依据：种子 003 §六）。",
        "720 = always on. Decides hourly vs monthly plan vs bare metal (seed 003 §六).",
    ),
    "rec.budget": ("每月预算，元（0 = 不限）", "Monthly budget, CNY (0 = none)"),
    "rec.domestic": ("信创：仅国产卡（昇腾）", "Domestic cards only (Ascend)"),
    "rec.source": ("价格来源", "Price source"),
    "rec.source.default": ("每张卡最便宜的来源", "cheapest source per card"),
    "rec.task.inference": ("推理", "inference"),
    "rec.task.training": ("训练", "training"),
    "rec.precision.default": ("默认", "default"),
    "rec.method.online": ("在线服务", "online serving"),
    "rec.method.offline": ("离线批处理", "offline batch"),
    "rec.method.full": ("全参数微调", "full fine-tune"),
    "rec.method.lora": ("LoRA 微调", "LoRA"),
    "rec.method.qlora": ("QLoRA（4 位底座）", "QLoRA (4-bit base)"),
    "rec.method.pretrain": ("预训练", "pretraining"),
    "rec.source.help": (
        "默认：每张卡取对该负载最便宜的来源。",
        "Default: per card, the source that is cheapest for this workload.",
    ),
    "rec.kv": ("KV cache 精度（推理）", "KV cache dtype (inference)"),
    "rec.dataset": ("数据集，GB（磁盘检查）", "Dataset, GB (disk check)"),
    "rec.rank": ("LoRA 秩 (rank)", "LoRA rank"),
    "rec.submit": ("推荐", "Recommend"),
    "rec.prompt": (
        "填写上面的表单并点击 **推荐**：例如 Llama-3.1-70B-Instruct、推理、fp16、4,096 "
        "token、8 条序列。",
        "Describe the workload above and press **Recommend**: e.g. Llama-3.1-70B-Instruct, "
        "inference, fp16, 4,096 tokens, 8 sequences.",
    ),
    "rec.seed_prices": (
        "使用已发布的参考价（固定快照，非实时）：{note}",
        "Published reference prices (a fixed snapshot, not live): {note}",
    ),
    "rec.no_config": ("请先粘贴模型的 config.json。", "Paste the model's config.json first."),
    "rec.no_hf_id": (
        "请填写 Hugging Face id，如 Qwen/Qwen3-8B。",
        "Give a Hugging Face id such as Qwen/Qwen3-8B.",
    ),
    "rec.invalid": ("输入有误：{error}", "Invalid input: {error}"),
    "rec.simulated": (
        "**模拟数据 SIMULATED** — 标为 SIMULATED 的方案按内置演示市场定价，不是真实报价。",
        "**SIMULATED** — options marked SIMULATED are priced by the bundled demo market, not "
        "real quotes.",
    ),
    "rec.memory": ("显存：两种算法", "Memory, two ways"),
    "rec.memory.rule": ("**常用估算（只算权重）**", "**The usual estimate (weights only)**"),
    "rec.memory.rule.source": (
        "依据：种子 000 §三（参数量 × 每参数字节）与种子 002 §2.1、003 §二（再加 20%）。",
        "Basis: seed 000 §三 (parameters x bytes per parameter) and seeds 002 §2.1, 003 §二 "
        "(plus 20%).",
    ),
    "rec.memory.exact": ("**精确模型**", "**Exact model**"),
    "rec.memory.counts": (
        "常用估算的卡数 = 估算下限 ÷ 单卡显存，不留余量；精确卡数 = 总量分摊到各卡（每卡各有运行时）"
        "+ {margin:.0%} 余量。",
        "the usual estimate's card count = its low end ÷ card VRAM, no margin; exact count = total "
        "split across cards (runtime on each) + {margin:.0%} margin.",
    ),
    "rec.steps": ("决策树：五个步骤", "The five steps"),
    "rec.step": ("第 {n} 步：{title}", "Step {n}: {title}"),
    "rec.options": (
        "方案，最便宜在前（每月 {hours:g} 小时）",
        "Options, cheapest first (at {hours:g} h/month)",
    ),
    "rec.none": (
        "没有合适的卡：所列价格的卡都放不下这个负载。下方的调整项显示怎样可行（更低精度、LoRA、"
        "更短上下文、更少序列）。",
        "None of the priced cards fits this workload. The levers below show what would (lower "
        "precision, LoRA, shorter context, fewer sequences).",
    ),
    "rec.recommended": (
        "推荐：{count} × {gpu}，{mode}，¥{cost:,.2f}/月（{price}）",
        "Recommended: {count} x {gpu}, {mode}, ¥{cost:,.2f}/month ({price})",
    ),
    "rec.budget_title": ("预算与调整项", "Budget and levers"),
    "rec.levers": (
        "省钱的办法，每项都重新算一遍：",
        "Ways to spend less, each recomputed:",
    ),
    "rec.no_budget": (
        "填写每月预算即可检查；成本超出预算时会列出调整项。",
        "Give a monthly budget to check it; levers appear when the cost is over it.",
    ),
    "rec.alternatives": (
        "需要多张卡；更小的占用，重新计算：",
        "Needs several cards; smaller footprints, recomputed:",
    ),
    # recommend: the short answer and the engine budget (issue 29)
    "rec.answer.title": ("回答", "The answer"),
    "rec.answer.pick": (
        "推荐：{count} × {gpu}（{vram:g} GB），{layout}，{mode}：¥{cost:,.2f}/月（{price}）",
        "Pick: {count} x {gpu} ({vram:g} GB), {layout}, {mode}: ¥{cost:,.2f}/month ({price})",
    ),
    "rec.answer.kv": (
        "KV：每个副本容纳 {tokens:,} 个 token（{seqs:,} 条 {context:,} token 的序列），KV {kv}："
        "{util:g} × {cap:.1f} GB − 权重 {weights:.1f} GB − 预留 {reserve:.1f} GB = 每卡 "
        "{room:.1f} GB",
        "KV: {tokens:,} tokens fit per replica ({seqs:,} sequence(s) of {context:,}), KV {kv}: "
        "{util:g} x {cap:.1f} GB - weights {weights:.1f} GB - reserve {reserve:.1f} GB = "
        "{room:.1f} GB per card",
    ),
    "rec.answer.training": (
        "显存：每卡 {per:.1f} GB + 20% 余量 ≤ {vram:g} GB（训练）",
        "Memory: {per:.1f} GB per card + 20% margin <= {vram:g} GB (training)",
    ),
    "rec.answer.rule": (
        "常用估算：{low:.1f}–{high:.1f} GB → {rule} 张卡（不留余量）；精确：{count} 张",
        "The usual estimate: {low:.1f}-{high:.1f} GB -> {rule} card(s), no margin; exact: "
        "{count} card(s)",
    ),
    "rec.answer.decode": (
        "解码：每条序列 ≤ {tps:.1f} token/s（按带宽估算的上限，{bound}），合计 ≤ {total:,.0f} "
        "token/s；延迟下限 {floor:.2f} ms/步",
        "Decode: ≤ {tps:.1f} tokens/s per sequence (upper bound from bandwidth, {bound}), ≤ "
        "{total:,.0f} tokens/s total; latency floor {floor:.2f} ms/step",
    ),
    "rec.answer.engine": ("推理引擎", "Engine"),
    "rec.answer.serve": ("启动命令", "Serve command"),
    "rec.answer.runners_up": ("备选：", "Runners-up:"),
    "rec.answer.runner": (
        "{count} × {gpu}，{layout}，{mode}：¥{cost:,.2f}/月，KV {tokens} token，{per_token}"
        "（{price}）",
        "{count} x {gpu}, {layout}, {mode}: ¥{cost:,.2f}/month, KV {tokens} tokens, {per_token} "
        "({price})",
    ),
    "rec.answer.runner.tokens": (
        "¥{cost:,.2f}/百万输出 token（{seqs:,} 条序列）",
        "¥{cost:,.2f}/M output tokens at {seqs:,} sequences",
    ),
    "rec.answer.details": (
        "详细推理、全部方案和预算已折叠在下方。",
        "The reasoning, every option and the budget are folded below.",
    ),
    "rec.answer.options": (
        "全部方案，最便宜在前（每月 {hours:g} 小时）",
        "Every option, cheapest first (at {hours:g} h/month)",
    ),
    "rec.answer.not_offered": ("不提供：{why}", "Not offered: {why}"),
    "rec.gpu_util": ("显存利用率上限（推理）", "GPU memory utilization (inference)"),
    "rec.gpu_util.help": (
        "引擎可使用的单卡显存比例，同 vLLM 的 --gpu-memory-utilization（默认 0.9；SGLang 为 "
        "--mem-fraction-static）。",
        "The share of each card the engine may use, as vLLM's --gpu-memory-utilization "
        "(default 0.9; SGLang: --mem-fraction-static).",
    ),
    "rec.memory.budget": (
        "精确卡数：权重、KV cache 与每卡预留都要放进引擎可用的 {util:g} × 显存（标称 GB 按 GiB "
        "计），不再额外加余量；常用估算的卡数 = 估算下限 ÷ 单卡显存。",
        "exact count: weights, KV cache and each card's reserve fit in the {util:g} x card "
        "memory the engine may use (the label read as GiB), no extra margin; the usual "
        "estimate's count = "
        "rule-of-thumb low end ÷ card VRAM.",
    ),
    # data coverage and history imports (dashboard/app_pages/coverage.py, dashboard/history_data.py)
    "cov.nav": ("数据覆盖", "Data coverage"),
    "cov.title": ("数据覆盖", "Data coverage"),
    "cov.intro": (
        "每个来源有价格的日期（UTC），真实与模拟（SIMULATED）分开；真实数据包括导入的历史"
        "（互联网档案馆的定价页快照、SkyPilot 价格目录的版本、公开追踪表），每行注明出处。"
        "导入：`gpuprice history wayback|skypilot|csv`。",
        "The days (UTC) each source has prices for, real and SIMULATED apart; real data includes "
        "imported history (the Internet Archive's captures of pricing pages, SkyPilot's catalog "
        "versions, public trackers' CSVs), each row citing its origin. Import with "
        "`gpuprice history wayback|skypilot|csv`.",
    ),
    "cov.table": ("各来源的覆盖（日期为 UTC）", "Coverage per source (days in UTC)"),
    "cov.chart": (
        "每周有数据的天数，{first} 至 {last}（UTC）",
        "Days with data per week, {first} to {last} (UTC)",
    ),
    "cov.axis_week": ("周（UTC）", "week (UTC)"),
    "cov.axis_days": ("有数据的天数", "days with data"),
    "cov.empty": (
        "仓库中还没有价格。运行 `gpuprice run`，或用 `gpuprice history …` 导入真实历史。",
        "No prices in the warehouse yet. Run `gpuprice run`, or import real history with "
        "`gpuprice history …`.",
    ),
    "cov.imports": ("历史导入（最新在前）", "History imports (newest first)"),
    "cov.no_imports": (
        "还没有历史导入。用 `gpuprice history wayback|skypilot|csv` 导入（见 README“真实历史”）。",
        "No history imports yet. Run `gpuprice history wayback|skypilot|csv` (README, "
        '"Real history").',
    ),
    "cov.failures": ("导入失败的快照：{n} 个", "Captures an import could not load: {n}"),
    "cov.no_failures": ("没有导入失败的快照。", "No capture failed to import."),
}


def header(name: str) -> str:
    """The name of a column, legend or tooltip field in the page's language (``name`` is the
    English one; a name missing from HEADERS is shown as is, and test_i18n fails on it)."""
    return name if english() else HEADERS.get(name, name)


def card_label(gpu: str | None) -> str:
    """A card's name (the same in both languages: model names are not translated)."""
    return card_name(gpu)


def billing_label(billing: str | None) -> str:
    """A billing mode's name in the page's language."""
    return billing_name(billing, english())


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
    """A widget's ``format_func``: each value's label computed now (Streamlit and AppTest
    may format a choice again after the script ran, outside the session). ``name`` must
    not depend on the language (``both``, ``billing_both``): the browser keeps a choice by
    its label, and a label that changed with the toggle showed no choice at all."""
    table = {value: name(value) for value in values}
    return lambda value: table.get(value, str(value))


def billing_both(billing: str) -> str:
    """A billing mode's name in both languages ("按时计费 hourly"), for a choice widget."""
    zh, en = billing_name(billing, english=False), billing_name(billing, english=True)
    return zh if zh == en else f"{zh} {en}"


def header_both(name: str) -> str:
    """A column's name in both languages, for a choice widget."""
    zh = HEADERS.get(name, name)
    return zh if zh == name else f"{zh} {name}"


def both(key: str) -> str:
    """Both languages at once, for option labels of choice widgets: Streamlit keeps a
    radio's or selectbox's choice by its label, so a label that changed with the language
    would drop the user's choice when they flip the toggle."""
    zh, en = STRINGS[key]
    return zh if zh == en else f"{zh} {en}"


def english() -> bool:
    return bool(st.session_state.get(LANG_KEY, False))


def t(key: str, **values: Any) -> str:
    """The string for ``key`` in the chosen language, formatted with ``values``."""
    zh, en = STRINGS[key]
    text = en if english() else zh
    return text.format(**values) if values else text
