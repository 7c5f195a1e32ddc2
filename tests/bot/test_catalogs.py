"""The catalogs cover every string of the code, in every language, with the same placeholders."""

import re

import pytest

from bot.catalogs import catalogs, extract, missing
from bot.i18n import SUPPORTED_LOCALES

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
                key = message.id if isinstance(message.id, str) else (message.id[0], message.id[1])
                if key not in used:
                    stale.append((locale, path.name, key))
    assert stale == []
