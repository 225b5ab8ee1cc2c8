"""The game page in tests: its data, and the page itself in headless Chromium (the ``browser``
fixture, registered by ``tests/conftest.py``; it skips, saying why, where selenium, Chromium or
its driver is missing)."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from amazons_env import GameRecord
from amazons_env.drawing.html import game_page

__all__ = ["BROWSER_FLAGS", "board_cells", "browser", "errors", "open_page", "page_data", "text_of"]


def page_data(page: str) -> dict:
    """The game JSON the page carries."""
    found = re.search(r'<script type="application/json" id="game">(.*?)</script>', page, re.S)
    assert found is not None
    return json.loads(found.group(1))


BROWSER_FLAGS = (
    "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
    "--disable-component-update --disable-sync"
).split()


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium driven by selenium, with the browser's console log readable."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium: pip install -e '.[test]'")
    chromium = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    driver_path = shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        pytest.skip("needs Chromium and chromedriver on the PATH (Debian: apt install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in BROWSER_FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="amazons-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    driver.set_page_load_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def open_page(driver, tmp_path: Path, record: GameRecord, page: str | None = None):
    """Load the page of ``record`` (or the ``page`` text) from a file; the board element."""
    from selenium.webdriver.common.by import By

    path = tmp_path / "game.html"
    path.write_text(page if page is not None else game_page(record), encoding="utf-8")
    driver.get_log("browser")  # only this page's messages count: drop any left from before
    driver.get(path.as_uri())
    return driver.find_element(By.ID, "board")


def board_cells(driver) -> str:
    """The position the page shows, read square by square from the SVG (in square order)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#board rect[data-square]'), r => r.dataset.piece).join('')"
    )


def errors(driver) -> list:
    return [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]


def text_of(driver, element_id: str) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id).text
