"""``python -m bot open311 key add NAME`` / ``key revoke NAME``: a key is printed once and only its hash is kept."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from bot.cli import main


def test_a_key_is_printed_once_stored_hashed_and_revoked(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["open311", "key", "add", "fixmystreet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Chave Open311 de fixmystreet (mostrada só agora; entregue ao responsável por esse sistema):"
    key = out[1]
    assert len(key) >= 40
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT name, key_sha256, revoked_at FROM open311_client").fetchall()
    assert rows == [("fixmystreet", hashlib.sha256(key.encode()).hexdigest(), None)]
    assert key not in database.read_bytes().decode("latin-1")
    assert main(["open311", "key", "add", "fixmystreet"]) == 2  # one active key per client system
    assert "já tem uma chave ativa" in capsys.readouterr().err
    assert main(["open311", "key", "revoke", "fixmystreet"]) == 0
    assert capsys.readouterr().out.strip() == "A chave Open311 de fixmystreet foi revogada."
    assert main(["open311", "key", "revoke", "fixmystreet"]) == 2
    assert main(["open311", "key", "add", "fixmystreet"]) == 0  # a revoked client gets a new key
    new_key = capsys.readouterr().out.splitlines()[1]
    assert new_key != key
