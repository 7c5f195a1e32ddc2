"""Build step of the wheel: compile the gettext catalogs into the package (the metadata is in pyproject.toml).

The ``.po`` files stay at the top of the repository (``locales/``, edited by translators); a wheel carries
their compiled ``.mo`` under ``core/locales/<locale>/LC_MESSAGES/`` so an installed Balcão speaks Portuguese
from any folder. An editable install (``pip install -e .``, ``make setup``) reads ``locales/`` in place instead.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SOURCE_LOCALES = Path(__file__).resolve().parent / "locales"


class BuildPyWithCatalogs(build_py):
    """``build_py`` plus ``locales/*/LC_MESSAGES/*.po`` compiled to ``core/locales/…/*.mo`` in the build."""

    def run(self) -> None:
        """Build the Python files, then compile every catalog next to them."""
        super().run()
        if getattr(self, "editable_mode", False):
            return
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        sources = sorted(SOURCE_LOCALES.glob("*/LC_MESSAGES/*.po"))
        if not sources:
            raise SystemExit(f"no catalogs to compile in {SOURCE_LOCALES}")
        for po_path in sources:
            locale = po_path.parent.parent.name
            target = Path(self.build_lib) / "core" / "locales" / locale / "LC_MESSAGES" / f"{po_path.stem}.mo"
            target.parent.mkdir(parents=True, exist_ok=True)
            with po_path.open("rb") as handle:
                catalog = read_po(handle, locale=locale)
            with target.open("wb") as handle:
                write_mo(handle, catalog, use_fuzzy=False)


setup(cmdclass={"build_py": BuildPyWithCatalogs})
