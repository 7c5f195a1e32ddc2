"""Fixtures of the core tests."""

import os
from pathlib import Path

import pytest


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Settings read only from the test: no BALCAO_* variable of the machine, no .env in the working directory."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("BALCAO_"):
            monkeypatch.delenv(name)
