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


AXE = Path(__file__).with_name("node_modules") / "axe-core" / "axe.min.js"
WCAG_21_AA = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
_RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document, {runOnly: {type: "tag", values: arguments[0]}, resultTypes: ["violations"]})
  .then(result => done(result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                                      nodes: v.nodes.map(n => n.target.join(" "))}))))
  .catch(error => done([{id: "axe-error", help: String(error), nodes: []}]));
"""


def require_axe() -> None:
    """Skip without axe-core outside CI (``make test`` runs ``make axe``); in CI a missing axe-core fails the test."""
    if AXE.exists():
        return
    reason = f"needs {AXE} (`make axe` installs it from the npm registry, pinned in tests/auxil/package-lock.json)"
    if os.environ.get("CI"):
        pytest.fail(f"accessibility test cannot be skipped in CI: {reason}")
    pytest.skip(reason)


def axe_violations(driver: Any) -> list[dict[str, Any]]:
    """The axe-core violations of WCAG 2.1 A and AA on the page the driver shows now."""
    driver.set_script_timeout(30)
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    return list(driver.execute_async_script(_RUN_AXE, list(WCAG_21_AA)))


def overflows_horizontally(driver: Any) -> bool:
    """Whether the page is wider than the window (a phone would have to scroll sideways)."""
    return bool(driver.execute_script(
        "return document.documentElement.scrollWidth > document.documentElement.clientWidth + 1;"))
