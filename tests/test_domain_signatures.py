"""Domain functions take the municipality as a typed value, never the app's whole Settings (issue 19 §3).

A case, a driver registration or an Open311 request belongs to one municipality (CF Art. 30 I), so the functions of
the converted packages take ``city: Municipality`` or ``cities: Cities`` (``core.municipality``), and deployment
values as keyword arguments of their own (``Timestamping``, ``posts_per_hour``): none has a parameter typed
``Settings``, which carries the bot token and the database URL. Read from the source (AST), so a new function that
takes ``Settings`` fails here; the second test shows the check bites.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

CONVERTED = ("models", "notifications")
"""The domain and the notification engine: their functions take a municipality (issue 19 §3)."""

STILL_SETTINGS = {
    "notifications/dispatcher.py": "builds the sending bot from the token and the deployment's dispatch rates",
    "notifications/service.py": "the notification engine of `run`: builds the scans' inputs and the dispatchers",
    "notifications/scans.py": "ScanInputs.of builds the scans' inputs once, from the settings the engine is given",
}
"""Modules of those packages that still take ``Settings``, and why."""


def settings_parameters(source: str) -> list[str]:
    """``function(parameter)`` for every parameter annotated ``Settings`` (or ``Settings | None``) in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        arguments = node.args
        for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
            if argument.annotation is not None and "Settings" in {
                name.id for name in ast.walk(argument.annotation) if isinstance(name, ast.Name)
            } | {text.value for text in ast.walk(argument.annotation)
                 if isinstance(text, ast.Constant) and isinstance(text.value, str)}:
                found.append(f"{node.name}({argument.arg})")
    return found


def _converted_modules() -> list[Path]:
    return sorted(path for package in CONVERTED for path in (ROOT / package).rglob("*.py")
                  if str(path.relative_to(ROOT)) not in STILL_SETTINGS)


@pytest.mark.parametrize("path", _converted_modules(), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_domain_function_takes_the_settings(path: Path) -> None:
    assert settings_parameters(path.read_text(encoding="utf-8")) == []


def test_the_check_finds_a_settings_parameter_however_it_is_written() -> None:
    source = (
        "def a(*, session, settings: Settings) -> None: ...\n"
        "async def b(x, s: Settings | None = None) -> None: ...\n"
        "def c(*, city: Municipality) -> None: ...\n"
        "class K:\n    def d(self, settings: 'Settings') -> None: ...\n"
    )
    assert settings_parameters(source) == ["a(settings)", "b(s)", "d(settings)"]


def test_the_exceptions_are_modules_that_exist() -> None:
    assert all((ROOT / name).is_file() for name in STILL_SETTINGS)
