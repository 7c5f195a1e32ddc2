"""``python -m bot import drivers FILE.csv`` and ``python -m bot driver link-code CPF``."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest
from telegram import Bot
from telegram.error import InvalidToken

from bot.cli import main
from core.settings import get_settings
from tests.auxil.drivers import JORGE_CPF, csv_text, driver_row, renavam


def jorge(**overrides: str) -> dict[str, str]:
    values = {"cpf": JORGE_CPF, "nome": "Jorge", "placa": "RAB2C34", "renavam": renavam("9876543210"),
              "autorizacao_numero": "2026/002"}
    return driver_row(**{**values, **overrides})


def test_import_reports_counts_and_a_second_run_changes_nothing(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = tmp_path / "motoristas.csv"
    registry.write_text(csv_text([driver_row(cnh_emissao="2025-01-10"), jorge()]), encoding="utf-8")
    assert main(["import", "drivers", str(registry)]) == 0
    out = capsys.readouterr().out
    assert f"{registry}:2: aviso: CNH emitida menos de 2 anos antes da autorização (Lei 1.533/2020 Art. 12 I)" in out
    assert "2 linhas; 2 motoristas incluídos, 0 atualizados, 0 sem mudança." in out
    assert main(["import", "drivers", str(registry)]) == 0
    assert "0 motoristas incluídos, 0 atualizados, 2 sem mudança." in capsys.readouterr().out
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM driver").fetchone() == (2,)


def test_a_bad_file_names_each_line_and_imports_nothing(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = tmp_path / "motoristas.csv"
    registry.write_text(csv_text([driver_row(), jorge(placa="12"), jorge(cpf="111", autorizacao_numero="9")]),
                        encoding="utf-8")
    assert main(["import", "drivers", str(registry)]) == 2
    err = capsys.readouterr().err
    assert f"{registry}:3: placa: a placa deve ser ABC1234 (antiga) ou ABC1D23 (Mercosul)" in err
    assert f"{registry}:4: cpf: o CPF deve ter 11 dígitos" in err
    assert "2 linhas com problema" in err and "nada foi importado" in err
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM driver").fetchone() == (0,)


def test_a_file_that_is_not_utf8_or_missing_gets_one_line(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    latin = tmp_path / "latin1.csv"
    latin.write_bytes(csv_text([driver_row(nome="João")]).encode("latin-1"))
    assert main(["import", "drivers", str(latin)]) == 2
    assert "não está em UTF-8" in capsys.readouterr().err
    assert main(["import", "drivers", str(tmp_path / "none.csv")]) == 2
    assert "arquivo não encontrado" in capsys.readouterr().err


def test_dry_run_changes_nothing(database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    registry = tmp_path / "motoristas.csv"
    registry.write_text(csv_text([driver_row()]), encoding="utf-8")
    assert main(["import", "drivers", "--dry-run", str(registry)]) == 0
    assert "1 motoristas seriam incluídos" in capsys.readouterr().out
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM driver").fetchone() == (0,)


def test_link_code_prints_the_code_once_and_the_start_payload(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = tmp_path / "motoristas.csv"
    registry.write_text(csv_text([driver_row()]), encoding="utf-8")
    main(["import", "drivers", str(registry)])
    capsys.readouterr()
    assert main(["driver", "link-code", "123.456.789-09"]) == 0
    out = capsys.readouterr().out
    code = out.split("(CPF ***.456.789-**): ", 1)[1].split()[0]
    assert len(code) == 10 and f"start=link-{code}" in out and "12345678909" not in out
    with sqlite3.connect(database) as db:
        stored = db.execute("SELECT code_hash FROM driver_link_code").fetchone()[0]
    assert code not in stored
    assert main(["driver", "link-code", "987.654.321-00"]) == 2
    assert "Nenhum motorista com este CPF" in capsys.readouterr().err
    assert main(["driver", "link-code", "123"]) == 2
    assert capsys.readouterr().err == "o CPF deve ter 11 dígitos\n"


def test_link_code_without_telegram_keeps_the_token_out_of_the_log(
    database: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A rejected token still prints the code and a link to complete; the log names the error, not the secret."""
    registry = tmp_path / "motoristas.csv"
    registry.write_text(csv_text([driver_row()]), encoding="utf-8")
    main(["import", "drivers", str(registry)])
    token = "123456:SECRET-token-value"
    monkeypatch.setenv("BALCAO_TELEGRAM_TOKEN", token)
    get_settings.cache_clear()

    async def rejected(self: Bot) -> None:
        raise InvalidToken(f"The token `{token}` was rejected by the server.")

    monkeypatch.setattr(Bot, "initialize", rejected)
    caplog.set_level(logging.WARNING, logger="balcao")
    capsys.readouterr()
    assert main(["driver", "link-code", "123.456.789-09"]) == 0
    assert "Link: https://t.me/<nome de usuário do seu bot>?start=link-" in capsys.readouterr().out
    assert "InvalidToken" in caplog.text and "SECRET" not in caplog.text


def test_balcao_cli_locale_en_prints_the_import_report_in_english(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BALCAO_CLI_LOCALE", "en")
    get_settings.cache_clear()
    registry = tmp_path / "motoristas.csv"
    registry.write_text(csv_text([driver_row()]), encoding="utf-8")
    assert main(["import", "drivers", "--dry-run", str(registry)]) == 0
    assert "1 rows; 1 drivers would be added, 0 updated, 0 unchanged." in capsys.readouterr().out
    assert main(["import", "drivers", str(tmp_path / "none.csv")]) == 2
    assert "none.csv: no such file" in capsys.readouterr().err
    registry.write_text(csv_text([driver_row(cpf="123", autorizacao_emissao="31/02/2026")]), encoding="utf-8")
    assert main(["import", "drivers", str(registry)]) == 2
    err = capsys.readouterr().err
    assert f"{registry}:2: cpf: CPF must have 11 digits" in err
    assert f'{registry}:2: autorizacao_emissao: "31/02/2026" is not a day of the calendar' in err
    assert main(["driver", "link-code", "123"]) == 2
    assert capsys.readouterr().err == "CPF must have 11 digits\n"


def test_a_huge_field_or_cr_only_line_endings_get_a_line_of_the_report_not_a_traceback(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 10 item 7: a field over the csv module's 131,072-character limit, or old Mac line endings."""
    huge = tmp_path / "huge.csv"
    huge.write_text(csv_text([driver_row(), jorge(nome="x" * 140_000)]), encoding="utf-8")
    assert main(["import", "drivers", str(huge)]) == 2
    err = capsys.readouterr().err
    assert f"{huge}:3: um campo tem mais de 131072 caracteres" in err and "Traceback" not in err
    cr_only = tmp_path / "mac.csv"
    cr_only.write_text(csv_text([driver_row(), jorge()]).replace("\r\n", "\n").replace("\n", "\r"), encoding="utf-8")
    assert main(["import", "drivers", str(cr_only)]) == 0
    assert "2 motoristas incluídos" in capsys.readouterr().out
