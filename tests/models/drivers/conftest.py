from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.settings import Settings, load_settings


@pytest.fixture
def rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Default settings without a database (for the pure status rules)."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("BALCAO_"):
            monkeypatch.delenv(name)
    return load_settings(database_url="sqlite+aiosqlite://")
