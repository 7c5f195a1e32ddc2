"""``python -m bot prazo RULE --inicio DATE``: the clerk's deadline calculator, in Portuguese."""

import datetime as dt
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import time_machine

from bot.cli import main
from core.settings import get_settings
from tests.auxil.municipalities import write_municipalities


@pytest.fixture(autouse=True)
def clean_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No stray .env or BALCAO_* variable; the cached settings are re-read for each test."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("BALCAO_"):
            monkeypatch.delenv(name)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_the_appeal_across_christmas_and_new_year(capsys: pytest.CaptureFixture[str]) -> None:
    """CP Art. 43 par. único: 10 dias úteis from Friday 18 December 2026."""
    assert main(["prazo", "cp-43-recurso", "--inicio", "18/12/2026"]) == 0
    out = capsys.readouterr().out
    assert "Prazo: Recurso voluntário ao Prefeito" in out
    assert "Código de Posturas (Nova Xavantina), Art. 43, par. único" in out
    assert "Contagem: 10 dias úteis, a partir de: ciência da decisão de primeira instância" in out
    assert "Início: sexta-feira, 18 de dezembro de 2026 (esse dia não conta)" in out
    assert "  sexta-feira, 25 de dezembro de 2026: feriado: Natal" in out
    assert "  sexta-feira, 1 de janeiro de 2027: feriado: Confraternização Universal" in out
    assert "  sábado, 2 de janeiro de 2027: sábado" in out
    skipped, counted = out.split("Dias que não contam:\n", 1)[1].split("Contados como dias úteis", 1)
    assert skipped.count("  ") == 8  # the eight days not counted
    # the eves are pontos facultativos: counted, and said so (BALCAO_CALENDAR_OPTIONAL_DAYS_OFF is off)
    assert "  quinta-feira, 24 de dezembro de 2026: ponto facultativo: Véspera de Natal" in counted
    assert "  quinta-feira, 31 de dezembro de 2026: ponto facultativo: Véspera de Ano-Novo" in counted
    assert out.rstrip().endswith("Prazo final: terça-feira, 5 de janeiro de 2027")


