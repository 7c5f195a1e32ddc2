"""``python -m bot backup FILE`` / ``restore FILE`` on SQLite: a checked copy, refusals in the operator's language."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from bot.cli import main
from core.settings import get_settings


def names(database: Path) -> list[str]:
    with closing(sqlite3.connect(database)) as connection:
        return [row[0] for row in connection.execute("SELECT first_name FROM person ORDER BY id")]


def add_person(database: Path, telegram_id: int, name: str) -> None:
    with closing(sqlite3.connect(database)) as connection, connection:
        connection.execute(
            "INSERT INTO person (telegram_user_id, chat_id, first_name, locale, locale_chosen, created_at)"
            " VALUES (?, ?, ?, 'pt_BR', 0, '2026-12-01 10:00:00.000000')", (telegram_id, telegram_id, name))


def test_a_backup_restores_the_database_as_it_was_and_keeps_what_it_replaced(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_person(database, 830001, "Maria")
    backup = tmp_path / "copia.db"

    assert main(["backup", str(backup)]) == 0
    assert "Cópia de segurança gravada em" in capsys.readouterr().out
    add_person(database, 830002, "Joaquim")  # written after the backup

    assert main(["restore", str(backup)]) == 0
    out = capsys.readouterr().out
    assert "restaurado" in out and "python -m bot db upgrade" in out
    assert names(database) == ["Maria"]
    [kept] = tmp_path.glob("balcao.db.before-restore-*")
    assert names(kept) == ["Maria", "Joaquim"]


def test_a_backup_never_overwrites_a_file_unless_asked(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backup = tmp_path / "copia.db"
    backup.write_bytes(b"an older backup")
    assert main(["backup", str(backup)]) == 2
    assert "Esse arquivo já existe" in capsys.readouterr().err
    assert backup.read_bytes() == b"an older backup"
    assert main(["backup", "--overwrite", str(backup)]) == 0


@pytest.mark.parametrize(
    ("content", "refusal"),
    [
        (b"not a database at all, just bytes" * 100, "não é um banco de dados SQLite"),
        (None, "não é uma cópia do Balcão"),
        ("newer", "versão mais nova do Balcão"),
    ],
)
def test_restore_refuses_a_file_that_is_not_a_good_backup_and_changes_nothing(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | str | None, refusal: str
) -> None:
    add_person(database, 830001, "Maria")
    backup = tmp_path / "suspeito.db"
    if isinstance(content, bytes):
        backup.write_bytes(content)
    elif content is None:  # an SQLite file of some other program
        with closing(sqlite3.connect(backup)) as connection, connection:
            connection.execute("CREATE TABLE t (x)")
    else:  # a backup of a release whose migrations this one does not know
        assert main(["backup", str(backup)]) == 0
        with closing(sqlite3.connect(backup)) as connection, connection:
            connection.execute("UPDATE alembic_version SET version_num = '9999_future'")
    capsys.readouterr()

    assert main(["restore", str(backup)]) == 2

    assert refusal in capsys.readouterr().err
    assert names(database) == ["Maria"]
    assert not list(tmp_path.glob("balcao.db.before-restore-*"))


def test_postgresql_deployments_are_sent_to_pg_dump(
    database: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BALCAO_DATABASE_URL", "postgresql+asyncpg://balcao@db.example.gov.br/balcao")
    get_settings.cache_clear()
    assert main(["backup", str(tmp_path / "x.db")]) == 2
    assert "pg_dump" in capsys.readouterr().err
    assert not (tmp_path / "x.db").exists()


@pytest.mark.parametrize(
    ("content", "refusal"),
    [
        (b"", "Esse banco de dados não é do Balcão (não tem registro de migração); nada foi copiado."),
        (b"not a database at all, just bytes" * 100, "Esse banco de dados não é um banco de dados SQLite"),
    ],
)
def test_a_backup_of_a_database_that_is_not_balcaos_says_so_and_leaves_no_file(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, refusal: str
) -> None:
    database.write_bytes(content)  # e.g. the empty balcao.db of a mistyped BALCAO_DATABASE_URL
    before = sorted(path.name for path in tmp_path.iterdir())

    assert main(["backup", str(tmp_path / "copia.db")]) == 2

    err = capsys.readouterr().err
    assert refusal in err and "BALCAO_DATABASE_URL" in err
    assert "restaurado" not in err
    assert sorted(path.name for path in tmp_path.iterdir()) == before  # no copia.db, no partial file


def test_a_failed_backup_with_overwrite_keeps_the_old_backup_whole(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backup = tmp_path / "copia.db"
    backup.write_bytes(b"an older backup")
    with closing(sqlite3.connect(database)) as connection, connection:
        connection.execute("DROP TABLE alembic_version")

    assert main(["backup", "--overwrite", str(backup)]) == 2

    assert "nada foi copiado" in capsys.readouterr().err
    assert backup.read_bytes() == b"an older backup"
    assert not list(tmp_path.glob(".copia.db*"))
