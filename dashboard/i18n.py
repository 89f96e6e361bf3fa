"""The dashboard's words in Chinese (default) and English: one small table, one lookup.

Only prose is translated (titles, labels, empty states, banners, axis titles). Table
column names stay English with their unit, as in the warehouse, so an exported file
means the same thing whichever language was on screen.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

LANG_KEY = "lang_en"  # the sidebar toggle's key: on = English

STRINGS: dict[str, tuple[str, str]] = {
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
        "公布价为锚）。`*-published` 来源的行是真实公布价。",
        "**SIMULATED** — demo profile: prices come from the bundled demo market (anchored on "
        "the seeds' published 2026-09-04 prices). Rows from `*-published` sources are real.",
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
    "export.csv": ("导出 CSV", "Export CSV"),
    "export.xlsx": ("导出 Excel", "Export Excel"),
    # trends
    "trends.title": ("GPU 租赁价格趋势", "GPU rental price trends"),
    "trends.kpi": (
        "元/卡时，最新月份 ({month}) 均值，各平台中位数；变化为环比",
        "CNY per card-hour, latest month ({month}) mean, median across platforms; change is "
        "month over month",
    ),
    "trends.kpi.yoy": ("环比 · 同比 {yoy}", "MoM · YoY {yoy}"),
    "trends.chart": (
        "元/卡时，{start} 至 {end}，按{grain}均值",
        "CNY per card-hour, {start} to {end}, {grain} mean",
    ),
    "trends.band": (
        "带状区 = 各平台最低–最高，线 = 中位数",
        "band = min–max across platforms, line = median",
    ),
    "trends.quotes": ("叠加市场报价 (spot_quote)", "Overlay market quotes (spot_quote)"),
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
    "trends.facets": (
        "每张卡一幅小图，各自的纵轴；颜色 = 平台，线型 = 计费方式；悬停看完整名称",
        "one panel per card, each with its own y-axis; colour = platform, dash = billing "
        "mode; hover for full names",
    ),
    # compare
    "compare.title": ("平台比价", "Platform comparison"),
    "compare.caption": (
        "各平台最新快照中每卡最便宜的挂牌（所选地区内），元/卡时；截至 {at} UTC。"
        "只含最新快照在最新观测 {hours} 小时内的平台；种子文章公布价见价格趋势页。",
        "The cheapest listing per card on each platform's newest snapshot (within the chosen "
        "regions), CNY per card-hour; as of {at} UTC. Only platforms whose newest snapshot is "
        "within {hours} h of the newest observation; the seeds' published prices are on the "
        "trends page.",
    ),
    "compare.heatmap": (
        "元/卡时：卡 × 平台（{billing}，截至 {at} UTC）",
        "CNY per card-hour: card × platform ({billing}, as of {at} UTC)",
    ),
    "compare.ranked": (
        "各平台排名（{billing}，截至 {at} UTC），★ = 最便宜",
        "Platforms ranked ({billing}, as of {at} UTC), ★ = cheapest",
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
        "各平台价格走势（元/卡时，{start} 至 {end} UTC，日均值）",
        "How each platform moved (CNY per card-hour, {start} to {end} UTC, daily means)",
    ),
    "compare.moves_table": (
        "区间首日与末日（元/卡时）及变化",
        "First and last day of the window (CNY per card-hour) and the change",
    ),
    "compare.none": (
        "今天没有平台报价：运行 `gpuprice run` 或等待每小时调度。",
        "No platform quotes today: run `gpuprice run` or wait for the hourly schedule.",
    ),
    # report
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
    # value
    "value.title": ("性价比看板", "Value board"),
    "value.caption": (
        "每个平台最新快照中每卡最便宜的挂牌；算力为稠密 FP16 TFLOPS，GB = 10^9 字节。截至 {at} UTC。",
        "The cheapest listing per card in each platform's newest snapshot; compute is dense "
        "FP16 TFLOPS, GB = 10^9 bytes. As of {at} UTC.",
    ),
    "value.sort": ("排序", "Sort by"),
    "value.vram": ("价格 vs 显存（{billing}，截至 {at}）", "Price vs VRAM ({billing}, as of {at})"),
    "value.tflops": (
        "价格 vs 算力（{billing}，截至 {at}）",
        "Price vs TFLOPS ({billing}, as of {at})",
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
        "{mode} 与裸金属的交点 {hours:,.1f} h 超过 720 h：一个月内裸金属不划算。",
        "{mode} meets bare metal at {hours:,.1f} h, beyond 720 h: bare metal never pays off "
        "within a month.",
    ),
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
    "be.cheapest": ("cheapest · 跨平台最低", "lowest across platforms"),
    # alerts
    "alerts.title": ("采购预警", "Procurement alerts"),
    "alerts.feed": ("预警记录（{n} 条，时间为 UTC）", "Alert feed ({n} alerts, times UTC)"),
    "alerts.kind": ("类型", "Kind"),
    "alerts.rule": ("监控规则", "Watch rule"),
    "alerts.since": ("起始日期 (UTC)", "Created since (UTC)"),
    "alerts.delivery": ("投递状态", "Delivery"),
    "alerts.all": ("全部", "all"),
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
    "axis.rows": ("行数", "rows"),
    # recommend
    "rec.title": ("选卡推荐", "GPU recommender"),
    "rec.caption": (
        "种子文章的五步决策树（种子 000 §四，种子 003 §五）：任务 → 显存 → 卡型与数量 → "
        "租用方式 → 预算。GB = 10^9 字节；金额为元/月。",
        "The seeds' 5-step decision tree (seed 000 §四, seed 003 §五): task → memory → cards "
        "and count → rent mode → budget. GB = 10^9 bytes; money in CNY per month.",
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
        "720 = 全天候。决定按时、包月还是裸金属（种子 003 §六）。",
        "720 = always on. Decides hourly vs monthly plan vs bare metal (seed 003 §六).",
    ),
    "rec.budget": ("每月预算，元（0 = 不限）", "Monthly budget, CNY (0 = none)"),
    "rec.domestic": ("信创：仅国产卡（昇腾）", "Domestic cards only (Ascend)"),
    "rec.source": ("价格来源", "Price source"),
    "rec.source.default": ("cheapest source per card", "cheapest source per card"),
    "rec.source.help": (
        "默认：每张卡取对该负载最便宜的来源。",
        "Default: per card, the source that is cheapest for this workload.",
    ),
    "rec.kv": ("KV cache 精度（推理）", "KV cache dtype (inference)"),
    "rec.dataset": ("数据集，GB（磁盘检查）", "Dataset, GB (disk check)"),
    "rec.rank": ("LoRA rank", "LoRA rank"),
    "rec.submit": ("推荐", "Recommend"),
    "rec.prompt": (
        "填写上面的表单并点击 **推荐**：例如 Llama-3.1-70B-Instruct、推理、fp16、4,096 "
        "token、8 条序列。",
        "Describe the workload above and press **Recommend**: e.g. Llama-3.1-70B-Instruct, "
        "inference, fp16, 4,096 tokens, 8 sequences.",
    ),
    "rec.seed_prices": ("使用种子价格：{note}", "Seed prices: {note}"),
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
    "rec.memory.rule": ("**种子文章的经验法则**", "**Seeds' rule of thumb**"),
    "rec.memory.exact": ("**精确模型**", "**Exact model**"),
    "rec.memory.counts": (
        "种子的卡数 = 经验法则下限 ÷ 单卡显存，不留余量；精确卡数 = 总量分摊到各卡（每卡各有运行时）"
        "+ {margin:.0%} 余量。",
        "seeds' card count = rule-of-thumb low end ÷ card VRAM, no margin; exact count = total "
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
        "调整项（种子 000 §四第 5 步，种子 003 §二），每项都重新走一遍决策树：",
        "Levers (seed 000 §四 step 5, seed 003 §二), each recomputed through the tree:",
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
        "种子文章经验法则：{low:.1f}–{high:.1f} GB → {rule} 张卡（不留余量）；精确：{count} 张",
        "Seeds' rule of thumb: {low:.1f}-{high:.1f} GB -> {rule} card(s), no margin; exact: "
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
        "{count} × {gpu}，{layout}，{mode}：¥{cost:,.2f}/月，KV {tokens} token（{price}）",
        "{count} x {gpu}, {layout}, {mode}: ¥{cost:,.2f}/month, KV {tokens} tokens ({price})",
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
        "计），不再额外加余量；种子卡数 = 经验法则下限 ÷ 单卡显存。",
        "exact count: weights, KV cache and each card's reserve fit in the {util:g} x card "
        "memory the engine may use (the label read as GiB), no extra margin; seeds' count = "
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
