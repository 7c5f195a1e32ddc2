"""Each entry point imports on its own: an import cycle hidden by the order the test suite happens to use fails here."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "module",
    ["bot.cli", "bot.app", "bot.running", "bot.sandbox.demo", "bot.sandbox.emulator", "bot.sandbox.demo_data",
     "notifications.plugins", "models"],
)
def test_the_module_imports_first(module: str) -> None:
    result = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT, capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stderr
