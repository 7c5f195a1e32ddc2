"""``python -m bot staff add … --municipality SLUG``: a staff role is held in one municipality (CF Art. 30)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.cli import main


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
