"""The console's catalog adds only its own msgids: one that another area's catalog already translates would
override it in the merged catalog (the .mo files of a locale are merged in name order), changing the chat's words."""

import pytest

from bot.catalogs import catalogs, key
from core.i18n import SUPPORTED_LOCALES


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_console_po_repeats_no_msgid_of_another_area(locale: str) -> None:
    found = {path.name: {key(m) for m in catalog if m.id} for path, catalog in catalogs(locale)}
    console = found.pop("console.po")
    others = set().union(*found.values())
    assert sorted(map(str, console & others)) == []
