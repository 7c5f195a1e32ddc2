"""``--help`` and usage errors speak BALCAO_CLI_LOCALE (issue 9: the CLI spoke English when installed with pip).

Every description, help text and placeholder of the parser is an English msgid of ``cli.po``; argparse's own texts
("usage:", "options", "the following arguments are required") come from the same catalogs. The help of every
subcommand is read in pt_BR and in English and compared with the catalog itself, so a help text left unmarked, or
a subcommand added without translations, fails here.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po

from bot.catalog_scan import _marked_key
from bot.catalogs import LOCALES_DIR, ROOT
from bot.cli import build_parser, main
from bot.cli.argparse_texts import ARGPARSE_TEXTS
from core.i18n import SUPPORTED_LOCALES, translator
from core.settings import get_settings

Speak = Callable[[str], None]
PERCENT = re.compile(r"%(?:\(\w+\))?[sr]")  # argparse's own texts are %-formatted
IN_HELP = {"usage: ", "positional arguments", "options", "show this help message and exit"}
# What only a refused command line shows: argparse's errors, and the refusal of a whole-number argument.
USAGE_ERRORS = set(ARGPARSE_TEXTS) - IN_HELP | {"'{value}' is not a whole number"}


@pytest.fixture
def speak(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """Set BALCAO_CLI_LOCALE (nothing else of the environment or of a .env file leaks in)."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("BALCAO_"):
            monkeypatch.delenv(name)

    def choose(locale: str) -> None:
        monkeypatch.setenv("BALCAO_CLI_LOCALE", locale)
        get_settings.cache_clear()

    yield choose
    get_settings.cache_clear()


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int | str | None, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    captured = capsys.readouterr()
    return exited.value.code, captured.out, captured.err


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command path of the parser: (), ("db",), ("db", "upgrade"), …"""
    yield path
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, subparser in action.choices.items():
                yield from _commands(subparser, (*path, name))


def _all_help(capsys: pytest.CaptureFixture[str]) -> str:
    texts = []
    for path in _commands(build_parser(translator("en"))):
        code, out, _err = _run(capsys, *path, "--help")
        assert code == 0, path
        texts.append(out)
    return "\n".join(texts)


def _parser_msgids() -> set[str]:
    """The msgids marked where the parser is built (each module's ``register`` and ``build_parser``).

    cli.po also holds what a command prints when it refuses ("--inicio '31/02': write YYYY-MM-DD…"): in no help.
    """
    found: set[str] = set()
    for path in sorted((ROOT / "bot" / "cli").glob("*.py")):
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(function, ast.FunctionDef) and function.name in {"register", "build_parser"}:
                found |= {key[1] for node in ast.walk(function) if isinstance(node, ast.Call)
                          if (key := _marked_key(node)) is not None and isinstance(key[1], str)}
    return found


def _cli_catalog(locale: str) -> dict[str, str]:
    """msgid -> translation of the help texts of cli.po (argparse's own help headings included)."""
    with (LOCALES_DIR / locale / "LC_MESSAGES" / "cli.po").open("rb") as handle:
        catalog = read_po(handle, locale=locale)
    help_texts = _parser_msgids() | IN_HELP
    return {message.id: message.string for message in catalog if message.id in help_texts}


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _shows(help_text: str, phrase: str) -> bool:
    """Whether the help shows a phrase, however argparse wrapped its lines; a one-word placeholder as a whole word
    (``FILE`` is not in ``BALCAO_MUNICIPALITIES_FILE``, ``TEXT`` not in ``TEXTO``)."""
    if " " not in phrase.strip():
        return re.search(rf"(?<!\w){re.escape(phrase.strip())}(?!\w)", help_text) is not None
    return _squeezed(phrase) in _squeezed(help_text)


def test_the_top_help_and_run_help_are_portuguese(speak: Speak, capsys: pytest.CaptureFixture[str]) -> None:
    speak("pt_BR")
    code, out, _err = _run(capsys, "--help")
    assert code == 0
    assert out.startswith("uso: python -m bot [-h] COMANDO ...")
    assert "Balcão: o balcão de atendimento da prefeitura no Telegram." in out
    assert "\nopções:\n  -h, --help  mostrar esta ajuda e sair" in out
    assert _shows(out, "rodar o bot (polling; webhook se BALCAO_WEBHOOK_URL estiver definida)")
    code, out, _err = _run(capsys, "run", "--help")
    assert code == 0
    assert out.startswith("uso: python -m bot run [-h] [--bots BOT[,BOT…]]")
    assert _shows(out, "atender só estes bots (padrão: todos os bots da instalação; 'default' é o principal)")
    code, out, _err = _run(capsys, "staff", "add", "--help")
    assert "[--municipality MUNICÍPIO]" in out and "\nargumentos:\n  ID_TELEGRAM" in out


def test_every_subcommand_helps_in_portuguese_with_no_english_help_text_left(
    speak: Speak, capsys: pytest.CaptureFixture[str]
) -> None:
    speak("pt_BR")
    shown = _all_help(capsys)
    portuguese = _cli_catalog("pt_BR")
    assert [english for english, text in portuguese.items() if not _shows(shown, text)] == []
    assert [english for english, text in portuguese.items() if text != english and _shows(shown, english)] == []


def test_in_english_every_help_text_of_the_catalog_is_shown(speak: Speak, capsys: pytest.CaptureFixture[str]) -> None:
    """The other half of the test above: the walk reaches every subcommand, and each msgid really is help text."""
    speak("en")
    shown = _all_help(capsys)
    assert shown.startswith("usage: python -m bot [-h] COMMAND ...")
    assert [english for english in _cli_catalog("en") if not _shows(shown, english)] == []


def test_a_usage_error_is_portuguese_and_exits_2(speak: Speak, capsys: pytest.CaptureFixture[str]) -> None:
    speak("pt_BR")
    code, out, err = _run(capsys, "staff", "add", "12")
    assert code == 2 and out == ""
    assert err.startswith("uso: python -m bot staff add [-h] --role {admin,")
    assert err.endswith("python -m bot staff add: erro: faltou informar: --role\n")
    code, _out, err = _run(capsys, "staff", "add", "doze", "--role", "admin")
    assert code == 2 and err.endswith("erro: ID_TELEGRAM: 'doze' não é um número inteiro\n")
    code, _out, err = _run(capsys, "notice")
    assert code == 2 and err.endswith("python -m bot notice: erro: faltou informar: AÇÃO\n")
    code, _out, err = _run(capsys, "nada")
    assert code == 2 and "erro: COMANDO: 'nada' não é uma das opções (escolha entre 'db', 'staff', " in err


def test_the_same_usage_error_in_english(speak: Speak, capsys: pytest.CaptureFixture[str]) -> None:
    speak("en")
    code, _out, err = _run(capsys, "staff", "add", "12")
    assert code == 2
    assert err.endswith("python -m bot staff add: error: the following arguments are required: --role\n")


def test_help_works_in_portuguese_when_the_settings_are_invalid(
    speak: Speak, capsys: pytest.CaptureFixture[str]
) -> None:
    speak("fr")  # not a supported locale: the settings are invalid; the command itself would say so
    code, out, _err = _run(capsys, "--help")
    assert code == 0 and out.startswith("uso: python -m bot")


def test_argparse_speaks_english_again_outside_the_cli(speak: Speak, capsys: pytest.CaptureFixture[str]) -> None:
    speak("pt_BR")
    _run(capsys, "--help")
    other = argparse.ArgumentParser(prog="other")
    assert other.format_help().startswith("usage: other [-h]")
    assert "show this help message and exit" in other.format_help()


def test_the_argparse_texts_are_argparses_own_and_keep_their_placeholders() -> None:
    """A Python upgrade that rewords one of them (3.10's "optional arguments" became "options") fails here."""
    extracted = {message for _line, message, _comments, _context in extract_from_file("python", argparse.__file__)}
    assert set(ARGPARSE_TEXTS) <= extracted
    for locale in SUPPORTED_LOCALES:
        tr = translator(locale)
        for text in ARGPARSE_TEXTS:
            assert sorted(PERCENT.findall(tr._(text))) == sorted(PERCENT.findall(text)), (locale, text)
            assert tr._(text).endswith("\n") == text.endswith("\n")
