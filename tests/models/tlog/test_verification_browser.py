"""A citizen opens /verificar/<code> in a real browser, sees the notice's entry in the public log, follows the link to
the proof of inclusion and the proof verifies against the signed head (issue 10, item 12)."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from core.settings import Settings
from models.tlog import merkle
from models.tlog.heads import TreeHead, signature_is_valid
from tests.auxil.browser import chromium, require_browser
from tests.models.tlog.conftest import Life


def _follow_the_proof_link(url: str, screenshot: Path) -> dict[str, str]:
    from selenium.webdriver.common.by import By

    with chromium() as driver:
        driver.get(url)
        seen = {"heading": driver.find_element(By.TAG_NAME, "h2").text,
                "entry": driver.find_element(By.XPATH, "//h2/following-sibling::p[1]").text}
        driver.save_screenshot(str(screenshot))
        driver.find_element(By.ID, "prova").click()
        seen["proof"] = driver.find_element(By.TAG_NAME, "body").text
    return seen


@pytest.mark.browser
async def test_the_proof_link_on_the_page_gives_a_proof_that_verifies(
    settings: Settings, sessions: Any, life: Life, log_key: Any, tmp_path: Path
) -> None:
    require_browser()
    from bot.web import build_web_app

    server = TestServer(build_web_app(settings=settings, sessions=sessions), host="127.0.0.1")
    await server.start_server()
    try:
        seen = await asyncio.to_thread(_follow_the_proof_link, str(server.make_url(f"/verificar/{life.code}")),
                                       tmp_path / "verificar.png")
    finally:
        await server.close()
    proof = json.loads(seen["proof"])
    assert seen["heading"] == "Registro público"
    assert f"O registro nº {proof['leaf_index']} do livro público" in seen["entry"]
    head = TreeHead.from_json(proof["sth"])
    assert signature_is_valid(head, log_key.public_key())
    assert merkle.verify_inclusion(leaf=merkle.leaf_hash(proof["leaf_data"].encode()), index=proof["leaf_index"],
                                   size=proof["tree_size"], root=head.root_hash,
                                   path=[base64.b64decode(p) for p in proof["inclusion_path"]])
