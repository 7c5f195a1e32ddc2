"""``python -m bot staff add … --municipality SLUG``: a staff role is held in one municipality (CF Art. 30);
``staff remove`` ends it and everything the member holds (LGPD Art. 46)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from bot.cli import main
from core.db import database as db_database
from core.municipality import ConsoleTimes
from core.settings import get_settings
from models.columns import utcnow
from models.console.api_tokens import issue_api_token, token_holder
from models.console.signin import issue_link, redeem_link, session_owner


def test_a_role_is_added_in_one_municipality_and_an_unknown_one_is_refused(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["staff", "add", "5001", "--role", "admin", "--municipality", "sapezal"]) == 0
    assert main(["staff", "add", "5001", "--role", "clerk", "--municipality", "nova-xavantina"]) == 0
    assert main(["staff", "add", "5001", "--role", "clerk", "--municipality", "cuiaba"]) != 0
    assert capsys.readouterr().err == '--municipality "cuiaba": esta instalação atende sapezal, nova-xavantina\n'
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT municipality, role FROM staff_member WHERE telegram_user_id = 5001 ORDER BY municipality"
        ).fetchall()
    assert rows == [("nova-xavantina", "CLERK"), ("sapezal", "ADMIN")]


def test_the_role_is_named_in_words_not_its_code(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a newcomer's walk (issue 20 §2): "O servidor 5002 agora tem o papel ombudsman"
    assert main(["staff", "add", "5002", "--role", "ombudsman", "--municipality", "sapezal"]) == 0
    assert capsys.readouterr().out == "O servidor 5002 agora tem o papel Ouvidor(a).\n"

def test_staff_remove_ends_the_role_signs_out_and_revokes_everything_the_member_holds(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """LGPD Art. 46: a dismissed member keeps nothing that works — the role, the console session, an unused
    sign-in link and the personal API tokens all end at once, in the audit log; given a role back later, the old
    session and token stay dead."""
    url = f"sqlite+aiosqlite:///{database}"
    assert main(["staff", "add", "5002", "--role", "ombudsman", "--municipality", "sapezal"]) == 0

    async def hold_everything() -> tuple[str, str]:
        settings = get_settings()
        async with db_database(url) as (_engine, sessions), sessions() as session:
            link = await issue_link(session=session, telegram_user_id=5002, now=utcnow(),
                                    times=ConsoleTimes.of(settings))
            opened = await redeem_link(session=session, token=link.token, now=utcnow(), signed_in_as=None)
            await issue_link(session=session, telegram_user_id=5002, now=utcnow(),
                             times=ConsoleTimes.of(settings))  # unused
            token = await issue_api_token(session=session, telegram_user_id=5002, label="planilha", now=utcnow())
        return opened.token, token.token

    cookie, token = asyncio.run(hold_everything())
    capsys.readouterr()
    assert main(["staff", "remove", "5002", "--municipality", "sapezal"]) == 0
    assert ("sessões do painel encerradas: 1; links de entrada revogados: 1; chaves da API revogadas: 1"
            in capsys.readouterr().out)
    assert main(["staff", "remove", "5002", "--municipality", "sapezal"]) == 1  # nothing left to end
    assert main(["staff", "add", "5002", "--role", "ombudsman", "--municipality", "sapezal"]) == 0

    async def still_working() -> tuple[int | None, int | None]:
        settings = get_settings()
        async with db_database(url) as (_engine, sessions), sessions() as session:
            return (await session_owner(session=session, token=cookie, now=utcnow(), times=ConsoleTimes.of(settings)),
                    await token_holder(session=session, token=token, now=utcnow()))

    assert asyncio.run(still_working()) == (None, None)
    with sqlite3.connect(database) as connection:
        [(details,)] = connection.execute(
            "SELECT details FROM audit_event WHERE action = 'staff.remove' AND actor = 'cli'").fetchall()
        unused = connection.execute("SELECT COUNT(*) FROM console_link WHERE used_at IS NULL AND expires_at > ?",
                                    (utcnow().isoformat(),)).fetchone()
    assert json.loads(details)["tokens_revoked"] == 1
    assert unused == (0,)
