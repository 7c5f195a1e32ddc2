"""Webhook mode with several bots in one process: each bot has its own path and its own secret token, through the
emulator's webhook delivery (the path with the URL's prefix) and by hand (the path a prefix-stripping proxy sends)."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

import aiohttp
from prometheus_client import REGISTRY
from pydantic import SecretStr

from bot.running import serve
from bot.web import SECRET_HEADER
from core.settings import Settings

SAPEZAL_TOKEN = "222222222:SAPEZAL-own-bot-token"
SECRET = "a-Very_secret-123"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _refused(reason: str) -> float:
    return REGISTRY.get_sample_value("balcao_webhook_refused_total", {"reason": reason}) or 0.0


def _command_update(update_id: int, user_id: int, command: str) -> dict[str, Any]:
    person = {"id": user_id, "is_bot": False, "first_name": "Joaquim", "language_code": "pt-br"}
    return {"update_id": update_id, "message": {
        "message_id": 1, "from": person, "chat": {"id": user_id, "type": "private", "first_name": "Joaquim"},
        "date": int(time.time()), "text": command,
        "entities": [{"type": "bot_command", "offset": 0, "length": len(command)}]}}


async def test_each_bot_has_its_own_webhook_path_and_secret_and_unknown_paths_are_refused(
    emulator: Any, settings: Settings
) -> None:
    port = _free_port()
    run_settings = settings.model_copy(update={
        "telegram_token": SecretStr(emulator.token), "telegram_api_url": emulator.root_url,
        "webhook_url": f"http://127.0.0.1:{port}/balcao", "webhook_secret": SecretStr(SECRET), "http_port": port,
    })
    stop = asyncio.Event()
    running = asyncio.create_task(serve(run_settings, stop=stop, check_schema=False,
                                        own_bots=[("sapezal", SecretStr(SAPEZAL_TOKEN))]))
    try:
        default_bot, sapezal_bot = emulator.world.bot(emulator.token), emulator.world.bot(SAPEZAL_TOKEN)
        await emulator.wait_until(lambda: default_bot.webhook and sapezal_bot.webhook, timeout=15)
        assert default_bot.webhook.url == f"http://127.0.0.1:{port}/balcao/telegram/webhook/default"
        assert sapezal_bot.webhook.url == f"http://127.0.0.1:{port}/balcao/telegram/webhook/sapezal"
        secrets = {default_bot.webhook.secret_token, sapezal_bot.webhook.secret_token}
        assert len(secrets) == 2 and SECRET not in secrets  # a bot's secret is its own

        # Telegram (the emulator) posts each bot's updates to its path: each bot answers its own people
        maria, joaquim = emulator.add_user(880001, "Maria"), emulator.add_user(880002, "Joaquim")
        emulator.send_text(maria, "/ajuda")
        emulator.send_text(joaquim, "/ajuda", to_bot=SAPEZAL_TOKEN)
        await emulator.wait_for_message(maria.id, lambda m: "Como usar" in (m.text or ""), after=0, timeout=15)
        await emulator.wait_for_message(joaquim.id, lambda m: "Como usar" in (m.text or ""), after=0, timeout=15,
                                        from_bot=SAPEZAL_TOKEN)

        base = f"http://127.0.0.1:{port}"
        sapezal_secret = sapezal_bot.webhook.secret_token
        unknown_before, secret_before = _refused("unknown_bot"), _refused("secret")
        async with aiohttp.ClientSession() as client:

            async def post(path: str, secret: str, body: dict[str, Any]) -> int:
                async with client.post(base + path, json=body, headers={SECRET_HEADER: secret}) as response:
                    return response.status

            update = _command_update(777001, joaquim.id, "/privacidade")
            # a bot this process does not serve, and the single-bot path, are no webhook here
            assert await post("/telegram/webhook/cuiaba", sapezal_secret, update) == 404
            assert await post("/balcao/telegram/webhook/cuiaba", sapezal_secret, update) == 404
            assert await post("/telegram/webhook", SECRET, update) == 404
            # another bot's secret, or the deployment's own, does not open Sapezal's path
            assert await post("/telegram/webhook/sapezal", default_bot.webhook.secret_token, update) == 403
            assert await post("/telegram/webhook/sapezal", SECRET, update) == 403
            # the path a proxy that strips /balcao sends, with Sapezal's secret: run by Sapezal's bot
            assert await post("/telegram/webhook/sapezal", sapezal_secret, update) == 200
        # answered before the 200 (the update is handled before Telegram is told): look from the chat's start
        await emulator.wait_for_message(joaquim.id, lambda m: "Seus dados" in (m.text or ""), timeout=15,
                                        from_bot=SAPEZAL_TOKEN, after=0)
        assert _refused("unknown_bot") - unknown_before == 2  # the route-less /telegram/webhook is aiohttp's 404
        assert _refused("secret") - secret_before == 2
        assert not any(call.token == emulator.token and call.params.get("chat_id") == joaquim.id
                       for call in emulator.calls_to("sendMessage"))
    finally:
        stop.set()
        await asyncio.wait_for(running, timeout=30)
