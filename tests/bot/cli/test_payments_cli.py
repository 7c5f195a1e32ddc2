"""``python -m bot payment record`` and ``payment import`` (CP Art. 34 IV; issue 18 §8): idempotent, clear refusals."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import pytest
import time_machine

from bot.cli import main
from tests.bot.cli.test_notices_cli import AUTO, designated_inspector  # noqa: F401 (autouse: the signer of AUTO)

NOW = dt.datetime(2026, 3, 10, 14, 0, tzinfo=dt.UTC)


def test_record_once_then_nothing_changes(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with time_machine.travel(NOW, tick=False):
        assert main(AUTO) == 0
        capsys.readouterr()
        command = ["payment", "record", "AI-2026-000001", "--valor", "378,00", "--data", "10/03/2026",
                   "--id-transacao", "E2E-1"]
        assert main([*command[:4], "300,00", *command[5:]]) == 2
        assert "é menos que a multa" in capsys.readouterr().err
        assert main(command) == 0
        assert "Pagamento de AI-2026-000001 registrado." in capsys.readouterr().out
        assert main(command) == 0
        assert "já estava registrado; nada mudou" in capsys.readouterr().out
    with sqlite3.connect(database) as connection:
        assert connection.execute("SELECT COUNT(*), SUM(amount_cents) FROM notice_payment").fetchone() == (1, 37800)


def test_import_a_bad_file_changes_nothing_and_names_the_lines(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with time_machine.travel(NOW, tick=False):
        assert main(AUTO) == 0
        capsys.readouterr()
        bad = tmp_path / "banco.csv"
        bad.write_text("data_pagamento;valor;txid;id_transacao\n10/03/2026;378,00;AI2026000001;E2E-1\n"
                       "32/03/2026;378,00;AI2026000001;E2E-2\n", encoding="utf-8")
        assert main(["payment", "import", str(bad)]) == 2
        err = capsys.readouterr().err
        assert "Linha 3:" in err and "não é uma data" in err and "Nada foi importado." in err
        good = tmp_path / "banco-ok.csv"
        good.write_text("data_pagamento;valor;txid;id_transacao\n10/03/2026;378,00;AI2026000001;E2E-1\n",
                        encoding="utf-8")
        assert main(["payment", "import", str(good)]) == 0
        assert "1 pagamentos registrados, 0 já conhecidos." in capsys.readouterr().out
        assert main(["payment", "import", str(good)]) == 0
        assert "0 pagamentos registrados, 1 já conhecidos." in capsys.readouterr().out
