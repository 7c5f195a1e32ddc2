"""Catalog tooling: extract the msgids used in the code, find the ones missing from the catalogs, compile.

``python -m bot.catalogs compile`` is run by ``make`` (the ``.mo`` files are build products, not in git).
``python -m bot.catalogs missing`` lists, per locale, the msgids of the code that no ``.po`` translates yet,
the texts that reach people without being marked, and the msgids used for two meanings (``bot.catalog_scan``);
``python -m bot.catalogs add AREA`` appends the missing ones (untranslated) to ``locales/<locale>/LC_MESSAGES/AREA.po``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from bot.catalog_scan import Key, ambiguous, scan
from core.i18n import SOURCE_LOCALES_DIR, SUPPORTED_LOCALES

LOCALES_DIR = SOURCE_LOCALES_DIR  # the tooling works on a source checkout
ROOT = LOCALES_DIR.parent
SOURCE_DIRS = ("core", "bot", "handlers", "notifications", "models")
PLURAL_FORMS = {"pt_BR": "nplurals=2; plural=(n > 1);", "en": "nplurals=2; plural=(n != 1);",
                "es": "nplurals=2; plural=(n != 1);"}


def extract() -> dict[Key, list[tuple[str, int]]]:
    """Every translatable string in the code: (context, msgid or (singular, plural)) -> where it is used."""
    marked = scan(ROOT, SOURCE_DIRS).marked
    return {key: [(use.path, use.line) for use in uses] for key, uses in marked.items()}


def _read(path: Path, locale: str) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale=locale)


def catalogs(locale: str) -> Iterable[tuple[Path, Catalog]]:
    """Every area catalog of a locale."""
    for path in sorted((LOCALES_DIR / locale / "LC_MESSAGES").glob("*.po")):
        yield path, _read(path, locale)


def key(message: Message) -> Key:
    """The (context, msgid) of a catalog entry, as :func:`extract` names it."""
    msgid = message.id if isinstance(message.id, str) else (message.id[0], message.id[1])
    return message.context, msgid


def missing(locale: str) -> list[Key]:
    """Msgids used in the code that no catalog of ``locale`` has."""
    known = {key(message) for _path, catalog in catalogs(locale) for message in catalog if message.id}
    return [msgid for msgid in extract() if msgid not in known]


def add(area: str) -> int:
    """Append the missing msgids (empty translations) to each locale's ``AREA.po``; return how many."""
    used = extract()
    count = 0
    for locale in SUPPORTED_LOCALES:
        path = LOCALES_DIR / locale / "LC_MESSAGES" / f"{area}.po"
        path.parent.mkdir(parents=True, exist_ok=True)
        catalog = _read(path, locale) if path.exists() else Catalog(locale=locale, domain=area, project="Balcão")
        catalog.fuzzy = False
        # Babel's pt_BR header has three plural forms; Balcão uses two everywhere (DESIGN.md).
        catalog._num_plurals = 2  # type: ignore[assignment]
        catalog._plural_expr = PLURAL_FORMS[locale].split("plural=")[1].rstrip(";")  # type: ignore[assignment]
        for context, msgid in missing(locale):
            catalog.add(msgid, string=("", "") if isinstance(msgid, tuple) else "",
                        locations=used[context, msgid], context=context)
            count += 1
        _write(path, catalog)
    return count


def _write(path: Path, catalog: Catalog) -> None:
    with path.open("wb") as handle:
        write_po(handle, catalog, width=100, omit_header=False, sort_output=False, include_lineno=False)


def compile_all() -> int:
    """Compile every ``.po`` to ``.mo`` beside it; return how many."""
    count = 0
    for locale in SUPPORTED_LOCALES:
        for path, catalog in catalogs(locale):
            with path.with_suffix(".mo").open("wb") as handle:
                write_mo(handle, catalog, use_fuzzy=False)
            count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    """Command line of the catalog tooling."""
    parser = argparse.ArgumentParser(prog="python -m bot.catalogs", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("compile", help="compile every .po to .mo")
    commands.add_parser("missing", help="list msgids of the code missing from the catalogs")
    add_parser = commands.add_parser("add", help="append missing msgids to locales/*/LC_MESSAGES/AREA.po")
    add_parser.add_argument("area")
    args = parser.parse_args(argv)
    if args.command == "compile":
        print(f"compiled {compile_all()} catalogs")
        return 0
    if args.command == "add":
        print(f"added {add(args.area)} entries")
        return 0
    gaps = {locale: missing(locale) for locale in SUPPORTED_LOCALES}
    for locale, keys in gaps.items():
        for context, msgid in keys:
            print(f"{locale}: {msgid!r}" + (f" (context {context!r})" if context else ""))
    found = scan(ROOT, SOURCE_DIRS)
    for path, line, text in found.unmarked:
        print(f"{path}:{line}: not marked for translation: {text!r}")
    twice = ambiguous(found)
    for (_context, msgid), uses in twice.items():
        print(f"{msgid!r} is both a button and a text, give each a context: "
              + ", ".join(f"{use.path}:{use.line} ({use.role})" for use in uses if use.role))
    return 1 if any(gaps.values()) or found.unmarked or twice else 0


if __name__ == "__main__":
    sys.exit(main())
