"""``python -m bot dispatch`` and ``run`` when Telegram refuses the token, and any command on an unexpected error:
one line in the CLI's language, never the token, never a traceback on the terminal (the log has it, redacted)."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from telegram import Bot
from telegram.error import InvalidToken

from bot.cli import main
from core.settings import get_settings

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


def test_a_refused_token_stops_run_with_a_reason_that_does_not_quote_it(
    database: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BALCAO_TELEGRAM_TOKEN", TOKEN)
    get_settings.cache_clear()

    async def rejected(self: Bot) -> None:
        raise InvalidToken(f"The token `{TOKEN}` was rejected by the server.")

    monkeypatch.setattr(Bot, "initialize", rejected)
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert err.endswith("O Telegram recusou o token de um bot. Confira BALCAO_TELEGRAM_TOKEN (ou o token de cada bot "
                        "da instalação).\n")
    assert TOKEN not in err and "Traceback" not in err


def test_an_unexpected_error_prints_a_reference_and_logs_the_traceback_redacted(
    database: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("BALCAO_TELEGRAM_TOKEN", TOKEN)
    get_settings.cache_clear()

    async def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError(f"could not reach https://api.telegram.org/bot{TOKEN}/getMe")

    monkeypatch.setattr("bot.cli.running.serve", broken)
    with caplog.at_level(logging.ERROR, logger="balcao.cli"):
        assert main(["run"]) == 1
    err = capsys.readouterr().err
    found = re.search(r"referência (E-[0-9A-F]{6})\.$", err.strip())
    assert found is not None, err
    assert TOKEN not in err and "Traceback" not in err
    record = next(record for record in caplog.records if record.name == "balcao.cli")
    assert found.group(1) in record.getMessage() and record.exc_info is not None
