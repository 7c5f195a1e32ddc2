"""``python -m bot dispatch`` when Telegram refuses the token: one line in the CLI's language, never the token."""

from __future__ import annotations

from pathlib import Path

import pytest
from telegram import Bot
from telegram.error import InvalidToken

from bot.cli import main
from bot.settings import get_settings

TOKEN = "123456:SECRET-token-value"


@pytest.mark.parametrize(("locale", "refusal"), [
    ("pt_BR", "O Telegram recusou o token de um bot: o envio parou. Confira BALCAO_TELEGRAM_TOKEN (ou o token de "
              "cada bot da instalação).\n"),
    ("en", "Telegram refused a bot token: sending stopped. Check BALCAO_TELEGRAM_TOKEN (or the token of each bot of "
           "the deployment).\n"),
])
def test_a_refused_token_stops_dispatch_with_a_reason_that_does_not_quote_it(
    database: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], locale: str, refusal: str
) -> None:
    monkeypatch.setenv("BALCAO_TELEGRAM_TOKEN", TOKEN)
    monkeypatch.setenv("BALCAO_CLI_LOCALE", locale)
    get_settings.cache_clear()

    async def rejected(self: Bot) -> None:  # what python-telegram-bot raises on getMe's 401: the token quoted
        raise InvalidToken(f"The token `{TOKEN}` was rejected by the server.")

    monkeypatch.setattr(Bot, "initialize", rejected)
    assert main(["dispatch"]) == 2
    assert capsys.readouterr().err == refusal
