"""The dashboard in a real browser: `streamlit run` over a seeded warehouse, Debian's
chromium driven by Playwright, every page opened in Chinese and in English (the sidebar's
toggle, clicked), no exception box or error, no Deploy button, and one screenshot of each
whole page and of its first screen (1400×900) in each language under test-artifacts/browser/
(``compare_zh.png``, ``compare_zh_first.png``, ``compare_en.png``, ...).

Chromium comes from Debian (`make browser-deps`, which `make test` runs), never from
`playwright install`: nothing can be downloaded here. Without it this test fails and says
what to run; it does not skip, so a machine that lost chromium cannot pass silently.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import openpyxl
import pytest

from dashboard.i18n import STRINGS
from tests.dashboard.seeding import build
from tests.support.loopback import free_port

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# url path (the default page is the root), its title's catalog key, how many charts
_PAGES = [
    ("index", "", "ix", 1),
    ("trends", "trends", "trends", 1),
    ("compare", "compare", "compare", 1),  # one detail at a time
    ("report", "report", "report", 0),
    ("value", "value", "value", 2),
    ("breakeven", "breakeven", "be", 2),
    ("alerts", "alerts", "alerts", 0),
    ("health", "health", "health", 1),
    ("coverage", "coverage", "cov", 1),
    ("recommend", "recommend", "rec", 0),
]
# ... with each title in Chinese and in English: the pages' questions (issue 38)
PAGES = [(name, path, *STRINGS[f"{key}.title"], charts) for name, path, key, charts in _PAGES]
VIEWPORT = {"width": 1440, "height": 2400}
FIRST_SCREEN = {"width": 1400, "height": 900}  # issue 38: each page answers in it
TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("browser_home")
    seeded = build(home, days=60, live_days=30, platforms=True)
    port = free_port()
    env = os.environ | {
        "GPUPRICE_HOME": str(home),
        "GPUPRICE_CONFIG": str(seeded.config),
        "GPUPRICE_PROFILE": "demo",
    }
    log = home / "streamlit.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                str(ROOT / "dashboard" / "app.py"),
                "--server.address=127.0.0.1",
                f"--server.port={port}",
                "--server.headless=true",
                "--server.fileWatcherType=none",
                "--browser.gatherUsageStats=false",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.read() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"streamlit did not start:\n{log.read_text()}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def wait_rendered(page, charts: int) -> None:
    """The script run finished and every chart has drawn (Vega renders after the run)."""
    page.wait_for_selector("h1", timeout=TIMEOUT_MS)
    page.wait_for_selector(
        '[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=TIMEOUT_MS
    )
    if charts:
        page.wait_for_function(
            """n => {
                const all = [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')];
                return all.length >= n && all.every(c => c.querySelector('canvas, svg'));
            }""",
            arg=charts,
            timeout=TIMEOUT_MS,
        )


def screenshot(page, path: Path, charts: int) -> None:
    """The first screen as a user sees it (1400×900, ``<page>_<lang>_first.png``), then the
    whole page: Streamlit scrolls inside its own container, so the viewport is made as tall
    as that container's content, the charts drawn again at that size, then shot."""
    page.set_viewport_size(FIRST_SCREEN)
    wait_rendered(page, charts)
    page.screenshot(path=str(path.with_name(f"{path.stem}_first.png")))
    height = page.evaluate(
        """() => Math.max(1000, ...[...document.querySelectorAll(
            '[data-testid="stMain"], [data-testid="stAppScrollToBottomContainer"]'
        )].map(e => e.scrollHeight))"""
    )
    page.set_viewport_size({"width": VIEWPORT["width"], "height": min(int(height) + 80, 16000)})
    wait_rendered(page, charts)
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(VIEWPORT)


def to_english(page, title: str) -> None:
    """Click the sidebar's language toggle as a user would; wait for the page's English
    ``title`` and for the page to settle."""
    page.get_by_text("English", exact=True).click()
    page.wait_for_function(
        "t => document.querySelector('h1')?.innerText === t", arg=title, timeout=TIMEOUT_MS
    )
    wait_rendered(page, 1)


def assert_no_deploy_button(page, name: str) -> None:
    """.streamlit/config.toml's client.toolbarMode = "viewer": no developer options."""
    assert page.locator('[data-testid="stAppDeployButton"]').count() == 0, name
    toolbar = page.locator('[data-testid="stToolbar"]')
    assert toolbar.count() == 0 or "Deploy" not in toolbar.first.inner_text(), name


def assert_no_error(page, name: str) -> None:
    exceptions = page.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, f"{name}: {exceptions.first.inner_text()}"
    errors = page.locator('[data-testid="stAlertContentError"]')
    assert errors.count() == 0, f"{name}: {errors.first.inner_text()}"
    body = page.locator("body").inner_text()
    for marker in ("Traceback", "Exception:", "Page not found"):
        assert marker not in body, f"{name}: {marker!r} on the page"


def check_excel_download(page) -> None:
    """The Excel export, under the chart data (a detail chosen below the chart), is built on
    click (a deferred download): it must arrive, and hold the chart's table."""
    page.get_by_role("radio", name="图表数据与导出", exact=True).click()  # one detail at a time
    wait_rendered(page, 1)
    with page.expect_download(timeout=TIMEOUT_MS) as info:
        page.get_by_role("button", name="导出 Excel").click()
    download = info.value
    assert download.suggested_filename.endswith(".xlsx"), download.suggested_filename
    saved = ARTIFACTS / "trends.xlsx"
    download.save_as(saved)
    workbook = openpyxl.load_workbook(saved)
    header = next(workbook.active.iter_rows(max_row=1, values_only=True))
    # as the page showed it: Chinese headers, the card's name and its id
    assert {"图层", "元/卡时（均值）", "显卡", "显卡 id"} <= set(header), header


def check_report_download(page) -> None:
    """The monthly report's workbook arrives on one click and has its sheets."""
    with page.expect_download(timeout=TIMEOUT_MS) as info:
        page.get_by_role("button", name="下载 Excel 月报").click()
    saved = ARTIFACTS / "report.xlsx"
    info.value.save_as(saved)
    sheets = openpyxl.load_workbook(saved).sheetnames
    assert sheets == [
        "about", "price index", "index vs outside", "median by platform", "cheapest platform",
        "breakeven", "alerts",
    ]  # fmt: skip


def test_every_page_renders_in_chromium(dashboard: str) -> None:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: run `make browser-deps` as root (or `make test`, which "
            "runs it) to install Debian's chromium and fonts-wqy-microhei"
        )
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport=VIEWPORT)
            for name, path, title, _, charts in PAGES:
                page.goto(f"{dashboard}/{path}", timeout=TIMEOUT_MS)
                wait_rendered(page, charts)
                assert page.locator("h1").first.inner_text() == title, name
                assert_no_error(page, name)
                assert_no_deploy_button(page, name)
                screenshot(page, ARTIFACTS / f"{name}_zh.png", charts)
                for marker in ("None", "nan"):
                    assert marker not in page.locator("body").inner_text().split(), name
                if name == "trends":
                    check_excel_download(page)
                if name == "report":
                    check_report_download(page)
            # The language toggle, clicked like a user would, switches every page to English
            # for the rest of the session: the pages are then opened from the sidebar.
            page.goto(dashboard, timeout=TIMEOUT_MS)
            wait_rendered(page, 1)
            to_english(page, "What does renting a GPU cost now?")
            grain = page.locator('[data-testid="stRadio"]').first
            assert grain.locator("input:checked").count() == 1, "no grain chosen after the toggle"
            for name, path, _, title, charts in PAGES:
                link = page.locator(f'[data-testid="stSidebarNavLink"][href$="/{path}"]').first
                link.click()
                page.wait_for_function(
                    "t => document.querySelector('h1')?.innerText === t",
                    arg=title,
                    timeout=TIMEOUT_MS,
                )
                wait_rendered(page, charts)
                assert_no_error(page, f"{name} (English)")
                screenshot(page, ARTIFACTS / f"{name}_en.png", charts)
        finally:
            browser.close()
    shots = {p.name for p in ARTIFACTS.glob("*.png")}
    expected = {f"{name}_{lang}{part}.png" for name, *_ in PAGES for lang in ("zh", "en")
                for part in ("", "_first")}  # fmt: skip
    assert expected <= shots, expected - shots


