"""Headless Chromium for the tests that look at the web chat as a person does (Debian's chromium + driver)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def require_browser() -> None:
    """Skip without Chromium outside CI; in CI (``CI`` set) a missing browser fails the test instead."""
    if CHROMIUM.exists() and CHROMEDRIVER.exists():
        return
    reason = "needs /usr/bin/chromium and /usr/bin/chromedriver (apt-get install chromium chromium-driver)"
    if os.environ.get("CI"):
        pytest.fail(f"browser test cannot be skipped in CI: {reason}")
    pytest.skip(reason)


@contextmanager
def chromium(window: str = "900,900") -> Iterator[Any]:
    """A selenium driver on a fresh profile, closed and cleaned up after the block (blocking: use a thread)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="balcao-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--window-size={window}", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
