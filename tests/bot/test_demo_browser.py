"""A person's whole conversation with the real bot, in a real headless Chromium, through the demo's web chat.

Carlos, the demo driver, opens the web chat, starts the bot, asks for his situation from the menu, links his
Telegram by sharing his phone number and typing the first 3 digits of his CPF, and reads his authorization.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.sandbox.demo import run_demo
from bot.sandbox.demo_data import DRIVER_PERSONA_CPF_START
from bot.sandbox.state import DEFAULT_PERSONAS
from core.settings import Settings
from tests.auxil.browser import chromium, require_browser

CARLOS = DEFAULT_PERSONAS[0]
WAIT_SECONDS = 20
BOT_TEXTS = '[data-testid="message"][data-from="bot"] [data-testid="message-text"]'


class WebChat:
    """What a person does on the page: read the bot's messages, press buttons, type."""

    def __init__(self, driver: Any) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver, self.by, self.wait = driver, By, WebDriverWait(driver, WAIT_SECONDS)

    def bot_says(self, needle: str) -> str:
        def found(driver: Any) -> str | bool:
            for element in reversed(driver.find_elements(self.by.CSS_SELECTOR, BOT_TEXTS)):
                if needle in element.text:
                    return str(element.text)
            return False

        return str(self.wait.until(found))

    def press(self, callback_data: str) -> None:
        selector = f'[data-testid="inline-button"][data-callback-data="{callback_data}"]'
        self.wait.until(lambda driver: driver.find_elements(self.by.CSS_SELECTOR, selector))
        self.driver.find_elements(self.by.CSS_SELECTOR, selector)[-1].click()

    def press_reply_button(self) -> None:
        selector = '[data-testid="reply-button"]'
        self.wait.until(lambda driver: driver.find_elements(self.by.CSS_SELECTOR, selector))
        self.driver.find_element(self.by.CSS_SELECTOR, selector).click()

    def type_and_send(self, text: str) -> None:
        self.driver.find_element(self.by.CSS_SELECTOR, '[data-testid="message-input"]').send_keys(text)
        self.driver.find_element(self.by.CSS_SELECTOR, '[data-testid="send-button"]').click()


def _carlos_links_and_reads_his_situation(root_url: str, screenshot: Path) -> dict[str, str]:
    seen: dict[str, str] = {}
    with chromium(window="480,900") as driver:
        page = WebChat(driver)
        driver.get(f"{root_url}/?persona={CARLOS.user_id}")
        page.type_and_send("/start")
        seen["menu"] = page.bot_says("O que você quer fazer?")
        page.press("cmd:situacao")
        seen["not_linked"] = page.bot_says("ainda não está vinculado")
        page.press("drivers:link")
        page.press("drivers:contact")
        page.press_reply_button()
        seen["asks_cpf"] = page.bot_says("3 primeiros números do seu CPF")
        page.type_and_send(DRIVER_PERSONA_CPF_START)
        seen["situation"] = page.bot_says("Autorização nº")
        driver.save_screenshot(str(screenshot))
    return seen


@pytest.mark.browser
async def test_carlos_links_his_registration_and_reads_his_situation_in_the_browser(
    settings: Settings, tmp_path: Path, db_kind: str
) -> None:
    if db_kind == "postgres":
        pytest.skip("the demo runs on its own SQLite file")
    require_browser()
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