def test_a_choice_survives_the_language_toggle_in_chromium(dashboard: str) -> None:
    """The browser keeps a choice by its label, and labels follow the language: the toggle's
    ``keep_choices`` (dashboard/i18n.py) sends each choice again in the new words. Without
    it the trends page's grain fell back to its default (day) on the toggle."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport=FIRST_SCREEN)
            page.goto(f"{dashboard}/trends", timeout=TIMEOUT_MS)
            wait_rendered(page, 1)
            page.get_by_role("radio", name="今年", exact=True).click()  # a range pill
            wait_rendered(page, 1)
            page.get_by_text("筛选", exact=True).click()  # the filters open on a click
            # The grain's label, as a person clicks it: a plain click waits until the opening
            # filters stand still (a forced click on the radio during it was lost).
            page.locator('[data-testid="stRadio"]').get_by_text("周", exact=True).click()
            expect(page.get_by_role("radio", name="周", exact=True)).to_be_checked()
            wait_rendered(page, 1)
            to_english(page, "How have GPU rents moved?")
            pill = page.get_by_role("radio", name="This year", exact=True)
            assert pill.get_attribute("aria-checked") == "true"
            # The expander's label changed with the language: it is a new one, closed again.
            page.get_by_text("Filters", exact=True).click()
            assert page.get_by_role("radio", name="week", exact=True).is_checked()
            assert "按时计费" not in page.locator('[data-testid="stMain"]').inner_text()
        finally:
            browser.close()
