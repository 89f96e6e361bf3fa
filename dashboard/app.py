"""Streamlit entry point: `streamlit run dashboard/app.py` (started by `make up`)."""

from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="gpuprice · GPU 租赁价格", page_icon="📈", layout="wide")

pages = [
    st.Page("app_pages/latest.py", title="最新价格 / Latest prices", default=True),
    st.Page("app_pages/recommend.py", title="选卡推荐 / GPU recommender"),
]
st.navigation(pages).run()
