"""A person's whole conversation with the real bot, in a real headless Chromium, through the demo's web chat.

Carlos, the demo driver, opens the web chat, starts the bot, asks for his situation from the menu, links his
Telegram by sharing his phone number and typing the first 3 digits of his CPF, and reads his authorization.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from bot.sandbox.demo import run_demo
from bot.sandbox.demo_data import DRIVER_PERSONA_CPF_START
from bot.sandbox.state import DEFAULT_PERSONAS
from bot.settings import Settings

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
CARLOS = DEFAULT_PERSONAS[0]
WAIT_SECONDS = 20


def _require_browser() -> None:
    if CHROMIUM.exists() and CHROMEDRIVER.exists():
        return
    reason = "needs /usr/bin/chromium and /usr/bin/chromedriver (apt-get install chromium chromium-driver)"
    if os.environ.get("CI"):
        pytest.fail(f"browser test cannot be skipped in CI: {reason}")
    pytest.skip(reason)


def _carlos_links_and_reads_his_situation(root_url: str, screenshot: Path) -> dict[str, str]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    profile = tempfile.mkdtemp(prefix="balcao-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--no-first-run", "--window-size=480,900", f"--user-data-dir={profile}"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    bot_texts = '[data-testid="message"][data-from="bot"] [data-testid="message-text"]'

    def wait_for_bot(needle: str) -> str:
        def found(d: webdriver.Chrome) -> str | bool:
            for element in reversed(d.find_elements(By.CSS_SELECTOR, bot_texts)):
                if needle in element.text:
                    return str(element.text)
            return False

        return str(WebDriverWait(driver, WAIT_SECONDS).until(found))

    def press(callback_data: str) -> None:
        selector = f'[data-testid="inline-button"][data-callback-data="{callback_data}"]'
        WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_elements(By.CSS_SELECTOR, selector))
        driver.find_elements(By.CSS_SELECTOR, selector)[-1].click()

    def type_and_send(text: str) -> None:
        box = driver.find_element(By.CSS_SELECTOR, '[data-testid="message-input"]')
        box.send_keys(text)
        driver.find_element(By.CSS_SELECTOR, '[data-testid="send-button"]').click()

    seen: dict[str, str] = {}
    try:
        driver.get(f"{root_url}/?persona={CARLOS.user_id}")
        type_and_send("/start")
        seen["menu"] = wait_for_bot("O que você quer fazer?")
        press("cmd:situacao")
        seen["not_linked"] = wait_for_bot("ainda não está vinculado")
        press("drivers:link")
        press("drivers:contact")
        share = '[data-testid="reply-button"]'
        WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_elements(By.CSS_SELECTOR, share))
        driver.find_element(By.CSS_SELECTOR, share).click()
        seen["asks_cpf"] = wait_for_bot("3 primeiros números do seu CPF")
        type_and_send(DRIVER_PERSONA_CPF_START)
        seen["situation"] = wait_for_bot("Autorização nº")
        driver.save_screenshot(str(screenshot))
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    return seen


@pytest.mark.browser
async def test_carlos_links_his_registration_and_reads_his_situation_in_the_browser(
    settings: Settings, tmp_path: Path, db_kind: str
) -> None:
    if db_kind == "postgres":
        pytest.skip("the demo runs on its own SQLite file")
    _require_browser()
    demo_settings = settings.model_copy(update={"database_url": f"sqlite+aiosqlite:///{tmp_path / 'demo.db'}",
                                                "http_port": 0})
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()
    demo = asyncio.create_task(run_demo(demo_settings, emulator_port=0, ready=ready, stop=stop))
    try:
        root = await asyncio.wait_for(ready, timeout=30)
        seen = await asyncio.to_thread(_carlos_links_and_reads_his_situation, root, tmp_path / "carlos.png")
    finally:
        stop.set()
        await asyncio.wait_for(demo, timeout=30)
    assert "Autorização nº" in seen["situation"]
    assert "vinculado" in seen["not_linked"]
    assert DRIVER_PERSONA_CPF_START not in seen["situation"]