def test_carnaval_counts_as_business_days_and_the_clerk_is_told(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """CP Art. 37: 8 dias úteis from Friday 5 February 2027, across Carnaval (8–10 February)."""
    assert main(["prazo", "cp-37-reclamacao", "--inicio", "2027-02-05"]) == 0
    out = capsys.readouterr().out
    assert "Contados como dias úteis (a Prefeitura não declarou folga):" in out
    assert "  terça-feira, 9 de fevereiro de 2027: ponto facultativo: Carnaval" in out
    assert "  quarta-feira, 10 de fevereiro de 2027: ponto facultativo: Quarta-feira de Cinzas" in out
    assert "Prazo final: quarta-feira, 17 de fevereiro de 2027" in out
    monkeypatch.setenv("BALCAO_CALENDAR_OPTIONAL_DAYS_OFF", "true")
    get_settings.cache_clear()
    assert main(["prazo", "cp-37-reclamacao", "--inicio", "2027-02-05"]) == 0
    closed = capsys.readouterr().out
    assert "  segunda-feira, 8 de fevereiro de 2027: ponto facultativo: Carnaval" in closed
    assert "Contados como dias úteis" not in closed
    assert "Prazo final: segunda-feira, 22 de fevereiro de 2027" in closed


def test_a_calendar_deadline_ending_on_a_ponto_facultativo_says_why_it_does_not_move(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """CP Art. 184 §2: 10 dias from Saturday 30 January 2027 end on Carnaval Tuesday."""
    assert main(["prazo", "cp-184-2-cao-registrado", "--inicio", "30/01/2027"]) == 0
    out = capsys.readouterr().out
    assert "O último dia, terça-feira, 9 de fevereiro de 2027 (ponto facultativo: Carnaval), conta como dia útil" in out
    assert out.rstrip().endswith("Prazo final: terça-feira, 9 de fevereiro de 2027")


def test_a_calendar_deadline_ending_on_saturday_moves_to_monday(capsys: pytest.CaptureFixture[str]) -> None:
    """CP Art. 278 §2: 30 dias from 3 December 2026 end on Saturday 2 January 2027."""
    assert main(["prazo", "cp-278-defesa", "--inicio", "2026-12-03"]) == 0
    out = capsys.readouterr().out
    assert "30 dias corridos" in out
    assert "A contagem terminou em sábado, 2 de janeiro de 2027 (sábado), que não é dia útil" in out
    assert "  domingo, 3 de janeiro de 2027: domingo" in out
    assert "Prazo final: segunda-feira, 4 de janeiro de 2027" in out


def test_a_municipal_holiday_from_settings(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """CP Art. 37 with BALCAO_MUNICIPAL_HOLIDAYS on Wednesday 10 March 2027."""
    monkeypatch.setenv("BALCAO_MUNICIPAL_HOLIDAYS", "2027-03-10")
    assert main(["prazo", "cp-37-reclamacao", "--inicio", "2027-03-05"]) == 0
    out = capsys.readouterr().out
    assert "  quarta-feira, 10 de março de 2027: feriado municipal" in out
    assert "Prazo final: quinta-feira, 18 de março de 2027" in out


def test_an_ambiguous_rule_shows_the_reading_applied_and_the_other(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """CP Art. 37 after an edital (Art. 36 III): CPC Art. 231 IV + 224 by default, or --leitura."""
    assert main(["prazo", "cp-37-reclamacao-edital", "--inicio", "01/03/2027"]) == 0
    out = capsys.readouterr().out
    assert ("Leitura aplicada: o início é o dia útil seguinte aos 30 dias do edital, que não é contado "
            "(Art. 36, III; CPC Art. 231, IV e Art. 224, por analogia)") in out
    assert "Início: quinta-feira, 1 de abril de 2027 (esse dia não conta)" in out
    assert "Prazo final: terça-feira, 13 de abril de 2027" in out
    assert "Outra leitura: contado da publicação do edital (Art. 37, ao pé da letra) → quinta-feira, 11 de março" in out

    assert main(["prazo", "cp-37-reclamacao-edital", "--inicio", "01/03/2027", "--leitura", "publicacao"]) == 0
    assert "Prazo final: quinta-feira, 11 de março de 2027" in capsys.readouterr().out

    monkeypatch.setenv("BALCAO_CP_EDITAL_START", "publicacao")
    get_settings.cache_clear()
    assert main(["prazo", "cp-37-reclamacao-edital", "--inicio", "01/03/2027"]) == 0
    assert "Prazo final: quinta-feira, 11 de março de 2027" in capsys.readouterr().out


def test_there_is_no_deposit_rule(capsys: pytest.CaptureFixture[str]) -> None:
    """CP Art. 46's deposit is not a deadline (STF Súmula Vinculante 21): prazo does not know it."""
    assert main(["prazo", "cp-46-deposito", "--inicio", "05/02/2027"]) == 2
    assert 'Não existe a regra "cp-46-deposito". As regras são:' in capsys.readouterr().err


def test_months_from_29_february(capsys: pytest.CaptureFixture[str]) -> None:
    """L1533 Art. 24 par. único: 12 months from 29 February 2028 end on 1 March 2029 (CC Art. 132 §3)."""
    assert main(["prazo", "l1533-24-suspensao", "--inicio", "2028-02-29"]) == 0
    out = capsys.readouterr().out
    assert "12 meses" in out
    assert "O último mês não tem o dia 29: o prazo termina no dia seguinte." in out
    assert "Prazo final: quinta-feira, 1 de março de 2029" in out


def test_hours_need_a_time(capsys: pytest.CaptureFixture[str]) -> None:
    """L1533 Art. 4 §2: 24 hours for the platform to share the trip data."""
    assert main(["prazo", "l1533-4-dados", "--inicio", "04/01/2027 14:30"]) == 0
    out = capsys.readouterr().out
    assert "Início: 04/01/2027 14:30" in out
    assert "Termina em: 05/01/2027 14:30" in out
    assert main(["prazo", "l1533-4-dados", "--inicio", "04/01/2027"]) == 2
    assert capsys.readouterr().err == (
        "l1533-4-dados é contado em horas: informe --inicio com a hora, por exemplo 2027-01-04T14:30\n")


def test_an_unknown_rule_exits_2_with_the_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prazo", "cp-99-nada", "--inicio", "2027-01-04"]) == 2
    err = capsys.readouterr().err
    assert 'Não existe a regra "cp-99-nada". As regras são:\n' in err
    assert "cp-43-recurso" in err and "ouvidoria-13460-resposta" in err


@pytest.mark.parametrize("bad", ["2027-02-30", "4 de janeiro", "31/13/2027", ""])
def test_a_bad_date_exits_2(capsys: pytest.CaptureFixture[str], bad: str) -> None:
    assert main(["prazo", "cp-43-recurso", "--inicio", bad]) == 2
    assert capsys.readouterr().err == (
        f'--inicio "{bad}": escreva AAAA-MM-DD ou DD/MM/AAAA (com HH:MM para um prazo em horas)\n')


def test_an_unknown_reading_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prazo", "cp-37-reclamacao-edital", "--inicio", "2027-01-04", "--leitura", "weekly"]) == 2
    assert capsys.readouterr().err == (
        'cp-37-reclamacao-edital não tem a leitura "weekly"; use uma destas: publicacao, fim_do_edital\n')


def test_help_lists_every_rule_with_its_article(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["prazo", "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "cp-43-recurso" in out and "Art. 43" in out and "cp-46-deposito" not in out
    assert "l1533-22-entrega" in out and "Art. 22, §§1º–2º" in out


def test_a_short_office_day_of_the_municipality_moves_the_end(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """L9784 Art. 66 §1: Nova Xavantina closes at 11h on 24 December 2026, so 30 dias of CP Art. 278 §2
    from 24 November end on Monday 28 December; Sapezal, without that short day, keeps the 24th."""
    path = write_municipalities(tmp_path, nx_extra='''
[[municipality.short_days]]
date = 2026-12-24
closes = "11:00"
act = "Decreto nº 45/2026"
''')
    monkeypatch.setenv("BALCAO_MUNICIPALITIES_FILE", str(path))
    assert main(["prazo", "cp-278-defesa", "--inicio", "24/11/2026"]) == 0  # the Código de Posturas: Nova Xavantina
    out = capsys.readouterr().out
    assert "expediente encerrado mais cedo nesse dia (11:00, Decreto nº 45/2026)" in out
    assert "Lei 9.784/1999 Art. 66 §1" in out
    assert "Prazo final: segunda-feira, 28 de dezembro de 2026" in out
    get_settings.cache_clear()
    assert main(["prazo", "cp-278-defesa", "--inicio", "24/11/2026", "--municipio", "sapezal"]) == 0
    assert "Prazo final: quinta-feira, 24 de dezembro de 2026" in capsys.readouterr().out
    get_settings.cache_clear()
    assert main(["prazo", "cp-278-defesa", "--inicio", "24/11/2026", "--municipio", "cuiaba"]) != 0
    assert capsys.readouterr().err == '--municipio "cuiaba": esta instalação atende sapezal, nova-xavantina\n'


def test_the_refusals_speak_the_cli_locale_english_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """BALCAO_CLI_LOCALE=en: the same refusals, from the same msgids, in English."""
    monkeypatch.setenv("BALCAO_CLI_LOCALE", "en")
    assert main(["prazo", "cp-99-nada", "--inicio", "2027-01-04"]) == 2
    assert capsys.readouterr().err.startswith('There is no rule "cp-99-nada". The rules are:\n')
    assert main(["prazo", "cp-43-recurso", "--inicio", "31/02/2027"]) == 2
    assert capsys.readouterr().err == (
        '--inicio "31/02/2027": write YYYY-MM-DD or DD/MM/YYYY (with HH:MM for a deadline in hours)\n')
    assert main(["prazo", "cp-278-defesa", "--inicio", "24/11/2026", "--municipio", "cuiaba"]) == 2
    assert capsys.readouterr().err == '--municipio "cuiaba": this deployment serves sapezal, nova-xavantina\n'


@pytest.mark.parametrize("typed", ["sexta", "18/12", "anteontem", "18.12.2026"])
def test_the_start_is_typed_as_in_the_chat(typed: str, capsys: pytest.CaptureFixture[str]) -> None:
    """models/when.py: the same words the chat reads, counted from the municipality's today (Sunday 20/12/2026)."""
    with time_machine.travel(dt.datetime(2026, 12, 20, 15, tzinfo=dt.UTC), tick=False):
        assert main(["prazo", "cp-43-recurso", "--inicio", typed]) == 0
    out = capsys.readouterr().out
    assert "Início: sexta-feira, 18 de dezembro de 2026 (esse dia não conta)" in out
    assert out.rstrip().endswith("Prazo final: terça-feira, 5 de janeiro de 2027")
