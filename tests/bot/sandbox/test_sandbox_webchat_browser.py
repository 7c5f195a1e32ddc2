"""A person's view: the web chat in a real headless Chromium, talking to a small PTB bot through the emulator."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.sandbox.emulator import BotApiEmulator
from tests.auxil.browser import chromium, require_browser
from tests.auxil.emulator import AnyApplication

MARIA = 700000002
WAIT_SECONDS = 15


def _drive_the_page(root_url: str, upload: Path, screenshot: Path) -> dict[str, str]:
    """Run in a worker thread (selenium blocks) while the event loop serves the emulator and the bot."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    seen: dict[str, str] = {}
    with chromium() as driver:
        wait = WebDriverWait(driver, WAIT_SECONDS)
        driver.get(f"{root_url}/?persona={MARIA}")
        select = wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, '[data-testid="persona-select"]')))
        wait.until(lambda d: select.get_attribute("value") == str(MARIA))
        seen["role"] = driver.find_element(By.CSS_SELECTOR, '[data-testid="persona-role"]').text

        box = driver.find_element(By.CSS_SELECTOR, '[data-testid="message-input"]')
        box.send_keys("Olá, <prefeitura>")
        driver.find_element(By.CSS_SELECTOR, '[data-testid="send-button"]').click()
        bot_text = '[data-testid="message"][data-from="bot"] [data-testid="message-text"]'
        wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, bot_text), "Eco:"))
        reply = driver.find_element(By.CSS_SELECTOR, bot_text)
        seen["reply"] = reply.text
        seen["bold"] = reply.find_element(By.TAG_NAME, "b").text  # Telegram HTML rendered, not shown as tags

        driver.find_element(By.CSS_SELECTOR, '[data-testid="inline-button"][data-callback-data="lido"]').click()
        wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, bot_text), "Lido ✔"))
        seen["edited"] = driver.find_element(By.CSS_SELECTOR, bot_text).text
        seen["buttons_left"] = str(len(driver.find_elements(By.CSS_SELECTOR, '[data-testid="inline-button"]')))
        toast = wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, '[data-testid="callback-toast"]')))
        seen["toast"] = toast.text

        driver.find_element(By.CSS_SELECTOR, '[data-testid="document-input"]').send_keys(str(upload))
        document_link = (By.CSS_SELECTOR, '[data-from="bot"] [data-testid="document-link"]')
        wait.until(ec.text_to_be_present_in_element(document_link, "eco-"))
        link = driver.find_element(*document_link)
        seen["document_link"] = link.text
        seen["document_href"] = link.get_attribute("href") or ""
        driver.save_screenshot(str(screenshot))
    return seen


@pytest.mark.browser
async def test_a_person_chats_with_the_bot_in_the_browser(
    emu: BotApiEmulator, echo_bot: AnyApplication, tmp_path: Path
) -> None:
    require_browser()
    upload = tmp_path / "requerimento.txt"
    upload.write_text("Solicito vistoria.\n", encoding="utf-8")

    seen = await asyncio.to_thread(_drive_the_page, emu.root_url, upload, tmp_path / "webchat.png")

    assert seen["role"] == "Cidadã"
    assert seen["reply"] == "Eco: Olá, <prefeitura>" and seen["bold"] == "Olá, <prefeitura>"
    assert seen["edited"] == "Lido ✔" and seen["buttons_left"] == "0"
    assert seen["toast"] == "Marcado"
    assert "eco-requerimento.txt" in seen["document_link"]

    # what the page showed is what the bot did
    user_texts = [m.text for m in emu.transcript(MARIA) if not m.from_bot]
    assert user_texts[0] == "Olá, <prefeitura>"
    [query_id] = list(emu.bot.callback_queries)
    assert emu.callback_query(query_id).answered
    file_id = seen["document_href"].rsplit("/", 1)[-1]
    assert emu.file(file_id).data == b"Solicito vistoria.\n"


def _record_in_the_page(root_url: str, voice: Path, video: Path) -> dict[str, str]:
    """Send a voice note and a video from the page's tools; what the page then shows of them."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    with chromium() as driver:
        wait = WebDriverWait(driver, WAIT_SECONDS)
        driver.get(f"{root_url}/?persona={MARIA}")
        select = wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, '[data-testid="persona-select"]')))
        wait.until(lambda d: select.get_attribute("value") == str(MARIA))
        driver.find_element(By.CSS_SELECTOR, '[data-testid="voice-input"]').send_keys(str(voice))
        audio = wait.until(ec.presence_of_element_located(
            (By.CSS_SELECTOR, '[data-from="user"] [data-testid="message-voice"]')))
        driver.find_element(By.CSS_SELECTOR, '[data-testid="video-input"]').send_keys(str(video))
        player = wait.until(ec.presence_of_element_located(
            (By.CSS_SELECTOR, '[data-from="user"] [data-testid="message-video"]')))
        return {"audio": audio.get_attribute("src") or "", "video": player.get_attribute("src") or ""}


@pytest.mark.browser
async def test_the_demo_page_sends_a_voice_note_and_a_video(emu: BotApiEmulator, tmp_path: Path) -> None:
    """Issue 19 §2: the demo shows recordings taken as evidence, so a person can record from the page."""
    from tests.auxil.case_files import mp4, ogg

    require_browser()
    voice, video = tmp_path / "gravacao.ogg", tmp_path / "rua.mp4"
    voice.write_bytes(ogg(12))
    video.write_bytes(mp4(30))
    shown = await asyncio.to_thread(_record_in_the_page, emu.root_url, voice, video)
    sent = [m.raw for m in emu.transcript(MARIA) if not m.from_bot]
    assert [("voice" in raw, "video" in raw) for raw in sent] == [(True, False), (False, True)]
    assert sent[0]["voice"]["duration"] == 12 and sent[1]["video"]["duration"] == 30
    assert emu.file(shown["audio"].rsplit("/", 1)[-1]).data == ogg(12)
    assert emu.file(shown["video"].rsplit("/", 1)[-1]).data == mp4(30)
