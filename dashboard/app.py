"""Streamlit entry point: `streamlit run dashboard/app.py` (started by `make up`)."""

from __future__ import annotations

import streamlit as st

from configuration.settings import ConfigError, load_settings
from dashboard.data import backfill_banner, retry_when_busy
from dashboard.i18n import LANG_KEY, keep_choices, t

st.set_page_config(
    page_title="gpuprice · GPU 租赁价格", page_icon=":material/trending_up:", layout="wide"
)

# The toggle lives in the entry script, so it is drawn on every page and keeps its value
# when the user switches pages. Chinese is the default.
# ?lang=en opens the dashboard in English: a link to share, and the browser bench's cold start
if st.query_params.get("lang") == "en":
    st.session_state.setdefault(LANG_KEY, True)
st.sidebar.toggle(t("lang.toggle"), key=LANG_KEY, on_change=keep_choices)

try:
    load_settings()
except ConfigError as exc:
    # Every page reads the settings; say once, plainly, what is wrong with the file.
    st.error(str(exc))
    st.stop()

# Above every page: while the first start fills in history, the charts are not finished.
backfill_banner()

pages = [
    st.Page(
        "app_pages/market_index.py",
        title=t("nav.index"),
        icon=":material/query_stats:",
        default=True,  # the front page, served at the root URL (docs/INDEX.md)
    ),
    st.Page(
        "app_pages/trends.py",
        title=t("nav.trends"),
        icon=":material/trending_up:",
        url_path="trends",
    ),
    st.Page(
        "app_pages/value.py", title=t("nav.value"), icon=":material/leaderboard:", url_path="value"
    ),
    st.Page(
        "app_pages/compare.py",
        title=t("nav.compare"),
        icon=":material/compare_arrows:",
        url_path="compare",
    ),
    st.Page(
        "app_pages/report.py",
        title=t("nav.report"),
        icon=":material/summarize:",
        url_path="report",
    ),
    st.Page(
        "app_pages/breakeven.py",
        title=t("nav.breakeven"),
        icon=":material/balance:",
        url_path="breakeven",
    ),
    st.Page(
        "app_pages/alerts.py",
        title=t("nav.alerts"),
        icon=":material/notifications:",
        url_path="alerts",
    ),
    st.Page(
        "app_pages/health.py",
        title=t("nav.health"),
        icon=":material/monitor_heart:",
        url_path="health",
    ),
    st.Page(
        "app_pages/coverage.py",
        title=t("cov.nav"),
        icon=":material/calendar_month:",
        url_path="coverage",
    ),
    st.Page(
        "app_pages/recommend.py",
        title=t("nav.recommend"),
        icon=":material/explore:",
        url_path="recommend",
    ),
]
st.navigation(pages).run()
# A part of the page the pipeline's write lock held back is drawn on a rerun in a moment.
retry_when_busy()
