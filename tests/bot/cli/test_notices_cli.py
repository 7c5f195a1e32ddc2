"""``python -m bot notice issue …`` and ``python -m bot notice verify`` (issue 6, items 3 and 7)."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import pytest
import time_machine

from bot.cli import main
from core.settings import get_settings
from tests.auxil.notices import MARIA_CPF, pdf_text

AUTO = [
    "notice", "issue", "--tipo", "auto", "--rulebook", "nx-posturas", "--infracao", "CP-I-1",
    "--nome", "Maria Aparecida da Silva", "--documento", "529.982.247-25", "--endereco", "Rua das Acácias, 45",
    "--local", "Rua 7 de Setembro, 200", "--data", "02/03/2026", "--hora", "09:30",
    "--fatos", "Terreno com mato alto.", "--como", "7001",
]
STAFF_ADD = ["staff", "add", "7001", "--role", "inspector", "--name", "Inês Fiscal", "--municipality",
             "nova-xavantina", "--registration", "1234", "--act", "autuar", "--designation-number", "12/2026",
             "--designation-date", "02/01/2026"]


@pytest.fixture(autouse=True)
def designated_inspector(request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]) -> None:
    """CP Art. 12: the agent designated by Portaria nº 12/2026, added through ``staff add`` (issue 18 §2)."""
    if "database" in request.fixturenames:
        request.getfixturevalue("database")
        assert main(STAFF_ADD) == 0
        capsys.readouterr()


def test_issue_prints_the_number_the_code_and_the_pdf_path(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*AUTO, "--pdf", str(tmp_path / "auto.pdf")]) == 0
    out = capsys.readouterr().out
    assert "Número: AI-2026-000001" in out
    code = out.split("Código de verificação: ", 1)[1].split()[0]
    assert len(code) == 14
    assert f"PDF: {tmp_path / 'auto.pdf'}" in out
    assert "por edital" in out  # nobody opted in: on the staff list
    text = pdf_text((tmp_path / "auto.pdf").read_bytes())
    assert code in text and "AI-2026-000001" in text and "529.982.247-25" in text
    with sqlite3.connect(database) as connection:
        stored = connection.execute("SELECT offender_document FROM notice").fetchone()
    assert stored == (MARIA_CPF,)


def test_a_missing_element_is_refused_with_its_article(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    without_place = [arg for arg in AUTO if arg not in ("--local", "Rua 7 de Setembro, 200")]
    assert main(without_place) == 2
    err = capsys.readouterr().err
    assert "A notificação não foi emitida" in err and "Art. 34, I" in err
    with sqlite3.connect(database) as connection:
        assert connection.execute("SELECT count(*) FROM notice").fetchone() == (0,)


def test_a_bad_cpf_or_date_is_refused_before_anything_is_written(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*AUTO, "--documento", "111.111.111-11"]) == 2
    assert "CPF" in capsys.readouterr().err
    assert main([*AUTO, "--data", "31/02/2026"]) == 2
    assert capsys.readouterr().err == '--data "31/02/2026": escreva AAAA-MM-DD ou DD/MM/AAAA\n'
    with sqlite3.connect(database) as connection:
        assert connection.execute("SELECT count(*) FROM notice").fetchone() == (0,)


def test_each_refused_flag_is_named_with_the_reason_in_portuguese(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for extra, refusal in (
        (["--hora", "25:00"], '--hora "25:00": escreva HH:MM, por exemplo 09:30'),
        (["--data-infracao", "31/02"], '--data-infracao "31/02": escreva AAAA-MM-DD ou DD/MM/AAAA'),
        (["--unidades", "dez"], '--unidades "dez": não é um número'),
        (["--quantidade", "1,2,3"], '--quantidade "1,2,3": não é um número'),
        (["--preliminar", "NP-2026-000099"], '--preliminar "NP-2026-000099": não existe notificação com este número'),
    ):
        assert main([*AUTO, *extra]) == 2
        assert capsys.readouterr().err == refusal + "\n"
    none, not_json, not_a_head = tmp_path / "none.json", tmp_path / "head.txt", tmp_path / "head.json"
    not_a_key = tmp_path / "key.pem"
    not_json.write_text("cabeça", encoding="utf-8")
    not_a_head.write_text('{"version": "balcao-tlog/9"}', encoding="utf-8")
    not_a_key.write_text("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", encoding="utf-8")
    for extra, refusal in (
        (["--head", str(none)], f"--head {none}: o arquivo ou a pasta dele não existe"),
        (["--head", str(not_json)], f"--head {not_json}: não é um arquivo JSON (guarde a cabeça como python -m bot "
                                    "log head a imprime)"),
        (["--head", str(not_a_head)], f'--head {not_a_head}: versão de cabeça desconhecida: "balcao-tlog/9"'),
        (["--public-key", str(not_a_key)], f"--public-key: {not_a_key}: não é uma chave pública PEM"),
    ):
        assert main(["notice", "verify", *extra]) == 2
        assert capsys.readouterr().err == refusal + "\n"


def test_an_unreadable_log_key_setting_is_refused_in_the_cli_locale(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "chave.pem"
    monkeypatch.setenv("BALCAO_LOG_SIGNING_KEY_FILE", str(missing))
    get_settings.cache_clear()
    assert main(["notice", "verify"]) == 2
    assert capsys.readouterr().err == f"BALCAO_LOG_SIGNING_KEY_FILE: {missing}: arquivo não encontrado\n"
    monkeypatch.setenv("BALCAO_CLI_LOCALE", "en")
    get_settings.cache_clear()
    assert main(["notice", "verify"]) == 2
    assert capsys.readouterr().err == f"BALCAO_LOG_SIGNING_KEY_FILE: {missing}: no such file\n"
    monkeypatch.delenv("BALCAO_LOG_SIGNING_KEY_FILE")
    get_settings.cache_clear()
    assert main([*AUTO, "--unidades", "ten"]) == 2
    assert capsys.readouterr().err == '--unidades "ten": not a number\n'


def test_verify_passes_then_finds_a_row_tampered_with_raw_sql(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*AUTO, "--pdf", str(tmp_path / "a.pdf")]) == 0
    assert main([*AUTO, "--infracao", "CP-I-2", "--pdf", str(tmp_path / "b.pdf")]) == 0
    capsys.readouterr()
    assert main(["notice", "verify"]) == 0
    assert "; 0 problema." in capsys.readouterr().out
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE notice_event SET data = '{\"reason\": \"forged\"}' WHERE notice_id = 2 AND seq = 2")
    assert main(["notice", "verify"]) == 1
    out = capsys.readouterr().out
    assert "AI-2026-000002 · notice_event" in out and "em: data" in out and "AI-2026-000001" not in out
    assert "; 1 problema." in out


def test_an_outros_item_needs_dispositivo_cp_art_34_iii(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # CP Art. 34 III: "Outros" (Tabela I item 11) names no conduct; --dispositivo gives the provision.
    outros = [*AUTO, "--infracao", "CP-I-11", "--pdf", str(tmp_path / "o.pdf")]
    assert main(outros) == 2
    assert "não descreve nenhuma conduta" in capsys.readouterr().err
    assert main([*outros, "--dispositivo", "Art. 50, IX"]) == 0
    with sqlite3.connect(database) as connection:
        assert connection.execute("SELECT infringed_provision FROM notice").fetchone() == ("Art. 50, IX",)
def test_staff_add_takes_the_registration_and_the_designation_and_refuses_autuar_without_it(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CP Art. 12: "Agente para esse fim designado" — no portaria, no competence to draw up notices."""
    assert main(["staff", "add", "7002", "--role", "clerk", "--name", "Carlos", "--registration", "2345",
                 "--municipality", "nova-xavantina", "--act", "autuar"]) == 2
    err = capsys.readouterr().err
    assert "Portaria" in err and "Código de Posturas (Nova Xavantina), Art. 12" in err
    assert main(["staff", "add", "7002", "--role", "clerk", "--name", "Carlos", "--registration", "2345",
                 "--municipality", "nova-xavantina", "--act", "primeira_instancia"]) == 0
    assert "Competente como: Chefe do Departamento (Departamento de Fiscalização)" in capsys.readouterr().out
    with sqlite3.connect(database) as connection:
        rows = connection.execute("SELECT act, designation_number, designation_on FROM staff_authority "
                                  "ORDER BY id").fetchall()
        registration = connection.execute("SELECT registration FROM staff_member WHERE telegram_user_id = 7001"
                                          ).fetchone()
    assert rows == [("autuar", "12/2026", "2026-01-02"), ("primeira_instancia", "", None)]
    assert registration == ("1234",)


