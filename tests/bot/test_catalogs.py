"""The catalogs cover every string of the code, in every language, with the same placeholders."""

import re
from pathlib import Path

import pytest

from bot.catalog_scan import Key, ambiguous, scan, scan_file
from bot.catalogs import ROOT, SOURCE_DIRS, catalogs, extract, key, missing
from core.i18n import SUPPORTED_LOCALES

PLACEHOLDER = re.compile(r"\{(\w*)[^{}]*\}")


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_no_string_of_the_code_is_missing_from_the_catalogs(locale: str) -> None:
    assert missing(locale) == []


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_every_entry_is_translated_not_fuzzy_and_keeps_its_placeholders(locale: str) -> None:
    problems = []
    for path, catalog in catalogs(locale):
        for message in catalog:
            if not message.id:
                continue
            ids = [message.id] if isinstance(message.id, str) else list(message.id)
            strings = [message.string] if isinstance(message.string, str) else list(message.string)
            if message.fuzzy or not all(strings):
                problems.append((path.name, ids[0], "untranslated or fuzzy"))
                continue
            expected = set(PLACEHOLDER.findall(ids[-1]))
            for string in strings:
                if set(PLACEHOLDER.findall(string)) != expected:
                    problems.append((path.name, ids[0], f"placeholders {PLACEHOLDER.findall(string)}"))
    assert problems == []


def test_the_catalogs_hold_no_stale_entries() -> None:
    used = set(extract())
    stale = []
    for locale in SUPPORTED_LOCALES:
        for path, catalog in catalogs(locale):
            for message in catalog:
                if not message.id:
                    continue
                if key(message) not in used:
                    stale.append((locale, path.name, key(message)))
    assert stale == []


SAMPLE = """
def screen(tr, view, n):
    reply(update, context, f"<b>{esc(tr._('Timeline'))}</b>")
    rows = [[(tr.pgettext("button", "Answer"), "pend:answer:1")]]
    label = tr._("Done") if n else tr._("Skip")
    rows.append([(label, "x:done")])
    text = tr.ngettext("{n} file", "{n} files", n) + tr.npgettext("notice", "{n} day", "{n} days", n)
    LABEL = N_("Archived")
    reply(update, context, "Hello " + view.name)
    keyboard([[("Cancel", "x:cancel")]])
    InlineKeyboardButton(text=f"See {view.protocol}", callback_data="x")
    reply(update, context, f"<b>{view.protocol}</b> — 🔎")
    reply(update, context, tr._("Answer"))
    keyboard([[(tr._("Answer"), "x:answer")]])
"""


def _sample(tmp_path: Path) -> dict[Key, list[str]]:
    source = tmp_path / "sample.py"
    source.write_text(SAMPLE)
    found = scan_file(source, "sample.py")
    return {key: [use.role for use in uses] for key, uses in found.marked.items()} | {
        ("unmarked", text): [] for _path, _line, text in found.unmarked}


def test_every_way_of_marking_a_string_is_extracted_even_inside_f_strings(tmp_path: Path) -> None:
    seen = _sample(tmp_path)
    assert seen[None, "Timeline"] == ["text"]  # inside an f-string: Babel's tokenizer missed it on Python 3.11
    assert seen["button", "Answer"] == ["button"]
    assert seen[None, "Done"] == ["button"] and seen[None, "Skip"] == ["button"]  # a label through a variable
    assert (None, ("{n} file", "{n} files")) in seen
    assert ("notice", ("{n} day", "{n} days")) in seen
    assert seen[None, "Archived"] == [""]  # N_: translated where it is used


def test_the_scan_finds_text_sent_to_people_without_being_marked(tmp_path: Path) -> None:
    unmarked = {text for (context, text) in _sample(tmp_path) if context == "unmarked"}
    assert unmarked == {"Hello ", "Cancel", "See "}  # "<b>{protocol}</b> — 🔎" has no words to translate


def test_the_scan_finds_one_msgid_used_as_a_button_and_as_a_text(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text(SAMPLE)
    twice = ambiguous(scan(tmp_path, (".",)))
    assert list(twice) == [(None, "Answer")]


def test_no_text_reaches_people_without_being_marked_for_translation() -> None:
    assert scan(ROOT, SOURCE_DIRS).unmarked == []


def test_one_msgid_one_meaning_a_word_that_is_a_button_and_a_heading_has_a_context() -> None:
    """pt_BR says "Responder" on the staff button and "Resposta" over the Ombudsman's answer: two msgids."""
    assert ambiguous(scan(ROOT, SOURCE_DIRS)) == {}


REFUSALS = """
def refuse(tr, text, reader):
    raise CommandError(f"--hora {text!r}: use HH:MM")
    raise CommandError(tr._('--hora "{value}": write HH:MM, e.g. 09:30').format(value=text))
    reader._row_error("vistoria_data and vistoria_resultado go together: fill both or neither")
    reader._row_error(N_("{column} is empty"), column="cpf")
    raise InvalidIdentifier("CPF must have 11 digits")
    raise HeadFormatError(N_("root_hash is not 32 bytes"))
"""


def test_a_cli_refusal_or_a_models_reason_left_in_english_is_found(tmp_path: Path) -> None:
    """A CLI command's refusal is printed as it is, and a reason of the models is a msgid the reader translates:
    a literal there that is not marked never reaches a catalog."""
    source = tmp_path / "refusals.py"
    source.write_text(REFUSALS)
    unmarked = {text for _path, _line, text in scan_file(source, "refusals.py").unmarked}
    assert unmarked == {"--hora : use HH:MM", "vistoria_data and vistoria_resultado go together: fill both or neither",
                        "CPF must have 11 digits"}
