"""``python -m bot notice issue …`` and ``python -m bot notice verify`` (issue 6, items 3 and 7)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.cli import main
from tests.auxil.notices import MARIA_CPF, pdf_text

AUTO = [
    "notice", "issue", "--tipo", "auto", "--rulebook", "nx-posturas", "--infracao", "CP-I-1",
    "--nome", "Maria Aparecida da Silva", "--documento", "529.982.247-25", "--endereco", "Rua das Acácias, 45",
    "--local", "Rua 7 de Setembro, 200", "--data", "02/03/2026", "--hora", "09:30",
    "--fatos", "Terreno com mato alto.", "--emissor", "Inês Fiscal (mat. 1234)",
]


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
    assert main([*AUTO[:-2], "--emissor", "Inês", "--documento", "111.111.111-11"]) == 2
    assert "CPF" in capsys.readouterr().err
    assert main([*AUTO, "--data", "31/02/2026"]) == 2
    assert "--data" in capsys.readouterr().err


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