def test_the_cli_issues_only_as_a_designated_staff_member_who_signs_it(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 18 §2: no more --emissor free text; --como names the member, whose roles are checked."""
    assert main([*AUTO[:-1], "99", "--pdf", str(tmp_path / "x.pdf")]) == 2
    assert "--como 99" in capsys.readouterr().err
    assert main(["staff", "add", "7003", "--role", "inspector", "--name", "Rui", "--registration", "9",
                 "--municipality", "nova-xavantina"]) == 0
    capsys.readouterr()
    assert main([*AUTO[:-1], "7003"]) == 2  # an inspector, but not designated
    assert "Art. 12" in capsys.readouterr().err
    assert main([*AUTO, "--pdf", str(tmp_path / "a.pdf")]) == 0
    text = " ".join(pdf_text((tmp_path / "a.pdf").read_bytes()).split("\n"))
    assert "Assinada eletronicamente em" in text and "por Inês Fiscal" in text and "Portaria nº 12/2026" in text
    with sqlite3.connect(database) as connection:
        assert connection.execute("SELECT issuer_telegram_id, issuer_name FROM notice").fetchone() == (
            7001, "Inês Fiscal")


def test_the_cli_asks_to_confirm_a_lei_1533_auto_past_its_90_days(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """L1533 Art. 22 §1: drawn up on 2/1/2025, far more than 90 days ago."""
    assert main(["staff", "add", "7004", "--role", "inspector", "--name", "Sá", "--registration", "5",
                 "--municipality", "sapezal", "--act", "autuar", "--designation-number", "3/2025",
                 "--designation-date", "2025-01-02"]) == 0
    late = ["notice", "issue", "--tipo", "auto", "--rulebook", "sapezal-1533", "--infracao", "L1533-26-IV",
            "--nome", "Maria", "--local", "Av. Brasil", "--data", "02/01/2025", "--hora", "10:00",
            "--fatos", "Embarque sem aplicativo.", "--como", "7004", "--pdf", str(tmp_path / "l.pdf")]
    capsys.readouterr()
    assert main(late) == 2
    assert "Art. 22, §1º" in capsys.readouterr().err
    assert main([*late, "--confirmar-prazo"]) == 0


def test_the_day_and_hour_are_typed_as_in_the_chat(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """models/when.py: "9.30" and "ontem" are read here as in /emitir (they were refused: HH:MM, DD/MM/YYYY only)."""
    typed = list(AUTO)
    typed[typed.index("--hora") + 1], typed[typed.index("--data") + 1] = "9.30", "ontem"
    with time_machine.travel(dt.datetime(2026, 3, 3, 15, tzinfo=dt.UTC), tick=True):
        assert main(typed) == 0, capsys.readouterr().err
    with sqlite3.connect(database) as connection:
        (stored,) = connection.execute("SELECT drawn_up_at FROM notice").fetchone()
    assert dt.datetime.fromisoformat(stored).replace(tzinfo=dt.UTC) == dt.datetime(2026, 3, 2, 13, 30, tzinfo=dt.UTC)
